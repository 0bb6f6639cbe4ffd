package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/partita-db/partita/internal/protocol"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	buildDir  string
)

// buildPartita builds the command once per test binary, with a version set
// through -ldflags as a release build does.
func buildPartita(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "partita-bin")
		if buildErr != nil {
			return
		}
		binPath = filepath.Join(buildDir, "partita")
		out, err := exec.Command("go", "build", "-ldflags", "-X main.version=1.2.3-test", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = &buildError{err: err, out: out}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

type buildError struct {
	err error
	out []byte
}

func (e *buildError) Error() string { return "go build: " + e.err.Error() + "\n" + string(e.out) }

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	if code == 0 {
		// No goroutine may outlive the tests (the in-process nodes stop).
		// gocql leaves a pool's redial loop behind when a session's connect
		// fails (tests refuse connections on purpose); it ends on its own.
		if err := goleak.Find(goleak.IgnoreAnyFunction("github.com/gocql/gocql.(*hostConnPool).connect"),
			goleak.IgnoreAnyFunction("github.com/gocql/gocql.(*hostConnPool).connectMany")); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

func TestVersionCommand(t *testing.T) {
	out, err := exec.Command(buildPartita(t), "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^partita 1\.2\.3-test \(go1\.\S+ \S+/\S+\)\n$`).Match(out) {
		t.Fatalf("version printed %q", out)
	}
}

var (
	cqlLine  = regexp.MustCompile(`CQL listening on ([0-9.]+:[0-9]+)`)
	httpLine = regexp.MustCompile(`HTTP listening on ([0-9.]+:[0-9]+)`)
)

// TestServe starts `partita serve` on free ports, waits for the listening
// line, checks /healthz and a CQL handshake, and stops it with SIGTERM,
// expecting exit status 0.
func TestServe(t *testing.T) {
	cmd, cqlAddr, httpAddr, logs := startServe(t, "--log-level", "debug")

	if httpAddr == "" {
		t.Fatalf("no HTTP listening line before the CQL one:\n%s", logs)
	}
	checkHealthz(t, httpAddr)
	checkHandshake(t, cqlAddr)
	checkMetrics(t, httpAddr)

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("partita serve exited with %v after SIGTERM:\n%s", err, logs)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("partita serve still running 30 s after SIGTERM:\n%s", logs)
	}
}

// startServe runs `partita serve` on free ports and a temporary data
// directory (plus extra flags) and waits until it listens; the process is
// killed when the test ends unless the test stopped it.
func startServe(t *testing.T, extra ...string) (cmd *exec.Cmd, cqlAddr, httpAddr string, logs *lockedBuffer) {
	t.Helper()
	bin := buildPartita(t)
	args := append([]string{"serve", "--cql-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0",
		"--data-dir", t.TempDir()}, extra...)
	cmd = exec.Command(bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })

	logs = &lockedBuffer{}
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			logs.WriteString(sc.Text() + "\n")
			lines <- sc.Text()
		}
		close(lines)
	}()
	deadline := time.After(60 * time.Second)
	for cqlAddr == "" {
		select {
		case line, ok := <-lines:
			if !ok {
				err := cmd.Wait()
				t.Fatalf("partita serve exited before listening (%v):\n%s", err, logs)
			}
			if m := httpLine.FindStringSubmatch(line); m != nil {
				httpAddr = m[1]
			}
			if m := cqlLine.FindStringSubmatch(line); m != nil {
				cqlAddr = m[1]
			}
		case <-deadline:
			t.Fatalf("no listening line after 60 s:\n%s", logs)
		}
	}
	go func() {
		for range lines {
		}
	}()
	return cmd, cqlAddr, httpAddr, logs
}

func checkHealthz(t *testing.T, addr string) {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || string(body) != "ok" {
		t.Fatalf("/healthz: %d %q", resp.StatusCode, body)
	}
}

func checkMetrics(t *testing.T, addr string) {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if !bytes.Contains(body, []byte(`partita_cql_requests_total{opcode="OPTIONS"} 1`)) {
		t.Fatalf("/metrics lacks the OPTIONS request:\n%s", body)
	}
}

// checkHandshake does OPTIONS and STARTUP as gocql does.
func checkHandshake(t *testing.T, addr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	req := protocol.AppendRequest(nil, 1, &protocol.Options{})
	req = protocol.AppendRequest(req, 2, &protocol.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0"}})
	if _, err := nc.Write(req); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(nc)
	for _, want := range []protocol.Opcode{protocol.OpSupported, protocol.OpReady} {
		f, err := protocol.ReadFrame(br, protocol.DefaultMaxBody)
		if err != nil {
			t.Fatal(err)
		}
		if f.Header.Opcode != want {
			t.Fatalf("got %s, want %s", f.Header.Opcode, want)
		}
	}
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) WriteString(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.WriteString(s)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
