package seeds

import (
	"bytes"
	"hash/crc32"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/test/internal/cqltest"
)

// Seed 004's tables, as written.
var Seed004Tables = []string{`CREATE TABLE IF NOT EXISTS user_events_by_day (
    user_id text,
    bucket_date date,
    event_time timestamp,
    event_id timeuuid,
    event_type text,
    payload text,
    PRIMARY KEY ((user_id, bucket_date), event_time, event_id)
) WITH CLUSTERING ORDER BY (
    event_time DESC,
    event_id ASC
);`, `CREATE TABLE device_events_by_day (
    device_id text,
    bucket_date date,
    event_time timestamp,
    event_id timeuuid,
    event_type text,
    payload text,
    PRIMARY KEY ((device_id, bucket_date), event_time, event_id)
) WITH CLUSTERING ORDER BY (
    event_time DESC,
    event_id ASC
);`, `CREATE TABLE user_events_by_hour (
    user_id text,
    bucket_hour timestamp,
    event_time timestamp,
    event_id timeuuid,
    event_type text,
    payload text,
    PRIMARY KEY ((user_id, bucket_hour), event_time, event_id)
) WITH CLUSTERING ORDER BY (
    event_time DESC,
    event_id ASC
);`, `CREATE TABLE room_events (
    room_id text,
    bucket int,
    event_time timestamp,
    event_id timeuuid,
    payload text,
    PRIMARY KEY ((room_id, bucket), event_time, event_id)
);`, `CREATE TABLE login_events_by_day (
    bucket_date date,
    event_time timestamp,
    event_id timeuuid,
    user_id text,
    payload text,
    PRIMARY KEY ((bucket_date), event_time, event_id)
);`, `CREATE TABLE orders_by_customer (
    customer_id text,
    order_id uuid,
    status text,
    created_at timestamp,
    PRIMARY KEY ((customer_id), order_id)
);`, `CREATE TABLE paid_orders_by_customer (
    customer_id text,
    created_at timestamp,
    order_id uuid,
    PRIMARY KEY ((customer_id), created_at, order_id)
);`}

// filteringMessage is Cassandra's text for a query that needs ALLOW
// FILTERING (StatementRestrictions.REQUIRES_ALLOW_FILTERING_MESSAGE).
const filteringMessage = "Cannot execute this query as it might involve data filtering and thus may have unpredictable " +
	"performance. If you want to execute this query despite the performance unpredictability, use ALLOW FILTERING"

// event is a clustering position of the seed's event tables.
type event struct {
	Time time.Time
	ID   gocql.UUID
}

// compareDescAsc orders events as (event_time DESC, event_id ASC); ids of
// one time order by their bytes after the timestamp, as TimeUUIDType does
// for the clock sequences these tests use.
func compareDescAsc(a, b event) int {
	if c := b.Time.Compare(a.Time); c != 0 {
		return c
	}
	if c := a.ID.Time().Compare(b.ID.Time()); c != 0 {
		return c
	}
	return bytes.Compare(a.ID[8:], b.ID[8:])
}

// scanEvents reads the event_time and event_id columns of a query's rows.
func scanEvents(t *testing.T, q *gocql.Query) []event {
	t.Helper()
	rows, err := q.Iter().SliceMap()
	if err != nil {
		t.Fatal(err)
	}
	out := make([]event, len(rows))
	for i, r := range rows {
		out[i] = event{r["event_time"].(time.Time), r["event_id"].(gocql.UUID)}
	}
	return out
}

func at(h, m int) time.Time { return cqltest.UTC(2025, 3, 8, h, m, 0) }

// seed004Session returns a session in the keyspace holding seed 004's
// tables, created once for all the seed 004 tests.
func seed004Session(t *testing.T, tg *cqltest.Target) *gocql.Session {
	t.Helper()
	// The first table is created twice: IF NOT EXISTS makes the second a no-op.
	return tg.SharedKeyspace(t, "go_seed004", slices.Concat(Seed004Tables, Seed004Tables[:1])...)
}

