package server

import (
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/engine"
	"github.com/partita-db/partita/internal/protocol"
)

func query(text string) *protocol.Query {
	return &protocol.Query{Query: text, Params: protocol.QueryParameters{Consistency: protocol.One}}
}

// TestConcurrentStreams pipelines 100 requests that take different times
// on one connection: each stream is answered exactly once, in whatever
// order the requests finish.
func TestConcurrentStreams(t *testing.T) {
	ts := startServer(t, Config{})
	c := ts.started(t)
	const n = 100
	var out []byte
	for i := 1; i <= n; i++ {
		text := "sleep " + string(rune('0'+rand.IntN(10)))
		if i%10 == 0 {
			text = "rows"
		}
		out = protocol.AppendRequest(out, int16(i), query(text))
	}
	c.write(out)
	seen := make(map[int16]bool)
	inOrder := true
	for i := 1; i <= n; i++ {
		f, resp, _ := c.read()
		s := f.Header.Stream
		if s < 1 || s > n || seen[s] {
			t.Fatalf("reply on unexpected stream %d: %s", s, describe(resp))
		}
		seen[s] = true
		if f.Header.Opcode != protocol.OpResult {
			t.Fatalf("stream %d: %s", s, describe(resp))
		}
		if int(s) != i {
			inOrder = false
		}
	}
	t.Logf("replies in request order: %v", inOrder)
	waitFor(t, "no request in flight", func() bool { return ts.metric(t, "partita_cql_requests_in_flight") == 0 })
}

// TestMisbehavingConnectionIsolated checks that a connection that sends
// garbage, oversized frames, an old protocol version or panicking requests
// changes nothing for another one, even while it misbehaves.
func TestMisbehavingConnectionIsolated(t *testing.T) {
	ts := startServer(t, Config{MaxFrameSize: 4096})
	good := ts.started(t)
	check := func(stream int16) {
		t.Helper()
		good.send(stream, query("rows"))
		good.expect(stream, protocol.OpResult)
	}
	check(10)

	cases := []struct {
		name  string
		bytes []byte
		// closes tells whether the server hangs up on the bad client.
		closes bool
	}{
		{"version 3", []byte{3, 0, 0, 0, 5, 0, 0, 0, 0}, true},
		{"oversized", []byte{4, 0, 0, 1, 7, 0, 1, 0, 0}, true},
		{"random bytes", []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), true},
		{"query before startup", protocol.AppendRequest(nil, 3, query("void")), false},
		{"truncated", []byte{4, 0, 0, 1, 7, 0, 0, 0, 10, 1, 2}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bad := ts.dial(t)
			bad.write(tc.bytes)
			check(11)
			if tc.closes {
				bad.read() // the error reply
				bad.expectClosed()
			}
			bad.nc.Close()
			check(12)
		})
	}

	t.Run("panicking requests", func(t *testing.T) {
		bad := ts.started(t)
		var out []byte
		for i := 1; i <= 20; i++ {
			out = protocol.AppendRequest(out, int16(i), query("panic"))
		}
		bad.write(out)
		check(13)
		for range 20 {
			f, resp, _ := bad.read()
			if e, ok := resp.(*protocol.ErrorMessage); !ok || e.Err.Code != cqlerr.ServerError {
				t.Fatalf("stream %d: %s", f.Header.Stream, describe(resp))
			}
		}
		check(14)
		logs := ts.logs.String()
		if !strings.Contains(logs, "panic while handling a request") || !strings.Contains(logs, "goroutine") {
			t.Errorf("panic not logged with its stack:\n%s", logs)
		}
	})
	waitFor(t, "bad connections closed", func() bool { return ts.metric(t, "partita_cql_connections_open") == 1 })
}

