package server

import (
	"net"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/partita-db/partita/internal/protocol"
)

// failingListener fails its first failures Accepts with err, as the
// kernel's accept(2) does when the process is out of descriptors, then
// accepts normally.
type failingListener struct {
	net.Listener
	failures atomic.Int32
	err      error
}

func (l *failingListener) Accept() (net.Conn, error) {
	if l.failures.Add(-1) >= 0 {
		return nil, l.err
	}
	return l.Listener.Accept()
}

// TestAcceptSurvivesResourceExhaustion: running out of file descriptors
// (EMFILE, ENFILE) must not end Serve. The errors are the values
// net.TCPListener.Accept returns (*net.OpError wrapping *os.SyscallError
// wrapping the errno); the server backs off and accepts the client waiting
// in the backlog. One warning is logged per burst of failures.
func TestAcceptSurvivesResourceExhaustion(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE} {
		t.Run(errno.Error(), func(t *testing.T) {
			var fl *failingListener
			ts := startServerWrapped(t, Config{}, func(ln net.Listener) net.Listener {
				fl = &failingListener{Listener: ln, err: &net.OpError{Op: "accept", Net: "tcp",
					Addr: ln.Addr(), Err: os.NewSyscallError("accept4", errno)}}
				fl.failures.Store(4)
				return fl
			})
			start := time.Now()
			c := ts.started(t)
			c.send(10, query("rows"))
			c.expect(10, protocol.OpResult)
			// 5+10+20+40 ms of backoff before the fifth Accept.
			if d := time.Since(start); d < 75*time.Millisecond {
				t.Fatalf("served after %v: the server did not back off", d)
			}
			select {
			case err := <-ts.serveErr:
				t.Fatalf("Serve returned %v", err)
			default:
			}
			logs := ts.logs.String()
			if n := strings.Count(logs, "accept failed"); n != 1 {
				t.Fatalf("%d accept warnings for one burst, want 1:\n%s", n, logs)
			}
			if !strings.Contains(logs, "failed_accepts=4") {
				t.Fatalf("recovery not logged:\n%s", logs)
			}
		})
	}
}

// TestAcceptPermanentErrorEndsServe: an error that is not temporary (the
// listener was closed under the server) still ends Serve, rather than
// spinning.
func TestAcceptPermanentErrorEndsServe(t *testing.T) {
	srv := newServer(Config{}, newFakeEngine(), nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fl := &failingListener{Listener: ln, err: &net.OpError{Op: "accept", Net: "tcp", Err: net.ErrClosed}}
	fl.failures.Store(1)
	if err := srv.Serve(fl); err == nil || err == ErrServerClosed {
		t.Fatalf("Serve returned %v, want the accept error", err)
	}
}