const insertUserDay = "INSERT INTO user_events_by_day (user_id, bucket_date, event_time, event_id, event_type, payload) VALUES (?, ?, ?, ?, ?, ?)"

// fillDay writes 30 events of user on 2025-03-08, some sharing a time, and
// returns them in the table's clustering order.
func fillDay(t *testing.T, s *gocql.Session, user string) []event {
	t.Helper()
	var want []event
	for i := range 30 {
		ts := at(i%24, (7*i)%60)
		seqs := []uint16{1}
		if i%5 == 0 {
			seqs = []uint16{2, 1} // two events share this time
		}
		for _, seq := range seqs {
			id := cqltest.TimeUUID(ts, seq)
			cqltest.MustExec(t, s, insertUserDay, user, "2025-03-08", ts, id, []string{"click", "login"}[boolInt(i%3 == 0)], "p")
			want = append(want, event{ts, id})
		}
	}
	slices.SortFunc(want, compareDescAsc)
	return want
}

// §5.1: the INSERTs with now() and with a literal timeuuid, as written.
func Seed004NowAndLiteralTimeUUID(t *testing.T, tg *cqltest.Target) {
	s := seed004Session(t, tg)
	cqltest.MustExec(t, s, `INSERT INTO user_events_by_day (
    user_id, bucket_date, event_time, event_id,
    event_type, payload
) VALUES (
    'u-1001', '2025-03-08', '2025-03-08 10:15:00+0000',
    now(), 'login', '{"ip":"203.0.113.10"}'
);`)
	cqltest.MustExec(t, s, `INSERT INTO device_events_by_day (
    device_id, bucket_date, event_time, event_id,
    event_type, payload
) VALUES (
    'device-9', '2025-03-08', '2025-03-08 10:15:00+0000',
    now(), 'login', '{"ip":"203.0.113.10"}'
);`)
	cqltest.MustExec(t, s, `INSERT INTO user_events_by_day (
    user_id, bucket_date, event_time, event_id,
    event_type, payload
) VALUES (
    'u-1001', '2025-03-08', '2025-03-08 10:15:00+0000',
    8d7c3f20-0b7b-11f0-8f1e-000000000001,
    'login', '{"ip":"203.0.113.10"}'
);`)
	got := scanEvents(t, s.Query("SELECT event_time, event_id FROM user_events_by_day WHERE user_id = 'u-1001' AND bucket_date = '2025-03-08'"))
	literal, _ := gocql.ParseUUID("8d7c3f20-0b7b-11f0-8f1e-000000000001")
	if len(got) != 2 || got[0].ID != literal || got[1].ID.Version() != 1 || !got[1].ID.Time().After(literal.Time()) {
		t.Fatalf("rows %v: want the literal id, then now()'s newer timeuuid", got)
	}
	dev := scanEvents(t, s.Query("SELECT event_time, event_id FROM device_events_by_day WHERE device_id = 'device-9' AND bucket_date = '2025-03-08'"))
	if len(dev) != 1 || dev[0].ID == got[1].ID {
		t.Fatalf("device rows %v: want one row with its own now()", dev)
	}
}

// §7.1 and §7.2: a time range of one partition, and its latest 20 rows.
func Seed004RangeAndLatest(t *testing.T, tg *cqltest.Target) {
	s := seed004Session(t, tg)
	want := fillDay(t, s, "u-71")
	got := scanEvents(t, s.Query(`SELECT event_time, event_id, event_type
FROM user_events_by_day
WHERE user_id = 'u-71'
  AND bucket_date = '2025-03-08'
  AND event_time >= '2025-03-08 00:00:00+0000'
  AND event_time <  '2025-03-09 00:00:00+0000'
LIMIT 100;`))
	cqltest.Equal(t, "7.1", got, want)
	got = scanEvents(t, s.Query(`SELECT event_time, event_id, event_type, payload
FROM user_events_by_day
WHERE user_id = 'u-71'
  AND bucket_date = '2025-03-08'
LIMIT 20;`))
	cqltest.Equal(t, "7.2", got, want[:20])
}

