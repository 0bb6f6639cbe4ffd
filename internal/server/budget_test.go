package server

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/protocol"
)

// heapInUse is HeapInuse after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// TestAnnouncedFramesPinNoMemory checks invariant 7 against its attack:
// 100 connections each announce a body of the largest size and send a few
// bytes of it. The server must hold memory for what arrived, not for what
// was announced (the frame reader used to allocate the 16 MiB at once: 1.6
// GiB in all), and keep answering another client meanwhile.
func TestAnnouncedFramesPinNoMemory(t *testing.T) {
	ts := startServer(t, Config{})
	good := ts.started(t)
	good.send(10, query("rows"))
	good.expect(10, protocol.OpResult)
	before := heapInUse()

	const conns = 100
	header := []byte{4, 0, 0, 1, byte(protocol.OpQuery), 0, 0, 0, 0}
	binary.BigEndian.PutUint32(header[5:], protocol.DefaultMaxBody)
	for range conns {
		bad := ts.dial(t)
		bad.write(append(header, "a few bytes"...))
	}
	// Each reader has taken one chunk for its first bytes; the budget
	// counts them.
	waitFor(t, "every announced body started", func() bool {
		_, used := ts.srv.budget.usage(netip.Addr{})
		return used >= conns*(64<<10)
	})
	good.send(11, query("rows"))
	good.expect(11, protocol.OpResult)
	grown := int64(heapInUse()) - int64(before)
	t.Logf("heap grew by %.1f MiB for %d connections announcing %d MiB each", float64(grown)/(1<<20), conns, protocol.MaxFrameSize>>20)
	if grown > 64<<20 {
		t.Fatalf("heap grew by %d MiB", grown>>20)
	}
}

// blockQuery is a QUERY the fake engine holds until released, padded to
// about size bytes of body.
func blockQuery(size int) *protocol.Query {
	return query("block " + strings.Repeat("x", size))
}

// TestRequestBudgetBackpressure checks invariant 7's default: with room
// for three 20 KiB requests, a client pipelining ten has three executing
// and is not read further until they finish; another client with nothing
// executing is still served; once released, every request is answered.
func TestRequestBudgetBackpressure(t *testing.T) {
	ts := startServer(t, Config{MaxRequestDataInFlight: 64 << 10, MaxRequestDataInFlightPerIP: 64 << 10})
	c := ts.started(t)
	var out []byte
	for i := 1; i <= 10; i++ {
		out = protocol.AppendRequest(out, int16(i), blockQuery(20<<10))
	}
	c.write(out)
	waitFor(t, "3 requests executing", func() bool { return ts.eng.inFlight.Load() == 3 })
	time.Sleep(100 * time.Millisecond)
	if got := ts.eng.maxInFlight.Load(); got != 3 {
		t.Fatalf("%d requests executed at once, want 3 (the budget holds three)", got)
	}
	// The budget is full, but this connection has nothing executing.
	other := ts.started(t)
	other.send(20, query("rows"))
	other.expect(20, protocol.OpResult)
	for range 10 {
		ts.eng.release <- struct{}{}
	}
	for range 10 {
		c.expectAnyResult()
	}
	if got := ts.eng.maxInFlight.Load(); got != 3 {
		t.Fatalf("%d requests executed at once, want 3", got)
	}
	waitFor(t, "the budget given back", func() bool {
		perIP, used := ts.srv.budget.usage(netip.MustParseAddr("127.0.0.1"))
		return perIP == 0 && used == 0
	})
}

// TestRequestBudgetThrowOnOverload: a connection that sent
// THROW_ON_OVERLOAD=1 gets Overloaded, with Cassandra's text, for the
// requests that find no room, and goes on serving the others.
func TestRequestBudgetThrowOnOverload(t *testing.T) {
	ts := startServer(t, Config{MaxRequestDataInFlight: 64 << 10, MaxRequestDataInFlightPerIP: 1 << 20})
	c := ts.dial(t)
	c.send(1, &protocol.Startup{Options: map[string]string{protocol.StartupCQLVersion: "3.0.0", protocol.StartupThrowOnOverload: "1"}})
	c.expect(1, protocol.OpReady)
	var out []byte
	for i := 2; i <= 6; i++ {
		out = protocol.AppendRequest(out, int16(i), blockQuery(20<<10))
	}
	c.write(out)
	held := 3 * (len(protocol.AppendRequest(nil, 2, blockQuery(20<<10))) - protocol.HeaderSize)
	for _, stream := range []int16{5, 6} {
		e := c.expectError(stream, cqlerr.Overloaded)
		want := fmt.Sprintf("Request breached limit on bytes in flight. (Endpoint: %d/%d bytes, Global: %d/%d bytes.) "+
			"Server is currently in an overloaded state and cannot accept more requests.", held, 1<<20, held, 64<<10)
		if e.Message != want {
			t.Fatalf("got %q\nwant %q", e.Message, want)
		}
	}
	// The refusals come from the reader, so the third admitted request may
	// still be on its way to the engine when they arrive.
	waitFor(t, "three requests executing", func() bool { return ts.eng.inFlight.Load() >= 3 })
	if got := ts.eng.inFlight.Load(); got != 3 {
		t.Fatalf("%d requests executing, want 3", got)
	}
	for range 3 {
		ts.eng.release <- struct{}{}
	}
	for range 3 {
		c.expectAnyResult()
	}
	c.send(7, query("rows"))
	c.expect(7, protocol.OpResult)
}
