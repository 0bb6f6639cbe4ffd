package e2e_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

// groupByRow is one row of the group_by table: partitions 1 to 6 hold
// groups (p, c1) of 1 to 5 rows, even partitions have a static value, and
// partition 7 has only its static row.
type groupByRow struct{ p, c1, c2, v int }

func groupByData() (rows []groupByRow, static map[int]int) {
	static = map[int]int{7: 7000}
	for p := 1; p <= 6; p++ {
		if p%2 == 0 {
			static[p] = p * 1000
		}
		for c1 := range p {
			for c2 := range (p+c1)%5 + 1 {
				rows = append(rows, groupByRow{p, c1, c2, p*100 + c1*10 + c2})
			}
		}
	}
	return rows, static
}

// TestGroupByPaging pages GROUP BY queries through gocql, three groups a
// page: every page holds whole groups (a group's aggregate is never split),
// the pages together equal the unpaged result, and for IN queries both equal
// the groups computed here from the data (SelectGroupByTest's
// testGroupByWithPaging, with groups of varying size).
func TestGroupByPaging(t *testing.T) {
	s := newKeyspace(t, "go_groupby")
	mustExec(t, s, "CREATE TABLE g (p int, c1 int, c2 int, v int, s int STATIC, PRIMARY KEY (p, c1, c2))")
	rows, static := groupByData()
	for _, r := range rows {
		mustExec(t, s, "INSERT INTO g (p, c1, c2, v) VALUES (?, ?, ?, ?)", r.p, r.c1, r.c2, r.v)
	}
	for p, v := range static {
		mustExec(t, s, "UPDATE g SET s = ? WHERE p = ?", v, p)
	}
	var p5 []groupByRow
	for _, r := range rows {
		if r.p == 5 {
			p5 = append(p5, r)
		}
	}
	in := "p IN (1, 2, 3, 4, 5, 6, 7)"
	cases := []struct {
		query string
		want  []string // nil: only compared with the unpaged result
	}{
		// No aggregate: each group's first row.
		{"SELECT p, c1, c2, v, s FROM g WHERE " + in + " GROUP BY p, c1", expectGroups(rows, static, -1, -1, firstRow)},
		{"SELECT p, c1, count(c2), sum(v), s FROM g WHERE " + in + " GROUP BY p, c1", expectGroups(rows, static, -1, -1, aggregates)},
		// LIMIT counts groups, PER PARTITION LIMIT groups in a partition.
		{"SELECT p, c1, count(c2), sum(v), s FROM g WHERE " + in + " GROUP BY p, c1 PER PARTITION LIMIT 2 LIMIT 7", expectGroups(rows, static, 2, 7, aggregates)},
		{"SELECT p, c1, c2, v, s FROM g WHERE p = 5 GROUP BY p, c1 LIMIT 4", expectGroups(p5, nil, -1, 4, firstRow)},
		{"SELECT p, c1, count(c2), sum(v), s FROM g GROUP BY p, c1", nil},
		{"SELECT p, c1, c2, v, s FROM g GROUP BY p, c1 PER PARTITION LIMIT 3", nil},
		{"SELECT p, count(c2), sum(v), s FROM g GROUP BY p", nil},
		{"SELECT p, c1, c2, v FROM g WHERE p = 6 GROUP BY p, c1 ORDER BY c1 DESC", nil},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			unpaged := scanStrings(t, s.Query(tc.query).PageSize(0).Iter())
			if tc.want != nil && !slices.Equal(unpaged, tc.want) {
				t.Fatalf("unpaged:\n%s\nwant:\n%s", strings.Join(unpaged, "\n"), strings.Join(tc.want, "\n"))
			}
			auto := scanStrings(t, s.Query(tc.query).PageSize(3).Iter())
			if !slices.Equal(auto, unpaged) {
				t.Fatalf("driver paging, 3 a page:\n%s\nunpaged:\n%s", strings.Join(auto, "\n"), strings.Join(unpaged, "\n"))
			}
			var explicit []string
			var state []byte
			for page := 1; ; page++ {
				iter := s.Query(tc.query).PageSize(3).PageState(state).Iter()
				next := iter.PageState()
				got := scanStrings(t, iter)
				if len(got) > 3 {
					t.Fatalf("page %d has %d groups", page, len(got))
				}
				explicit = append(explicit, got...)
				if len(next) == 0 {
					break
				}
				state = next
			}
			if !slices.Equal(explicit, unpaged) {
				t.Fatalf("explicit pages:\n%s\nunpaged:\n%s", strings.Join(explicit, "\n"), strings.Join(unpaged, "\n"))
			}
		})
	}
}

