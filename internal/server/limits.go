package server

import (
	"fmt"
	"net"
	"net/netip"
	"sync"
	"time"
)

// connLimits bounds the connections served at once, over all listeners
// and per client address (cassandra.yaml
// native_transport_max_concurrent_connections and
// native_transport_max_concurrent_connections_per_ip). As in Cassandra
// (transport/ConnectionLimitHandler.java), a connection over either limit
// is closed as soon as it is accepted, before anything is read or sent,
// and Cassandra's error is logged, at most once a minute for each limit
// (its NoSpamLogger); the connections already served are not touched. A limit of zero or less is no limit. Connections without an IP
// address (tests' pipes) count towards the total only.
type connLimits struct {
	limit, perIPLimit int

	mu struct {
		sync.Mutex
		total int
		perIP map[netip.Addr]int
		// logged is when each limit's refusal was last logged.
		logged [2]time.Time
	}
}

// refusalLogInterval is how often a limit's refusals are logged.
const refusalLogInterval = time.Minute

func newConnLimits(limit, perIPLimit int) *connLimits {
	l := &connLimits{limit: limit, perIPLimit: perIPLimit}
	l.mu.perIP = make(map[netip.Addr]int)
	return l
}

// The limits a connection can be refused by, as the refusal metric's
// label values.
const (
	limitTotal = "total"
	limitPerIP = "per_ip"
)

// acquire counts a new connection from ip, or refuses it. It returns
// refusedBy "" when the connection is counted and must be released when
// it closes; else refusedBy names the limit (limitTotal, limitPerIP), the
// connection must be closed unserved, and log, when not empty, is the
// error to log (Cassandra's words).
func (l *connLimits) acquire(ip netip.Addr) (refusedBy, log string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.limit > 0 && l.mu.total+1 > l.limit {
		return limitTotal, l.refusalLogLocked(0, "Exceeded maximum native connection limit of %d by using %d connections "+
			"(see native_transport_max_concurrent_connections in cassandra.yaml)", l.limit, l.mu.total+1)
	}
	if l.perIPLimit > 0 && ip.IsValid() && l.mu.perIP[ip]+1 > l.perIPLimit {
		return limitPerIP, l.refusalLogLocked(1, "Exceeded maximum native connection limit per ip of %d by using %d connections "+
			"(see native_transport_max_concurrent_connections_per_ip)", l.perIPLimit, l.mu.perIP[ip]+1)
	}
	l.mu.total++
	if ip.IsValid() {
		l.mu.perIP[ip]++
	}
	return "", ""
}

// refusalLogLocked returns the message to log for a refusal by limit
// which (0 total, 1 per address), or "" when one was logged in the last
// refusalLogInterval.
func (l *connLimits) refusalLogLocked(which int, format string, args ...any) string {
	now := time.Now()
	if last := l.mu.logged[which]; !last.IsZero() && now.Sub(last) < refusalLogInterval {
		return ""
	}
	l.mu.logged[which] = now
	return fmt.Sprintf(format, args...)
}

// release gives back what acquire counted for a connection from ip.
func (l *connLimits) release(ip netip.Addr) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.mu.total--
	if !ip.IsValid() {
		return
	}
	if n := l.mu.perIP[ip] - 1; n > 0 {
		l.mu.perIP[ip] = n
	} else {
		delete(l.mu.perIP, ip)
	}
}

// connections returns the connections counted, in all and from ip.
func (l *connLimits) connections(ip netip.Addr) (total, fromIP int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.mu.total, l.mu.perIP[ip]
}

// admitConn counts nc against the connection limits, or closes it,
// counts the refusal and returns false when it is over one.
func (s *Server) admitConn(nc net.Conn) bool {
	refusedBy, msg := s.limits.acquire(remoteIP(nc))
	if refusedBy == "" {
		return true
	}
	s.metrics.connRefused(refusedBy)
	if msg != "" {
		s.log.Error(msg, "remote", nc.RemoteAddr().String())
	}
	nc.Close()
	return false
}
