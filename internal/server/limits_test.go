package server

import (
	"bufio"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/partita-db/partita/internal/protocol"
)

// TestConnectionLimit: past native_transport_max_concurrent_connections a
// new connection is closed unanswered, as Cassandra's
// ConnectionLimitHandler does, with its warning logged; the connections
// already open keep being served, and a closed one makes room.
func TestConnectionLimit(t *testing.T) {
	ts := startServer(t, Config{MaxConcurrentConnections: 2})
	first, second := ts.started(t), ts.started(t)
	over := ts.dial(t)
	over.send(1, &protocol.Options{})
	over.expectClosed()
	if logs := ts.logs.String(); !strings.Contains(logs, `level=ERROR msg="Exceeded maximum native connection limit of 2 by using 3 connections (see native_transport_max_concurrent_connections in cassandra.yaml)" remote=127.0.0.1:`) {
		t.Fatalf("refusal not logged:\n%s", logs)
	}
	if n := ts.metric(t, "partita_cql_connections_refused_total", "limit", "total"); n != 1 {
		t.Fatalf("partita_cql_connections_refused_total{limit=total} = %v, want 1", n)
	}
	second.send(3, query("rows"))
	second.expect(3, protocol.OpResult)

	first.nc.Close()
	waitFor(t, "the closed connection to be released", func() bool {
		total, _ := ts.srv.limits.connections(netip.Addr{})
		return total == 1
	})
	third := ts.started(t)
	third.send(3, query("rows"))
	third.expect(3, protocol.OpResult)
}

// TestConnectionLimitPerIP: native_transport_max_concurrent_connections_per_ip
// counts the connections of each client address apart: 127.0.0.1 over
// its limit is refused while 127.0.0.2 is served.
func TestConnectionLimitPerIP(t *testing.T) {
	ts := startServer(t, Config{MaxConcurrentConnectionsPerIP: 1})
	ts.started(t)
	over := ts.dial(t)
	over.send(1, &protocol.Options{})
	over.expectClosed()
	if logs := ts.logs.String(); !strings.Contains(logs, `level=ERROR msg="Exceeded maximum native connection limit per ip of 1 by using 2 connections (see native_transport_max_concurrent_connections_per_ip)" remote=127.0.0.1:`) {
		t.Fatalf("refusal not logged:\n%s", logs)
	}
	if n := ts.metric(t, "partita_cql_connections_refused_total", "limit", "per_ip"); n != 1 {
		t.Fatalf("partita_cql_connections_refused_total{limit=per_ip} = %v, want 1", n)
	}
	if n := ts.metric(t, "partita_cql_connections_refused_total", "limit", "total"); n != 0 {
		t.Fatalf("partita_cql_connections_refused_total{limit=total} = %v, want 0", n)
	}
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}, Timeout: 5 * time.Second}
	nc, err := d.Dial("tcp", ts.addr)
	if err != nil {
		t.Skipf("no second loopback address: %v", err)
	}
	t.Cleanup(func() { nc.Close() })
	other := &client{t: t, nc: nc, br: bufio.NewReader(nc)}
	other.send(1, &protocol.Options{})
	other.expect(1, protocol.OpSupported)
	total, fromIP := ts.srv.limits.connections(netip.MustParseAddr("127.0.0.2"))
	if total != 2 || fromIP != 1 {
		t.Fatalf("counted %d connections, %d from 127.0.0.2; want 2 and 1", total, fromIP)
	}
}

// TestConnLimitsRelease: releasing gives back what acquiring counted, so
// that a limit reached once is not reached for ever.
func TestConnLimitsRelease(t *testing.T) {
	l := newConnLimits(0, 2)
	ip := netip.MustParseAddr("10.0.0.1")
	for i := 0; i < 2; i++ {
		if by, _ := l.acquire(ip); by != "" {
			t.Fatalf("connection %d refused by %s", i+1, by)
		}
	}
	if by, msg := l.acquire(ip); by != limitPerIP || msg == "" {
		t.Fatalf("third connection from one address: refused by %q, log %q; want %q and logged", by, msg, limitPerIP)
	}
	// Logged once a minute, as Cassandra's NoSpamLogger does.
	if by, msg := l.acquire(ip); by != limitPerIP || msg != "" {
		t.Fatalf("fourth connection: refused by %q, log %q; want %q, not logged again", by, msg, limitPerIP)
	}
	l.release(ip)
	if by, _ := l.acquire(ip); by != "" {
		t.Fatalf("refused by %s after a release", by)
	}
	l.release(ip)
	l.release(ip)
	if total, fromIP := l.connections(ip); total != 0 || fromIP != 0 {
		t.Fatalf("after releasing all: %d, %d", total, fromIP)
	}
}
