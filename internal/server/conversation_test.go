package server

import (
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/partita-db/partita/internal/protocol"
)

// TestConversation runs the datadriven files under testdata/conversation:
// requests go over a real TCP connection to a server with a fake engine
// (helpers_test.go fakeSession.Query lists what each query text does), and
// the replies are printed. Commands:
//
//	server [max-frame=<bytes>] [auth]
//	  Restart the server with this configuration. Every file starts with
//	  a default server. auth turns on password authentication, with the
//	  roles of a new node (cassandra/cassandra) in a real role manager.
//
//	connect [<name>]
//	  Open a connection (default name "a") and make it the current one.
//
//	send [conn=<name>] [recv=<n>] [hex]
//	<stream> OPTIONS
//	<stream> STARTUP [KEY=VALUE ...]
//	<stream> REGISTER <event type> ...
//	<stream> QUERY [skip] <text>
//	<stream> PREPARE <text>
//	<stream> EXECUTE <hex id> [skip]
//	<stream> BATCH <text>; ...
//	<stream> AUTH_RESPONSE <role> <password>   (SASL PLAIN; "-" for empty)
//	<stream> AUTH_RESPONSE hex <token>
//	raw <hex>
//	----
//	<replies, ordered by stream>
//	  Write the requests in one write, then read recv replies (default:
//	  one per request line other than raw) and print them; with hex, each
//	  reply's exact bytes come first. After a STARTUP line with a
//	  COMPRESSION the server knows, the connection's later request lines
//	  (not raw ones) are compressed with it, and a compressed reply is
//	  decompressed with it and printed with its name: stream=2 [lz4] READY.
//
//	closed [conn=<name>]
//	----
//	closed | open
//	  Whether the server closes the connection (without sending more).
func TestConversation(t *testing.T) {
	datadriven.Walk(t, "testdata/conversation", func(t *testing.T, path string) {
		h := &conversation{t: t, conns: map[string]*client{}}
		h.restart(Config{})
		datadriven.RunTest(t, path, h.run)
	})
}

type conversation struct {
	t       *testing.T
	ts      *testServer
	conns   map[string]*client
	current string
	// compressors holds the frame compression each connection asked for
	// in a STARTUP, by connection name.
	compressors map[string]protocol.Compressor
}

func (h *conversation) restart(cfg Config) {
	h.ts = startServer(h.t, cfg)
	h.conns = map[string]*client{}
	h.compressors = map[string]protocol.Compressor{}
	h.current = ""
}

func (h *conversation) conn(d *datadriven.TestData) *client {
	name := h.current
	if d.HasArg("conn") {
		d.ScanArgs(h.t, "conn", &name)
	}
	c, ok := h.conns[name]
	if !ok {
		h.t.Fatalf("%s: no connection %q", d.Pos, name)
	}
	return c
}

func (h *conversation) run(t *testing.T, d *datadriven.TestData) string {
	switch d.Cmd {
	case "server":
		var cfg Config
		d.MaybeScanArgs(t, "max-frame", &cfg.MaxFrameSize)
		if d.HasArg("auth") {
			cfg.Authenticator = newTestRoles(t)
		}
		h.restart(cfg)
		return ""
	case "connect":
		name := "a"
		if len(d.CmdArgs) > 0 {
			name = d.CmdArgs[0].Key
		}
		h.conns[name] = h.ts.dial(t)
		delete(h.compressors, name)
		h.current = name
		return ""
	case "send":
		return h.send(t, d)
	case "closed":
		c := h.conn(d)
		c.nc.SetReadDeadline(time.Now().Add(2 * time.Second))
		b, err := c.br.ReadByte()
		if err == nil {
			return fmt.Sprintf("open (sent %02x)", b)
		}
		if !isReset(err) {
			return "open"
		}
		return "closed"
	}
	t.Fatalf("%s: unknown command %q", d.Pos, d.Cmd)
	return ""
}