// TestBackpressure checks invariant 1: with MaxInFlightPerConn 4, twenty
// blocking requests run at most four at a time, and all are answered once
// they are released.
func TestBackpressure(t *testing.T) {
	ts := startServer(t, Config{MaxInFlightPerConn: 4})
	c := ts.started(t)
	var out []byte
	for i := 1; i <= 20; i++ {
		out = protocol.AppendRequest(out, int16(i), query("block"))
	}
	c.write(out)
	waitFor(t, "4 requests in flight", func() bool { return ts.eng.inFlight.Load() == 4 })
	time.Sleep(50 * time.Millisecond)
	if got := ts.eng.maxInFlight.Load(); got != 4 {
		t.Fatalf("%d requests ran at once, want at most 4", got)
	}
	if got := ts.metric(t, "partita_cql_requests_in_flight"); got != 4 {
		t.Fatalf("in-flight gauge %v, want 4", got)
	}
	for range 20 {
		ts.eng.release <- struct{}{}
	}
	for range 20 {
		c.expectAnyResult()
	}
	if got := ts.eng.maxInFlight.Load(); got != 4 {
		t.Fatalf("%d requests ran at once, want at most 4", got)
	}
}

func (c *client) expectAnyResult() {
	c.t.Helper()
	f, resp, _ := c.read()
	if f.Header.Opcode != protocol.OpResult {
		c.t.Fatalf("stream %d: %s", f.Header.Stream, describe(resp))
	}
}

