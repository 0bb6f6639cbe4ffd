package e2e_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/gocql/gocql"
)

type listOpKind uint8

const (
	listRead   listOpKind = iota
	listSet0              // UPDATE t SET l[0] = v
	listRemove            // UPDATE t SET l = l - ? (bound to [v])
	listRefill            // UPDATE t SET l = ? IF l = null (bound to [v])
)

type listInput struct {
	kind listOpKind
	v    int
}

// listOutput: ok is false when l[0] = v found no element (an error) or
// the refill's condition failed; current is what a read returned.
type listOutput struct {
	ok      bool
	current casState
}

// listModel is a list of at most one element under the operations above:
// setting by index and removing by value read the list before writing,
// the refill is a lightweight transaction. casState serves as the list:
// empty, or holding v.
var listModel = porcupine.Model{
	Init: func() any { return casState{} },
	Step: func(state, input, output any) (bool, any) {
		st, in, out := state.(casState), input.(listInput), output.(listOutput)
		switch in.kind {
		case listRead:
			return out.current == st, st
		case listSet0:
			if !st.exists {
				return !out.ok, st
			}
			return out.ok, casState{true, in.v}
		case listRemove:
			if st.exists && st.v == in.v {
				return true, casState{}
			}
			return true, st
		}
		if st.exists {
			return !out.ok, st
		}
		return out.ok, casState{true, in.v}
	},
	DescribeOperation: func(input, output any) string {
		in, out := input.(listInput), output.(listOutput)
		name := [...]string{"read", "set0", "remove", "refill"}[in.kind]
		return fmt.Sprintf("%s(%d) = %v %+v", name, in.v, out.ok, out.current)
	},
}

// TestListReadModifyWriteLinearizable records concurrent list operations
// that read before writing (l[0] = v, l = l - [v]; Lists.SetterByIndex and
// Lists.Discarder read the list first) with server-side timestamps, and
// checks with porcupine that the history is linearizable. Partita runs
// them under the partition's lock; a server timestamp taken before the
// lock let a removal that ran after l[0] = v, and saw v, be stamped before
// it, so its tombstone lost and v stayed. With client-side timestamps the
// order is the clients' (last write wins, as in Cassandra), which this
// test does not exercise.
func TestListReadModifyWriteLinearizable(t *testing.T) {
	admin := newKeyspace(t, "list_rmw")
	mustExec(t, admin, "CREATE TABLE t (k int PRIMARY KEY, l list<int>)")
	mustExec(t, admin, "INSERT INTO t (k) VALUES (0)")

	base := time.Now()
	histories := make([][]porcupine.Operation, linClients)
	errs := make([]error, linClients)
	var wg sync.WaitGroup
	for c := range linClients {
		cluster := newCluster(node.Host, node.Port)
		cluster.Keyspace = "list_rmw"
		cluster.DefaultTimestamp = false
		cluster.Timeout = 10 * time.Second
		s, err := cluster.CreateSession()
		if err != nil {
			t.Fatalf("client %d: %v", c, err)
		}
		t.Cleanup(s.Close)
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(c), 2))
			for len(histories[c]) < linMaxOps && time.Since(base) < linDuration {
				in := listInput{kind: listOpKind(rng.IntN(4)), v: rng.IntN(linValues)}
				call := time.Since(base).Nanoseconds()
				out, err := runListOp(s, in)
				ret := time.Since(base).Nanoseconds()
				if err != nil {
					errs[c] = fmt.Errorf("%+v: %w", in, err)
					return
				}
				histories[c] = append(histories[c], porcupine.Operation{ClientId: c, Input: in, Call: call, Output: out, Return: ret})
			}
		}()
	}
	wg.Wait()
	var history []porcupine.Operation
	removals := 0
	for c := range linClients {
		if errs[c] != nil {
			t.Fatalf("client %d: %v", c, errs[c])
		}
		for _, op := range histories[c] {
			if op.Input.(listInput).kind == listRemove {
				removals++
			}
		}
		history = append(history, histories[c]...)
	}
	if removals == 0 {
		t.Fatalf("no removal in %d operations: the history checks nothing", len(history))
	}
	start := time.Now()
	res := porcupine.CheckOperationsTimeout(listModel, history, linCheckBudget)
	t.Logf("%d operations (%d removals) checked in %v: %s", len(history), removals, time.Since(start).Round(time.Millisecond), res)
	if res != porcupine.Ok {
		t.Fatalf("the history of %d operations is not linearizable (result %q)", len(history), res)
	}
}

func runListOp(s *gocql.Session, in listInput) (listOutput, error) {
	var out listOutput
	switch in.kind {
	case listRead:
		var l []int
		if err := s.Query("SELECT l FROM t WHERE k = 0").Scan(&l); err != nil {
			return out, err
		}
		switch len(l) {
		case 0:
		case 1:
			out.current = casState{true, l[0]}
		default:
			return out, fmt.Errorf("read %v: the list never holds more than one element", l)
		}
		return out, nil
	case listSet0:
		err := s.Query("UPDATE t SET l[0] = ? WHERE k = 0", in.v).Exec()
		var reqErr gocql.RequestError
		if errors.As(err, &reqErr) && reqErr.Code() == gocql.ErrCodeInvalid {
			// "Attempted to set an element on a list which is null"
			// (Lists.SetterByIndex): the list was empty.
			return out, nil
		}
		out.ok = err == nil
		return out, err
	case listRemove:
		out.ok = true
		return out, s.Query("UPDATE t SET l = l - ? WHERE k = 0", []int{in.v}).Exec()
	}
	applied, err := s.Query("UPDATE t SET l = ? WHERE k = 0 IF l = null", []int{in.v}).MapScanCAS(map[string]any{})
	out.ok = applied
	return out, err
}
