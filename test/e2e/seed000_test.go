package e2e_test

import (
	"testing"
	"time"

	"github.com/gocql/gocql"
)

// Seed 000: notes_by_user, the three primary key forms, time buckets.
func TestSeed000NotesByUser(t *testing.T) {
	s := newKeyspace(t, "go_seed000_notes")
	mustExec(t, s, `CREATE TABLE notes_by_user (
    user_id    uuid,        -- partition key
    created_at timestamp,   -- clustering key
    note_id    uuid,        -- clustering key
    content    text,
    PRIMARY KEY (user_id, created_at, note_id)
);`)
	user, other := gocql.MustRandomUUID(), gocql.MustRandomUUID()
	n1, _ := gocql.ParseUUID("00000000-0000-4000-8000-000000000001")
	n2, _ := gocql.ParseUUID("00000000-0000-4000-8000-000000000002")
	at := func(m int) time.Time { return utc(2026, 10, 8, 9, m, 0) }
	const insert = "INSERT INTO notes_by_user (user_id, created_at, note_id, content) VALUES (?, ?, ?, ?)"
	for _, w := range []struct {
		created time.Time
		note    gocql.UUID
		content string
	}{
		{at(3), n1, "third"}, {at(1), n2, "first-b"}, {at(2), n1, "second"}, {at(1), n1, "first-a"},
	} {
		mustExec(t, s, insert, user, w.created, w.note, w.content)
	}
	mustExec(t, s, insert, other, at(0), n1, "someone else")

	rows := selectMaps(t, s, "SELECT created_at, note_id, content FROM notes_by_user WHERE user_id = ?", user)
	equal(t, "contents", column[string](t, rows, "content"), []string{"first-a", "first-b", "second", "third"})
	equal(t, "created_at", column[time.Time](t, rows, "created_at"), []time.Time{at(1), at(1), at(2), at(3)})

	mustExec(t, s, insert, user, at(2), n1, "second, edited")
	rows = selectMaps(t, s, "SELECT content FROM notes_by_user WHERE user_id = ? AND created_at > ? AND created_at <= ?",
		user, at(1), at(3))
	equal(t, "range", column[string](t, rows, "content"), []string{"second, edited", "third"})
	rows = selectMaps(t, s, "SELECT content FROM notes_by_user WHERE user_id = ? ORDER BY created_at DESC, note_id DESC LIMIT 3", user)
	equal(t, "reversed", column[string](t, rows, "content"), []string{"third", "second, edited", "first-b"})
}

func TestSeed000KeyForms(t *testing.T) {
	s := newKeyspace(t, "go_seed000_keys")
	mustExec(t, s, "CREATE TABLE key_a (a int, b int, c int, v text, PRIMARY KEY (a))")
	mustExec(t, s, "CREATE TABLE key_a_b_c (a int, b int, c int, v text, PRIMARY KEY (a, b, c))")
	mustExec(t, s, "CREATE TABLE key_ab_c (a int, b int, c int, v text, PRIMARY KEY ((a, b), c))")

	t.Run("(a)", func(t *testing.T) {
		for b := range 3 {
			mustExec(t, s, "INSERT INTO key_a (a, b, c, v) VALUES (1, ?, 0, ?)", b, "v"+string(rune('0'+b)))
		}
		rows := selectMaps(t, s, "SELECT b, v FROM key_a WHERE a = 1")
		equal(t, "one row per key", column[string](t, rows, "v"), []string{"v2"})
	})
	t.Run("(a, b, c)", func(t *testing.T) {
		for _, bc := range [][2]int{{2, 1}, {1, 2}, {1, 1}, {2, 0}} {
			mustExec(t, s, "INSERT INTO key_a_b_c (a, b, c, v) VALUES (7, ?, ?, 'x')", bc[0], bc[1])
		}
		rows := selectMaps(t, s, "SELECT b, c FROM key_a_b_c WHERE a = 7")
		equal(t, "b", column[int](t, rows, "b"), []int{1, 1, 2, 2})
		equal(t, "c", column[int](t, rows, "c"), []int{1, 2, 0, 1})
		rows = selectMaps(t, s, "SELECT c FROM key_a_b_c WHERE a = 7 AND b = 2")
		equal(t, "c of b=2", column[int](t, rows, "c"), []int{0, 1})
	})
	t.Run("((a, b), c)", func(t *testing.T) {
		for _, abc := range [][3]int{{1, 1, 2}, {1, 1, 1}, {1, 2, 1}} {
			mustExec(t, s, "INSERT INTO key_ab_c (a, b, c, v) VALUES (?, ?, ?, 'x')", abc[0], abc[1], abc[2])
		}
		rows := selectMaps(t, s, "SELECT c FROM key_ab_c WHERE a = 1 AND b = 1")
		equal(t, "c", column[int](t, rows, "c"), []int{1, 2})
		expectCode(t, s.Query("SELECT c FROM key_ab_c WHERE a = 1").Exec(), gocql.ErrCodeInvalid)
	})
	t.Run("metadata", func(t *testing.T) {
		ks, err := s.KeyspaceMetadata("go_seed000_keys")
		if err != nil {
			t.Fatal(err)
		}
		names := func(cols []*gocql.ColumnMetadata) []string {
			var out []string
			for _, c := range cols {
				out = append(out, c.Name)
			}
			return out
		}
		for table, want := range map[string][2][]string{
			"key_a":     {{"a"}, nil},
			"key_a_b_c": {{"a"}, {"b", "c"}},
			"key_ab_c":  {{"a", "b"}, {"c"}},
		} {
			tm := ks.Tables[table]
			if tm == nil {
				t.Fatalf("no metadata for %s", table)
			}
			equal(t, table+" partition key", names(tm.PartitionKey), want[0])
			equal(t, table+" clustering", names(tm.ClusteringColumns), want[1])
		}
	})
}