// TestShutdownGraceful checks invariant 6: a request in flight at Shutdown
// is answered, then the connection is closed, Serve returns
// ErrServerClosed and nothing new is accepted.
func TestShutdownGraceful(t *testing.T) {
	ts := startServer(t, Config{})
	c := ts.started(t)
	c.send(5, query("block"))
	waitFor(t, "request in flight", func() bool { return ts.eng.inFlight.Load() == 1 })

	done := make(chan error, 1)
	go func() { done <- ts.srv.Shutdown(context.Background()) }()
	select {
	case err := <-done:
		t.Fatalf("Shutdown returned %v with a request in flight", err)
	case <-time.After(50 * time.Millisecond):
	}
	ts.eng.release <- struct{}{}
	c.expect(5, protocol.OpResult)
	c.expectClosed()
	if err := <-done; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if err := <-ts.serveErr; err != ErrServerClosed {
		t.Fatalf("Serve returned %v", err)
	}
	ts.serveErr <- ErrServerClosed // for the cleanup
	if nc, err := net.DialTimeout("tcp", ts.addr, time.Second); err == nil {
		nc.Close()
		t.Fatal("server still accepts connections")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := ts.srv.Serve(ln); err != ErrServerClosed {
		t.Fatalf("Serve after Shutdown returned %v", err)
	}
}

// TestShutdownDeadline checks that Shutdown gives up when its context ends:
// the stuck request's context is cancelled and its connection closed.
func TestShutdownDeadline(t *testing.T) {
	ts := startServer(t, Config{})
	c := ts.started(t)
	c.send(5, query("block"))
	waitFor(t, "request in flight", func() bool { return ts.eng.inFlight.Load() == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := ts.srv.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown returned %v, want DeadlineExceeded", err)
	}
	waitFor(t, "request cancelled", func() bool { return ts.eng.inFlight.Load() == 0 })
	// The reply may or may not make it out before the close.
	c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		if _, err := c.readFrame(); err != nil {
			break
		}
	}
}

// TestIdleTimeout: requests keep a connection open past the idle timeout,
// and once they stop the server closes it, not before the timeout has
// passed since the last request. The timeout is long beside the 50 ms
// between requests: with 2 cores shared by parallel test binaries, a
// request (or the server's read of it) can be late by tens of
// milliseconds, and one late by the timeout would close the connection.
func TestIdleTimeout(t *testing.T) {
	const idle = time.Second
	ts := startServer(t, Config{IdleTimeout: idle})
	c := ts.started(t)
	var last time.Time
	for i := range 30 {
		time.Sleep(50 * time.Millisecond)
		last = time.Now()
		c.send(int16(10+i), &protocol.Options{})
		c.expect(int16(10+i), protocol.OpSupported)
	}
	c.expectClosed()
	// The server's deadline was set after it read the last request, so
	// the close cannot come sooner after the request was sent.
	if d := time.Since(last); d < idle {
		t.Fatalf("idle connection closed %v after the last request, before the %v timeout", d, idle)
	}
}

// TestEngineErrorsKeepConnection runs requests through a real
// *engine.Engine. An unopened one answers every request with an error (or
// panics, which must end the same way): an ERROR comes back and the
// connection goes on.
func TestEngineErrorsKeepConnection(t *testing.T) {
	srv := New(Config{}, &engine.Engine{}, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	defer func() {
		if err := srv.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
		if err := <-serveErr; err != ErrServerClosed {
			t.Error(err)
		}
	}()
	ts := &testServer{addr: ln.Addr().String()}
	c := ts.started(t)
	requests := []protocol.Request{
		query("SELECT * FROM system.local WHERE key='local'"),
		&protocol.Prepare{Query: "SELECT * FROM system.local"},
		&protocol.Execute{ID: []byte{1, 2, 3}, Params: protocol.QueryParameters{Consistency: protocol.One}},
		&protocol.Batch{Statements: []protocol.BatchStatement{{Query: "INSERT INTO ks.t (k) VALUES (1)"}}, Consistency: protocol.One},
	}
	for i, req := range requests {
		stream := int16(10 + i)
		c.send(stream, req)
		f, resp, _ := c.read()
		if f.Header.Stream != stream || f.Header.Opcode != protocol.OpError {
			// Once the engine works, a result is fine too.
			t.Logf("%s answered with %s", req.Opcode(), describe(resp))
		}
		c.send(stream+100, &protocol.Options{})
		c.expect(stream+100, protocol.OpSupported)
	}
}

func TestMetrics(t *testing.T) {
	ts := startServer(t, Config{})
	c := ts.started(t)
	c.send(3, query("rows"))
	c.expect(3, protocol.OpResult)
	c.send(4, query("invalid x"))
	c.expectError(4, cqlerr.Invalid)
	c.write([]byte{4, 0, 0, 5, 0x42, 0, 0, 0, 0})
	c.expectError(5, cqlerr.ProtocolError)

	checks := []struct {
		name   string
		labels []string
		want   float64
	}{
		{"partita_cql_connections_open", nil, 1},
		{"partita_cql_connections_total", nil, 1},
		{"partita_cql_requests_total", []string{"opcode", "OPTIONS"}, 1},
		{"partita_cql_requests_total", []string{"opcode", "STARTUP"}, 1},
		{"partita_cql_requests_total", []string{"opcode", "QUERY"}, 2},
		{"partita_cql_requests_total", []string{"opcode", "UNKNOWN"}, 1},
		{"partita_cql_request_duration_seconds", []string{"opcode", "QUERY"}, 2},
		{"partita_cql_errors_total", []string{"code", "0x2200", "name", "Invalid"}, 1},
		{"partita_cql_errors_total", []string{"code", "0x000A", "name", "Protocol"}, 1},
		{"partita_cql_requests_in_flight", nil, 0},
	}
	for _, ch := range checks {
		if got := ts.metric(t, ch.name, ch.labels...); got != ch.want {
			t.Errorf("%s%v = %v, want %v", ch.name, ch.labels, got, ch.want)
		}
	}
	if got := ts.metric(t, "partita_cql_received_bytes_total"); got < 4*protocol.HeaderSize {
		t.Errorf("received bytes %v", got)
	}
	waitFor(t, "sent bytes counted", func() bool {
		return ts.metric(t, "partita_cql_sent_bytes_total") >= 5*protocol.HeaderSize
	})
	c.nc.Close()
	waitFor(t, "connection closed", func() bool { return ts.metric(t, "partita_cql_connections_open") == 0 })
}
