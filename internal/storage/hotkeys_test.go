package storage

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cockroachdb/pebble/v2"

	"github.com/partita-db/partita/internal/backend"
)

// countingMerger is merger counting the operands Pebble hands it.
type countingMerger struct {
	pebble.ValueMerger
	n *atomic.Int64
}

func (m countingMerger) MergeNewer(v []byte) error { m.n.Add(1); return m.ValueMerger.MergeNewer(v) }
func (m countingMerger) MergeOlder(v []byte) error { m.n.Add(1); return m.ValueMerger.MergeOlder(v) }
func (m countingMerger) Finish(includesBase bool) ([]byte, io.Closer, error) {
	return m.ValueMerger.Finish(includesBase)
}

func newCountingMerger(n *atomic.Int64) *pebble.Merger {
	return &pebble.Merger{Name: merger.Name, Merge: func(key, value []byte) (pebble.ValueMerger, error) {
		n.Add(1)
		m, err := merger.Merge(key, value)
		if err != nil {
			return nil, err
		}
		return countingMerger{m, n}, nil
	}}
}

// TestHotRowReadsFewOperands: a row updated a thousand times in one
// memtable reads at most foldAfter operands (invariant 13), and reads the
// last write of every cell. Without folding the read merges all 1000.
func TestHotRowReadsFewOperands(t *testing.T) {
	var operands atomic.Int64
	s := openMem(t, Options{merger: newCountingMerger(&operands)})
	p := testPartition(1, "hot", 0)
	const writes = 1000
	for i := 1; i <= writes; i++ {
		m := backend.NewMutation(p)
		m.Rows = []backend.Row{rowOf(ck(1), backend.NoTimestamp, regularCell(backend.ColumnID(1+i%4), fmt.Sprint(i), int64(i)))}
		st := rowOf(nil, backend.NoTimestamp, regularCell(9, fmt.Sprint(i), int64(i)))
		st.Liveness = backend.NoLiveness
		m.Static = &st
		mustApply(t, s, m)
	}
	operands.Store(0)
	rows, _ := readRows(t, s, backend.ReadCommand{Partition: p, Slices: []backend.Slice{backend.FullSlice}, Static: true, Now: 1})
	if got := operands.Load(); got > 3*foldAfter { // row, static row, header
		t.Errorf("reading the hot row merged %d operands, want at most %d", got, 3*foldAfter)
	}
	var got []string
	for i := range rows {
		got = append(got, fmtRow(&rows[i]))
	}
	want := []string{"static: c9=1000@1000", "0x0000000000000001: c1=1000@1000 c2=997@997 c3=998@998 c4=999@999"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("read\n%q\nwant\n%q", got, want)
	}
}

// TestHotRowConcurrentWriters: writers racing on one row, each folding
// often, lose nothing. Writer w owns column w and writes it with rising
// timestamps; all of them also write column 0, whose highest timestamp
// wins; flushes run meanwhile so folds read across levels.
func TestHotRowConcurrentWriters(t *testing.T) {
	s := openMem(t, Options{foldAfter: 3})
	p := testPartition(1, "hot", 0)
	const writers, each = 8, 300
	var wg sync.WaitGroup
	errs := make(chan error, writers+1)
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := s.flush(); err != nil {
				errs <- err
				return
			}
		}
	}()
	for w := 1; w <= writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 1; i <= each; i++ {
				ts := int64(i*writers + w)
				m := backend.NewMutation(p)
				m.Rows = []backend.Row{rowOf(ck(1), backend.NoTimestamp,
					regularCell(backend.ColumnID(w), fmt.Sprint(i), ts), regularCell(0, fmt.Sprint(ts), ts))}
				if err := s.Apply(t.Context(), &backend.WriteBatch{Mutations: []backend.Mutation{m}}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	rows, _ := readRows(t, s, backend.ReadCommand{Partition: p, Slices: []backend.Slice{backend.FullSlice}, Now: 1})
	if len(rows) != 1 {
		t.Fatalf("read %d rows, want 1", len(rows))
	}
	byColumn := map[backend.ColumnID]string{}
	for _, c := range rows[0].Cells {
		byColumn[c.Column] = string(c.Value)
	}
	last := each*writers + writers
	if byColumn[0] != fmt.Sprint(last) {
		t.Errorf("column 0 = %q, want %d", byColumn[0], last)
	}
	for w := 1; w <= writers; w++ {
		if byColumn[backend.ColumnID(w)] != fmt.Sprint(each) {
			t.Errorf("column %d = %q, want %d (a write was lost)", w, byColumn[backend.ColumnID(w)], each)
		}
	}
}
