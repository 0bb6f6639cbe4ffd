package testserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/partita-db/partita/internal/engine"
	"github.com/partita-db/partita/internal/server"
	"github.com/partita-db/partita/internal/storage"
)

// Options configure Start. The zero value is a node in a new temporary
// directory that Stop removes, logging nothing.
type Options struct {
	// DataDir is the data directory; empty means a new temporary one that
	// Stop removes.
	DataDir string
	// Logger receives the server's logs; nil discards them.
	Logger *slog.Logger
	// PasswordAuthentication is authenticator: PasswordAuthenticator;
	// SuperuserPassword the default superuser's first password ("" for
	// cassandra).
	PasswordAuthentication bool
	SuperuserPassword      string
	// Authorization is authorizer: CassandraAuthorizer.
	Authorization bool
	// MaterializedViews is materialized_views_enabled: true.
	MaterializedViews bool
	// Configure, when set, adjusts the engine's configuration last (the
	// request timeouts, guardrails and write-rate thresholds of a test).
	Configure func(*engine.Config)
}

// Server is a running in-process node.
type Server struct {
	// Host and Port are where the CQL server listens; Addr is host:port.
	Host    string
	Port    int
	Addr    string
	DataDir string

	store      *storage.Store
	eng        *engine.Engine
	cql        *server.Server
	served     chan error
	removeDir  bool
	stopOnce   sync.Once
	stopResult error
}

// Start brings a node up as Options say.
func Start(opts Options) (_ *Server, err error) {
	s := &Server{DataDir: opts.DataDir, served: make(chan error, 1)}
	if s.DataDir == "" {
		if s.DataDir, err = os.MkdirTemp("", "partita-test"); err != nil {
			return nil, err
		}
		s.removeDir = true
	}
	defer func() {
		if err != nil {
			s.Stop()
		}
	}()
	if s.store, err = storage.Open(storage.Options{Dir: s.DataDir}); err != nil {
		return nil, fmt.Errorf("open storage: %w", err)
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("CQL listener: %w", err)
	}
	addr := ln.Addr().(*net.TCPAddr)
	cfg := engine.DefaultConfig()
	cfg.RPCAddress = addr.IP
	cfg.ListenAddress = addr.IP
	cfg.NativePort = addr.Port
	cfg.Auth.PasswordAuthentication = opts.PasswordAuthentication
	cfg.Auth.SuperuserPassword = opts.SuperuserPassword
	cfg.Auth.Authorization = opts.Authorization
	cfg.MaterializedViewsEnabled = opts.MaterializedViews
	cfg.Auth.Logger = opts.Logger
	if cfg.Auth.Logger == nil {
		cfg.Auth.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Configure != nil {
		opts.Configure(&cfg)
	}
	if s.eng, err = engine.Open(context.Background(), s.store, cfg); err != nil {
		ln.Close()
		return nil, fmt.Errorf("open engine: %w", err)
	}
	s.cql = server.New(server.DefaultConfig(), s.eng, opts.Logger)
	go func() { s.served <- s.cql.Serve(ln) }()
	s.Host, s.Port = addr.IP.String(), addr.Port
	s.Addr = net.JoinHostPort(s.Host, strconv.Itoa(s.Port))
	return s, nil
}

// New starts a node in a directory of t's and stops it when t ends. Server
// logs at warning level and above go to t's log.
func New(t testing.TB) *Server {
	t.Helper()
	w := &testLogWriter{t: t}
	s, err := Start(Options{
		DataDir: t.TempDir(),
		Logger:  slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		t.Fatalf("start Partita: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("stop Partita: %v", err)
		}
		w.close()
	})
	return s
}

// Engine is the node's engine (tests that hold its locks or read its
// state directly).
func (s *Server) Engine() *engine.Engine { return s.eng }

// Stop shuts the node down, letting in-flight requests finish for up to
// ten seconds, and returns the first error met. Calls after the first
// return the same result.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		var errs []error
		if s.cql != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			errs = append(errs, s.cql.Shutdown(ctx))
			cancel()
			if err := <-s.served; !errors.Is(err, server.ErrServerClosed) {
				errs = append(errs, err)
			}
		}
		if s.eng != nil {
			errs = append(errs, s.eng.Close())
		}
		if s.store != nil {
			errs = append(errs, s.store.Close())
		}
		if s.removeDir {
			errs = append(errs, os.RemoveAll(s.DataDir))
		}
		s.stopResult = errors.Join(errs...)
	})
	return s.stopResult
}

// testLogWriter forwards log lines to t until closed: testing forbids
// logging after a test has finished.
type testLogWriter struct {
	t      testing.TB
	mu     sync.Mutex
	closed bool
}

var _ io.Writer = (*testLogWriter)(nil)

func (w *testLogWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed {
		w.t.Logf("partita: %s", p)
	}
	return len(p), nil
}

func (w *testLogWriter) close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
}
