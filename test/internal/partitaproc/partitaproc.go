package partitaproc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/partita-db/partita/internal/systables"
)

var (
	buildOnce sync.Once
	buildPath string
	buildErr  error
)

// Build builds cmd/partita once per test binary, into a temporary
// directory that RemoveBinary deletes, and returns its path. It is safe to
// call from any goroutine (a test may start the build early, in the
// background, while something slower starts).
func Build() (string, error) {
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "partita-test-bin")
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
	return buildPath, buildErr
}

// Binary is Build for a test: a failed build fails t.
func Binary(t testing.TB) string {
	t.Helper()
	path, err := Build()
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// RemoveBinary deletes the binary Binary built, if it built one; TestMain
// calls it once the tests have run.
func RemoveBinary() {
	if buildPath != "" {
		os.RemoveAll(filepath.Dir(buildPath))
	}
}

type commandError struct {
	what string
	err  error
	out  []byte
}

func (e *commandError) Error() string { return e.what + ": " + e.err.Error() + "\n" + string(e.out) }

// ListeningLine is the line `partita serve` logs once its CQL server is
// bound; HTTPListening the one for its HTTP port.
var (
	ListeningLine = regexp.MustCompile(`CQL listening on ([0-9.]+):([0-9]+)`)
	HTTPListening = regexp.MustCompile(`HTTP listening on ([0-9.]+:[0-9]+)`)
)

// Process is a `partita` child process.
type Process struct {
	Cmd *exec.Cmd
	// Host and Port are where its CQL server listens.
	Host string
	Port int
	// Logs holds what it wrote to standard error.
	Logs *Buffer
	// exited is closed once the process has been waited for; waitErr is
	// then Wait's result.
	exited  chan struct{}
	waitErr error
}

// Start runs the binary with args (starting with the command, "serve")
// and waits for its listening line. The process is killed when t ends if
// still alive.
func Start(t testing.TB, args ...string) *Process {
	t.Helper()
	cmd := exec.Command(Binary(t), args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &Process{Cmd: cmd, Logs: &Buffer{}, exited: make(chan struct{})}
	found := make(chan []string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.Logs.Write(append(sc.Bytes(), '\n'))
			if m := ListeningLine.FindStringSubmatch(sc.Text()); m != nil {
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
		p.Host = m[1]
		p.Port, _ = strconv.Atoi(m[2])
	case <-p.exited:
		t.Fatalf("partita %v exited before listening (%v):\n%s", args, p.waitErr, p.Logs)
	case <-time.After(60 * time.Second):
		t.Fatalf("partita %v printed no listening line in 60 s:\n%s", args, p.Logs)
	}
	return p
}

// Kill sends sig and waits up to 30 s for the process to exit, returning
// its exit error.
func (p *Process) Kill(t testing.TB, sig syscall.Signal) error {
	t.Helper()
	if err := p.Cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.exited:
		return p.waitErr
	case <-time.After(30 * time.Second):
		t.Fatalf("partita still running 30 s after %v:\n%s", sig, p.Logs)
	}
	return nil
}

// Exited is closed once the process has exited.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// HTTPAddr waits up to 30 s for the HTTP listening line and returns the
// address in it.
func (p *Process) HTTPAddr(t testing.TB) string {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := HTTPListening.FindStringSubmatch(p.Logs.String()); m != nil {
			return m[1]
		}
	}
	t.Fatalf("no HTTP listening line:\n%s", p.Logs)
	return ""
}

// Buffer is a bytes.Buffer safe for one writer and concurrent readers.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// AdminError is the answer of the admin API other than 200 OK.
type AdminError struct {
	Status string
	Body   string
}

func (e *AdminError) Error() string { return e.Status + ": " + e.Body }

// AdminSplit sends an operator split command (v: op, keyspace, table, key,
// strategy) to POST /admin/split of the server whose HTTP port is at
// httpAddr. An answer other than 200 OK is an *AdminError.
func AdminSplit(httpAddr string, v url.Values) error {
	resp, err := http.Post("http://"+httpAddr+"/admin/split?"+v.Encode(), "text/plain", nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return &AdminError{Status: resp.Status, Body: strings.TrimSpace(string(body))}
	}
	return nil
}

// Splits lists the split partitions from GET /admin/splits.
func Splits(httpAddr string) ([]systables.SplitInfo, error) {
	resp, err := http.Get("http://" + httpAddr + "/admin/splits")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		return nil, &AdminError{Status: resp.Status, Body: strings.TrimSpace(string(body))}
	}
	var splits []systables.SplitInfo
	err = json.NewDecoder(resp.Body).Decode(&splits)
	return splits, err
}
