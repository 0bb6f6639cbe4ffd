package seeds

import (
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/test/internal/cqltest"
)

// Seed 000: notes_by_user, the three primary key forms, time buckets.
func Seed000NotesByUser(t *testing.T, tg *cqltest.Target) {
	s := tg.NewKeyspace(t, "go_seed000_notes")
	cqltest.MustExec(t, s, `CREATE TABLE notes_by_user (
    user_id    uuid,        -- partition key
    created_at timestamp,   -- clustering key
    note_id    uuid,        -- clustering key
    content    text,
    PRIMARY KEY (user_id, created_at, note_id)
);`)
	user, other := gocql.MustRandomUUID(), gocql.MustRandomUUID()
	n1, _ := gocql.ParseUUID("00000000-0000-4000-8000-000000000001")
	n2, _ := gocql.ParseUUID("00000000-0000-4000-8000-000000000002")
	at := func(m int) time.Time { return cqltest.UTC(2026, 10, 8, 9, m, 0) }
	const insert = "INSERT INTO notes_by_user (user_id, created_at, note_id, content) VALUES (?, ?, ?, ?)"
	for _, w := range []struct {
		created time.Time
		note    gocql.UUID
		content string
	}{
		{at(3), n1, "third"}, {at(1), n2, "first-b"}, {at(2), n1, "second"}, {at(1), n1, "first-a"},
	} {
		cqltest.MustExec(t, s, insert, user, w.created, w.note, w.content)
	}
	cqltest.MustExec(t, s, insert, other, at(0), n1, "someone else")

	rows := cqltest.SelectMaps(t, s, "SELECT created_at, note_id, content FROM notes_by_user WHERE user_id = ?", user)
	cqltest.Equal(t, "contents", cqltest.Column[string](t, rows, "content"), []string{"first-a", "first-b", "second", "third"})
	cqltest.Equal(t, "created_at", cqltest.Column[time.Time](t, rows, "created_at"), []time.Time{at(1), at(1), at(2), at(3)})

	cqltest.MustExec(t, s, insert, user, at(2), n1, "second, edited")
	rows = cqltest.SelectMaps(t, s, "SELECT content FROM notes_by_user WHERE user_id = ? AND created_at > ? AND created_at <= ?",
		user, at(1), at(3))
	cqltest.Equal(t, "range", cqltest.Column[string](t, rows, "content"), []string{"second, edited", "third"})
	rows = cqltest.SelectMaps(t, s, "SELECT content FROM notes_by_user WHERE user_id = ? ORDER BY created_at DESC, note_id DESC LIMIT 3", user)
	cqltest.Equal(t, "reversed", cqltest.Column[string](t, rows, "content"), []string{"third", "second, edited", "first-b"})
}

func Seed000KeyForms(t *testing.T, tg *cqltest.Target) {
	s := tg.NewKeyspace(t, "go_seed000_keys")
	cqltest.MustExec(t, s, "CREATE TABLE key_a (a int, b int, c int, v text, PRIMARY KEY (a))")
	cqltest.MustExec(t, s, "CREATE TABLE key_a_b_c (a int, b int, c int, v text, PRIMARY KEY (a, b, c))")
	cqltest.MustExec(t, s, "CREATE TABLE key_ab_c (a int, b int, c int, v text, PRIMARY KEY ((a, b), c))")

	t.Run("(a)", func(t *testing.T) {
		for b := range 3 {
			cqltest.MustExec(t, s, "INSERT INTO key_a (a, b, c, v) VALUES (1, ?, 0, ?)", b, "v"+string(rune('0'+b)))
		}
		rows := cqltest.SelectMaps(t, s, "SELECT b, v FROM key_a WHERE a = 1")
		cqltest.Equal(t, "one row per key", cqltest.Column[string](t, rows, "v"), []string{"v2"})
	})
	t.Run("(a, b, c)", func(t *testing.T) {
		for _, bc := range [][2]int{{2, 1}, {1, 2}, {1, 1}, {2, 0}} {
			cqltest.MustExec(t, s, "INSERT INTO key_a_b_c (a, b, c, v) VALUES (7, ?, ?, 'x')", bc[0], bc[1])
		}
		rows := cqltest.SelectMaps(t, s, "SELECT b, c FROM key_a_b_c WHERE a = 7")
		cqltest.Equal(t, "b", cqltest.Column[int](t, rows, "b"), []int{1, 1, 2, 2})
		cqltest.Equal(t, "c", cqltest.Column[int](t, rows, "c"), []int{1, 2, 0, 1})
		rows = cqltest.SelectMaps(t, s, "SELECT c FROM key_a_b_c WHERE a = 7 AND b = 2")
		cqltest.Equal(t, "c of b=2", cqltest.Column[int](t, rows, "c"), []int{0, 1})
	})
	t.Run("((a, b), c)", func(t *testing.T) {
		for _, abc := range [][3]int{{1, 1, 2}, {1, 1, 1}, {1, 2, 1}} {
			cqltest.MustExec(t, s, "INSERT INTO key_ab_c (a, b, c, v) VALUES (?, ?, ?, 'x')", abc[0], abc[1], abc[2])
		}
		rows := cqltest.SelectMaps(t, s, "SELECT c FROM key_ab_c WHERE a = 1 AND b = 1")
		cqltest.Equal(t, "c", cqltest.Column[int](t, rows, "c"), []int{1, 2})
		cqltest.ExpectCode(t, s.Query("SELECT c FROM key_ab_c WHERE a = 1").Exec(), gocql.ErrCodeInvalid)
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
			cqltest.Equal(t, table+" partition key", names(tm.PartitionKey), want[0])
			cqltest.Equal(t, table+" clustering", names(tm.ClusteringColumns), want[1])
		}
	})
}

