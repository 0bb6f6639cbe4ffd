package e2e_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

// waitSchema bounds how long a test waits for a schema event to reach a
// driver's metadata (gocql debounces events for a second). It is a bound
// on a lost event, not an expected delay: a loaded machine only makes the
// wait longer, and the wait ends as soon as the change is seen.
const waitSchema = 60 * time.Second

// selectMaps runs a query and returns its rows as gocql's default Go values.
func selectMaps(t *testing.T, s *gocql.Session, stmt string, args ...any) []map[string]any {
	t.Helper()
	rows, err := s.Query(stmt, args...).Iter().SliceMap()
	if err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	return rows
}

// column extracts one column of rows, as type T.
func column[T any](t *testing.T, rows []map[string]any, name string) []T {
	t.Helper()
	out := make([]T, 0, len(rows))
	for i, r := range rows {
		v, ok := r[name].(T)
		if !ok {
			t.Fatalf("row %d: column %q is %T, want %T", i, name, r[name], *new(T))
		}
		out = append(out, v)
	}
	return out
}

// equal fails t unless got deep-equals want.
func equal[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n got %v\nwant %v", what, got, want)
	}
}

// utc builds a UTC time.
func utc(y int, mo time.Month, d, h, mi, s int) time.Time {
	return time.Date(y, mo, d, h, mi, s, 0, time.UTC)
}

// timeUUID is a deterministic version-1 UUID for t (node and clock
// sequence fixed by seq), so that tests know the clustering order.
func timeUUID(t time.Time, seq uint16) gocql.UUID {
	// 100-ns intervals since 1582-10-15, the UUID epoch.
	const unixEpochTicks = 0x01B21DD213814000
	ticks := uint64(t.UnixNano()/100) + unixEpochTicks
	var u gocql.UUID
	u[0], u[1], u[2], u[3] = byte(ticks>>24), byte(ticks>>16), byte(ticks>>8), byte(ticks)
	u[4], u[5] = byte(ticks>>40), byte(ticks>>32)
	u[6], u[7] = byte(ticks>>56)&0x0f|0x10, byte(ticks>>48)
	u[8], u[9] = byte(seq>>8)&0x3f|0x80, byte(seq)
	copy(u[10:], []byte{0, 0, 0, 0, 0, 0xa1})
	return u
}
