package server

import (
	"encoding/binary"
	"strings"
	"testing"
	"time"

	"github.com/partita-db/partita/internal/protocol"
)

// queryFrame is a complete QUERY frame on stream.
func queryFrame(stream int16, text string) []byte {
	return protocol.AppendRequest(nil, stream, query(text))
}

// TestFrameReadTimeout: a frame that starts arriving must arrive whole
// within FrameReadTimeout, or the connection is closed: a client that
// stops after the header, in the middle of the header, or that sends one
// byte at a time (which no per-read deadline would catch) cannot hold a
// connection, nor the request memory of its body. A client that is merely
// quiet between frames is not affected (IdleTimeout is off by default, as
// native_transport_idle_timeout is in Cassandra).
func TestFrameReadTimeout(t *testing.T) {
	const timeout = 300 * time.Millisecond
	ts := startServer(t, Config{FrameReadTimeout: timeout})
	frame := queryFrame(5, "rows")
	header := make([]byte, protocol.HeaderSize)
	copy(header, frame)
	binary.BigEndian.PutUint32(header[5:], 1000) // announces more than is sent
	for _, tc := range []struct {
		name string
		send func(c *client)
	}{
		{"header then nothing", func(c *client) { c.write(header) }},
		{"part of the header", func(c *client) { c.write(header[:4]) }},
		{"one byte at a time", func(c *client) {
			go func() {
				for _, b := range frame {
					if _, err := c.nc.Write([]byte{b}); err != nil {
						return
					}
					time.Sleep(timeout / 4)
				}
			}()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ts.started(t)
			start := time.Now()
			tc.send(c)
			c.nc.SetReadDeadline(time.Now().Add(10 * timeout))
			if _, err := c.readFrame(); err == nil {
				t.Fatal("got a reply: the server waited for a frame that did not arrive whole in time")
			} else if d := time.Since(start); d < timeout || d >= 10*timeout {
				t.Fatalf("connection ended after %v (%v), want about %v", d, err, timeout)
			}
		})
	}
	if n := strings.Count(ts.logs.String(), "request frame not received in time"); n != 3 {
		t.Fatalf("%d frame timeouts logged, want 3:\n%s", n, ts.logs)
	}
	quiet := ts.started(t)
	time.Sleep(3 * timeout)
	quiet.send(6, query("rows"))
	quiet.expect(6, protocol.OpResult)
}

// TestClientThatNeverReads: a client that pipelines requests with large
// replies and never reads them gets about MaxQueuedReplyBytes (8 MiB) of
// replies queued before the server stops reading it and running its
// requests (invariant 8), instead of one reply per request slot and per
// queue place (up to 256 MiB here, held for as long as the client lives);
// other clients are served meanwhile, and once it has taken nothing for
// WriteTimeout its connection is closed.
func TestClientThatNeverReads(t *testing.T) {
	const (
		replyBytes   = 1 << 20
		requests     = 400
		writeTimeout = 4 * time.Second
	)
	ts := startServer(t, Config{WriteTimeout: writeTimeout})
	other := ts.started(t)
	before := heapInUse()

	stuck := ts.started(t)
	var pipeline []byte
	for i := range requests {
		pipeline = append(pipeline, queryFrame(int16(100+i), "big 1048576")...)
	}
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		stuck.nc.SetWriteDeadline(time.Now().Add(10 * time.Second))
		stuck.nc.Write(pipeline) // blocks once the server stops reading
	}()
	// Let the server read and answer all it will (without the bound it
	// takes about two seconds to fill every queue place and slot), but
	// measure before the write timeout frees everything.
	time.Sleep(writeTimeout * 5 / 8)
	other.send(10, query("rows"))
	other.expect(10, protocol.OpResult)
	grown := int64(heapInUse()) - int64(before)
	t.Logf("heap grew by %.1f MiB for a client not reading %d replies of 1 MiB", float64(grown)/(1<<20), requests)
	if grown > 48<<20 {
		t.Fatalf("heap grew by %d MiB: replies to a client that does not read are not bounded", grown>>20)
	}
	waitFor(t, "the connection that does not read closed", func() bool {
		ts.srv.mu.Lock()
		defer ts.srv.mu.Unlock()
		return len(ts.srv.mu.conns) == 1
	})
	<-sent
	other.send(11, query("rows"))
	other.expect(11, protocol.OpResult)
}
