package e2e_test

import (
	"cmp"
	"slices"
	"sync"
	"testing"

	"github.com/gocql/gocql"
)

const (
	pagingRows  = 1000
	pagingFetch = 7
)

// fillPaging writes pagingRows rows in a shuffled order, pagingRows/10
// partitions of 10 rows in paging_many and one partition in paging_one.
func fillPaging(t *testing.T, s *gocql.Session) {
	t.Helper()
	mustExec(t, s, "CREATE TABLE paging_one (p int, c int, v text, PRIMARY KEY (p, c))")
	mustExec(t, s, "CREATE TABLE paging_many (p int, c int, v text, PRIMARY KEY (p, c))")
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < pagingRows; i += 16 {
				c := (i * 389) % pagingRows
				if err := s.Query("INSERT INTO paging_one (p, c, v) VALUES (1, ?, ?)", c, "v").Exec(); err != nil {
					errs <- err
					return
				}
				if err := s.Query("INSERT INTO paging_many (p, c, v) VALUES (?, ?, ?)", c/10, c%10, "v").Exec(); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// pages reads q page by page through explicit paging states, checking
// every page's size, and returns the pages.
func pages(t *testing.T, q func() *gocql.Query, scan func(*gocql.Iter) []int) [][]int {
	t.Helper()
	var out [][]int
	var state []byte
	for {
		iter := q().PageSize(pagingFetch).PageState(state).Iter()
		next := iter.PageState()
		page := scan(iter)
		if err := iter.Close(); err != nil {
			t.Fatal(err)
		}
		if len(page) > pagingFetch {
			t.Fatalf("page of %d rows, fetch size %d", len(page), pagingFetch)
		}
		out = append(out, page)
		if len(next) == 0 {
			return out
		}
		if len(page) == 0 {
			t.Fatal("an empty page announced more pages")
		}
		state = next
	}
}

func scanInts(iter *gocql.Iter) []int {
	var out []int
	var v int
	for iter.Scan(&v) {
		out = append(out, v)
	}
	return out
}

func TestPaging(t *testing.T) {
	s := newKeyspace(t, "go_paging")
	fillPaging(t, s)
	ascending := make([]int, pagingRows)
	for i := range ascending {
		ascending[i] = i
	}

	t.Run("auto paging one partition", func(t *testing.T) {
		iter := s.Query("SELECT c FROM paging_one WHERE p = 1").PageSize(pagingFetch).Iter()
		got := scanInts(iter)
		if err := iter.Close(); err != nil {
			t.Fatal(err)
		}
		equal(t, "rows", got, ascending)
	})

	t.Run("explicit pages", func(t *testing.T) {
		ps := pages(t, func() *gocql.Query { return s.Query("SELECT c FROM paging_one WHERE p = 1") }, scanInts)
		if len(ps) < pagingRows/pagingFetch {
			t.Fatalf("%d pages", len(ps))
		}
		equal(t, "rows", slices.Concat(ps...), ascending)
	})

	t.Run("descending", func(t *testing.T) {
		ps := pages(t, func() *gocql.Query { return s.Query("SELECT c FROM paging_one WHERE p = ? ORDER BY c DESC", 1) }, scanInts)
		want := slices.Clone(ascending)
		slices.Reverse(want)
		equal(t, "rows", slices.Concat(ps...), want)
	})

	t.Run("limit", func(t *testing.T) {
		ps := pages(t, func() *gocql.Query { return s.Query("SELECT c FROM paging_one WHERE p = 1 AND c >= 100 LIMIT 50") }, scanInts)
		equal(t, "rows", slices.Concat(ps...), ascending[100:150])
	})

	t.Run("full scan", func(t *testing.T) {
		type row struct {
			token int64
			p, c  int
		}
		var rows []row
		seen := map[[2]int]bool{}
		iter := s.Query("SELECT token(p), p, c FROM paging_many").PageSize(pagingFetch).Iter()
		var r row
		for iter.Scan(&r.token, &r.p, &r.c) {
			if seen[[2]int{r.p, r.c}] {
				t.Fatalf("row (%d, %d) returned twice", r.p, r.c)
			}
			seen[[2]int{r.p, r.c}] = true
			rows = append(rows, r)
		}
		if err := iter.Close(); err != nil {
			t.Fatal(err)
		}
		if len(rows) != pagingRows {
			t.Fatalf("%d rows, want %d", len(rows), pagingRows)
		}
		if !slices.IsSortedFunc(rows, func(a, b row) int {
			if a.token != b.token {
				return cmp.Compare(a.token, b.token)
			}
			return a.c - b.c
		}) {
			t.Fatal("a full scan does not return partitions in token order and rows in clustering order")
		}
	})

	t.Run("count", func(t *testing.T) {
		var n int64
		if err := s.Query("SELECT count(*) FROM paging_many").PageSize(pagingFetch).Scan(&n); err != nil || n != pagingRows {
			t.Fatalf("count(*) = %d, %v", n, err)
		}
	})
}
