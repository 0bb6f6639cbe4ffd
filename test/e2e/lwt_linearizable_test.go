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

const (
	linClients = 6
	// linDuration bounds the history's recording; linMaxOps bounds each
	// client's operations, so the checker's work stays bounded on a fast
	// machine too.
	linDuration = 5 * time.Second
	linMaxOps   = 2500
	// linValues is the register's value domain, small so that guessed
	// conditions often hold without the client having seen the value:
	// only then can an update stamped before another one apply after it.
	linValues = 4
	// linCheckBudget bounds the linearizability check.
	linCheckBudget = 60 * time.Second
)

type casOpKind uint8

const (
	opRead casOpKind = iota
	opCAS
	opInsert
	opDelete
)

// casInput is one operation on the register: a SERIAL read, UPDATE ... IF
// v = from (set to), INSERT ... IF NOT EXISTS (to), DELETE ... IF v = from.
type casInput struct {
	kind     casOpKind
	from, to int
}

// casState is the register: absent, or holding v. It is also what a read,
// or a condition that failed on a present row, returns.
type casState struct {
	exists bool
	v      int
}

// casOutput is what the operation returned.
type casOutput struct {
	applied bool
	// current is the row a read saw, or the one a failed condition
	// returned; known says a failed condition returned one (Cassandra
	// returns [applied] alone when the row does not exist).
	current casState
	known   bool
}

// casModel is a register with compare-and-set, insert-if-absent and
// delete-if-equal, as a lightweight transaction's row behaves.
var casModel = porcupine.Model{
	Init: func() any { return casState{} },
	Step: func(state, input, output any) (bool, any) {
		st, in, out := state.(casState), input.(casInput), output.(casOutput)
		if in.kind == opRead {
			return out.current == st, st
		}
		var holds bool
		next := st
		switch in.kind {
		case opCAS:
			holds, next = st.exists && st.v == in.from, casState{true, in.to}
		case opInsert:
			holds, next = !st.exists, casState{true, in.to}
		case opDelete:
			holds, next = st.exists && st.v == in.from, casState{}
		}
		if holds != out.applied {
			return false, st
		}
		if out.applied {
			return true, next
		}
		// A failed condition returns the current row, or nothing if absent.
		return out.known == st.exists && (!out.known || out.current == st), st
	},
	DescribeOperation: func(input, output any) string {
		in, out := input.(casInput), output.(casOutput)
		name := [...]string{"read", "cas", "insert", "delete"}[in.kind]
		return fmt.Sprintf("%s(%d->%d) = %v %+v", name, in.from, in.to, out.applied, out.current)
	},
}

// TestLWTLinearizable records a history of concurrent lightweight
// transactions and SERIAL reads on one row from several gocql sessions
// (with gocql's default client-side timestamps) and checks with porcupine
// that it is linearizable: some order of the operations, each taking
// effect between its call and its return, explains every result. Cassandra
// guarantees this for SERIAL reads and conditional writes of one partition
// (Paxos); a conditional write stamped with the client's timestamp, applied
// after a newer-stamped one, would report applied and then be invisible.
func TestLWTLinearizable(t *testing.T) {
	admin := newKeyspace(t, "lwt_linear")
	mustExec(t, admin, "CREATE TABLE t (k int PRIMARY KEY, v int)")

	base := time.Now()
	histories := make([][]porcupine.Operation, linClients)
	errs := make([]error, linClients)
	var wg sync.WaitGroup
	for c := range linClients {
		cluster := newCluster(node.Host, node.Port)
		cluster.Keyspace = "lwt_linear"
		cluster.Timeout = 10 * time.Second
		s, err := cluster.CreateSession()
		if err != nil {
			t.Fatalf("client %d: %v", c, err)
		}
		t.Cleanup(s.Close)
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(c), 1))
			for len(histories[c]) < linMaxOps && time.Since(base) < linDuration {
				in := randomCASInput(rng)
				call := time.Since(base).Nanoseconds()
				out, err := runCASOp(s, in)
				ret := time.Since(base).Nanoseconds()
				if err != nil {
					// An error leaves the outcome unknown; none is
					// expected from a single healthy node.
					errs[c] = fmt.Errorf("%+v: %w", in, err)
					return
				}
				histories[c] = append(histories[c], porcupine.Operation{ClientId: c, Input: in, Call: call, Output: out, Return: ret})
			}
		}()
	}
	wg.Wait()
	var history []porcupine.Operation
	applied := 0
	for c := range linClients {
		if errs[c] != nil {
			t.Fatalf("client %d: %v", c, errs[c])
		}
		for _, op := range histories[c] {
			if op.Output.(casOutput).applied {
				applied++
			}
		}
		history = append(history, histories[c]...)
	}
	if applied == 0 {
		t.Fatalf("no conditional write applied in %d operations: the history checks nothing", len(history))
	}
	start := time.Now()
	res := porcupine.CheckOperationsTimeout(casModel, history, linCheckBudget)
	t.Logf("%d operations (%d writes applied) checked in %v: %s", len(history), applied, time.Since(start).Round(time.Millisecond), res)
	if res != porcupine.Ok {
		t.Fatalf("the history of %d operations is not linearizable (result %q)", len(history), res)
	}
}

// randomCASInput picks an operation: reads and compare-and-sets mostly,
// inserts and deletes so that the row keeps coming and going.
func randomCASInput(rng *rand.Rand) casInput {
	in := casInput{from: rng.IntN(linValues), to: rng.IntN(linValues)}
	switch r := rng.IntN(10); {
	case r < 3:
		in.kind = opRead
	case r < 7:
		in.kind = opCAS
	case r < 9:
		in.kind = opInsert
	default:
		in.kind = opDelete
	}
	return in
}

func runCASOp(s *gocql.Session, in casInput) (casOutput, error) {
	var out casOutput
	if in.kind == opRead {
		var v int
		err := s.Query("SELECT v FROM t WHERE k = 0").Consistency(gocql.Consistency(gocql.Serial)).Scan(&v)
		if errors.Is(err, gocql.ErrNotFound) {
			return out, nil
		}
		out.current = casState{true, v}
		return out, err
	}
	var q *gocql.Query
	switch in.kind {
	case opCAS:
		q = s.Query("UPDATE t SET v = ? WHERE k = 0 IF v = ?", in.to, in.from)
	case opInsert:
		q = s.Query("INSERT INTO t (k, v) VALUES (0, ?) IF NOT EXISTS", in.to)
	case opDelete:
		q = s.Query("DELETE FROM t WHERE k = 0 IF v = ?", in.from)
	}
	prev := map[string]any{}
	applied, err := q.MapScanCAS(prev)
	if err != nil {
		return out, err
	}
	out.applied = applied
	if v, ok := prev["v"]; ok && !applied {
		n, isInt := v.(int)
		if !isInt {
			return out, fmt.Errorf("not applied, returned v = %#v", v)
		}
		out.current, out.known = casState{true, n}, true
	}
	return out, nil
}
