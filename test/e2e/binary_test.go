package e2e_test

import (
	"os/exec"
	"syscall"
	"testing"

	"github.com/partita-db/partita/test/internal/partitaproc"
)

// The built binary and its processes (test/internal/partitaproc), under
// the names these tests use.

// partitaBinary builds cmd/partita once per test binary; TestMain removes
// it.
func partitaBinary(t *testing.T) string { return partitaproc.Binary(t) }

var listeningLine = partitaproc.ListeningLine

type syncBuffer = partitaproc.Buffer

// process is a `partita serve` child process.
type process struct {
	*partitaproc.Process
	cmd  *exec.Cmd
	host string
	port int
	logs *syncBuffer
}

// startPartita runs `partita serve` on a free port with dataDir (and any
// extra flags, which override the defaults) and waits for its listening
// line. The process is killed when t ends if still alive.
func startPartita(t *testing.T, dataDir string, extra ...string) *process {
	t.Helper()
	args := append([]string{"serve", "--data-dir", dataDir,
		"--cql-addr", "127.0.0.1:0", "--http-addr", "", "--log-level", "info"}, extra...)
	p := partitaproc.Start(t, args...)
	return &process{Process: p, cmd: p.Cmd, host: p.Host, port: p.Port, logs: p.Logs}
}

// kill sends sig and waits up to 30 s for the process to exit, returning
// its exit error.
func (p *process) kill(t *testing.T, sig syscall.Signal) error {
	t.Helper()
	return p.Kill(t, sig)
}

// startWithHTTP is startPartita with the HTTP port on a free port too; it
// returns the HTTP address once the server has logged it.
func startWithHTTP(t *testing.T, dataDir string, extra ...string) (*process, string) {
	t.Helper()
	p := startPartita(t, dataDir, append([]string{"--http-addr", "127.0.0.1:0"}, extra...)...)
	return p, p.HTTPAddr(t)
}
