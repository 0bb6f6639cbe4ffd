package config

import (
	"fmt"
	"net"
	"slices"
	"strings"
	"time"
)

// minBackendLease is the shortest lease a gateway may be configured with:
// a lease is renewed once a third of it is left, by a lightweight
// transaction that takes several round trips to the cluster, and a state
// lease shorter than a request's round trip would fail the requests routed
// under it.
const minBackendLease = time.Second

func (c *Config) validateBackend(fail func(option, format string, args ...any)) {
	switch c.Backend {
	case BackendPebble:
	case BackendCassandra:
		if len(c.BackendContactPoints) == 0 {
			fail("backend_contact_points", "the cassandra backend needs at least one host:port")
		}
		for _, hp := range c.BackendContactPoints {
			if _, _, err := net.SplitHostPort(hp); err != nil {
				fail("backend_contact_points", "%q is not host:port", hp)
			}
		}
	default:
		fail("backend", "must be %q or %q, not %q", BackendPebble, BackendCassandra, c.Backend)
	}
	if !slices.Contains(backendConsistencies, strings.ToUpper(c.BackendConsistency)) {
		fail("backend_consistency", "must be one of %s, not %q", strings.Join(backendConsistencies, ", "), c.BackendConsistency)
	}
	if c.BackendKeyspace == "" {
		fail("backend_keyspace", "must not be empty")
	}
	if c.BackendReplication != "" {
		if _, err := ParseReplication(c.BackendReplication); err != nil {
			fail("backend_replication", "%v", err)
		}
	}
	for _, l := range []struct {
		name string
		v    time.Duration
	}{
		{"backend_lease", c.BackendLease},
		{"backend_state_lease", c.BackendStateLease},
		{"backend_state_drain", c.BackendStateDrain},
	} {
		if l.v != 0 && l.v < minBackendLease {
			fail(l.name, "%v is shorter than the %v a lease may be (0 keeps the default)", l.v, minBackendLease)
		}
	}
}

// BackendReplicationCQL is backend_replication as CQL's replication map,
// or "" when it is not set (the store's default).
func (c *Config) BackendReplicationCQL() (string, error) {
	if c.BackendReplication == "" {
		return "", nil
	}
	r, err := ParseReplication(c.BackendReplication)
	if err != nil {
		return "", fmt.Errorf("backend_replication: %w", err)
	}
	return r.CQL(), nil
}
