package e2e_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gocql/gocql"
)

const (
	indexPagingPartitions = 4
	indexPagingPerPart    = 10000 // half of them match
	indexPagingPage       = 100
)

// TestIndexPaging pages a secondary index query whose value matches 20,000
// rows, 5,000 in each of 4 partitions, 100 rows a page, through explicit
// paging states. Every page must hold exactly the next 100 matching rows
// in token then clustering order (the order of a full scan, read here
// without the index), and the query must get through all 200 pages. Each
// page resumes after the last row's index entry; when a page restarted
// from the first entry of its partition (up to 5,000 of them), this test
// took 26 s instead of 2.3 s (internal/engine TestIndexPageCost checks the
// cost of a page without timing it).
func TestIndexPaging(t *testing.T) {
	s := newKeyspace(t, "go_index_paging")
	mustExec(t, s, "CREATE TABLE t (p int, c int, v int, PRIMARY KEY (p, c))")
	mustExec(t, s, "CREATE INDEX ON t (v)")
	fillIndexPaging(t, s)

	type key struct{ p, c int }
	var want []key
	iter := s.Query("SELECT p, c, v FROM t").PageSize(5000).Iter()
	var r key
	var v int
	for iter.Scan(&r.p, &r.c, &v) {
		if v == 1 {
			want = append(want, r)
		}
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	if len(want) != indexPagingPartitions*indexPagingPerPart/2 {
		t.Fatalf("the full scan finds %d matching rows", len(want))
	}

	var state []byte
	for page := 0; ; page++ {
		iter := s.Query("SELECT p, c FROM t WHERE v = 1").PageSize(indexPagingPage).PageState(state).Iter()
		next := iter.PageState()
		var got []key
		for iter.Scan(&r.p, &r.c) {
			got = append(got, r)
		}
		if err := iter.Close(); err != nil {
			t.Fatalf("page %d: %v", page, err)
		}
		from := min(page*indexPagingPage, len(want))
		if exp := want[from:min(from+indexPagingPage, len(want))]; !slices.Equal(got, exp) {
			t.Fatalf("page %d holds %d rows %v..., want %d rows %v...", page, len(got), head(got), len(exp), head(exp))
		}
		if len(next) == 0 {
			if from+len(got) != len(want) {
				t.Fatalf("paging ended after %d of %d rows", from+len(got), len(want))
			}
			return
		}
		state = next
	}
}

func head[T any](xs []T) []T { return xs[:min(len(xs), 3)] }

// fillIndexPaging writes the rows in unlogged batches of 100, one
// partition each; odd clustering keys hold v = 1, even ones v = 2.
func fillIndexPaging(t *testing.T, s *gocql.Session) {
	t.Helper()
	for p := 0; p < indexPagingPartitions; p++ {
		for c0 := 0; c0 < indexPagingPerPart; c0 += 100 {
			var b strings.Builder
			b.WriteString("BEGIN UNLOGGED BATCH\n")
			for c := c0; c < c0+100; c++ {
				fmt.Fprintf(&b, "INSERT INTO t (p, c, v) VALUES (%d, %d, %d);\n", p, c, 2-c%2)
			}
			b.WriteString("APPLY BATCH")
			mustExec(t, s, b.String())
		}
	}
}
