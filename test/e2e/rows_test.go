package e2e_test

import (
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/test/internal/cqltest"
)

// waitSchema bounds how long a test waits for a schema event to reach a
// driver's metadata (gocql debounces events for a second). It is a bound
// on a lost event, not an expected delay: a loaded machine only makes the
// wait longer, and the wait ends as soon as the change is seen.
const waitSchema = 60 * time.Second

// selectMaps runs a query and returns its rows as gocql's default Go values.
func selectMaps(t *testing.T, s *gocql.Session, stmt string, args ...any) []map[string]any {
	t.Helper()
	return cqltest.SelectMaps(t, s, stmt, args...)
}

// column extracts one column of rows, as type T.
func column[T any](t *testing.T, rows []map[string]any, name string) []T {
	t.Helper()
	return cqltest.Column[T](t, rows, name)
}

// equal fails t unless got deep-equals want.
func equal[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	cqltest.Equal(t, what, got, want)
}

// utc builds a UTC time.
func utc(y int, mo time.Month, d, h, mi, s int) time.Time { return cqltest.UTC(y, mo, d, h, mi, s) }

// timeUUID is a deterministic version-1 UUID for t (node and clock
// sequence fixed by seq), so that tests know the clustering order.
func timeUUID(t time.Time, seq uint16) gocql.UUID { return cqltest.TimeUUID(t, seq) }
