package engine_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/partita-db/partita/internal/cqltest"
	"github.com/partita-db/partita/internal/engine"
)

func int32Value(v int32) engine.Value {
	return engine.Value{Bytes: binary.BigEndian.AppendUint32(nil, uint32(v))}
}

func benchSession(b *testing.B) *engine.Session {
	h := cqltest.New(b)
	mustExec(b, h.Session, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c))")
	return h.Session
}

// BenchmarkWriteRow is the single-row write path: EXECUTE of a prepared
// INSERT through plan and exec into storage (WAL not synced: this measures
// CPU, not the disk).
func BenchmarkWriteRow(b *testing.B) {
	s := benchSession(b)
	ctx := context.Background()
	p, err := s.Prepare(ctx, "INSERT INTO ks.t (k, c, v) VALUES (?, ?, ?)")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		opts := &engine.Options{Values: []engine.Value{int32Value(int32(i % 100)), int32Value(int32(i)), {Bytes: []byte("payload")}}}
		if _, err := s.Execute(ctx, p.PreparedID, opts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadRow is the single-row read path: EXECUTE of a prepared
// SELECT by full primary key.
func BenchmarkReadRow(b *testing.B) {
	s := benchSession(b)
	ctx := context.Background()
	ins, _ := s.Prepare(ctx, "INSERT INTO ks.t (k, c, v) VALUES (?, ?, ?)")
	for i := 0; i < 1000; i++ {
		if _, err := s.Execute(ctx, ins.PreparedID, &engine.Options{Values: []engine.Value{int32Value(int32(i % 10)), int32Value(int32(i)), {Bytes: []byte("payload")}}}); err != nil {
			b.Fatal(err)
		}
	}
	sel, err := s.Prepare(ctx, "SELECT v FROM ks.t WHERE k = ? AND c = ?")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := int32(i % 1000)
		res, err := s.Execute(ctx, sel.PreparedID, &engine.Options{Values: []engine.Value{int32Value(c % 10), int32Value(c)}, SkipMetadata: true})
		if err != nil || len(res.Rows) != 1 {
			b.Fatalf("%v %d", err, len(res.Rows))
		}
	}
}

// queryHarness holds ks.t with 100 partitions of 100 rows; v holds
// "even" or "odd".
func queryHarness(b *testing.B) *engine.Session {
	h := cqltest.New(b)
	mustExec(b, h.Session, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c))")
	ctx := context.Background()
	ins, err := h.Session.Prepare(ctx, "INSERT INTO ks.t (k, c, v) VALUES (?, ?, ?)")
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 10000; i++ {
		v := "even"
		if i%2 == 1 {
			v = "odd"
		}
		if _, err := h.Session.Execute(ctx, ins.PreparedID, &engine.Options{Values: []engine.Value{int32Value(int32(i / 100)), int32Value(int32(i % 100)), {Bytes: []byte(v)}}}); err != nil {
			b.Fatal(err)
		}
	}
	return h.Session
}

// BenchmarkFilteredScan reads the whole table with ALLOW FILTERING on a
// regular column (10,000 rows read, 5,000 returned, one page).
func BenchmarkFilteredScan(b *testing.B) {
	benchQuery(b, "SELECT k, c FROM ks.t WHERE v = 'odd' ALLOW FILTERING", 10000, 5000)
}

// BenchmarkIn100Partitions reads one row from each of 100 partitions named
// by IN, returned in partition key order.
func BenchmarkIn100Partitions(b *testing.B) {
	keys := make([]string, 100)
	for i := range keys {
		keys[i] = fmt.Sprint(i)
	}
	benchQuery(b, "SELECT k, v FROM ks.t WHERE k IN ("+strings.Join(keys, ", ")+") AND c = 7", 5000, 100)
}

// benchQuery runs one prepared query of queryHarness's table per
// iteration, one page of pageSize, and checks it returns want rows.
func benchQuery(b *testing.B, query string, pageSize int32, want int) {
	s := queryHarness(b)
	ctx := context.Background()
	p, err := s.Prepare(ctx, query)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := s.Execute(ctx, p.PreparedID, &engine.Options{PageSize: pageSize, SkipMetadata: true})
		if err != nil || len(res.Rows) != want {
			b.Fatalf("%v: %d rows", err, len(res.Rows))
		}
	}
}

// BenchmarkLatest100 reads 100 rows at either end of a 10,000-row
// partition: in clustering order and reversed (ORDER BY ... DESC).
func BenchmarkLatest100(b *testing.B) {
	h := cqltest.New(b)
	s := h.Session
	mustExec(b, s, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c))")
	ctx := context.Background()
	ins, err := s.Prepare(ctx, "INSERT INTO ks.t (k, c, v) VALUES (1, ?, 'payload')")
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 10000; i++ {
		if _, err := s.Execute(ctx, ins.PreparedID, &engine.Options{Values: []engine.Value{int32Value(int32(i))}}); err != nil {
			b.Fatal(err)
		}
	}
	for _, dir := range []string{"ASC", "DESC"} {
		b.Run(dir, func(b *testing.B) {
			p, err := s.Prepare(ctx, "SELECT c, v FROM ks.t WHERE k = 1 ORDER BY c "+dir+" LIMIT 100")
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res, err := s.Execute(ctx, p.PreparedID, &engine.Options{PageSize: 5000, SkipMetadata: true})
				if err != nil || len(res.Rows) != 100 {
					b.Fatalf("%v: %d rows", err, len(res.Rows))
				}
			}
		})
	}
}
