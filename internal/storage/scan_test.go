package storage

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/token"
)

// scanFixture writes table 1 partitions k0..k7 (rows a, b, c and a static
// row each), a second shard of k3, a partition deleted entirely, and
// neighbouring tables 0 and 2, and returns table 1's live physical
// partitions in scan order.
func scanFixture(t *testing.T) (*Store, []backend.PhysicalPartition) {
	s := openMem(t, Options{})
	var parts []backend.PhysicalPartition
	write := func(p backend.PhysicalPartition) {
		m := backend.NewMutation(p)
		for _, c := range []string{"a", "b", "c"} {
			m.Rows = append(m.Rows, rowOf([]byte(c), 10, regularCell(1, string(p.Key)+"/"+c, 10)))
		}
		st := rowOf(nil, backend.NoTimestamp, regularCell(9, "static-"+string(p.Key), 10))
		m.Static = &st
		mustApply(t, s, m)
	}
	for i := 0; i < 8; i++ {
		p := testPartition(1, fmt.Sprintf("k%d", i), 0)
		write(p)
		parts = append(parts, p)
	}
	shard := testPartition(1, "k3", 1)
	write(shard)
	parts = append(parts, shard)
	write(testPartition(0, "k1", 0))
	write(testPartition(2, "k1", 0))
	gone := testPartition(1, "gone", 0)
	write(gone)
	m := backend.NewMutation(gone)
	m.PartitionDeletion = deletion(20, 100)
	mustApply(t, s, m)
	sort.Slice(parts, func(i, j int) bool {
		if c := parts[i].LogicalPartition.Compare(parts[j].LogicalPartition); c != 0 {
			return c < 0
		}
		return parts[i].Shard < parts[j].Shard
	})
	return s, parts
}