// §7.3: restricting event_id without event_time is rejected with
// Cassandra's message; ALLOW FILTERING makes it run.
func Seed004SkippedClusteringColumn(t *testing.T, tg *cqltest.Target) {
	s := seed004Session(t, tg)
	fillDay(t, s, "u-73")
	target := cqltest.TimeUUID(at(5, 35), 1)
	q := `SELECT event_time, event_id
FROM user_events_by_day
WHERE user_id = 'u-73'
  AND bucket_date = '2025-03-08'
  AND event_id = ` + target.String()
	re := cqltest.ExpectCode(t, s.Query(q+";").Exec(), gocql.ErrCodeInvalid)
	// StatementRestrictions.processClusteringColumnsRestrictions
	if want := `PRIMARY KEY column "event_id" cannot be restricted as preceding column "event_time" is not restricted`; re.Message() != want {
		t.Fatalf("message %q, want %q", re.Message(), want)
	}
	cqltest.Equal(t, "with ALLOW FILTERING", scanEvents(t, s.Query(q+"\nALLOW FILTERING;")), []event{{at(5, 35), target}})
}

// §7.4: no partition key needs ALLOW FILTERING.
func Seed004NoPartitionKey(t *testing.T, tg *cqltest.Target) {
	s := seed004Session(t, tg)
	fillDay(t, s, "u-74")
	re := cqltest.ExpectCode(t, s.Query("SELECT *\nFROM user_events_by_day\nWHERE event_type = 'login';").Exec(), gocql.ErrCodeInvalid)
	if re.Message() != filteringMessage {
		t.Fatalf("message %q", re.Message())
	}
	rows := cqltest.SelectMaps(t, s, "SELECT user_id, event_type FROM user_events_by_day WHERE event_type = 'login' ALLOW FILTERING")
	if len(rows) == 0 || !slices.Contains(cqltest.Column[string](t, rows, "user_id"), "u-74") {
		t.Fatalf("ALLOW FILTERING rows: %v", rows)
	}
	for _, typ := range cqltest.Column[string](t, rows, "event_type") {
		if typ != "login" {
			t.Fatalf("filtered row of type %q", typ)
		}
	}
}

func Seed004LoginEventsByDay(t *testing.T, tg *cqltest.Target) {
	s := seed004Session(t, tg)
	times := []time.Time{at(9, 0), at(1, 0), at(17, 0), at(4, 0)}
	for i, ts := range times {
		cqltest.MustExec(t, s, "INSERT INTO login_events_by_day (bucket_date, event_time, event_id, user_id, payload) VALUES (?, ?, ?, ?, '{}')",
			"2025-03-08", ts, cqltest.TimeUUID(ts, 1), []string{"u-0", "u-1", "u-2", "u-3"}[i])
	}
	cqltest.MustExec(t, s, "INSERT INTO login_events_by_day (bucket_date, event_time, event_id, user_id) VALUES ('2025-03-09', '2025-03-09', now(), 'u-x')")
	rows := cqltest.SelectMaps(t, s, "SELECT event_time, user_id FROM login_events_by_day WHERE bucket_date = '2025-03-08'")
	cqltest.Equal(t, "users by time", cqltest.Column[string](t, rows, "user_id"), []string{"u-1", "u-3", "u-0", "u-2"})
}

func Seed004HourBuckets(t *testing.T, tg *cqltest.Target) {
	s := seed004Session(t, tg)
	var all []event
	for m := 0; m < 240; m += 13 {
		ts := at(9, 0).Add(time.Duration(m)*time.Minute + 17*time.Second)
		id := cqltest.TimeUUID(ts, 1)
		cqltest.MustExec(t, s, "INSERT INTO user_events_by_hour (user_id, bucket_hour, event_time, event_id, event_type, payload) VALUES (?, ?, ?, ?, 'view', '')",
			"u-1001", ts.Truncate(time.Hour), ts, id)
		all = append(all, event{ts, id})
	}
	slices.SortFunc(all, compareDescAsc)
	inHours := func(lo, hi int) []event {
		var out []event
		for _, e := range all {
			if e.Time.Hour() >= lo && e.Time.Hour() <= hi {
				out = append(out, e)
			}
		}
		return out
	}
	got := scanEvents(t, s.Query(`SELECT event_time, event_id
FROM user_events_by_hour
WHERE user_id = 'u-1001'
  AND bucket_hour = '2025-03-08 10:00:00+0000'
LIMIT 100;`))
	cqltest.Equal(t, "one hour", got, inHours(10, 10))
	var merged []event
	for _, h := range []int{10, 11, 12} {
		merged = append(merged, scanEvents(t, s.Query("SELECT event_time, event_id FROM user_events_by_hour WHERE user_id = ? AND bucket_hour = ?", "u-1001", at(h, 0)))...)
	}
	slices.SortStableFunc(merged, compareDescAsc)
	cqltest.Equal(t, "three hours merged", merged, inHours(10, 12))
}

