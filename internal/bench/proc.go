package bench

import (
	"fmt"
	"os/exec"
	"runtime"
	"syscall"
)

// ownedProcess is a server process this harness started (PostgreSQL's
// postmaster, a Cassandra JVM) and that must not outlive it.
type ownedProcess struct {
	cmd *exec.Cmd
	// exited is closed once the process has exited and been reaped;
	// waitErr is then its exit status.
	exited  chan struct{}
	waitErr error
}

// startOwned starts cmd so that the kernel sends it deathSignal when this
// process dies without stopping it (a panic, kill -9), in a process group
// of its own so that a terminal's ^C reaches only the harness, which then
// stops it.
//
// Pdeathsig fires when the thread that started the child dies, not the
// process, and the Go runtime ends a thread when a goroutine locked to it
// returns: the child is therefore started from a goroutine locked to its
// thread for as long as the child runs, so that no other goroutine's
// LockOSThread can end that thread and take the server down mid-run.
func startOwned(cmd *exec.Cmd, deathSignal syscall.Signal) (*ownedProcess, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = deathSignal
	cmd.SysProcAttr.Setpgid = true
	p := &ownedProcess{cmd: cmd, exited: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		defer close(p.exited)
		if err := cmd.Start(); err != nil {
			p.waitErr = err
			started <- err
			return
		}
		started <- nil
		p.waitErr = cmd.Wait()
	}()
	if err := <-started; err != nil {
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	return p, nil
}

// pid is the process id; it stays the process's own until exited is
// closed, since only this package reaps it.
func (p *ownedProcess) pid() int { return p.cmd.Process.Pid }

func (p *ownedProcess) hasExited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// signal sends sig unless the process has exited.
func (p *ownedProcess) signal(sig syscall.Signal) {
	if !p.hasExited() {
		_ = p.cmd.Process.Signal(sig)
	}
}

// kill ends the process at once and waits until it is reaped.
func (p *ownedProcess) kill() {
	p.signal(syscall.SIGKILL)
	<-p.exited
}
