package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/partita-db/partita/internal/cqltest"
	"github.com/partita-db/partita/internal/engine"
	"github.com/partita-db/partita/internal/types"
)

// TestSplittingIsTransparent runs the same random CQL writes, deletes, LWTs
// and batches against three servers: one that never splits, one that
// splits whenever a partition passes a tiny threshold (detector and
// migrations driven after every statement), and one whose partitions are
// split, reverted and merged back at random. Every query shape, in both
// directions and with paging, must return identical results.
func TestSplittingIsTransparent(t *testing.T) {
	splitSeen := [3]int{}
	defer func() {
		if splitSeen[1] == 0 || splitSeen[2] == 0 {
			t.Errorf("split partitions were seen %v times; both splitting servers must split", splitSeen)
		}
		t.Logf("observations of split partitions per server: %v", splitSeen)
	}()
	rapid.Check(t, func(rt *rapid.T) {
		off := engine.DefaultConfig()
		off.SplitTick, off.GCInterval = 0, 0
		off.Split.Enabled = false
		tiny := off
		tiny.Split.Enabled, tiny.Split.MaxRows, tiny.Split.Window, tiny.Split.MaxConcurrent = true, 4, 0, 8
		random := off
		random.Split.Enabled, random.Split.MaxRows = false, 3
		hs := []*cqltest.Harness{cqltest.NewWithConfig(t, off), cqltest.NewWithConfig(t, tiny), cqltest.NewWithConfig(t, random)}
		defer func() {
			for _, h := range hs {
				h.Close()
			}
		}()
		schema := []string{
			"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
			"USE ks",
			"CREATE TABLE ev (a text, d int, ts int, id int, v text, s text STATIC, PRIMARY KEY ((a, d), ts, id)) WITH CLUSTERING ORDER BY (ts DESC, id ASC)",
		}
		for _, h := range hs {
			for _, q := range schema {
				if _, err := h.Session.Query(context.Background(), q, nil); err != nil {
					rt.Fatal(err)
				}
			}
		}
		ts := int64(1_000_000)
		for i := 0; i < rapid.IntRange(10, 60).Draw(rt, "ops"); i++ {
			if rapid.IntRange(0, 3).Draw(rt, "read") == 0 {
				q := randomQuery(rt)
				page := rapid.SampledFrom([]int{0, 1, 3, 7}).Draw(rt, "page")
				want := runAll(rt, hs[0], q, page)
				for j, h := range hs[1:] {
					if got := runAll(rt, h, q, page); got != want {
						rt.Fatalf("%s (page %d) on server %d:\ngot\n%s\nwant\n%s\nsplits: %+v", q, page, j+1, got, want, h.Engine.SplitStatus())
					}
				}
				continue
			}
			ts += int64(rapid.IntRange(1, 10).Draw(rt, "dt"))
			stmt := randomWrite(rt, ts)
			for _, h := range hs {
				res, err := h.Session.Query(context.Background(), stmt, &engine.Options{Timestamp: ts, HasTimestamp: true})
				_ = res
				if err != nil && !strings.Contains(err.Error(), "Invalid") {
					rt.Fatalf("%s: %v", stmt, err)
				}
			}
			ctx := context.Background()
			if _, err := hs[1].Engine.EvaluateSplits(ctx); err != nil {
				rt.Fatal(err)
			}
			if err := hs[1].Engine.StepSplits(ctx, rapid.IntRange(1, 4).Draw(rt, "chunk")); err != nil {
				rt.Fatal(err)
			}
			randomSplitAction(rt, hs[2])
			for j, h := range hs {
				if len(h.Engine.SplitStatus()) > 0 {
					splitSeen[j]++
				}
			}
		}
	})
}

func randomKey(rt *rapid.T) string {
	return fmt.Sprintf("'%s', %d", rapid.SampledFrom([]string{"x", "y"}).Draw(rt, "a"), rapid.IntRange(1, 2).Draw(rt, "d"))
}

func keyWhere(rt *rapid.T) string {
	k := strings.Split(randomKey(rt), ", ")
	return fmt.Sprintf("a = %s AND d = %s", k[0], k[1])
}

