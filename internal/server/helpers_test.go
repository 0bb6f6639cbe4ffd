package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/engine"
	"github.com/partita-db/partita/internal/metrics"
	"github.com/partita-db/partita/internal/protocol"
	"github.com/partita-db/partita/internal/types"
)

// fakeEngine stands in for the engine. Its sessions answer by the query
// text (see fakeSession.Query), so tests reach every result kind and
// error without a working engine.
type fakeEngine struct {
	mu        sync.Mutex
	listeners []func(*catalog.Change)
	// lastOptions and lastBatch record the latest converted request.
	lastOptions *engine.Options
	lastBatch   *engine.BatchRequest

	// inFlight counts "block" queries waiting on release; maxInFlight is
	// the most seen at once.
	inFlight, maxInFlight atomic.Int32
	release               chan struct{}
}

func newFakeEngine() *fakeEngine { return &fakeEngine{release: make(chan struct{})} }

func (e *fakeEngine) NewSession() sessionAPI { return &fakeSession{e: e} }

func (e *fakeEngine) OnSchemaChange(f func(*catalog.Change)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.listeners = append(e.listeners, f)
}

func (e *fakeEngine) record(o *engine.Options, b *engine.BatchRequest) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.lastOptions, e.lastBatch = o, b
}

type fakeSession struct {
	e *fakeEngine
}

// preparedID is the only id fakeSession.Execute knows.
var preparedID = []byte{0xca, 0xfe}

var rowsColumns = []engine.Column{
	{Keyspace: "ks", Table: "t", Name: "k", Type: types.Int},
	{Keyspace: "ks", Table: "t", Name: "v", Type: types.Text},
}

func rowsResult() *engine.Result {
	return &engine.Result{Kind: engine.ResultRows, Columns: rowsColumns,
		Rows: [][][]byte{{{0, 0, 0, 1}, []byte("a")}, {{0, 0, 0, 2}, nil}}}
}

// Query answers by the first word of the text:
//
//	void, rows, paged, use <ks>, create <ks>, warn, invalid, exists,
//	plain-error, panic, nil, sleep <ms>, block, big <bytes>
func (s *fakeSession) Query(ctx context.Context, query string, opts *engine.Options) (*engine.Result, error) {
	s.e.record(opts, nil)
	word, arg, _ := strings.Cut(query, " ")
	switch word {
	case "void":
		return &engine.Result{Kind: engine.ResultVoid}, nil
	case "rows":
		return rowsResult(), nil
	case "paged":
		r := rowsResult()
		r.PagingState = []byte{1, 2, 3}
		return r, nil
	case "use":
		return &engine.Result{Kind: engine.ResultSetKeyspace, Keyspace: arg}, nil
	case "create":
		ch := &catalog.Change{Type: "CREATED", Target: "TABLE", Keyspace: arg, Name: "t"}
		s.e.mu.Lock()
		listeners := slices.Clone(s.e.listeners)
		s.e.mu.Unlock()
		for _, l := range listeners {
			l(ch)
		}
		return &engine.Result{Kind: engine.ResultSchemaChange, Change: ch}, nil
	case "warn":
		return &engine.Result{Kind: engine.ResultVoid, Warnings: []string{"first", "second"}}, nil
	case "invalid":
		return nil, cqlerr.Invalidf("unconfigured table %s", arg)
	case "exists":
		return nil, cqlerr.NewAlreadyExists("ks", "t", "Cannot add already existing table \"t\" to keyspace \"ks\"")
	case "plain-error":
		return nil, errors.New("disk on fire")
	case "panic":
		panic("boom")
	case "nil":
		return nil, nil
	case "sleep":
		ms, _ := strconv.Atoi(arg)
		ms = min(max(ms, 0), 50)
		time.Sleep(time.Duration(ms) * time.Millisecond)
		return &engine.Result{Kind: engine.ResultVoid}, nil
	case "big":
		// One row whose text value is <bytes> long (at most 4 MiB).
		n, _ := strconv.Atoi(arg)
		r := rowsResult()
		r.Rows = [][][]byte{{{0, 0, 0, 1}, make([]byte, min(max(n, 0), 4<<20))}}
		return r, nil
	case "block":
		n := s.e.inFlight.Add(1)
		for {
			m := s.e.maxInFlight.Load()
			if n <= m || s.e.maxInFlight.CompareAndSwap(m, n) {
				break
			}
		}
		defer s.e.inFlight.Add(-1)
		select {
		case <-s.e.release:
		case <-ctx.Done():
			return nil, cqlerr.Serverf("cancelled")
		}
		return &engine.Result{Kind: engine.ResultVoid}, nil
	}
	return nil, cqlerr.Syntaxf("line 1:0 no viable alternative at input '%s'", word)
}

