package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/partita-db/partita/internal/cqltest"
	"github.com/partita-db/partita/internal/engine"
)

// BenchmarkIndexPage fetches one page of 100 rows from the middle of an
// index query whose value matches `matches` rows, either all in one
// partition or 100 per partition. A page resumes from its paging state, so
// its cost must depend on the page, not on how many rows the index holds
// for the value nor on how far into them the page starts: compare the
// ns/op of matches=1000 and matches=50000.
func BenchmarkIndexPage(b *testing.B) {
	for _, matches := range []int{1000, 50000} {
		for _, shape := range []struct {
			name    string
			perPart int
		}{{"one-partition", matches}, {"100-per-partition", 100}} {
			b.Run(fmt.Sprintf("matches=%d/%s", matches, shape.name), func(b *testing.B) {
				benchIndexPage(b, matches, shape.perPart)
			})
		}
	}
}

func benchIndexPage(b *testing.B, matches, perPart int) {
	page, state := indexPageFixture(b, matches, perPart)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if rows := page(state); rows != 100 {
			b.Fatalf("page of %d rows, want 100", rows)
		}
	}
}

// TestIndexPageCost checks, without timing anything, that a page of an
// index query costs what its rows cost: the allocations of the page of 100
// rows that starts half way through 20,000 matches, all in one partition,
// are within 1.5 times those of the middle page of 1,000 matches. A page
// that re-read the index entries from the start of the partition (the bug
// this guards) allocated about 20 times more.
func TestIndexPageCost(t *testing.T) {
	allocs := func(matches int) float64 {
		page, state := indexPageFixture(t, matches, matches)
		return testing.AllocsPerRun(5, func() {
			if rows := page(state); rows != 100 {
				t.Fatalf("page of %d rows, want 100", rows)
			}
		})
	}
	small, large := allocs(1000), allocs(20000)
	t.Logf("allocations of a middle page: %.0f at 1,000 matches, %.0f at 20,000", small, large)
	if large > 1.5*small {
		t.Fatalf("a middle page allocates %.0f times at 20,000 matches and %.0f at 1,000: its cost grows with the matches", large, small)
	}
}

// indexPageFixture writes 2*matches rows of which matches hold v = 1,
// perPart of those in each partition, and returns a function fetching one
// page of 100 rows of SELECT k, c FROM ks.t WHERE v = 1 from a paging state
// (it returns the page's row count), with the paging state of the page
// that starts half way through the matches.
func indexPageFixture(tb testing.TB, matches, perPart int) (func([]byte) int, []byte) {
	h := cqltest.New(tb)
	s := h.Session
	ctx := context.Background()
	mustExec(tb, s, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int, c int, v int, PRIMARY KEY (k, c))",
		"CREATE INDEX ON ks.t (v)")
	ins, err := s.Prepare(ctx, "INSERT INTO ks.t (k, c, v) VALUES (?, ?, ?)")
	if err != nil {
		tb.Fatal(err)
	}
	for i := 0; i < matches; i++ {
		// Every other row holds another value, so the base partitions are
		// twice as wide as the index's share of them.
		for _, v := range []int32{1, 2} {
			opts := &engine.Options{Values: []engine.Value{int32Value(int32(i / perPart)), int32Value(int32(2*i) + v - 1), int32Value(v)}}
			if _, err := s.Execute(ctx, ins.PreparedID, opts); err != nil {
				tb.Fatal(err)
			}
		}
	}
	sel, err := s.Prepare(ctx, "SELECT k, c FROM ks.t WHERE v = 1")
	if err != nil {
		tb.Fatal(err)
	}
	var last []byte
	page := func(state []byte) int {
		res, err := s.Execute(ctx, sel.PreparedID, &engine.Options{Values: []engine.Value{}, PageSize: 100, PagingState: state})
		if err != nil {
			tb.Fatal(err)
		}
		last = res.PagingState
		return len(res.Rows)
	}
	var state []byte
	for read := 0; read < matches/2; read += 100 {
		page(state)
		state = last
	}
	return page, state
}
