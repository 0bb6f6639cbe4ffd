package exec

import (
	"math"
	"testing"

	"github.com/partita-db/partita/internal/backend"
)

// TestLockedTimestamp pins the timestamp each kind of read-modify-write
// takes under the partition lock: the server clock stands at 5000, and the
// read returned data as new as newest.
func TestLockedTimestamp(t *testing.T) {
	const clock = 5000
	for _, tc := range []struct {
		name   string
		kind   rmwKind
		client int64 // 0: no client timestamp
		newest int64
		want   int64
	}{
		// Cassandra's ballot: the client's timestamp is ignored.
		{"conditional/client ignored", rmwConditional, 1000, 2000, clock},
		{"conditional/client ahead ignored", rmwConditional, 9000, 2000, clock},
		{"conditional/above a future row", rmwConditional, 1000, 7000, 7001},
		{"conditional/nothing read", rmwConditional, 0, backend.NoTimestamp, clock},
		// A counter's total must supersede the one it read.
		{"counter/client behind the total", rmwCounter, 1000, 2000, 2001},
		{"counter/client ahead", rmwCounter, 3000, 2000, 3000},
		{"counter/server", rmwCounter, 0, 2000, clock},
		{"counter/server behind a future total", rmwCounter, 0, 7000, 7001},
		{"counter/at the largest timestamp", rmwCounter, 1000, math.MaxInt64, math.MaxInt64},
		// Lists: last write wins on the timestamp given.
		{"list/client kept", rmwList, 1000, 2000, 1000},
		{"list/server", rmwList, 0, 7000, clock},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := &Request{Clock: func() int64 { return clock }}
			if tc.client != 0 {
				req.Timestamp, req.ClientTimestamp = tc.client, true
			}
			if got := req.lockedTimestamp(tc.kind, tc.newest); got != tc.want {
				t.Fatalf("lockedTimestamp = %d, want %d", got, tc.want)
			}
		})
	}
}