func Seed004RoomEvents16Buckets(t *testing.T, tg *cqltest.Target) {
	s := seed004Session(t, tg)
	type written struct {
		event
		bucket int
	}
	var all []written
	for i := range 100 {
		ts := at(20, 0).Add(time.Duration(i*7) * time.Second)
		id := cqltest.TimeUUID(ts, uint16(i))
		b := int(crc32.ChecksumIEEE(id[:]) % 16) // bucket = hash(event_id) % 16
		cqltest.MustExec(t, s, "INSERT INTO room_events (room_id, bucket, event_time, event_id, payload) VALUES ('room-9', ?, ?, ?, 'msg')", b, ts, id)
		all = append(all, written{event{ts, id}, b})
	}
	parts := make([][]event, 16)
	var wg sync.WaitGroup
	for b := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			iter := s.Query("SELECT event_time, event_id FROM room_events WHERE room_id = ? AND bucket = ?", "room-9", b).Iter()
			var e event
			for iter.Scan(&e.Time, &e.ID) {
				parts[b] = append(parts[b], e)
			}
			if err := iter.Close(); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	var merged, want []event
	used := map[int]bool{}
	for b, part := range parts {
		var inBucket []event
		for _, w := range all {
			if w.bucket == b {
				inBucket = append(inBucket, w.event)
			}
		}
		cqltest.Equal(t, "bucket order", part, inBucket)
		merged = append(merged, part...)
		used[b] = len(part) > 0
	}
	for _, w := range all {
		want = append(want, w.event)
	}
	slices.SortFunc(merged, func(a, b event) int { return a.Time.Compare(b.Time) })
	cqltest.Equal(t, "merged", merged, want)
	cqltest.Equal(t, "buckets used", len(used), 16)
}

func Seed004Orders(t *testing.T, tg *cqltest.Target) {
	s := seed004Session(t, tg)
	type order struct {
		id      gocql.UUID
		status  string
		created time.Time
	}
	var orders []order
	for i := range 12 {
		o := order{gocql.MustRandomUUID(), "PENDING", at(8, i)}
		if i%3 == 0 {
			o.status = "PAID"
			cqltest.MustExec(t, s, "INSERT INTO paid_orders_by_customer (customer_id, created_at, order_id) VALUES ('c-1', ?, ?)", o.created, o.id)
		}
		cqltest.MustExec(t, s, "INSERT INTO orders_by_customer (customer_id, order_id, status, created_at) VALUES ('c-1', ?, ?, ?)", o.id, o.status, o.created)
		orders = append(orders, o)
	}
	if n := len(cqltest.SelectMaps(t, s, "SELECT order_id FROM orders_by_customer WHERE customer_id = 'c-1'")); n != 12 {
		t.Fatalf("%d orders, want 12", n)
	}
	re := cqltest.ExpectCode(t, s.Query("SELECT order_id FROM orders_by_customer WHERE customer_id = 'c-1' AND status = 'PAID'").Exec(), gocql.ErrCodeInvalid)
	if re.Message() != filteringMessage {
		t.Fatalf("message %q", re.Message())
	}
	rows := cqltest.SelectMaps(t, s, "SELECT order_id FROM orders_by_customer WHERE customer_id = 'c-1' AND status = 'PAID' ALLOW FILTERING")
	var paid, paidIDs []gocql.UUID
	var paidTimes []time.Time
	for _, o := range orders {
		if o.status == "PAID" {
			paidIDs = append(paidIDs, o.id)
			paidTimes = append(paidTimes, o.created)
		}
	}
	paid = cqltest.Column[gocql.UUID](t, rows, "order_id")
	sortUUIDs := func(u []gocql.UUID) {
		slices.SortFunc(u, func(a, b gocql.UUID) int { return bytes.Compare(a[:], b[:]) })
	}
	sortUUIDs(paid)
	want := slices.Clone(paidIDs)
	sortUUIDs(want)
	cqltest.Equal(t, "paid by filtering", paid, want)
	rows = cqltest.SelectMaps(t, s, "SELECT created_at, order_id FROM paid_orders_by_customer WHERE customer_id = 'c-1'")
	cqltest.Equal(t, "paid table order", cqltest.Column[time.Time](t, rows, "created_at"), paidTimes)
	cqltest.Equal(t, "paid table ids", cqltest.Column[gocql.UUID](t, rows, "order_id"), paidIDs)
}

