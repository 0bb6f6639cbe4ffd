package cassandra

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// runScript runs scripts/cassandra.sh with args and returns its combined
// output and exit code.
func runScript(t *testing.T, args ...string) (string, int) {
	t.Helper()
	script, err := ScriptPath()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("bash", append([]string{script}, args...)...).CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	default:
		t.Fatalf("cassandra.sh %v: %v", args, err)
		return "", 0
	}
}

// isCassandraOf reports whether pid is a live Cassandra process started
// with dir's configuration (a zombie has an empty command line).
func isCassandraOf(pid int, dir string) bool {
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	return bytes.Contains(cmdline, []byte("org.apache.cassandra.service.CassandraDaemon")) &&
		bytes.Contains(cmdline, []byte("-Dcassandra.config=file://"+dir+"/conf/cassandra.yaml"))
}

// TestScriptStopSignalsOnlyItsNode: `stop` must not signal a process whose
// pid a stale pid file happens to name (here a sleep, standing for any
// process that reused the pid of a node gone since).
func TestScriptStopSignalsOnlyItsNode(t *testing.T) {
	other := exec.Command("sleep", "300")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { other.Wait(); close(done) }()
	t.Cleanup(func() { other.Process.Kill(); <-done })

	dir := t.TempDir()
	pidFile := filepath.Join(dir, "cassandra.pid")
	if err := os.WriteFile(pidFile, fmt.Appendf(nil, "%d\n", other.Process.Pid), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := runScript(t, "stop", dir)
	if code != 0 || !strings.Contains(out, "stale pid file removed") {
		t.Errorf("stop on a stale pid file: exit %d, output %q; want exit 0 and the stale pid file reported", code, out)
	}
	if _, err := os.Stat(pidFile); !os.IsNotExist(err) {
		t.Errorf("the stale pid file is still there (stat: %v)", err)
	}
	select {
	case <-done:
		t.Errorf("stop signalled pid %d, which is not its node: %v", other.Process.Pid, other.ProcessState)
	case <-time.After(500 * time.Millisecond):
	}
	if out, code := runScript(t, "status", dir); code != 3 || strings.TrimSpace(out) != "stopped" {
		t.Errorf("status of a stopped node: exit %d, output %q; want exit 3, stopped", code, out)
	}
}

// TestScriptRejectsBadOptions: start-node refuses what would make a node
// that cannot start or that listens elsewhere than asked, before starting
// anything.
func TestScriptRejectsBadOptions(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--native-port", "0"}, "--native-port wants a port number"},
		{[]string{"--native-port", "70000"}, "--native-port wants a port number"},
		{[]string{"--address", "localhost"}, "--address wants an IPv4 address"},
		{[]string{"--commitlog-sync", "group"}, "--commitlog-sync is batch or periodic"},
		{[]string{"--foreground", "--wait", "10"}, "--wait is for background nodes"},
		{[]string{"--no-such-option", "x"}, "unknown option --no-such-option"},
		{[]string{"--yaml", "authenticator"}, "--yaml wants KEY=VALUE"},
	} {
		dir := t.TempDir()
		// Should the script accept the option after all, the node it
		// started must not outlive the test.
		t.Cleanup(func() { runScript(t, "stop", dir, "--kill") })
		out, code := runScript(t, append([]string{"start-node", dir}, c.args...)...)
		if code == 0 || !strings.Contains(out, c.want) {
			t.Errorf("start-node %v: exit %d, output %q; want a failure saying %q", c.args, code, out, c.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "cassandra.pid")); err == nil {
			t.Errorf("start-node %v wrote a pid file", c.args)
		}
	}
}

// helperEnv selects what TestHelperNode does in a child test binary.
const helperEnv = "PARTITA_CASSANDRA_HELPER"

// TestHelperNode is not a test: TestNoStrayJVM runs it in a child test
// binary. It starts a node, prints the JVM's pid and directory, and then
// fails (mode "fail") or waits to be killed (mode "hang").
func TestHelperNode(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		return
	}
	n := Shared(t)
	fmt.Printf("JVM %d %s\n", n.Pid(), n.Dir)
	switch mode {
	case "fail":
		t.Fatal("deliberate failure: Main must still stop the node")
	case "hang":
		time.Sleep(5 * time.Minute)
	}
}

// TestNoStrayJVM checks invariant 3 from outside: a test binary whose test
// fails leaves no JVM behind (Main kills the shared node), and neither does
// one killed with SIGKILL, which runs no cleanup at all (Pdeathsig).
func TestNoStrayJVM(t *testing.T) {
	Require(t)
	if err := Install(); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"fail", "hang"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			child := exec.Command(os.Args[0], "-test.run=^TestHelperNode$", "-test.v", "-test.count=1")
			child.Env = append(os.Environ(), helperEnv+"="+mode)
			stdout, err := child.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			child.Stderr = &stderr
			if err := child.Start(); err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(stdout)
			var seen strings.Builder
			pid, dir, ok := readJVMLine(sc, &seen)
			if !ok {
				child.Process.Kill()
				child.Wait()
				t.Fatalf("the helper printed no JVM line:\n%s%s", seen.String(), stderr.String())
			}
			t.Cleanup(func() { killStray(t, pid, dir) })
			if mode == "hang" {
				child.Process.Signal(syscall.SIGKILL)
			}
			for sc.Scan() {
				seen.WriteString(sc.Text() + "\n")
			}
			err = child.Wait()
			if mode == "fail" {
				if err == nil {
					t.Errorf("the helper with a failing test exited 0:\n%s", seen.String())
				}
				// Pdeathsig would kill the JVM anyway once the child exits;
				// this line shows that Main stopped it first.
				if want := fmt.Sprintf("(pid %d) killed by cassandra.Main", pid); !strings.Contains(seen.String(), want) {
					t.Errorf("Main did not report killing the shared node (pid %d):\n%s%s", pid, seen.String(), stderr.String())
				}
			}
			deadline := time.Now().Add(15 * time.Second)
			for isCassandraOf(pid, dir) {
				if time.Now().After(deadline) {
					t.Fatalf("JVM %d of %s still runs 15 s after its test binary ended (%v)", pid, dir, err)
				}
				time.Sleep(100 * time.Millisecond)
			}
		})
	}
}

// readJVMLine scans the child's output for the line TestHelperNode prints,
// copying everything to output.
func readJVMLine(sc *bufio.Scanner, output *strings.Builder) (pid int, dir string, ok bool) {
	for sc.Scan() {
		line := sc.Text()
		output.WriteString(line + "\n")
		if _, err := fmt.Sscanf(line, "JVM %d %s", &pid, &dir); err == nil {
			return pid, dir, true
		}
	}
	return 0, "", false
}

// killStray kills a JVM that TestNoStrayJVM found still running, so that a
// failure of the test does not itself leave one behind, and removes the
// node's directory.
func killStray(t *testing.T, pid int, dir string) {
	if isCassandraOf(pid, dir) {
		t.Logf("killing stray JVM %d", pid)
		syscall.Kill(pid, syscall.SIGKILL)
	}
	os.RemoveAll(dir)
}
