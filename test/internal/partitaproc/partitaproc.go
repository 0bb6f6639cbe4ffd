package partitaproc

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"
	"testing"
	"time"
)

var build struct {
	once sync.Once
	path string
	err  error
}

// Binary builds cmd/partita into a temporary directory, once per test
// binary, and returns its path.
func Binary() (string, error) {
	build.once.Do(func() {
		dir, err := os.MkdirTemp("", "partita-bin-")
		if err != nil {
			build.err = err
			return
		}
		build.path = filepath.Join(dir, "partita")
		out, err := exec.Command("go", "build", "-o", build.path, "github.com/partita-db/partita/cmd/partita").CombinedOutput()
		if err != nil {
			build.err = fmt.Errorf("go build ./cmd/partita: %v\n%s", err, out)
		}
	})
	return build.path, build.err
}

// Remove deletes the binary Binary built, if any, waiting for a build
// still under way.
func Remove() {
	build.once.Do(func() {})
	if build.path != "" {
		os.RemoveAll(filepath.Dir(build.path))
	}
}

var (
	cqlLine  = regexp.MustCompile(`CQL listening on ([0-9.]+:[0-9]+)`)
	httpLine = regexp.MustCompile(`HTTP listening on ([0-9.]+:[0-9]+)`)
)

// Process is a running `partita serve`.
type Process struct {
	// CQLAddr and HTTPAddr are the host:port it logged it listens on
	// (HTTPAddr empty when HTTP is off).
	CQLAddr, HTTPAddr string

	cmd    *exec.Cmd
	logs   logBuffer
	exited chan struct{} // closed once cmd.Wait returned
	err    error         // Wait's result, once exited is closed
}

// StartupTimeout bounds the wait for the listening lines: a gateway
// connects to its cluster and creates its keyspace's tables first.
const StartupTimeout = 2 * time.Minute

// Start runs `partita serve` with args and waits for its listening lines
// (invariant 1). Give "--cql-addr 127.0.0.1:0" and "--http-addr
// 127.0.0.1:0" (or "") to get free ports. A process that does not start
// fails t.
func Start(t testing.TB, args ...string) *Process {
	t.Helper()
	bin, err := Binary()
	if err != nil {
		t.Fatal(err)
	}
	wantHTTP := true
	for i, a := range args {
		if a == "--http-addr" && i+1 < len(args) && args[i+1] == "" {
			wantHTTP = false
		}
	}
	cmd := exec.Command(bin, append([]string{"serve"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &Process{cmd: cmd, exited: make(chan struct{})}
	ready := make(chan struct{})
	go func() {
		var readyOnce sync.Once
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			p.logs.write(line)
			if m := cqlLine.FindStringSubmatch(line); m != nil {
				p.logs.setAddr(&p.CQLAddr, m[1])
			}
			if m := httpLine.FindStringSubmatch(line); m != nil {
				p.logs.setAddr(&p.HTTPAddr, m[1])
			}
			if cql, http := p.logs.addrs(&p.CQLAddr, &p.HTTPAddr); cql != "" && (http != "" || !wantHTTP) {
				readyOnce.Do(func() { close(ready) })
			}
		}
		io.Copy(io.Discard, stderr)
		p.err = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		if !p.Exited() {
			cmd.Process.Kill()
			<-p.exited
		}
	})
	select {
	case <-ready:
	case <-p.exited:
		t.Fatalf("partita serve exited before listening (%v):\n%s", p.err, p.Logs())
	case <-time.After(StartupTimeout):
		t.Fatalf("partita serve did not log its listening lines in %v:\n%s", StartupTimeout, p.Logs())
	}
	return p
}

// Logs is everything the process logged so far.
func (p *Process) Logs() string { return p.logs.String() }

// Exited reports whether the process has exited.
func (p *Process) Exited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// Signal sends sig and waits up to timeout for the process to exit,
// returning its exit error (nil for a clean exit).
func (p *Process) Signal(sig syscall.Signal, timeout time.Duration) error {
	if !p.Exited() {
		if err := p.cmd.Process.Signal(sig); err != nil {
			return err
		}
	}
	select {
	case <-p.exited:
		return p.err
	case <-time.After(timeout):
		return fmt.Errorf("partita serve still running %v after %v", timeout, sig)
	}
}

// logBuffer holds the process's log lines and the addresses read from
// them, written by the reading goroutine and read by the test.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) write(line string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.WriteString(line)
	b.buf.WriteByte('\n')
}

func (b *logBuffer) setAddr(field *string, addr string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	*field = addr
}

func (b *logBuffer) addrs(cql, http *string) (string, string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return *cql, *http
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
