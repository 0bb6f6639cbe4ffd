package clusterstore_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/clusterstore"
)

// pageObserver records the number of backing rows of each page the store
// reads from the cluster's table of test table 7.
type pageObserver struct {
	mu    sync.Mutex
	pages []int
}

func (o *pageObserver) ObserveQuery(_ context.Context, q gocql.ObservedQuery) {
	name := fmt.Sprintf(".t%d", table)
	if strings.HasPrefix(q.Statement, "SELECT") && (strings.Contains(q.Statement, name+" ") || strings.HasSuffix(q.Statement, name)) {
		o.mu.Lock()
		o.pages = append(o.pages, q.Rows)
		o.mu.Unlock()
	}
}

func (o *pageObserver) take() []int {
	o.mu.Lock()
	defer o.mu.Unlock()
	p := o.pages
	o.pages = nil
	return p
}

// A read fetches a small first page and larger ones as its caller reads
// on: a caller wanting a few rows (the engine's page of a paged scan, a
// LIMIT) does not make the cluster read and send 5,000 backing rows; a
// caller reading everything gets every row, in order, across pages of
// growing sizes.
func TestReadPagesGrow(t *testing.T) {
	obs := &pageObserver{}
	cfg := clusterConfig(t)
	cfg.QueryObserver = obs
	ks := newKeyspace("csp")
	st, err := clusterstore.Open(context.Background(), clusterstore.Options{Cluster: cfg, Keyspace: ks, Consistency: gocql.One, PageSize: 5000})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = st.Close()
		dropKeyspace(t, cfg, ks)
	})
	const rows = 1500 // 3,000 backing rows: a liveness and a cell each
	big := logical("big").Physical(backend.HomeShard)
	for i := 0; i < rows; i += 100 {
		var rs []backend.Row
		for j := i; j < i+100; j++ {
			rs = append(rs, row(fmt.Sprintf("r%05d", j), 1, cell(1, "v", 1)))
		}
		apply(t, st, mutation(big, rs...))
	}
	for i := range 50 {
		apply(t, st, mutation(logical(fmt.Sprintf("small%d", i)).Physical(backend.HomeShard), row("a", 1, cell(1, "v", 1))))
	}
	now := time.Now().Unix()
	firstRow := func(what string, open func() (backend.RowIterator, error)) {
		t.Helper()
		obs.take()
		it, err := open()
		if err != nil {
			t.Fatal(err)
		}
		if !it.Next() {
			t.Fatalf("%s: no row: %v", what, it.Err())
		}
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
		if pages := obs.take(); len(pages) != 1 || pages[0] > 100 {
			t.Errorf("%s: the first row took pages of %v backing rows, want one of at most 100", what, pages)
		}
	}
	firstRow("read", func() (backend.RowIterator, error) {
		return st.Read(context.Background(), backend.ReadCommand{Partition: big, Slices: []backend.Slice{backend.FullSlice}, Now: now})
	})
	firstRow("scan", func() (backend.RowIterator, error) {
		return st.Scan(context.Background(), backend.ScanCommand{Table: table, Now: now})
	})

	for _, reverse := range []bool{false, true} {
		obs.take()
		it, err := st.Read(context.Background(), backend.ReadCommand{Partition: big, Slices: []backend.Slice{backend.FullSlice}, Reverse: reverse, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		var n int
		for it.Next() {
			j := n
			if reverse {
				j = rows - 1 - n
			}
			if got, want := string(it.Row().Clustering), fmt.Sprintf("r%05d", j); got != want {
				t.Fatalf("reverse=%v: row %d is %s, want %s", reverse, n, got, want)
			}
			n++
		}
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
		if n != rows {
			t.Errorf("reverse=%v: %d rows, want %d", reverse, n, rows)
		}
		pages := obs.take()
		total := 0
		for i, p := range pages {
			total += p
			if i > 0 && i < len(pages)-1 && p < pages[i-1] {
				t.Errorf("reverse=%v: page sizes %v shrink", reverse, pages)
			}
		}
		if len(pages) < 2 || total != 2*rows {
			t.Errorf("reverse=%v: pages %v (%d backing rows), want several holding %d", reverse, pages, total, 2*rows)
		}
	}
	it, err := st.Scan(context.Background(), backend.ScanCommand{Table: table, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	for it.Next() {
		n++
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	if n != rows+50 {
		t.Errorf("full scan: %d rows, want %d", n, rows+50)
	}
}