func Seed000TimeBuckets(t *testing.T, tg *cqltest.Target) {
	s := tg.NewKeyspace(t, "go_seed000_buckets")
	cqltest.MustExec(t, s, `CREATE TABLE readings_by_device_day (
    device_id text,
    day text,
    timestamp timestamp,
    value double,
    PRIMARY KEY ((device_id, day), timestamp)
)`)
	cqltest.MustExec(t, s, `CREATE TABLE notes_by_user_year (
    user_id uuid,
    year int,
    created_at timestamp,
    content text,
    PRIMARY KEY ((user_id, year), created_at)
)`)
	for _, day := range []int{7, 8} {
		for _, hour := range []int{23, 5, 12} {
			cqltest.MustExec(t, s, "INSERT INTO readings_by_device_day (device_id, day, timestamp, value) VALUES (?, ?, ?, ?)",
				"dev-1", cqltest.UTC(2026, 10, day, 0, 0, 0).Format("2006-01-02"), cqltest.UTC(2026, 10, day, hour, 0, 0), float64(hour))
		}
	}
	rows := cqltest.SelectMaps(t, s, "SELECT timestamp, value FROM readings_by_device_day WHERE device_id = 'dev-1' AND day = '2026-10-08'")
	cqltest.Equal(t, "day bucket", cqltest.Column[time.Time](t, rows, "timestamp"),
		[]time.Time{cqltest.UTC(2026, 10, 8, 5, 0, 0), cqltest.UTC(2026, 10, 8, 12, 0, 0), cqltest.UTC(2026, 10, 8, 23, 0, 0)})
	rows = cqltest.SelectMaps(t, s, "SELECT value FROM readings_by_device_day WHERE device_id = 'dev-1' AND day = '2026-10-08' "+
		"AND timestamp >= '2026-10-08 06:00:00+0000'")
	cqltest.Equal(t, "range", cqltest.Column[float64](t, rows, "value"), []float64{12, 23})

	user := gocql.MustRandomUUID()
	for _, year := range []int{2025, 2026} {
		for _, month := range []time.Month{12, 1, 6} {
			cqltest.MustExec(t, s, "INSERT INTO notes_by_user_year (user_id, year, created_at, content) VALUES (?, ?, ?, ?)",
				user, year, cqltest.UTC(year, month, 1, 0, 0, 0), cqltest.UTC(year, month, 1, 0, 0, 0).Format("2006-01"))
		}
	}
	for year, want := range map[int][]string{
		2026: {"2026-01", "2026-06", "2026-12"},
		2025: {"2025-01", "2025-06", "2025-12"},
		2024: {},
	} {
		rows := cqltest.SelectMaps(t, s, "SELECT content FROM notes_by_user_year WHERE user_id = ? AND year = ?", user, year)
		cqltest.Equal(t, "year bucket", cqltest.Column[string](t, rows, "content"), want)
	}
}