func randomWrite(rt *rapid.T, ts int64) string {
	where := keyWhere(rt)
	tsv, id := rapid.IntRange(0, 30).Draw(rt, "ts"), rapid.IntRange(0, 2).Draw(rt, "id")
	row := fmt.Sprintf("%s AND ts = %d AND id = %d", where, tsv, id)
	k := strings.Split(strings.ReplaceAll(strings.ReplaceAll(where, "a = ", ""), " AND d =", ","), ", ")
	v := rapid.SampledFrom([]string{"'p'", "'q'", "'r'", "null"}).Draw(rt, "v")
	switch rapid.IntRange(0, 9).Draw(rt, "write") {
	case 0, 1, 2:
		return fmt.Sprintf("INSERT INTO ev (a, d, ts, id, v) VALUES (%s, %s, %d, %d, %s)", k[0], k[1], tsv, id, v)
	case 3:
		return fmt.Sprintf("UPDATE ev SET v = %s WHERE %s", v, row)
	case 4:
		return fmt.Sprintf("DELETE FROM ev WHERE %s", row)
	case 5:
		return fmt.Sprintf("DELETE FROM ev WHERE %s AND ts > %d AND ts <= %d", where, tsv, tsv+rapid.IntRange(1, 8).Draw(rt, "w"))
	case 6:
		if rapid.IntRange(0, 3).Draw(rt, "pdel") == 0 {
			return fmt.Sprintf("DELETE FROM ev WHERE %s", where)
		}
		return fmt.Sprintf("UPDATE ev SET s = %s WHERE %s", v, where)
	case 7:
		return fmt.Sprintf("UPDATE ev SET v = 'lwt' WHERE %s IF v = %s", row, v)
	case 8:
		return fmt.Sprintf("INSERT INTO ev (a, d, ts, id, v) VALUES (%s, %s, %d, %d, 'n') IF NOT EXISTS", k[0], k[1], tsv, id)
	}
	return fmt.Sprintf("BEGIN BATCH INSERT INTO ev (a, d, ts, id, v) VALUES (%s, %s, %d, 0, 'b1'); INSERT INTO ev (a, d, ts, id, v) VALUES (%s, %s, %d, 1, 'b2'); APPLY BATCH",
		k[0], k[1], tsv, k[0], k[1], tsv+1)
}

func randomQuery(rt *rapid.T) string {
	where := keyWhere(rt)
	lo, hi := rapid.IntRange(0, 30).Draw(rt, "lo"), rapid.IntRange(0, 30).Draw(rt, "hi")
	limit := ""
	if rapid.Bool().Draw(rt, "limit") {
		limit = fmt.Sprintf(" LIMIT %d", rapid.IntRange(1, 10).Draw(rt, "n"))
	}
	return rapid.SampledFrom([]string{
		"SELECT * FROM ev WHERE " + where + limit,
		"SELECT ts, id, v FROM ev WHERE " + where + " ORDER BY ts ASC, id DESC" + limit,
		fmt.Sprintf("SELECT ts, id, v FROM ev WHERE %s AND ts >= %d AND ts < %d%s", where, lo, hi, limit),
		fmt.Sprintf("SELECT ts, id FROM ev WHERE %s AND (ts, id) > (%d, 1) ORDER BY ts ASC, id DESC%s", where, lo, limit),
		"SELECT * FROM ev" + limit,
		"SELECT a, d, count(*), max(ts) FROM ev WHERE " + where,
		"SELECT DISTINCT a, d, s FROM ev",
		"SELECT a, d, ts, id FROM ev WHERE v = 'p' ALLOW FILTERING",
		"SELECT a, d, ts FROM ev WHERE token(a, d) >= 0" + limit,
		"SELECT ts, id FROM ev WHERE " + where + " AND ts IN (1, 5, 9, 20)",
	}).Draw(rt, "query")
}

// runAll fetches every page of a query and prints the rows.
func runAll(rt *rapid.T, h *cqltest.Harness, q string, page int) string {
	opts := &engine.Options{PageSize: int32(page)}
	var b strings.Builder
	for n := 0; n < 1000; n++ {
		res, err := h.Session.Query(context.Background(), q, opts)
		if err != nil {
			return "error: " + err.Error()
		}
		for _, row := range res.Rows {
			for i, v := range row {
				b.WriteString(types.Format(res.Columns[i].Type, v))
				b.WriteString(" | ")
			}
			b.WriteByte('\n')
		}
		if res.PagingState == nil {
			return b.String()
		}
		opts.PagingState = res.PagingState
	}
	rt.Fatalf("%s: paging does not end", q)
	return ""
}

// randomSplitAction splits, steps, reverts or merges back a random
// partition of the third server.
func randomSplitAction(rt *rapid.T, h *cqltest.Harness) {
	ctx := context.Background()
	key := randomKey(rt)
	switch rapid.IntRange(0, 5).Draw(rt, "splitAction") {
	case 0:
		_ = h.Engine.SplitOperation(ctx, "split", "ks", "ev", key, rapid.SampledFrom([]string{"range", "hash", "rollover"}).Draw(rt, "strategy"))
	case 1:
		_ = h.Engine.SplitOperation(ctx, "revert", "ks", "ev", key, "")
	case 2:
		_ = h.Engine.SplitOperation(ctx, "merge", "ks", "ev", key, "")
	case 3:
		if err := h.Engine.StepSplits(ctx, rapid.IntRange(1, 3).Draw(rt, "chunk")); err != nil {
			rt.Fatal(err)
		}
	}
}
