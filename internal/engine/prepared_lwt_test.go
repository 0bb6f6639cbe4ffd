package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/cqltest"
	"github.com/partita-db/partita/internal/engine"
	"github.com/partita-db/partita/internal/types"
)

// TestPreparedConditions: bound values in IF conditions, unset ones
// included, answered as Cassandra 5.0 answers them. Cassandra binds unset
// as an empty value: refused where the condition compares with it, an
// element that no map key names, no element a collection contains, and a
// list index it fails to read (a server error).
func TestPreparedConditions(t *testing.T) {
	h := cqltest.New(t)
	mustExec(t, h.Session, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int PRIMARY KEY, m map<int, frozen<list<int>>>, v int)",
		"INSERT INTO ks.t (k, v) VALUES (1, 1)",
		"CREATE TABLE ks.st (k int, c int, s int static, v int, l list<int>, PRIMARY KEY (k, c))",
		"INSERT INTO ks.st (k, c, s, v, l) VALUES (1, 1, 1, 1, [])")
	unset, null := engine.Value{Unset: true}, engine.Value{}
	oneList := engine.Value{Bytes: types.EncodeCollection([][]byte{int32Value(1).Bytes, int32Value(2).Bytes})}
	oneMap := engine.Value{Bytes: types.EncodeMap([][]byte{int32Value(1).Bytes}, [][]byte{oneList.Bytes})}
	emptyMap := engine.Value{Bytes: types.EncodeMap(nil, nil)}
	applied := "[applied]\nTrue\n(1 rows)\n"
	refused := "error (Invalid 0x2200): Invalid 'unset' value in condition\n"
	for _, c := range []struct {
		stmt   string
		values []engine.Value
		want   string
	}{
		{"UPDATE ks.t SET v = 2 WHERE k = 1 IF v = ?", []engine.Value{unset}, refused},
		{"UPDATE ks.t SET v = 2 WHERE k = 1 IF v IN (?, ?)", []engine.Value{unset, int32Value(1)}, applied},
		{"UPDATE ks.t SET v = 2 WHERE k = 1 IF v IN ?", []engine.Value{unset}, refused},
		{"UPDATE ks.t SET v = 2 WHERE k = 1 IF m[?] = ?", []engine.Value{unset, null}, applied},
		{"UPDATE ks.t SET v = 2 WHERE k = 1 IF m[?] = ?", []engine.Value{int32Value(1), unset}, refused},
		{"UPDATE ks.t SET v = 2 WHERE k = 1 IF m CONTAINS KEY ?", []engine.Value{unset}, "[applied] | m\nFalse | null\n(1 rows)\n"},
		{"UPDATE ks.t SET v = 2 WHERE k = 1 IF m[?] = ?", []engine.Value{null, null}, "error (Invalid 0x2200): Invalid null value for map element access\n"},
		{"UPDATE ks.t SET v = 2 WHERE k = ? IF v = 1", []engine.Value{unset}, "error (Invalid 0x2200): Invalid unset value for column k\n"},
		{"UPDATE ks.st SET v = ? WHERE k = 1 AND c = 1 IF s = ?", []engine.Value{unset, int32Value(1)}, applied},
		{"UPDATE ks.st SET v = 3 WHERE k = 1 AND c = 1 IF l[?] = ?", []engine.Value{unset, null}, "error (Server 0x0000): java.lang.IndexOutOfBoundsException\n"},
		{"UPDATE ks.st SET v = 3 WHERE k = 1 AND c = 1 IF l CONTAINS ?", []engine.Value{unset}, "[applied] | l\nFalse | null\n(1 rows)\n"},
		{"UPDATE ks.st SET v = 3 WHERE k = 1 AND c = 1 IF v IN (?)", []engine.Value{unset}, "[applied] | v\nFalse | 1\n(1 rows)\n"},
		{"UPDATE ks.st SET v = 3 WHERE k = 1 AND c = 1 IF v > ?", []engine.Value{unset}, refused},
		// A bound empty collection for a whole non-frozen one is null.
		{"UPDATE ks.t SET v = 3 WHERE k = 1 IF m = ?", []engine.Value{emptyMap}, applied},
		{"UPDATE ks.t SET v = 3 WHERE k = 1 IF m != ?", []engine.Value{emptyMap}, "[applied] | m\nFalse | null\n(1 rows)\n"},
		{"UPDATE ks.t SET v = 3 WHERE k = 1 IF m > ?", []engine.Value{emptyMap}, "error (Invalid 0x2200): Invalid comparison with an empty map for operator \">\"\n"},
		{"UPDATE ks.t SET v = 3 WHERE k = 1 IF m IN ?", []engine.Value{{Bytes: types.EncodeCollection([][]byte{emptyMap.Bytes})}}, applied},
		// Nested collections, bound whole and by element.
		{"UPDATE ks.t SET m = ? WHERE k = 1 IF v = ?", []engine.Value{oneMap, int32Value(3)}, applied},
		{"UPDATE ks.t SET v = 4 WHERE k = 1 IF m[?] = ?", []engine.Value{int32Value(1), oneList}, applied},
		{"UPDATE ks.t SET v = 5 WHERE k = 1 IF m[?] = ?", []engine.Value{int32Value(1), {Bytes: types.EncodeCollection(nil)}}, "[applied] | m\nFalse | {1: [1, 2]}\n(1 rows)\n"},
		{"UPDATE ks.t SET v = 5 WHERE k = 1 IF m[?] IN ?", []engine.Value{int32Value(1), {Bytes: types.EncodeCollection([][]byte{oneList.Bytes})}}, applied},
		{"UPDATE ks.t SET v = 6 WHERE k = 1 IF m IN (?, ?)", []engine.Value{emptyMap, oneMap}, applied},
	} {
		if got := executePrepared(h.Session, c.stmt, c.values); got != c.want {
			t.Errorf("%s %v:\n%s\nwant\n%s", c.stmt, c.values, got, c.want)
		}
	}
}

// executePrepared prepares and executes stmt and formats the outcome as the
// datadriven harness does.
func executePrepared(s *engine.Session, stmt string, values []engine.Value) string {
	ctx := context.Background()
	p, err := s.Prepare(ctx, stmt)
	var res *engine.Result
	if err == nil {
		res, err = s.Execute(ctx, p.PreparedID, &engine.Options{Values: values})
	}
	if err != nil {
		e := cqlerr.As(err)
		return fmt.Sprintf("error (%s): %s\n", e.Code, e.Message)
	}
	var out strings.Builder
	if res.Kind == engine.ResultRows {
		cqltest.FormatRows(&out, res)
	} else {
		out.WriteString("ok\n")
	}
	return out.String()
}
