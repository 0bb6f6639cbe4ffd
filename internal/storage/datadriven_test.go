package storage

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/partita-db/partita/internal/backend"
)

// TestDataDriven runs the scenarios in testdata/*. Each file gets a fresh
// in-memory store. Commands:
//
//	write [p=KEY] [shard=N] [table=T]   one Apply of one mutation; input lines:
//	    marker CK ts=T [ttl=N exp=E]          row marker (INSERT)
//	    set CK COL VALUE ts=T [ttl=N exp=E]   cell; COL is cN or cN[PATH]
//	    del CK COL ts=T ldt=L                 cell tombstone
//	    delcoll CK cN ts=T ldt=L              collection deletion
//	    delrow CK ts=T ldt=L                  row deletion
//	    delrange START END ts=T ldt=L         range tombstone [START, END); * is unbounded
//	    delpart ts=T ldt=L                    partition deletion
//	  CK is the clustering key as text, or "static" for the static row.
//	read [p=KEY] [shard=N] [table=T] now=S [static] [reverse] [slices=(A:B,...)]
//	    the live rows, then the read's stats; slices=() reads no rows
//	gc now=S grace=G [unknown=(T,...)] [maxparts=N]   CollectGarbage and its stats
//	raw [table=T]                         every stored key with its merged value
//	flush | compact                       Pebble flush / full compaction
//
// Every file runs twice: with the default chunks of a deletion's rewrite,
// and with chunks that keep one key each. Both must print the same
// (invariant 14).
func TestDataDriven(t *testing.T) {
	for _, chunkKeys := range []int{0, 1} {
		t.Run(fmt.Sprint("chunkkeys", chunkKeys), func(t *testing.T) {
			datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
				h := &ddHarness{grace: DefaultGCGraceSeconds, unknown: map[backend.TableID]bool{}}
				h.store = openMem(t, Options{GCGrace: h.gcGrace, deletionChunkKeys: chunkKeys})
				datadriven.RunTest(t, path, h.run)
			})
		})
	}
}

type ddHarness struct {
	store   *Store
	grace   int64
	unknown map[backend.TableID]bool
}

func (h *ddHarness) gcGrace(t backend.TableID) (int64, bool) {
	return h.grace, !h.unknown[t]
}

func (h *ddHarness) run(t *testing.T, td *datadriven.TestData) string {
	switch td.Cmd {
	case "write":
		m, err := parseMutation(h.partitionArg(t, td), td.Input)
		if err != nil {
			return "error: " + err.Error()
		}
		if err := h.store.Apply(context.Background(), &backend.WriteBatch{Mutations: []backend.Mutation{m}}); err != nil {
			return "error: " + err.Error()
		}
		return "ok"
	case "read":
		return h.read(t, td)
	case "gc":
		return h.gc(t, td)
	case "raw":
		table := 1
		td.MaybeScanArgs(t, "table", &table)
		return fmtRaw(t, rawDump(t, h.store, backend.TableID(table)))
	case "flush":
		if err := h.store.flush(); err != nil {
			t.Fatal(err)
		}
		return "ok"
	case "compact":
		if err := h.store.compactAll(); err != nil {
			t.Fatal(err)
		}
		return "ok"
	}
	t.Fatalf("unknown command %q", td.Cmd)
	return ""
}

func (h *ddHarness) partitionArg(t *testing.T, td *datadriven.TestData) backend.PhysicalPartition {
	key, shard, table := "p", 0, 1
	td.MaybeScanArgs(t, "p", &key)
	td.MaybeScanArgs(t, "shard", &shard)
	td.MaybeScanArgs(t, "table", &table)
	return testPartition(backend.TableID(table), key, backend.Shard(shard))
}

func (h *ddHarness) read(t *testing.T, td *datadriven.TestData) string {
	cmd := backend.ReadCommand{Partition: h.partitionArg(t, td), Slices: []backend.Slice{backend.FullSlice}}
	td.ScanArgs(t, "now", &cmd.Now)
	cmd.Static = td.HasArg("static")
	cmd.Reverse = td.HasArg("reverse")
	if arg, ok := td.Arg("slices"); ok {
		cmd.Slices = nil
		for _, v := range arg.Vals {
			if v == "" {
				continue
			}
			start, end, found := strings.Cut(v, ":")
			if !found {
				t.Fatalf("slice %q: want START:END", v)
			}
			cmd.Slices = append(cmd.Slices, backend.Slice{Start: boundKey(start), End: boundKey(end)})
		}
	}
	rows, st := readRows(t, h.store, cmd)
	return fmt.Sprintf("%sstats: live=%d tombstones=%d\n", fmtRows(rows), st.LiveRows, st.Tombstones)
}

