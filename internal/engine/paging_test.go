package engine_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/partita-db/partita/internal/cqltest"
	"github.com/partita-db/partita/internal/engine"
)

// TestPagingMatchesUnpaged checks invariant 2 of package exec: reading a
// query page by page, with any page size, returns exactly the rows of the
// unpaged query, in the same order.
func TestPagingMatchesUnpaged(t *testing.T) {
	h := cqltest.New(t)
	ctx := context.Background()
	run := func(q string) {
		if _, err := h.Session.Query(ctx, q, nil); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	run("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	run("USE ks")
	run("CREATE TABLE t (k int, c1 int, c2 int, s int static, v int, PRIMARY KEY (k, c1, c2)) WITH CLUSTERING ORDER BY (c1 DESC, c2 ASC)")
	for k := 0; k < 6; k++ {
		for c1 := 0; c1 < 4; c1++ {
			for c2 := 0; c2 < 3; c2++ {
				if (k+c1+c2)%4 == 0 {
					continue
				}
				run(fmt.Sprintf("INSERT INTO t (k, c1, c2, v) VALUES (%d, %d, %d, %d)", k, c1, c2, k*100+c1*10+c2))
			}
		}
	}
	run("INSERT INTO t (k, s) VALUES (7, 70)")
	run("INSERT INTO t (k, s) VALUES (1, 10)")
	queries := []string{
		"SELECT * FROM t",
		"SELECT k, c1, c2 FROM t WHERE k = 2",
		"SELECT k, c1, c2 FROM t WHERE k = 2 ORDER BY c1 ASC, c2 DESC",
		"SELECT k, c1, c2, v FROM t WHERE k IN (3, 1, 2) AND c1 > 0",
		"SELECT k, c1, c2, v FROM t WHERE v > 150 ALLOW FILTERING",
		"SELECT k, c1, c2 FROM t PER PARTITION LIMIT 2",
		"SELECT k, c1, c2 FROM t WHERE k = 3 AND (c1, c2) > (1, 1) AND (c1, c2) <= (3, 0)",
		"SELECT k, s FROM t",
		"SELECT DISTINCT k, s FROM t",
		"SELECT k, c1, c2 FROM t LIMIT 7",
		"SELECT k, c1, c2 FROM t WHERE token(k) > -3500000000000000000 PER PARTITION LIMIT 3 LIMIT 10",
	}
	rapid.Check(t, func(rt *rapid.T) {
		q := rapid.SampledFrom(queries).Draw(rt, "query")
		pageSize := rapid.IntRange(1, 12).Draw(rt, "pageSize")
		want := fetch(rt, h, q, 0)
		got := fetch(rt, h, q, pageSize)
		if !reflect.DeepEqual(want, got) {
			rt.Fatalf("%s with page size %d:\n got %v\nwant %v", q, pageSize, got, want)
		}
	})
}

func fetch(t *rapid.T, h *cqltest.Harness, q string, pageSize int) [][][]byte {
	opts := &engine.Options{PageSize: int32(pageSize)}
	var rows [][][]byte
	for i := 0; i < 1000; i++ {
		res, err := h.Session.Query(context.Background(), q, opts)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if pageSize > 0 && len(res.Rows) > pageSize {
			t.Fatalf("%s: page of %d rows with page size %d", q, len(res.Rows), pageSize)
		}
		rows = append(rows, res.Rows...)
		if res.PagingState == nil {
			return rows
		}
		opts.PagingState = res.PagingState
	}
	t.Fatalf("%s: paging does not end", q)
	return nil
}

// TestPagingStateIsChecked checks that a damaged paging state, or one made
// for another statement, is refused with a protocol error.
func TestPagingStateIsChecked(t *testing.T) {
	h := cqltest.New(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"USE ks",
		"CREATE TABLE t (k int, c int, PRIMARY KEY (k, c))",
		"INSERT INTO t (k, c) VALUES (1, 1)",
		"INSERT INTO t (k, c) VALUES (1, 2)",
	} {
		if _, err := h.Session.Query(ctx, q, nil); err != nil {
			t.Fatal(err)
		}
	}
	res, err := h.Session.Query(ctx, "SELECT * FROM t", &engine.Options{PageSize: 1})
	if err != nil || res.PagingState == nil {
		t.Fatalf("first page: %v, state %x", err, res.PagingState)
	}
	damaged := append([]byte(nil), res.PagingState...)
	damaged[len(damaged)/2] ^= 0x40
	for name, tc := range map[string]struct {
		query string
		state []byte
	}{
		"damaged":         {"SELECT * FROM t", damaged},
		"other statement": {"SELECT k FROM t", res.PagingState},
		"garbage":         {"SELECT * FROM t", []byte("garbage")},
	} {
		_, err := h.Session.Query(ctx, tc.query, &engine.Options{PageSize: 1, PagingState: tc.state})
		if err == nil || !strings.Contains(err.Error(), "Invalid value for the paging state") || !strings.Contains(err.Error(), "Protocol") {
			t.Errorf("%s: got %v, want a protocol error about the paging state", name, err)
		}
	}
}
