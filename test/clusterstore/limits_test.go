package clusterstore_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/partita-db/partita/internal/backend"
)

// TestLargeWrites: a value far past the cluster's batch size threshold in
// one partition, and a batch over several partitions past it.
func TestLargeWrites(t *testing.T) {
	st := openStore(t)
	big := bytes.Repeat([]byte("v"), 300<<10)
	p := logical("big").Physical(backend.HomeShard)
	apply(t, st, mutation(p, row("a", 10, backend.Cell{Column: 1, Value: big, Timestamp: 10, LocalDeletionTime: backend.NoDeletionTime})))
	it, err := st.Read(context.Background(), backend.ReadCommand{Partition: p, Slices: []backend.Slice{backend.FullSlice}, Now: time.Now().Unix()})
	if err != nil {
		t.Fatal(err)
	}
	if !it.Next() || !bytes.Equal(it.Row().Cells[0].Value, big) {
		t.Fatalf("large value not read back: %v", it.Err())
	}
	it.Close()
	var ms []backend.Mutation
	for _, k := range []string{"b1", "b2", "b3"} {
		ms = append(ms, mutation(logical(k).Physical(backend.HomeShard),
			row("a", 10, backend.Cell{Column: 1, Value: big[:30<<10], Timestamp: 10, LocalDeletionTime: backend.NoDeletionTime})))
	}
	apply(t, st, ms...)
}

// TestLargeMove moves more than one logged batch may hold: it commits
// through the batch log, all of it.
func TestLargeMove(t *testing.T) {
	st := openStore(t)
	lp := logical("lm")
	var rows []backend.Row
	for i := 0; i < 300; i++ {
		rows = append(rows, row(string(rune('a'+i/26))+string(rune('a'+i%26)), 10,
			backend.Cell{Column: 1, Value: bytes.Repeat([]byte("x"), 500), Timestamp: 10, LocalDeletionTime: backend.NoDeletionTime}))
	}
	apply(t, st, mutation(lp.Physical(backend.HomeShard), rows...))
	stats, err := st.Move(context.Background(), backend.MoveCommand{Partition: lp, From: []backend.Shard{0}, Slice: backend.FullSlice,
		Route: func([]byte) backend.Shard { return 1 }, Targets: []backend.Shard{1}, Meta: []backend.MetaWrite{{Key: []byte("m"), Value: []byte("1")}}})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Rows != 300 {
		t.Errorf("moved %d rows", stats.Rows)
	}
	count := func(s backend.Shard) int {
		it, err := st.Read(context.Background(), backend.ReadCommand{Partition: lp.Physical(s), Slices: []backend.Slice{backend.FullSlice}, Now: time.Now().Unix()})
		if err != nil {
			t.Fatal(err)
		}
		defer it.Close()
		n := 0
		for it.Next() {
			n++
		}
		return n
	}
	if h, c := count(0), count(1); h != 0 || c != 300 {
		t.Errorf("after the move: %d rows home, %d in the child", h, c)
	}
}