// scanStrings reads every row of iter as text, one string a row.
func scanStrings(t *testing.T, iter *gocql.Iter) []string {
	t.Helper()
	var out []string
	for {
		row := map[string]any{}
		if !iter.MapScan(row) {
			break
		}
		cols := iter.Columns()
		cells := make([]string, len(cols))
		for i, c := range cols {
			cells[i] = fmt.Sprint(row[c.Name])
		}
		out = append(out, strings.Join(cells, " | "))
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

type groupFormat int

const (
	firstRow   groupFormat = iota // p | c1 | c2 | v | s of the first row
	aggregates                    // p | c1 | count(c2) | sum(v) | s
)

// expectGroups computes GROUP BY p, c1 over rows (in partition then
// clustering order) as gocql's MapScan prints it: a partition with only its
// static row is one group with null clustering and regular columns.
// perPartition and limit count groups; -1 is none.
func expectGroups(rows []groupByRow, static map[int]int, perPartition, limit int, f groupFormat) []string {
	staticOf := func(p int) string {
		if v, ok := static[p]; ok {
			return fmt.Sprint(v)
		}
		return "0" // MapScan gives a null int as 0
	}
	type group struct {
		p, c1, c2, v, count, sum int
		staticOnly               bool
	}
	var groups []group
	for _, r := range rows {
		if n := len(groups); n > 0 && groups[n-1].p == r.p && groups[n-1].c1 == r.c1 {
			groups[n-1].count++
			groups[n-1].sum += r.v
			continue
		}
		groups = append(groups, group{p: r.p, c1: r.c1, c2: r.c2, v: r.v, count: 1, sum: r.v})
	}
	for p := range static {
		if !slices.ContainsFunc(rows, func(r groupByRow) bool { return r.p == p }) {
			groups = append(groups, group{p: p, staticOnly: true})
		}
	}
	slices.SortStableFunc(groups, func(a, b group) int { return a.p - b.p })
	var out []string
	inPartition := map[int]int{}
	for _, g := range groups {
		if perPartition >= 0 && inPartition[g.p] == perPartition || limit >= 0 && len(out) == limit {
			continue
		}
		inPartition[g.p]++
		switch {
		case g.staticOnly:
			out = append(out, fmt.Sprintf("%d | 0 | 0 | 0 | %s", g.p, staticOf(g.p)))
		case f == firstRow:
			out = append(out, fmt.Sprintf("%d | %d | %d | %d | %s", g.p, g.c1, g.c2, g.v, staticOf(g.p)))
		default:
			out = append(out, fmt.Sprintf("%d | %d | %d | %d | %s", g.p, g.c1, g.count, g.sum, staticOf(g.p)))
		}
	}
	return out
}

// TestGroupByFloorPrepared is SelectGroupByTest's prepared statement on time
// ranges: floor's start time bound in both the selection and GROUP BY, paged
// three groups at a time.
func TestGroupByFloorPrepared(t *testing.T) {
	s := newKeyspace(t, "go_groupby_floor")
	mustExec(t, s, "CREATE TABLE tt (pk int, time timestamp, v int, PRIMARY KEY (pk, time))")
	for _, r := range []struct {
		pk   int
		time string
		v    int
	}{
		{1, "2016-09-27 16:10:00", 1}, {1, "2016-09-27 16:12:00", 2}, {1, "2016-09-27 16:14:00", 3},
		{1, "2016-09-27 16:15:00", 4}, {1, "2016-09-27 16:21:00", 5}, {1, "2016-09-27 16:22:00", 6},
		{1, "2016-09-27 16:26:00", 7}, {1, "2016-09-27 16:26:20", 8}, {2, "2016-09-27 16:26:20", 10},
		{2, "2016-09-27 16:30:00", 11},
	} {
		mustExec(t, s, "INSERT INTO tt (pk, time, v) VALUES (?, '"+r.time+"+0000', ?)", r.pk, r.v)
	}
	start, err := time.Parse(time.RFC3339, "2016-09-27T00:00:00Z")
	if err != nil {
		t.Fatal(err)
	}
	q := "SELECT pk, floor(time, 5m, ?), min(v), max(v), count(v) FROM tt GROUP BY pk, floor(time, 5m, ?)"
	want := []string{
		"1 2016-09-27T16:10:00Z 1 3 3",
		"1 2016-09-27T16:15:00Z 4 4 1",
		"1 2016-09-27T16:20:00Z 5 6 2",
		"1 2016-09-27T16:25:00Z 7 8 2",
		"2 2016-09-27T16:25:00Z 10 10 1",
		"2 2016-09-27T16:30:00Z 11 11 1",
	}
	for _, size := range []int{0, 1, 3} {
		iter := s.Query(q, start, start).PageSize(size).Iter()
		var got []string
		var pk, minV, maxV int
		var count int64
		var floor time.Time
		for iter.Scan(&pk, &floor, &minV, &maxV, &count) {
			got = append(got, fmt.Sprintf("%d %s %d %d %d", pk, floor.UTC().Format(time.RFC3339), minV, maxV, count))
		}
		if err := iter.Close(); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("page size %d:\n%s\nwant:\n%s", size, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}
