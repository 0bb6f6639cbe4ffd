package server

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/engine"
	"github.com/partita-db/partita/internal/protocol"
)

// ErrServerClosed is returned by Serve once Shutdown has been called.
var ErrServerClosed = errors.New("server: closed")

// Server serves the CQL native protocol on any number of listeners.
type Server struct {
	cfg     Config
	eng     engineAPI
	log     *slog.Logger
	metrics *serverMetrics
	// supported is the encoded body-less SUPPORTED message, shared by all.
	supported *protocol.Supported
	// budget bounds the request bytes held by all connections (invariant 7).
	budget *requestBudget
	// limits bounds the connections served, in all and per client address.
	limits *connLimits

	// baseCtx is the parent of every connection's context; cancelled when
	// Shutdown gives up waiting.
	baseCtx    context.Context
	cancelBase context.CancelFunc

	// conns counts the connections being served, for Shutdown to wait on.
	// Add happens under mu and only while !mu.closing (invariant 6).
	conns sync.WaitGroup

	mu struct {
		sync.Mutex
		closing   bool
		listeners map[net.Listener]struct{}
		conns     map[*conn]struct{}
	}
}

// New returns a server running requests on eng, which must not be nil. It
// registers for the engine's schema changes, to push them to connections
// that REGISTERed. A nil logger discards the logs.
func New(cfg Config, eng *engine.Engine, logger *slog.Logger) *Server {
	if m := eng.Auth(); cfg.Authenticator == nil && m != nil && m.PasswordAuthentication() {
		cfg.Authenticator = m
	}
	return newServer(cfg, engineAdapter{eng: eng}, logger)
}

func newServer(cfg Config, eng engineAPI, logger *slog.Logger) *Server {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	cfg = cfg.withDefaults()
	s := &Server{
		cfg:       cfg,
		eng:       eng,
		log:       logger,
		metrics:   newServerMetrics(cfg.Metrics),
		supported: supportedOptions(),
		budget:    newRequestBudget(cfg.MaxRequestDataInFlight, cfg.MaxRequestDataInFlightPerIP),
		limits:    newConnLimits(cfg.MaxConcurrentConnections, cfg.MaxConcurrentConnectionsPerIP),
	}
	s.baseCtx, s.cancelBase = context.WithCancel(context.Background())
	s.mu.listeners = make(map[net.Listener]struct{})
	s.mu.conns = make(map[*conn]struct{})
	eng.OnSchemaChange(s.pushSchemaChange)
	return s
}

// supportedOptions is the SUPPORTED answer (reference §1.5): snappy and
// lz4 frame compression, CQL 3.4.5 (Cassandra 4's), protocol v4 only.
func supportedOptions() *protocol.Supported {
	return &protocol.Supported{Options: map[string][]string{
		protocol.StartupCQLVersion:         {"3.4.5"},
		protocol.StartupCompression:        protocol.SupportedCompressions,
		protocol.SupportedProtocolVersions: protocol.SupportedVersions,
	}}
}

// Serve accepts connections on ln until Shutdown, serving each on its own
// goroutines. It returns ErrServerClosed after Shutdown, or the error that
// made Accept fail for good. Serve closes ln before returning.
func (s *Server) Serve(ln net.Listener) error {
	if !s.trackListener(ln) {
		ln.Close()
		return ErrServerClosed
	}
	defer s.untrackListener(ln)
	var (
		backoff  time.Duration
		failures int
	)
	for {
		nc, err := ln.Accept()
		if err != nil {
			if s.closing() {
				return ErrServerClosed
			}
			if !temporaryAcceptError(err) {
				return err
			}
			// Out of file descriptors and the like: the listener is fine,
			// wait for connections to close, as net/http does (5 ms
			// doubling to 1 s). Logged once per burst, not per attempt.
			if failures == 0 {
				s.log.Warn("accept failed; retrying with backoff", "err", err)
			}
			failures++
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			time.Sleep(backoff)
			continue
		}
		if failures > 0 {
			s.log.Info("accepting again", "failed_accepts", failures)
		}
		backoff, failures = 0, 0
		s.startConn(nc)
	}
}

// temporaryAcceptError reports whether Accept failed for a reason that
// leaves the listener usable: a timeout, or a resource the process or the
// system ran out of for now (EMFILE, ENFILE, ENOBUFS, ENOMEM), or a
// connection the peer dropped before it was accepted (ECONNABORTED,
// ECONNRESET), or an interrupted or would-block call (EINTR, EAGAIN): what
// accept(2) lists as transient, and syscall.Errno.Temporary's set.
func temporaryAcceptError(err error) bool {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		switch errno {
		case syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM,
			syscall.ECONNABORTED, syscall.ECONNRESET, syscall.EINTR, syscall.EAGAIN:
			return true
		}
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// Shutdown stops accepting connections and reading requests, lets the
// requests already read finish and their replies go out, and closes every
// connection. If ctx ends first, it closes the remaining connections at
// once, cancels their requests' contexts and returns ctx.Err().
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.mu.closing = true
	for ln := range s.mu.listeners {
		ln.Close()
	}
	for c := range s.mu.conns {
		c.stopReading()
	}
	s.mu.Unlock()

	done := make(chan struct{})
	go func() {
		s.conns.Wait()
		close(done)
	}()
	select {
	case <-done:
		s.cancelBase()
		return nil
	case <-ctx.Done():
	}
	s.cancelBase()
	s.mu.Lock()
	for c := range s.mu.conns {
		c.abort()
	}
	s.mu.Unlock()
	return ctx.Err()
}

func (s *Server) closing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mu.closing
}

func (s *Server) trackListener(ln net.Listener) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mu.closing {
		return false
	}
	s.mu.listeners[ln] = struct{}{}
	return true
}

func (s *Server) untrackListener(ln net.Listener) {
	s.mu.Lock()
	delete(s.mu.listeners, ln)
	s.mu.Unlock()
	ln.Close()
}

// startConn serves nc, unless the server is shutting down or nc is over
// a connection limit (limits.go).
func (s *Server) startConn(nc net.Conn) {
	if !s.admitConn(nc) {
		return
	}
	s.mu.Lock()
	if s.mu.closing {
		s.mu.Unlock()
		s.limits.release(remoteIP(nc))
		nc.Close()
		return
	}
	c := newConn(s, s.secure(nc))
	s.mu.conns[c] = struct{}{}
	s.conns.Add(1)
	s.mu.Unlock()
	s.metrics.connOpened()
	go c.serve()
}

// connDone is called by a connection once it is closed.
func (s *Server) connDone(c *conn) {
	s.mu.Lock()
	delete(s.mu.conns, c)
	s.mu.Unlock()
	s.limits.release(c.ip)
	s.metrics.connClosed()
	s.conns.Done()
}

// pushSchemaChange sends a SCHEMA_CHANGE event (stream -1) to every
// connection that registered for it. The engine may call it while
// executing DDL, so it never blocks on a connection (conn.pushEvent).
func (s *Server) pushSchemaChange(ch *catalog.Change) {
	if ch == nil {
		return
	}
	ev := &protocol.Event{Type: protocol.EventSchemaChange, Schema: schemaChange(ch)}
	frame := protocol.AppendResponse(nil, protocol.EventStream, ev, protocol.ResponseEnvelope{})
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.mu.conns {
		if c.registered(protocol.EventSchemaChange) {
			c.pushEvent(frame)
		}
	}
}