func TestSeed000TimeBuckets(t *testing.T) {
	s := newKeyspace(t, "go_seed000_buckets")
	mustExec(t, s, `CREATE TABLE readings_by_device_day (
    device_id text,
    day text,
    timestamp timestamp,
    value double,
    PRIMARY KEY ((device_id, day), timestamp)
)`)
	mustExec(t, s, `CREATE TABLE notes_by_user_year (
    user_id uuid,
    year int,
    created_at timestamp,
    content text,
    PRIMARY KEY ((user_id, year), created_at)
)`)
	for _, day := range []int{7, 8} {
		for _, hour := range []int{23, 5, 12} {
			mustExec(t, s, "INSERT INTO readings_by_device_day (device_id, day, timestamp, value) VALUES (?, ?, ?, ?)",
				"dev-1", utc(2026, 10, day, 0, 0, 0).Format("2006-01-02"), utc(2026, 10, day, hour, 0, 0), float64(hour))
		}
	}
	rows := selectMaps(t, s, "SELECT timestamp, value FROM readings_by_device_day WHERE device_id = 'dev-1' AND day = '2026-10-08'")
	equal(t, "day bucket", column[time.Time](t, rows, "timestamp"),
		[]time.Time{utc(2026, 10, 8, 5, 0, 0), utc(2026, 10, 8, 12, 0, 0), utc(2026, 10, 8, 23, 0, 0)})
	rows = selectMaps(t, s, "SELECT value FROM readings_by_device_day WHERE device_id = 'dev-1' AND day = '2026-10-08' "+
		"AND timestamp >= '2026-10-08 06:00:00+0000'")
	equal(t, "range", column[float64](t, rows, "value"), []float64{12, 23})

	user := gocql.MustRandomUUID()
	for _, year := range []int{2025, 2026} {
		for _, month := range []time.Month{12, 1, 6} {
			mustExec(t, s, "INSERT INTO notes_by_user_year (user_id, year, created_at, content) VALUES (?, ?, ?, ?)",
				user, year, utc(year, month, 1, 0, 0, 0), utc(year, month, 1, 0, 0, 0).Format("2006-01"))
		}
	}
	for year, want := range map[int][]string{
		2026: {"2026-01", "2026-06", "2026-12"},
		2025: {"2025-01", "2025-06", "2025-12"},
		2024: {},
	} {
		rows := selectMaps(t, s, "SELECT content FROM notes_by_user_year WHERE user_id = ? AND year = ?", user, year)
		equal(t, "year bucket", column[string](t, rows, "content"), want)
	}
}
