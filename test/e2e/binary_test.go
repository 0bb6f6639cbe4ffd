package e2e_test

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	buildPath string
	buildErr  error
)

// partitaBinary builds cmd/partita once per test binary, into a temporary
// directory that TestMain removes.
func partitaBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "partita-e2e-bin")
		if err != nil {
			buildErr = err
			return
		}
		buildPath = filepath.Join(dir, "partita")
		out, err := exec.Command("go", "build", "-o", buildPath, "github.com/partita-db/partita/cmd/partita").CombinedOutput()
		if err != nil {
			buildErr = &commandError{"go build ./cmd/partita", err, out}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildPath
}

type commandError struct {
	what string
	err  error
	out  []byte
}

func (e *commandError) Error() string { return e.what + ": " + e.err.Error() + "\n" + string(e.out) }

var listeningLine = regexp.MustCompile(`CQL listening on ([0-9.]+):([0-9]+)`)

// process is a `partita serve` child process.
type process struct {
	cmd  *exec.Cmd
	host string
	port int
	logs *syncBuffer
	// exited is closed once the process has been waited for; waitErr is
	// then Wait's result.
	exited  chan struct{}
	waitErr error
}

// startPartita runs `partita serve` on a free port with dataDir (and any
// extra flags, which override the defaults) and waits for its listening
// line. The process is killed when t ends if still alive.
func startPartita(t *testing.T, dataDir string, extra ...string) *process {
	t.Helper()
	args := append([]string{"serve", "--data-dir", dataDir,
		"--cql-addr", "127.0.0.1:0", "--http-addr", "", "--log-level", "info"}, extra...)
	cmd := exec.Command(partitaBinary(t), args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{cmd: cmd, logs: &syncBuffer{}, exited: make(chan struct{})}
	found := make(chan []string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.logs.Write(append(sc.Bytes(), '\n'))
			if m := listeningLine.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m:
				default:
				}
			}
		}
		io.Copy(io.Discard, stderr)
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			cmd.Process.Kill()
			<-p.exited
		}
	})
	select {
	case m := <-found:
		p.host = m[1]
		p.port, _ = strconv.Atoi(m[2])
	case <-p.exited:
		t.Fatalf("partita serve exited before listening (%v):\n%s", p.waitErr, p.logs)
	case <-time.After(60 * time.Second):
		t.Fatalf("partita serve printed no listening line in 60 s:\n%s", p.logs)
	}
	return p
}

// kill sends sig and waits up to 30 s for the process to exit, returning
// its exit error.
func (p *process) kill(t *testing.T, sig syscall.Signal) error {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.exited:
		return p.waitErr
	case <-time.After(30 * time.Second):
		t.Fatalf("partita serve still running 30 s after %v:\n%s", sig, p.logs)
	}
	return nil
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startWithHTTP is startPartita with the HTTP port on a free port too; it
// returns the HTTP address once the server has logged it.
func startWithHTTP(t *testing.T, dataDir string, extra ...string) (*process, string) {
	t.Helper()
	p := startPartita(t, dataDir, append([]string{"--http-addr", "127.0.0.1:0"}, extra...)...)
	var httpAddr string
	if !waitFor(30*time.Second, func() bool {
		if m := httpListening.FindStringSubmatch(p.logs.String()); m != nil {
			httpAddr = m[1]
		}
		return httpAddr != ""
	}) {
		t.Fatalf("no HTTP listening line:\n%s", p.logs)
	}
	return p, httpAddr
}
