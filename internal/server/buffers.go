package server

import (
	"net/netip"
	"sync"

	"github.com/partita-db/partita/internal/cqlerr"
)

// frameBuf is a pooled buffer holding one encoded response frame.
type frameBuf struct{ b []byte }

// maxPooledFrame keeps a large result's buffer from being held forever.
const maxPooledFrame = 64 << 10

var framePool = sync.Pool{New: func() any { return &frameBuf{b: make([]byte, 0, 512)} }}

func getFrameBuf() *frameBuf { return framePool.Get().(*frameBuf) }

func putFrameBuf(fb *frameBuf) {
	if cap(fb.b) > maxPooledFrame {
		return
	}
	fb.b = fb.b[:0]
	framePool.Put(fb)
}

// requestBudget bounds the bytes of request bodies the server holds, from
// the first byte read to the end of the request, over all connections and
// per client address: Cassandra's native_transport_max_request_data_in_flight
// and native_transport_max_request_data_in_flight_per_ip
// (transport/ClientResourceLimits.java). How a connection reacts when it
// finds no room is conn.takeRequestBytes (invariant 7).
type requestBudget struct {
	limit, perIPLimit int64
	mu                struct {
		sync.Mutex
		used  int64
		perIP map[netip.Addr]int64
		// freed is closed, and replaced, at the first release after a
		// reader found no room (waited), so that the readers waiting for
		// room look again.
		freed  chan struct{}
		waited bool
	}
}

func newRequestBudget(limit, perIPLimit int64) *requestBudget {
	b := &requestBudget{limit: limit, perIPLimit: perIPLimit}
	b.mu.perIP = make(map[netip.Addr]int64)
	b.mu.freed = make(chan struct{})
	return b
}

// tryReserve takes n bytes for ip if neither limit would be passed. If one
// would, it takes nothing and returns a channel closed at the next release.
func (b *requestBudget) tryReserve(ip netip.Addr, n int64) (bool, <-chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.mu.used+n > b.limit || b.mu.perIP[ip]+n > b.perIPLimit {
		b.mu.waited = true
		return false, b.mu.freed
	}
	b.mu.used += n
	b.mu.perIP[ip] += n
	return true, nil
}

// force takes n bytes for ip whatever the limits.
func (b *requestBudget) force(ip netip.Addr, n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.mu.used += n
	b.mu.perIP[ip] += n
}

// release gives back n bytes taken for ip.
func (b *requestBudget) release(ip netip.Addr, n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.mu.used -= n
	if left := b.mu.perIP[ip] - n; left > 0 {
		b.mu.perIP[ip] = left
	} else {
		delete(b.mu.perIP, ip)
	}
	if b.mu.waited {
		close(b.mu.freed)
		b.mu.freed, b.mu.waited = make(chan struct{}), false
	}
}

// usage returns the bytes held for ip and in all.
func (b *requestBudget) usage(ip netip.Addr) (perIP, used int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.mu.perIP[ip], b.mu.used
}

// overloaded is the error a connection that asked for THROW_ON_OVERLOAD
// gets when there is no room, with Cassandra's text
// (transport/CQLMessageHandler.java buildOverloadedException).
func (b *requestBudget) overloaded(ip netip.Addr) *cqlerr.Error {
	perIP, used := b.usage(ip)
	return cqlerr.New(cqlerr.Overloaded, "Request breached limit on bytes in flight. (Endpoint: %d/%d bytes, Global: %d/%d bytes.) "+
		"Server is currently in an overloaded state and cannot accept more requests.", perIP, b.perIPLimit, used, b.limit)
}
