package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// serverPackage is the server's command, which the harness builds when it
// is given no binary.
const serverPackage = "github.com/partita-db/partita/cmd/partita"

// buildServer builds serverPackage into dir with the go tool, from the
// module the working directory is in, and returns the binary's path.
func buildServer(ctx context.Context, dir string, log io.Writer) (string, error) {
	bin := filepath.Join(dir, "partita")
	fmt.Fprintf(log, "building the server (go build -o %s %s)\n", bin, serverPackage)
	out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, serverPackage).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build %s (run inside the module, or give --server-bin): %w\n%s", serverPackage, err, tail(out, 2000))
	}
	return bin, nil
}

// childNode is `partita serve` running as a child process of the harness,
// on a data directory of its own, with CQL and HTTP on free loopback ports.
type childNode struct {
	bin, dir string
	split    splitTiming
	// backendArgs are serve's flags choosing its store (the gateway
	// target's --backend cassandra ...); empty: the embedded store.
	backendArgs []string
	proc        *ownedProcess
	addr        string // CQL host:port
	httpAddr    string // /metrics host:port
	logPath     string
	// logDone is closed once the server's stderr has been copied to
	// logPath up to its end.
	logDone chan struct{}
}

// childStartTimeout bounds the server's start up to its "CQL listening"
// line.
const childStartTimeout = 2 * time.Minute

// listeningLine matches the lines `partita serve` logs once a listener is
// bound (cmd/partita/doc.go).
var listeningLine = regexp.MustCompile(`(CQL|HTTP) listening on ([^\s"]+)`)

// startChildNode starts bin serve on dir, with backendArgs, and waits for
// its CQL listener; the server's log goes to partita.log beside dir. The
// kernel kills the server if the harness dies without stopping it.
func startChildNode(ctx context.Context, bin, dir string, st splitTiming, backendArgs []string) (n *childNode, err error) {
	n = &childNode{bin: bin, dir: dir, split: st, backendArgs: backendArgs,
		logPath: filepath.Join(filepath.Dir(dir), "partita.log"), logDone: make(chan struct{})}
	args := []string{"serve", "--data-dir", dir, "--cql-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0"}
	args = append(args, backendArgs...)
	if st.window > 0 {
		args = append(args, "--split-window", st.window.String())
	}
	if st.tick > 0 {
		args = append(args, "--split-tick", st.tick.String())
	}
	logFile, err := os.OpenFile(n.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	// A pipe of our own rather than StderrPipe, which Wait (run as soon as
	// the process exits) would close before its last lines are read.
	stderr, w, err := os.Pipe()
	if err != nil {
		logFile.Close()
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stderr = w
	n.proc, err = startOwned(cmd, syscall.SIGKILL)
	w.Close()
	if err != nil {
		stderr.Close()
		logFile.Close()
		return nil, err
	}
	listening := make(chan [2]string, 2)
	go func() {
		defer close(n.logDone)
		defer logFile.Close()
		defer stderr.Close()
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(logFile, line)
			if m := listeningLine.FindStringSubmatch(line); m != nil {
				// Never blocks: once started, nobody reads, and a
				// blocked copy would stall the server's logging.
				select {
				case listening <- [2]string{m[1], m[2]}:
				default:
				}
			}
		}
		_, _ = io.Copy(logFile, stderr)
	}()
	timer := time.NewTimer(childStartTimeout)
	defer timer.Stop()
	for n.addr == "" {
		select {
		case l := <-listening:
			if l[0] == "CQL" {
				n.addr = l[1]
			} else {
				n.httpAddr = l[1]
			}
		case <-n.proc.exited:
			<-n.logDone
			return nil, fmt.Errorf("partita serve exited while starting (%v): %s", n.proc.waitErr, n.logTail())
		case <-timer.C:
			n.proc.kill()
			return nil, fmt.Errorf("partita serve did not listen within %s: %s", childStartTimeout, n.logTail())
		case <-ctx.Done():
			n.proc.kill()
			return nil, ctx.Err()
		}
	}
	return n, nil
}

// logTail is the end of the server's log, for errors.
func (n *childNode) logTail() string {
	b, _ := os.ReadFile(n.logPath)
	return strings.TrimSpace(string(tail(b, 2000)))
}

func (n *childNode) pid() int {
	if n.proc == nil || n.proc.hasExited() {
		return 0
	}
	return n.proc.pid()
}

// childStopTimeout bounds a graceful stop: the server's own bound on
// in-flight requests (30 s), then closing the engine and the storage.
const childStopTimeout = 90 * time.Second

// stop sends SIGTERM, as an operator would, and waits for the exit; a
// server still running after childStopTimeout is killed and the stop is
// an error, as is a non-zero exit.
func (n *childNode) stop() error {
	if n.proc == nil {
		return nil
	}
	n.proc.signal(syscall.SIGTERM)
	select {
	case <-n.proc.exited:
	case <-time.After(childStopTimeout):
		n.proc.kill()
		return fmt.Errorf("partita serve did not stop within %s of SIGTERM", childStopTimeout)
	}
	<-n.logDone
	if err := n.proc.waitErr; err != nil {
		return fmt.Errorf("partita serve: %w: %s", err, n.logTail())
	}
	return nil
}

// restartChildNode stops n, starts the server again on its directory, and
// times how long until query answers through a fresh driver session.
func restartChildNode(ctx context.Context, n *childNode, query string, conns int) (*childNode, Restart, error) {
	r := Restart{Query: query}
	t0 := time.Now()
	if err := n.stop(); err != nil {
		return nil, r, fmt.Errorf("stop: %w", err)
	}
	r.StopMs = millisSince(t0)
	r.DataBytes = dirSize(n.dir)
	t1 := time.Now()
	n2, err := startChildNode(ctx, n.bin, n.dir, n.split, n.backendArgs)
	if err != nil {
		return nil, r, fmt.Errorf("restart: %w", err)
	}
	r.OpenMs = millisSince(t1)
	if err := firstQuery(ctx, n2.addr, query, conns); err != nil {
		return n2, r, err
	}
	r.FirstQueryMs = millisSince(t1)
	return n2, r, nil
}