func (h *conversation) send(t *testing.T, d *datadriven.TestData) string {
	c := h.conn(d)
	name := h.current
	d.MaybeScanArgs(t, "conn", &name)
	var out []byte
	want := 0
	for line := range strings.SplitSeq(strings.TrimSpace(d.Input), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "raw "); ok {
			out = append(out, unhex(t, rest)...)
			continue
		}
		streamText, reqText, _ := strings.Cut(line, " ")
		stream, err := strconv.ParseInt(streamText, 10, 16)
		if err != nil {
			t.Fatalf("%s: bad stream in %q", d.Pos, line)
		}
		req := parseRequest(t, reqText)
		frame := protocol.AppendRequest(nil, int16(stream), req)
		if comp := h.compressors[name]; comp != nil && req.Opcode() != protocol.OpStartup {
			if frame, err = protocol.CompressFrame(nil, frame, comp); err != nil {
				t.Fatalf("%s: %v", d.Pos, err)
			}
		}
		out = append(out, frame...)
		if st, ok := req.(*protocol.Startup); ok {
			comp, ok := protocol.NewCompressor(st.Options[protocol.StartupCompression])
			if ok && h.compressors[name] == nil {
				h.compressors[name] = comp
			}
		}
		want++
	}
	d.MaybeScanArgs(t, "recv", &want)
	c.write(out)

	type reply struct {
		stream int16
		text   string
	}
	replies := make([]reply, 0, want)
	for range want {
		f, err := c.readFrame()
		if err != nil {
			replies = append(replies, reply{stream: 1 << 14, text: "read: " + err.Error()})
			break
		}
		marker := ""
		if f.Header.Flags&protocol.FlagCompression != 0 {
			comp := h.compressors[name]
			plain, err := protocol.DecompressFrame(f, comp, protocol.DefaultMaxBody)
			if err != nil {
				replies = append(replies, reply{stream: f.Header.Stream, text: "undecompressable: " + err.Error()})
				continue
			}
			f = plain
			marker = "[" + comp.Name() + "] "
		}
		resp, env, err := protocol.DecodeResponse(f)
		text := fmt.Sprintf("stream=%d %s%s", f.Header.Stream, marker, describe(resp))
		if err != nil {
			text = "undecodable: " + err.Error()
		}
		if len(env.Warnings) > 0 {
			text += fmt.Sprintf(" warnings=%q", env.Warnings)
		}
		if d.HasArg("hex") {
			text = hexFrame(f) + "\n" + text
		}
		replies = append(replies, reply{f.Header.Stream, text})
	}
	slices.SortStableFunc(replies, func(a, b reply) int { return int(a.stream) - int(b.stream) })
	var b strings.Builder
	for _, r := range replies {
		b.WriteString(r.text)
		b.WriteByte('\n')
	}
	return b.String()
}

// parseRequest builds a request from its line in a send command.
func parseRequest(t *testing.T, s string) protocol.Request {
	op, rest, _ := strings.Cut(s, " ")
	fields := strings.Fields(rest)
	switch op {
	case "OPTIONS":
		return &protocol.Options{}
	case "STARTUP":
		opts := map[string]string{}
		for _, f := range fields {
			k, v, _ := strings.Cut(f, "=")
			opts[k] = v
		}
		return &protocol.Startup{Options: opts}
	case "REGISTER":
		r := &protocol.Register{}
		for _, f := range fields {
			r.EventTypes = append(r.EventTypes, protocol.EventType(f))
		}
		return r
	case "QUERY":
		q := &protocol.Query{Query: rest, Params: protocol.QueryParameters{Consistency: protocol.One}}
		if after, ok := strings.CutPrefix(rest, "skip "); ok {
			q.Query, q.Params.Flags = after, protocol.FlagSkipMetadata
		}
		return q
	case "PREPARE":
		return &protocol.Prepare{Query: rest}
	case "EXECUTE":
		id, err := hex.DecodeString(fields[0])
		if err != nil {
			t.Fatalf("bad id in %q", s)
		}
		e := &protocol.Execute{ID: id, Params: protocol.QueryParameters{Consistency: protocol.One}}
		if slices.Contains(fields[1:], "skip") {
			e.Params.Flags = protocol.FlagSkipMetadata
		}
		return e
	case "AUTH_RESPONSE":
		if len(fields) == 2 && fields[0] == "hex" {
			return &protocol.AuthResponse{Token: unhex(t, fields[1])}
		}
		plain := func(s string) string { return strings.TrimPrefix(s, "-") }
		token := "\x00" + plain(fields[0]) + "\x00" + plain(fields[1])
		return &protocol.AuthResponse{Token: []byte(token)}
	case "BATCH":
		b := &protocol.Batch{Type: protocol.BatchLogged, Consistency: protocol.One}
		for q := range strings.SplitSeq(rest, ";") {
			b.Statements = append(b.Statements, protocol.BatchStatement{Query: strings.TrimSpace(q)})
		}
		return b
	}
	t.Fatalf("unknown request %q", s)
	return nil
}

// unhex decodes hex written with spaces and "#" comments.
func unhex(t testing.TB, s string) []byte {
	t.Helper()
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s = s[:i]
	}
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

// hexFrame prints a frame's exact bytes: the header in its fields
// (version, flags, stream, opcode, length), then the body.
func hexFrame(f protocol.Frame) string {
	raw := protocol.AppendFrame(nil, f.Header, f.Body)
	h := hex.EncodeToString(raw[:protocol.HeaderSize])
	return fmt.Sprintf("%s %s %s %s %s\n%s", h[0:2], h[2:4], h[4:8], h[8:10], h[10:18], hex.EncodeToString(f.Body))
}