func (h *ddHarness) gc(t *testing.T, td *datadriven.TestData) string {
	var now int64
	td.ScanArgs(t, "now", &now)
	td.ScanArgs(t, "grace", &h.grace)
	h.unknown = map[backend.TableID]bool{}
	if arg, ok := td.Arg("unknown"); ok {
		for _, v := range arg.Vals {
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			h.unknown[backend.TableID(n)] = true
		}
	}
	var limit GCLimits
	td.MaybeScanArgs(t, "maxparts", &limit.MaxPartitions)
	st, err := h.store.CollectGarbage(context.Background(), time.Unix(now, 0), limit)
	if err != nil {
		return "error: " + err.Error()
	}
	return fmt.Sprintf("scanned=%d cells=%d tombstones=%d tables=%d done=%t\n",
		st.PartitionsScanned, st.CellsPurged, st.TombstonesPurged, st.TablesDropped, st.Done)
}

// boundKey is a slice bound: * is unbounded (nil).
func boundKey(s string) []byte {
	if s == "*" {
		return nil
	}
	return []byte(s)
}

// parseMutation builds one mutation from the write command's lines.
func parseMutation(p backend.PhysicalPartition, input string) (backend.Mutation, error) {
	m := backend.NewMutation(p)
	rows := map[string]int{}
	target := func(ck string) *backend.Row {
		if ck == "static" {
			if m.Static == nil {
				r := backend.NewRow(nil)
				m.Static = &r
			}
			return m.Static
		}
		i, ok := rows[ck]
		if !ok {
			i = len(m.Rows)
			rows[ck] = i
			m.Rows = append(m.Rows, backend.NewRow([]byte(ck)))
		}
		return &m.Rows[i]
	}
	for _, line := range strings.Split(strings.TrimSpace(input), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if err := parseWriteLine(line, &m, target); err != nil {
			return m, fmt.Errorf("%q: %w", line, err)
		}
	}
	for i := range m.Rows {
		sortCells(m.Rows[i].Cells)
	}
	if m.Static != nil {
		sortCells(m.Static.Cells)
	}
	return m, nil
}

func parseWriteLine(line string, m *backend.Mutation, target func(string) *backend.Row) error {
	var pos []string
	kv := map[string]int64{}
	for _, f := range strings.Fields(line) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			pos = append(pos, f)
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return err
		}
		kv[k] = n
	}
	need := func(n int) error {
		if len(pos) != n {
			return fmt.Errorf("want %d positional arguments", n-1)
		}
		return nil
	}
	del := deletion(kv["ts"], kv["ldt"])
	switch pos[0] {
	case "marker":
		if err := need(2); err != nil {
			return err
		}
		l := backend.Liveness{Timestamp: kv["ts"], TTL: int32(kv["ttl"]), ExpiresAt: backend.NoDeletionTime}
		if l.TTL != 0 {
			l.ExpiresAt = kv["exp"]
		}
		target(pos[1]).Liveness = l
	case "set", "del":
		if err := need(4 - btoi(pos[0] == "del")); err != nil {
			return err
		}
		col, path, err := parseColumn(pos[2])
		if err != nil {
			return err
		}
		c := regularCell(col, "", kv["ts"])
		if pos[0] == "del" {
			c = tombstoneCell(col, kv["ts"], kv["ldt"])
		} else {
			c.Value = []byte(strings.Trim(pos[3], "'"))
			if ttl := int32(kv["ttl"]); ttl != 0 {
				c.TTL, c.LocalDeletionTime = ttl, kv["exp"]
			}
		}
		c.Path = path
		r := target(pos[1])
		r.Cells = append(r.Cells, c)
	case "delcoll":
		if err := need(3); err != nil {
			return err
		}
		col, _, err := parseColumn(pos[2])
		if err != nil {
			return err
		}
		r := target(pos[1])
		r.ComplexDeletions = append(r.ComplexDeletions, backend.ComplexDeletion{Column: col, Deletion: del})
	case "delrow":
		if err := need(2); err != nil {
			return err
		}
		target(pos[1]).Deletion = del
	case "delrange":
		if err := need(3); err != nil {
			return err
		}
		m.RangeTombstones = append(m.RangeTombstones, backend.RangeTombstone{
			Slice: backend.Slice{Start: boundKey(pos[1]), End: boundKey(pos[2])}, Deletion: del})
	case "delpart":
		m.PartitionDeletion = del
	default:
		return fmt.Errorf("unknown verb %q", pos[0])
	}
	return nil
}

// parseColumn reads cN or cN[PATH].
func parseColumn(s string) (backend.ColumnID, []byte, error) {
	var path []byte
	if i := strings.IndexByte(s, '['); i >= 0 && strings.HasSuffix(s, "]") {
		path = []byte(s[i+1 : len(s)-1])
		s = s[:i]
	}
	n, err := strconv.ParseUint(strings.TrimPrefix(s, "c"), 10, 32)
	return backend.ColumnID(n), path, err
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
