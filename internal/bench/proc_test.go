package bench

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// alive reports whether pid is a process that has not exited (a zombie
// counts as exited).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command name in parentheses: "pid (comm) S ...".
	for i := len(b) - 1; i > 0; i-- {
		if b[i] == ')' && i+2 < len(b) {
			return b[i+2] != 'Z' && b[i+2] != 'X'
		}
	}
	return false
}

// startFromDoomedThread calls start on a goroutine locked to its thread
// that then returns without unlocking, so that the runtime ends the thread:
// the thread that a plain exec.Cmd.Start would have tied Pdeathsig to. The
// main thread is never ended (the runtime parks it instead), so a goroutine
// that lands there holds it, locked, until start has run elsewhere.
func startFromDoomedThread(start func()) {
	release := make(chan struct{})
	defer close(release)
	for {
		ran := make(chan bool)
		go func() {
			runtime.LockOSThread()
			if syscall.Gettid() == syscall.Getpid() {
				ran <- false
				<-release
				runtime.UnlockOSThread()
				return
			}
			defer func() { ran <- true }() // returns locked: the thread ends
			start()
		}()
		if <-ran {
			return
		}
	}
}

// TestOwnedProcessOutlivesStartingThread: a server started from a thread
// that ends keeps running (Pdeathsig fires on the death of the starting
// thread, not of the process). Before startOwned, PostgreSQL's postmaster
// was started on the caller's thread and got SIGQUIT when that thread
// ended.
func TestOwnedProcessOutlivesStartingThread(t *testing.T) {
	var p *ownedProcess
	var err error
	startFromDoomedThread(func() { p, err = startOwned(exec.Command("sleep", "60"), syscall.SIGKILL) })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.kill)
	time.Sleep(500 * time.Millisecond)
	if p.hasExited() {
		t.Fatalf("the child died with the thread that started it: %v", p.waitErr)
	}
}

// TestPostgresOutlivesStartingThread is the same check on a real
// PostgreSQL cluster, started as the harness starts its peer.
func TestPostgresOutlivesStartingThread(t *testing.T) {
	if !PostgresAvailable(DefaultPostgresBin) {
		t.Skipf("no PostgreSQL in %s", DefaultPostgresBin)
	}
	var c *pgCluster
	var err error
	startFromDoomedThread(func() { c, err = startPostgres(context.Background(), DefaultPostgresBin, 4) })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.stop() })
	time.Sleep(time.Second)
	if err := c.waitReady(context.Background()); err != nil || c.proc.hasExited() {
		t.Fatalf("PostgreSQL died with the thread that started it: %v (exit: %v)", err, c.proc.waitErr)
	}
}

// ownedHelperEnv makes TestHelperOwnedProcess start a child and hang.
const ownedHelperEnv = "PARTITA_BENCH_OWNED_HELPER"

// TestHelperOwnedProcess is not a test: TestOwnedProcessDiesWithHarness
// runs it in a child test binary, which starts a sleep as the harness
// starts its servers, prints its pid and waits to be killed.
func TestHelperOwnedProcess(t *testing.T) {
	if os.Getenv(ownedHelperEnv) == "" {
		return
	}
	p, err := startOwned(exec.Command("sleep", "300"), syscall.SIGKILL)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("CHILD %d\n", p.pid())
	time.Sleep(5 * time.Minute)
}

// TestOwnedProcessDiesWithHarness: a harness killed with SIGKILL, which
// runs no cleanup at all, leaves no server behind.
func TestOwnedProcessDiesWithHarness(t *testing.T) {
	harness := exec.Command(os.Args[0], "-test.run=^TestHelperOwnedProcess$", "-test.v", "-test.count=1")
	harness.Env = append(os.Environ(), ownedHelperEnv+"=1")
	stdout, err := harness.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := harness.Start(); err != nil {
		t.Fatal(err)
	}
	child := 0
	sc := bufio.NewScanner(stdout)
	for child == 0 && sc.Scan() {
		fmt.Sscanf(sc.Text(), "CHILD %d", &child)
	}
	if child == 0 {
		harness.Process.Kill()
		harness.Wait()
		t.Fatal("the helper printed no child pid")
	}
	harness.Process.Kill()
	harness.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for alive(child) {
		if time.Now().After(deadline) {
			syscall.Kill(child, syscall.SIGKILL)
			t.Fatalf("child %d still ran 10 s after its harness was killed", child)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