func (s *fakeSession) Prepare(ctx context.Context, query string) (*engine.Result, error) {
	res := &engine.Result{Kind: engine.ResultPrepared, PreparedID: preparedID,
		BindVariables: rowsColumns[:1], PKIndexes: []uint16{0}}
	if strings.HasPrefix(query, "SELECT") {
		res.Columns = rowsColumns
	}
	return res, nil
}

func (s *fakeSession) Execute(ctx context.Context, id []byte, opts *engine.Options) (*engine.Result, error) {
	s.e.record(opts, nil)
	if !bytes.Equal(id, preparedID) {
		return nil, cqlerr.NewUnprepared(id)
	}
	res := rowsResult()
	res.NoMetadata = opts.SkipMetadata
	return res, nil
}

func (s *fakeSession) Batch(ctx context.Context, b *engine.BatchRequest) (*engine.Result, error) {
	s.e.record(nil, b)
	return &engine.Result{Kind: engine.ResultVoid}, nil
}

// syncBuffer is a goroutine-safe log sink.
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

// testServer is a server on 127.0.0.1:0 with a fake engine.
type testServer struct {
	srv      *Server
	eng      *fakeEngine
	addr     string
	logs     *syncBuffer
	metrics  *metrics.Metrics
	serveErr chan error
}

func startServer(t testing.TB, cfg Config) *testServer {
	t.Helper()
	return startServerWrapped(t, cfg, nil)
}

