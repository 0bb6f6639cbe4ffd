package cassandra

import (
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestFreePorts: the ports differ, lie below the ephemeral range and can
// be bound on every address asked for.
func TestFreePorts(t *testing.T) {
	addrs := []string{"127.0.0.1", "127.0.0.2", "127.0.0.3"}
	ports, err := freePorts(5, addrs...)
	if err != nil {
		t.Fatal(err)
	}
	low, high := portRange()
	seen := map[int]bool{}
	for _, p := range ports {
		if seen[p] || p < low || p >= high {
			t.Errorf("ports %v: %d repeated or outside [%d, %d)", ports, p, low, high)
		}
		seen[p] = true
		for _, a := range addrs {
			l, err := net.Listen("tcp4", net.JoinHostPort(a, strconv.Itoa(p)))
			if err != nil {
				t.Errorf("port %d on %s: %v", p, a, err)
				continue
			}
			l.Close()
		}
	}
}

// TestOwnsListener: a listener of this process is ours, not another
// process's, and not ours once closed.
func TestOwnsListener(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ownsListener reads /proc")
	}
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	ip := net.ParseIP("127.0.0.1")
	if owned, err := ownsListener(os.Getpid(), ip, port); err != nil || !owned {
		t.Errorf("ownsListener(self, %d) = %v, %v; want true", port, owned, err)
	}
	other := exec.Command("sleep", "30")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { other.Process.Kill(); other.Wait() }()
	if owned, err := ownsListener(other.Process.Pid, ip, port); err != nil || owned {
		t.Errorf("ownsListener(sleep, %d) = %v, %v; want false", port, owned, err)
	}
	l.Close()
	if owned, err := ownsListener(os.Getpid(), ip, port); err != nil || owned {
		t.Errorf("ownsListener(self, %d) after Close = %v, %v; want false", port, owned, err)
	}
}

// TestScriptRefusesPortInUse: start-node refuses a native port that
// something listens on, rather than start a node that cannot bind it.
func TestScriptRefusesPortInUse(t *testing.T) {
	if err := Install(); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	ports, err := freePorts(2, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Cleanup(func() { runScript(t, "stop", dir, "--kill") })
	out, code := runScript(t, "start-node", dir, "--native-port", port,
		"--storage-port", strconv.Itoa(ports[0]), "--jmx-port", strconv.Itoa(ports[1]))
	if want := "127.0.0.1:" + port + " is in use already"; code == 0 || !strings.Contains(out, want) {
		t.Errorf("start-node on a busy native port: exit %d, output %q; want a failure saying %q", code, out, want)
	}
}