func Seed004LoggedBatch(t *testing.T, tg *cqltest.Target) {
	s := seed004Session(t, tg)
	id := cqltest.TimeUUID(at(13, 30), 42)
	b := s.NewBatch(gocql.LoggedBatch)
	b.Query(insertUserDay, "u-batch", "2025-03-08", at(13, 30), id, "purchase", "{}")
	b.Query("INSERT INTO device_events_by_day (device_id, bucket_date, event_time, event_id, event_type, payload) VALUES (?, ?, ?, ?, ?, ?)",
		"device-batch", "2025-03-08", at(13, 30), id, "purchase", "{}")
	if err := s.ExecuteBatch(b); err != nil {
		t.Fatal(err)
	}
	want := []event{{at(13, 30), id}}
	cqltest.Equal(t, "user table", scanEvents(t, s.Query("SELECT event_time, event_id FROM user_events_by_day WHERE user_id = 'u-batch' AND bucket_date = '2025-03-08'")), want)
	cqltest.Equal(t, "device table", scanEvents(t, s.Query("SELECT event_time, event_id FROM device_events_by_day WHERE device_id = 'device-batch' AND bucket_date = '2025-03-08'")), want)
}

func Seed004LoggedBatchAsPreparedText(t *testing.T, tg *cqltest.Target) {
	s := seed004Session(t, tg)
	// gocql PREPAREs a BEGIN BATCH text; Cassandra accepts that since 1.2
	// (CASSANDRA-4202, dtest batch_preparation_test).
	other := cqltest.TimeUUID(at(13, 31), 43)
	err := s.Query(`BEGIN BATCH
  INSERT INTO user_events_by_day (user_id, bucket_date, event_time, event_id, event_type, payload)
    VALUES ('u-batch-text', '2025-03-08', '2025-03-08 13:31:00+0000', ?, 'refund', '{}');
  INSERT INTO device_events_by_day (device_id, bucket_date, event_time, event_id, event_type, payload)
    VALUES ('device-batch-text', '2025-03-08', '2025-03-08 13:31:00+0000', ?, 'refund', '{}');
APPLY BATCH;`, other, other).Exec()
	if err != nil {
		t.Fatal(err)
	}
	want := []event{{at(13, 31), other}}
	cqltest.Equal(t, "user table", scanEvents(t, s.Query("SELECT event_time, event_id FROM user_events_by_day WHERE user_id = 'u-batch-text' AND bucket_date = '2025-03-08'")), want)
	cqltest.Equal(t, "device table", scanEvents(t, s.Query("SELECT event_time, event_id FROM device_events_by_day WHERE device_id = 'device-batch-text' AND bucket_date = '2025-03-08'")), want)
}