// startServerWrapped is startServer with the listener passed through wrap
// (when not nil) before Serve gets it.
func startServerWrapped(t testing.TB, cfg Config, wrap func(net.Listener) net.Listener) *testServer {
	t.Helper()
	ts := &testServer{eng: newFakeEngine(), logs: &syncBuffer{}, metrics: metrics.New(), serveErr: make(chan error, 1)}
	cfg.Metrics = ts.metrics
	logger := slog.New(slog.NewTextHandler(ts.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ts.srv = newServer(cfg, ts.eng, logger)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts.addr = ln.Addr().String()
	if wrap != nil {
		ln = wrap(ln)
	}
	go func() { ts.serveErr <- ts.srv.Serve(ln) }()
	t.Cleanup(func() {
		close(ts.eng.release)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := ts.srv.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if err := <-ts.serveErr; err != ErrServerClosed {
			t.Errorf("Serve returned %v, want ErrServerClosed", err)
		}
	})
	return ts
}

// gauge returns the value of an unlabelled gauge or counter, or of the
// child of a labelled one whose labels contain all of labels.
func (ts *testServer) metric(t testing.TB, name string, labels ...string) float64 {
	t.Helper()
	families, err := ts.metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	next:
		for _, m := range f.GetMetric() {
			for i := 0; i+1 < len(labels); i += 2 {
				found := false
				for _, lp := range m.GetLabel() {
					if lp.GetName() == labels[i] && lp.GetValue() == labels[i+1] {
						found = true
					}
				}
				if !found {
					continue next
				}
			}
			switch {
			case m.GetCounter() != nil:
				return m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				return m.GetGauge().GetValue()
			case m.GetHistogram() != nil:
				return float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return 0
}

// waitFor polls cond for up to 5 s.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// client is a raw protocol client.
type client struct {
	t  testing.TB
	nc net.Conn
	br *bufio.Reader
}

func (ts *testServer) dial(t testing.TB) *client {
	t.Helper()
	nc, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &client{t: t, nc: nc, br: bufio.NewReader(nc)}
}

// started dials and completes OPTIONS and STARTUP.
func (ts *testServer) started(t testing.TB) *client {
	t.Helper()
	c := ts.dial(t)
	c.send(1, &protocol.Options{})
	c.expect(1, protocol.OpSupported)
	c.send(2, startup("3.0.0"))
	c.expect(2, protocol.OpReady)
	return c
}

func startup(version string) *protocol.Startup {
	return &protocol.Startup{Options: map[string]string{protocol.StartupCQLVersion: version, "DRIVER_NAME": "test"}}
}

func (c *client) write(b []byte) {
	c.t.Helper()
	if _, err := c.nc.Write(b); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

func (c *client) send(stream int16, req protocol.Request) {
	c.t.Helper()
	c.write(protocol.AppendRequest(nil, stream, req))
}

// read reads one response frame, failing the test after 5 s.
func (c *client) read() (protocol.Frame, protocol.Response, protocol.ResponseEnvelope) {
	c.t.Helper()
	f, err := c.readFrame()
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	resp, env, err := protocol.DecodeResponse(f)
	if err != nil {
		c.t.Fatalf("decode response %+v: %v", f.Header, err)
	}
	return f, resp, env
}

func (c *client) readFrame() (protocol.Frame, error) {
	c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	return protocol.ReadFrame(c.br, protocol.DefaultMaxBody)
}

// expect reads one response and checks its stream and opcode.
func (c *client) expect(stream int16, op protocol.Opcode) protocol.Response {
	c.t.Helper()
	f, resp, _ := c.read()
	if f.Header.Stream != stream || f.Header.Opcode != op {
		c.t.Fatalf("got %s on stream %d (%s), want %s on stream %d", f.Header.Opcode, f.Header.Stream, describe(resp), op, stream)
	}
	return resp
}

// expectError reads one response and checks that it is an ERROR with the
// given code on the given stream.
func (c *client) expectError(stream int16, code cqlerr.Code) *cqlerr.Error {
	c.t.Helper()
	resp := c.expect(stream, protocol.OpError)
	e := resp.(*protocol.ErrorMessage).Err
	if e.Code != code {
		c.t.Fatalf("got error %v, want code %v", e, code)
	}
	return e
}

// expectClosed checks that the server closes the connection without
// sending anything more.
func (c *client) expectClosed() {
	c.t.Helper()
	c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	b, err := io.ReadAll(c.br)
	if len(b) > 0 {
		c.t.Fatalf("got %x before the close, want nothing", b)
	}
	if err != nil && !isReset(err) {
		c.t.Fatalf("connection not closed: %v", err)
	}
}

func isReset(err error) bool {
	var ne net.Error
	return err != nil && !(errors.As(err, &ne) && ne.Timeout())
}

// describe prints a response on one line, for test output.
func describe(r protocol.Response) string {
	switch r := r.(type) {
	case *protocol.ErrorMessage:
		return describeError(r.Err)
	case *protocol.Supported:
		keys := make([]string, 0, len(r.Options))
		for k := range r.Options {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var b strings.Builder
		b.WriteString("SUPPORTED")
		for _, k := range keys {
			fmt.Fprintf(&b, " %s=%q", k, r.Options[k])
		}
		return b.String()
	case *protocol.Ready:
		return "READY"
	case *protocol.Authenticate:
		return "AUTHENTICATE " + r.Authenticator
	case *protocol.AuthSuccess:
		return fmt.Sprintf("AUTH_SUCCESS token=%q", r.Token)
	case *protocol.VoidResult:
		return "RESULT Void"
	case *protocol.SetKeyspaceResult:
		return "RESULT Set_keyspace " + r.Keyspace
	case *protocol.SchemaChangeResult:
		return "RESULT Schema_change " + describeChange(r.Change)
	case *protocol.RowsResult:
		return "RESULT Rows " + describeRows(&r.Meta, r.Rows)
	case *protocol.PreparedResult:
		return fmt.Sprintf("RESULT Prepared id=%x pk=%v vars=%s result=%s", r.ID, r.Variables.PKIndexes,
			describeColumns(r.Variables.Columns), describeRows(&r.ResultMetadata, nil))
	case *protocol.Event:
		return fmt.Sprintf("EVENT %s %s", r.Type, describeChange(r.Schema))
	case nil:
		return "<nil>"
	}
	return fmt.Sprintf("%T", r)
}

func describeError(e *cqlerr.Error) string {
	s := fmt.Sprintf("ERROR (%s): %s", e.Code, e.Message)
	switch e.Code {
	case cqlerr.AlreadyExists:
		s += fmt.Sprintf(" [ks=%q table=%q]", e.Keyspace, e.Table)
	case cqlerr.Unprepared:
		s += fmt.Sprintf(" [id=%x]", e.UnpreparedID)
	}
	return s
}

func describeChange(c protocol.SchemaChange) string {
	return strings.TrimSpace(fmt.Sprintf("%s %s %s %s", c.Change, c.Target, c.Keyspace, c.Name))
}

func describeColumns(cols []protocol.ColumnSpec) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = fmt.Sprintf("%s.%s.%s:0x%04x", c.Keyspace, c.Table, c.Name, uint16(c.Type.Kind))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func describeRows(m *protocol.RowsMetadata, rows [][][]byte) string {
	var b strings.Builder
	if m.NoMetadata {
		fmt.Fprintf(&b, "no_metadata columns=%d", m.ColumnCount)
	} else {
		b.WriteString(describeColumns(m.Columns))
	}
	if m.PagingState != nil {
		fmt.Fprintf(&b, " paging_state=%x", m.PagingState)
	}
	if rows == nil {
		return b.String()
	}
	fmt.Fprintf(&b, " rows=%d", len(rows))
	for _, row := range rows {
		cells := make([]string, len(row))
		for i, c := range row {
			if c == nil {
				cells[i] = "null"
			} else {
				cells[i] = hex.EncodeToString(c)
			}
		}
		fmt.Fprintf(&b, " (%s)", strings.Join(cells, ","))
	}
	return b.String()
}
