package server

import (
	"bufio"
	"errors"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/partita-db/partita/internal/protocol"
)

// FuzzConnection feeds arbitrary bytes to a connection of a server with a
// fake engine. Whatever the client sends, the server must not panic, must
// end the connection once the client goes away, and must only ever send
// well-formed response frames.
func FuzzConnection(f *testing.F) {
	handshake := protocol.AppendRequest(nil, 1, &protocol.Options{})
	handshake = protocol.AppendRequest(handshake, 2, startup("3.0.0"))
	withQueries := handshake
	for i, q := range []string{"rows", "paged", "warn", "panic", "create ks", "invalid x", "nil"} {
		withQueries = protocol.AppendRequest(withQueries, int16(3+i), query(q))
	}
	withQueries = protocol.AppendRequest(withQueries, 20, &protocol.Register{EventTypes: []protocol.EventType{protocol.EventSchemaChange}})
	withQueries = protocol.AppendRequest(withQueries, 21, &protocol.Prepare{Query: "SELECT * FROM t"})
	withQueries = protocol.AppendRequest(withQueries, 22, &protocol.Execute{ID: preparedID})
	withQueries = protocol.AppendRequest(withQueries, 23, &protocol.Batch{Statements: []protocol.BatchStatement{{Query: "void"}}})
	f.Add(handshake)
	f.Add(withQueries)
	f.Add([]byte{5, 0, 0, 0, 5, 0, 0, 0, 0})
	f.Add([]byte{4, 0, 0, 1, 7, 0x7f, 0xff, 0xff, 0xff})
	f.Add(append(append([]byte{}, handshake...), 4, 1, 0, 3, 7, 0, 0, 0, 0))
	f.Add(append(protocol.AppendRequest(nil, 1, query("void")), handshake...))

	eng := newFakeEngine()
	close(eng.release)
	srv := newServer(Config{MaxFrameSize: 64 << 10, MaxInFlightPerConn: 8}, eng, slog.New(slog.DiscardHandler))
	f.Fuzz(func(t *testing.T, input []byte) {
		clientSide, serverSide := net.Pipe()
		srv.startConn(serverSide)
		readErr := make(chan error, 1)
		go func() { readErr <- readResponses(clientSide) }()
		clientSide.SetWriteDeadline(time.Now().Add(5 * time.Second))
		clientSide.Write(input) // the server may hang up first
		clientSide.Close()
		srv.conns.Wait()
		if err := <-readErr; err != nil {
			t.Fatal(err)
		}
	})
}

// readResponses reads frames until the connection ends and fails on the
// first one that does not decode as a response.
func readResponses(nc net.Conn) error {
	br := bufio.NewReader(nc)
	for {
		f, err := protocol.ReadFrame(br, protocol.DefaultMaxBody)
		if err != nil {
			if err == io.EOF || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return errors.New("reading the server's frames: " + err.Error())
		}
		if !f.Header.Response {
			return errors.New("server sent a request frame")
		}
		if _, _, err := protocol.DecodeResponse(f); err != nil {
			return errors.New("server sent a malformed " + f.Header.Opcode.String() + ": " + err.Error())
		}
	}
}