func Seed004TupleCursorPaging(t *testing.T, tg *cqltest.Target) {
	s := seed004Session(t, tg)
	var want []event
	for i := range 53 {
		ts := at(0, 0).Add(time.Duration(17*i) * time.Minute)
		id := cqltest.TimeUUID(ts, uint16(i))
		cqltest.MustExec(t, s, insertUserDay, "u-cursor", "2025-03-08", ts, id, "e", "")
		want = append(want, event{ts, id})
	}
	slices.SortFunc(want, compareDescAsc)
	page := scanEvents(t, s.Query("SELECT event_time, event_id FROM user_events_by_day WHERE user_id = 'u-cursor' AND bucket_date = '2025-03-08' LIMIT 10"))
	var seen []event
	for len(page) > 0 {
		if len(page) > 10 {
			t.Fatalf("page of %d rows", len(page))
		}
		seen = append(seen, page...)
		last := page[len(page)-1]
		page = scanEvents(t, s.Query(`SELECT event_time, event_id
FROM user_events_by_day
WHERE user_id = 'u-cursor'
  AND bucket_date = '2025-03-08'
  AND (event_time, event_id) < (?, ?)
LIMIT 10;`, last.Time, last.ID))
	}
	cqltest.Equal(t, "pages", seen, want)
}

func Seed004TupleRelationOnMixedOrder(t *testing.T, tg *cqltest.Target) {
	s := seed004Session(t, tg)
	// A tuple relation compares values, not clustering positions
	// (Cassandra's SelectMultiColumnRelationTest.testMixedOrderColumns1).
	ts := at(6, 0)
	ids := []gocql.UUID{cqltest.TimeUUID(ts, 1), cqltest.TimeUUID(ts, 2), cqltest.TimeUUID(ts, 3)}
	for _, id := range ids {
		cqltest.MustExec(t, s, insertUserDay, "u-tuple", "2025-03-08", ts, id, "x", "")
	}
	earlier := cqltest.TimeUUID(at(5, 0), 1)
	cqltest.MustExec(t, s, insertUserDay, "u-tuple", "2025-03-08", at(5, 0), earlier, "x", "")
	got := scanEvents(t, s.Query("SELECT event_time, event_id FROM user_events_by_day WHERE user_id = 'u-tuple' AND bucket_date = '2025-03-08' "+
		"AND (event_time, event_id) < (?, ?)", ts, ids[2]))
	cqltest.Equal(t, "rows", got, []event{{ts, ids[0]}, {ts, ids[1]}, {at(5, 0), earlier}})
}

func Seed004InOnPartitionKeyParts(t *testing.T, tg *cqltest.Target) {
	s := seed004Session(t, tg)
	want := map[string][]event{}
	for _, day := range []int{7, 8, 9, 10} {
		date := cqltest.UTC(2025, 3, day, 0, 0, 0).Format("2006-01-02")
		for _, h := range []int{3, 15, 9} {
			ts := cqltest.UTC(2025, 3, day, h, 0, 0)
			id := cqltest.TimeUUID(ts, uint16(day))
			cqltest.MustExec(t, s, insertUserDay, "u-in", date, ts, id, "e", "")
			want[date] = append(want[date], event{ts, id})
		}
		slices.SortFunc(want[date], compareDescAsc)
	}
	iter := s.Query("SELECT bucket_date, event_time, event_id FROM user_events_by_day WHERE user_id = 'u-in' AND bucket_date IN ('2025-03-09', '2025-03-07', '2025-03-10')").Iter()
	got := map[string][]event{}
	var day time.Time
	var e event
	for iter.Scan(&day, &e.Time, &e.ID) {
		got[day.Format("2006-01-02")] = append(got[day.Format("2006-01-02")], e)
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	// Partitions may come in any order; within each the clustering order holds.
	keys := make([]string, 0, len(got))
	for k := range got {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	cqltest.Equal(t, "days", strings.Join(keys, ","), "2025-03-07,2025-03-09,2025-03-10")
	for k, evs := range got {
		cqltest.Equal(t, "day "+k, evs, want[k])
	}
	rows := cqltest.SelectMaps(t, s, "SELECT event_time FROM user_events_by_day WHERE user_id = ? AND bucket_date IN (?, ?)", "u-in", "2025-03-08", "2025-03-08")
	cqltest.Equal(t, "repeated IN value", len(rows), 3)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
