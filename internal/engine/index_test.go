package engine_test

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"sync"
	"testing"

	"github.com/partita-db/partita/internal/cqltest"
)

// TestIndexUnderConcurrentWrites checks that a secondary index answers
// exactly what filtering the whole table answers after concurrent inserts,
// updates and deletes of the indexed column.
func TestIndexUnderConcurrentWrites(t *testing.T) {
	h := cqltest.New(t)
	ctx := context.Background()
	exec := func(q string) [][][]byte {
		res, err := h.Session.Query(ctx, q, nil)
		if err != nil {
			t.Errorf("%s: %v", q, err)
			return nil
		}
		return res.Rows
	}
	exec("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	exec("CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c))")
	exec("CREATE INDEX ON ks.t (v)")
	values := []string{"a", "b", "c"}
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			r := rand.New(rand.NewSource(seed))
			for i := 0; i < 200; i++ {
				k, c, v := r.Intn(10), r.Intn(5), values[r.Intn(len(values))]
				switch r.Intn(4) {
				case 0:
					exec(fmt.Sprintf("DELETE FROM ks.t WHERE k = %d AND c = %d", k, c))
				case 1:
					exec(fmt.Sprintf("DELETE v FROM ks.t WHERE k = %d AND c = %d", k, c))
				default:
					exec(fmt.Sprintf("UPDATE ks.t SET v = '%s' WHERE k = %d AND c = %d", v, k, c))
				}
			}
		}(int64(w))
	}
	wg.Wait()
	all := exec("SELECT k, c, v FROM ks.t")
	for _, v := range values {
		var want []string
		for _, row := range all {
			if string(row[2]) == v {
				want = append(want, fmt.Sprintf("%x/%x", row[0], row[1]))
			}
		}
		var got []string
		for _, row := range exec(fmt.Sprintf("SELECT k, c FROM ks.t WHERE v = '%s'", v)) {
			got = append(got, fmt.Sprintf("%x/%x", row[0], row[1]))
		}
		sort.Strings(want)
		sort.Strings(got)
		if fmt.Sprint(want) != fmt.Sprint(got) {
			t.Errorf("v = %s: index gives %v, the table holds %v", v, got, want)
		}
	}
}
