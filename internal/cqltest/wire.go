package cqltest

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/protocol"
	"github.com/partita-db/partita/internal/types"
)

// WireSession is one native-protocol v4 connection to a node (Partita or
// Apache Cassandra), speaking through our own protocol codec. It runs the
// datadriven commands over the wire and prints their outcome exactly as the
// in-process harness does, so one expected output judges both nodes.
type WireSession struct {
	conn    net.Conn
	r       *bufio.Reader
	timeout time.Duration
	buf     []byte
}

// maxWireBody bounds a response frame read by a WireSession (Cassandra's
// default native_transport_max_frame_size is 16 MiB).
const maxWireBody = 256 << 20

// DialWire connects to addr and completes STARTUP; timeout bounds each
// request (DDL on Cassandra can take seconds).
func DialWire(addr string, timeout time.Duration) (*WireSession, error) {
	conn, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, err
	}
	s := &WireSession{conn: conn, r: bufio.NewReaderSize(conn, 64<<10), timeout: timeout}
	resp, _, err := s.roundTrip(&protocol.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0"}})
	if err != nil {
		conn.Close()
		return nil, err
	}
	if _, ok := resp.(*protocol.Ready); !ok {
		conn.Close()
		return nil, fmt.Errorf("STARTUP answered with %T, not READY", resp)
	}
	return s, nil
}

// Close closes the connection.
func (s *WireSession) Close() error { return s.conn.Close() }

// roundTrip sends one request on stream 1 and reads its response; events
// (stream -1) are never registered for, so the next frame is the answer.
func (s *WireSession) roundTrip(req protocol.Request) (protocol.Response, protocol.ResponseEnvelope, error) {
	if err := s.conn.SetDeadline(time.Now().Add(s.timeout)); err != nil {
		return nil, protocol.ResponseEnvelope{}, err
	}
	s.buf = protocol.AppendRequest(s.buf[:0], 1, req)
	if _, err := s.conn.Write(s.buf); err != nil {
		return nil, protocol.ResponseEnvelope{}, err
	}
	f, err := protocol.ReadFrame(s.r, maxWireBody)
	if err != nil {
		return nil, protocol.ResponseEnvelope{}, err
	}
	return protocol.DecodeResponse(f)
}

// Exec runs one statement at consistency ONE (fetching every page of a
// SELECT, pageSize rows at a time when positive) and formats the outcome as
// Harness.Exec does.
func (s *WireSession) Exec(stmt string, pageSize int) string {
	var out strings.Builder
	q := &protocol.Query{Query: stmt, Params: protocol.QueryParameters{Consistency: protocol.One}}
	if pageSize > 0 {
		q.Params.Flags |= protocol.FlagPageSize
		q.Params.PageSize = int32(pageSize)
	}
	for page := 0; ; page++ {
		resp, env, err := s.roundTrip(q)
		if err != nil {
			return fmt.Sprintf("error (connection): %v\n", err)
		}
		for _, w := range env.Warnings {
			fmt.Fprintf(&out, "warning: %s\n", w)
		}
		var more []byte
		switch r := resp.(type) {
		case *protocol.ErrorMessage:
			e := cqlerr.As(r.Err)
			return fmt.Sprintf("error (%s): %s\n", e.Code, e.Message)
		case *protocol.RowsResult:
			if pageSize > 0 {
				fmt.Fprintf(&out, "-- page %d\n", page+1)
			}
			names := make([]string, len(r.Meta.Columns))
			typs := make([]*types.Type, len(r.Meta.Columns))
			for i, c := range r.Meta.Columns {
				names[i], typs[i] = c.Name, c.Type
			}
			formatTable(&out, names, typs, r.Rows)
			more = r.Meta.PagingState
		case *protocol.SchemaChangeResult:
			c := r.Change
			fmt.Fprintf(&out, "%s %s %s\n", strings.ToLower(string(c.Change)), strings.ToLower(string(c.Target)),
				strings.TrimSuffix(c.Keyspace+"."+c.Name, "."))
		case *protocol.SetKeyspaceResult:
			fmt.Fprintf(&out, "use %s\n", r.Keyspace)
		default:
			out.WriteString("ok\n")
		}
		if more == nil {
			return out.String()
		}
		q.Params.Flags |= protocol.FlagPagingState
		q.Params.PagingState = more
	}
}