// scanLines lists what a scan yields: partition/shard, then the row.
func scanLines(t *testing.T, it backend.RowIterator, skipAfterFirst bool) string {
	t.Helper()
	var b strings.Builder
	for it.Next() {
		r := it.Row()
		p := it.Partition()
		fmt.Fprintf(&b, "%s/%d %s\n", p.Key, p.Shard, fmtRow(r))
		if skipAfterFirst {
			it.SkipPartition()
		}
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// expectedScan is what a scan over parts yields, each partition's rows
// from after (exclusive) on, with its static row when static is set.
func expectedScan(parts []backend.PhysicalPartition, static bool, firstAfter []byte, firstOnly bool) string {
	var b strings.Builder
	for i, p := range parts {
		if static {
			fmt.Fprintf(&b, "%s/%d static: c9=static-%s@10\n", p.Key, p.Shard, p.Key)
			if firstOnly {
				continue
			}
		}
		for _, c := range []string{"a", "b", "c"} {
			if i == 0 && firstAfter != nil && c <= string(firstAfter) {
				continue
			}
			fmt.Fprintf(&b, "%s/%d %s: marker@10 c1=%s/%s@10\n", p.Key, p.Shard, c, p.Key, c)
			if firstOnly {
				break
			}
		}
	}
	return b.String()
}

func TestScan(t *testing.T) {
	s, parts := scanFixture(t)
	tok := func(i int) token.Token { return parts[i].Token }
	// k3 has two shards, adjacent in parts.
	k3 := -1
	for i, p := range parts {
		if string(p.Key) == "k3" && k3 < 0 {
			k3 = i
		}
	}
	between := func(lo, hi token.Token) []backend.PhysicalPartition {
		var out []backend.PhysicalPartition
		for _, p := range parts {
			if p.Token >= lo && p.Token <= hi {
				out = append(out, p)
			}
		}
		return out
	}
	tests := []struct {
		name     string
		cmd      backend.ScanCommand
		want     []backend.PhysicalPartition
		after    []byte
		skipRest bool
	}{
		{name: "full", cmd: backend.ScanCommand{}, want: parts},
		{name: "full static", cmd: backend.ScanCommand{Static: true}, want: parts},
		{name: "start inclusive", cmd: backend.ScanCommand{Start: &backend.TokenBound{Token: tok(2), Inclusive: true}},
			want: between(tok(2), token.MaxToken)},
		{name: "start exclusive", cmd: backend.ScanCommand{Start: &backend.TokenBound{Token: tok(2)}},
			want: between(tok(2)+1, token.MaxToken)},
		{name: "end inclusive", cmd: backend.ScanCommand{End: &backend.TokenBound{Token: tok(4), Inclusive: true}},
			want: between(token.MinToken, tok(4))},
		{name: "end exclusive", cmd: backend.ScanCommand{End: &backend.TokenBound{Token: tok(4)}},
			want: between(token.MinToken, tok(4)-1)},
		{name: "both bounds", cmd: backend.ScanCommand{
			Start: &backend.TokenBound{Token: tok(1)}, End: &backend.TokenBound{Token: tok(5), Inclusive: true}},
			want: between(tok(1)+1, tok(5))},
		{name: "empty range", cmd: backend.ScanCommand{
			Start: &backend.TokenBound{Token: tok(5), Inclusive: true}, End: &backend.TokenBound{Token: tok(5)}}},
		{name: "start after max token", cmd: backend.ScanCommand{Start: &backend.TokenBound{Token: token.MaxToken}}},
		{name: "end at max token inclusive", cmd: backend.ScanCommand{End: &backend.TokenBound{Token: token.MaxToken, Inclusive: true}}, want: parts},
		{name: "key resume skips the whole logical partition", cmd: backend.ScanCommand{
			Start: &backend.TokenBound{Token: tok(k3), Key: parts[k3].Key}}, want: parts[k3+2:]},
		{name: "key resume inclusive", cmd: backend.ScanCommand{
			Start: &backend.TokenBound{Token: tok(k3), Key: parts[k3].Key, Inclusive: true}}, want: parts[k3:]},
		{name: "after resume", cmd: backend.ScanCommand{
			Start: &backend.TokenBound{Token: tok(k3), Key: parts[k3].Key, Inclusive: true}, After: []byte("a")},
			want: parts[k3:], after: []byte("a")},
		{name: "after resume past the last row", cmd: backend.ScanCommand{
			Start: &backend.TokenBound{Token: tok(k3), Key: parts[k3].Key, Inclusive: true}, After: []byte("c")},
			want: parts[k3:], after: []byte("c")},
		{name: "skip partition", cmd: backend.ScanCommand{}, want: parts, skipRest: true},
		{name: "skip partition static", cmd: backend.ScanCommand{Static: true}, want: parts, skipRest: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.cmd.Table, tc.cmd.Now = 1, 50
			it, err := s.Scan(context.Background(), tc.cmd)
			if err != nil {
				t.Fatal(err)
			}
			got := scanLines(t, it, tc.skipRest)
			want := expectedScan(tc.want, tc.cmd.Static, tc.after, tc.skipRest)
			if got != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// TestScanAfterResumeOnGonePartition: After only applies to the partition
// it names; when that one has disappeared the next starts from its first
// row.
func TestScanAfterResumeOnGonePartition(t *testing.T) {
	s, parts := scanFixture(t)
	gone := testPartition(1, "gone", 0)
	var want []backend.PhysicalPartition
	for _, p := range parts {
		if p.LogicalPartition.Compare(gone.LogicalPartition) > 0 {
			want = append(want, p)
		}
	}
	it, err := s.Scan(context.Background(), backend.ScanCommand{Table: 1, Now: 50,
		Start: &backend.TokenBound{Token: gone.Token, Key: gone.Key, Inclusive: true}, After: []byte("b")})
	if err != nil {
		t.Fatal(err)
	}
	if got, w := scanLines(t, it, false), expectedScan(want, false, nil, false); got != w {
		t.Errorf("got\n%s\nwant\n%s", got, w)
	}
}

// TestScanStats: a scan counts the rows it returns and the partition
// deletion it passes is not a row.
func TestScanStats(t *testing.T) {
	s, parts := scanFixture(t)
	it, err := s.Scan(context.Background(), backend.ScanCommand{Table: 1, Now: 50})
	if err != nil {
		t.Fatal(err)
	}
	rows, st := drain(t, it)
	if st.LiveRows != int64(3*len(parts)) || len(rows) != 3*len(parts) || st.Tombstones != 0 || st.Bytes == 0 {
		t.Errorf("stats %+v for %d rows", st, len(rows))
	}
	for i := 1; i < len(rows); i++ {
		if bytes.Equal(rows[i].Clustering, rows[i-1].Clustering) && bytes.Equal(rows[i].Cells[0].Value, rows[i-1].Cells[0].Value) {
			t.Errorf("row %d repeated", i)
		}
	}
}
