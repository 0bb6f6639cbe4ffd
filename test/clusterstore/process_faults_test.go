package clusterstore_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

// Faults of gateway processes over one keyspace (docs/operations.md,
// "Several gateways: faults"): a gateway killed with SIGKILL in the middle
// of a migration it drives, and a gateway cut off from the cluster past
// its lease on the split states while another changes them.

// TestGatewayProcessKilledMidMigration: two gateway processes share a
// keyspace, clients write a hot partition through both, an operator
// splits it through the first (which then owns the migration) and the
// first is killed with SIGKILL once rows have moved, while the migration
// is under way. The second, which knows the migration only from the shared
// state row, takes it over once the owner lease has passed and ends it
// while its clients go on writing and reading; every read checks that
// each row acknowledged before it is there exactly once. At the end the
// whole partition, read through the survivor both ways, is every
// acknowledged row once and nothing no client wrote.
func TestGatewayProcessKilledMidMigration(t *testing.T) {
	cfg := clusterConfig(t)
	ks := newKeyspace("pf_kill")
	t.Cleanup(func() { dropKeyspace(t, cfg, ks) })
	node, err := cfg.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 1))
	t.Logf("seed %d", seed)
	// Leases of 2 s and drains of 2 s: an owner lease of 12 s, and a step
	// every 4 s at least, so that the kill lands inside the migration.
	const lease, drain = 2 * time.Second, 2 * time.Second
	owner := startGatewayProc(t, "owner", ks, contactPoint(cfg), lease, drain)
	ownerS := owner.session(t)
	createHotTable(t, ownerS, 1000)
	survivor := startGatewayProc(t, "survivor", ks, contactPoint(cfg), lease, drain)
	survivorS := survivor.session(t)
	m := newHotRows()
	const loaded = 3000
	loadHot(t, m, loaded, ownerS, survivorS)

	// Clients: two writers on each gateway (odd keys, in random order),
	// a checked reader on the survivor.
	fresh := rand.New(rand.NewPCG(seed, 2)).Perm(loaded)
	var next atomic.Int64
	stop := make(chan struct{})
	var clients sync.WaitGroup
	var ownerAcks, survivorAcks, survivorErrs, reads, readFailures atomic.Int64
	readErrs := make(chan error, 1)
	writer := func(s *gocql.Session, acks, errs *atomic.Int64, stopOnError bool) {
		defer clients.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			i := int(next.Add(1)) - 1
			if i >= len(fresh) {
				return
			}
			if err := m.write(s, 2*fresh[i]+1, fmt.Sprintf("w%d", i)); err != nil {
				if stopOnError {
					return // the gateway is gone: the write's outcome is unknown
				}
				errs.Add(1)
				t.Logf("write through the survivor (outcome unknown): %v", err)
				continue
			}
			acks.Add(1)
			time.Sleep(20 * time.Millisecond)
		}
	}
	for w := 0; w < 2; w++ {
		clients.Add(2)
		go writer(ownerS, &ownerAcks, nil, true)
		go writer(survivorS, &survivorAcks, &survivorErrs, false)
	}
	clients.Add(1)
	go func() {
		defer clients.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(300 * time.Millisecond):
			}
			before, desc := m.ackedNow(), reads.Load()%2 == 1
			rows, err := readHot(survivorS, -1<<31, desc, 500)
			if err != nil {
				// An error is an answer a client retries; wrong rows are not.
				readFailures.Add(1)
				t.Logf("read through the survivor: %v", err)
				continue
			}
			if err := m.check(rows, before, -1<<31, desc); err != nil {
				readErrs <- fmt.Errorf("read through the survivor: %w", err)
				return
			}
			reads.Add(1)
		}
	}()
	defer func() {
		close(stop)
		clients.Wait()
	}()

	if err := owner.splitHot("range"); err != nil {
		t.Fatalf("split through the owner: %v", err)
	}
	// Mid-copy: the owner's split view shows rows moved and the migration
	// still moving.
	deadline := time.Now().Add(3 * time.Minute)
	for {
		h, err := readHotSplit(ownerS)
		if err != nil {
			t.Fatalf("system_partita.splits through the owner: %v", err)
		}
		if h.state == "moving" && h.rowsMoved > 0 {
			break
		}
		if h.state != "" && h.state != "moving" {
			t.Fatalf("the split ended before the kill (state %q): %+v", h.state, h)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no rows moved in 3 minutes: %+v\n%s", h, owner.Logs)
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(time.Duration(rng.IntN(int(lease + drain))))
	var exitErr *exec.ExitError
	if err := owner.Kill(t, syscall.SIGKILL); !errors.As(err, &exitErr) {
		t.Fatalf("after SIGKILL: %v", err)
	}
	killed := time.Now()
	ownerS.Close()
	atKill, epochAtKill := sharedState(t, node, ks)
	if atKill.Migration == nil || atKill.Migration.Complete {
		t.Fatalf("the owner died after its migration had moved everything: %+v", atKill.Migration)
	}
	deadOwner := atKill.Migration.Owner
	t.Logf("owner %s killed at epoch %d: cursor %x, pending %v, %d rows moved, %d writes acknowledged through it",
		deadOwner, epochAtKill, atKill.Migration.Cursor, atKill.Migration.Pending, atKill.Migration.RowsMoved, ownerAcks.Load())

	// The survivor ends the migration.
	var final finalState
	for {
		st, _ := sharedState(t, node, ks)
		if st.Migration == nil {
			final = finalState{st.Current.IsUnsplit(), len(st.Current.AllShards())}
			break
		}
		select {
		case err := <-readErrs:
			t.Fatal(err)
		default:
		}
		if time.Since(killed) > 5*time.Minute {
			t.Fatalf("the survivor did not end the migration in 5 minutes: %+v\n%s", st.Migration, survivor.Logs)
		}
		time.Sleep(100 * time.Millisecond)
	}
	took := time.Since(killed)
	if !strings.Contains(survivor.Logs.String(), "from "+deadOwner) {
		t.Fatalf("the survivor's log shows no takeover from %s:\n%s", deadOwner, survivor.Logs)
	}
	afterKill := survivorAcks.Load()
	time.Sleep(2 * time.Second) // more writes and checked reads on the ended migration
	close(stop)
	clients.Wait()
	stop = make(chan struct{}) // for the deferred close
	select {
	case err := <-readErrs:
		t.Fatal(err)
	default:
	}
	if survivorAcks.Load() == afterKill || reads.Load() == 0 {
		t.Fatalf("the survivor's clients made no progress: %d writes acknowledged, %d reads", survivorAcks.Load(), reads.Load())
	}
	n := checkHot(t, "the survivor", survivorS, m)
	outcome := "finished"
	if final.unsplit {
		outcome = "reverted"
	}
	t.Logf("the survivor %s the migration %v after the kill (%d pieces); %d rows read back, %d acknowledged, %d of unknown outcome; "+
		"%d writes acknowledged through the survivor (%d errors), %d checked reads (%d errors)",
		outcome, took.Round(time.Millisecond), final.pieces, n, len(m.ackedNow()), len(m.uncertain), survivorAcks.Load(), survivorErrs.Load(), reads.Load(), readFailures.Load())
}

// finalState is what a test keeps of the state a migration ended in.
type finalState struct {
	unsplit bool
	pieces  int
}

// cutRead is one read through the cut-off gateway and its answer.
type cutRead struct {
	start, end time.Time
	from, rows int
	err        error
}

// TestGatewayCutOffPastItsLease: gateway C reaches the cluster through a
// proxy that cuts the network (netCut: nothing passes, what was sent is
// delivered after the heal); gateway A reaches it directly. Clients read a
// hot partition through C without a pause, the whole of it and the range
// a split moves. The network of C is cut, A splits the partition and
// moves the range while C is cut off past its lease (C keeps the
// unsplit map it read last), and the network heals. Every answer of C is
// an error or exactly the rows written (never the stale view of a read
// routed by the old map, such as a read sent before the move and
// delivered after it); C answers errors while cut off, and correct rows
// again after the heal, where its writes land where A reads them.
func TestGatewayCutOffPastItsLease(t *testing.T) {
	cfg := clusterConfig(t)
	ks := newKeyspace("pf_cut")
	t.Cleanup(func() { dropKeyspace(t, cfg, ks) })
	node, err := cfg.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
	const lease, drain = time.Second, time.Second
	a := startGatewayProc(t, "A", ks, contactPoint(cfg), lease, drain)
	aS := a.session(t)
	createHotTable(t, aS, 1200) // an operator's split: pieces of 600 rows
	netC := newNetCut(t, contactPoint(cfg))
	c := startGatewayProc(t, "C", ks, netC.addr(), lease, drain)
	cS := c.session(t)
	m := newHotRows()
	loadHot(t, m, 1200, aS, cS) // c = 0, 2, …, 2398
	// The split keeps [0, ~1200) on the home shard and moves the rest; a
	// read of c >= 1800 routed by the unsplit map after the move finds
	// nothing.
	const upper = 1800
	want := m.ackedNow()

	var mu sync.Mutex
	var answers []cutRead
	stale := make(chan error, 1)
	stop := make(chan struct{})
	var readers sync.WaitGroup
	// readLoop reads c >= from through C until stop, a pause between
	// reads; a read that returns rows must return exactly the rows written.
	readLoop := func(from int, pause time.Duration) {
		defer readers.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(pause):
			}
			start := time.Now()
			rows, err := readHot(cS, from, false, 200)
			if err == nil {
				n := 0
				for k := range want {
					if k >= from {
						n++
					}
				}
				if err := m.check(rows, want, from, false); err != nil || len(rows) != n {
					select {
					case stale <- fmt.Errorf("read of c >= %d through C sent %v, answered %v: %d rows, want %d (%v)",
						from, start.Format("15:04:05.000"), time.Now().Format("15:04:05.000"), len(rows), n, err):
					default:
					}
					return
				}
			}
			mu.Lock()
			answers = append(answers, cutRead{start: start, end: time.Now(), from: from, rows: len(rows), err: err})
			mu.Unlock()
		}
	}
	// Six readers, the whole partition and the range the split moves: at
	// the cut, their reads in flight are held in the network.
	for r := 0; r < 6; r++ {
		readers.Add(1)
		go readLoop([]int{-1 << 31, upper}[r%2], time.Duration(10+r*7)*time.Millisecond)
	}
	defer func() {
		close(stop)
		readers.Wait()
	}()
	count := func(pred func(cutRead) bool) int {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, r := range answers {
			if pred(r) {
				n++
			}
		}
		return n
	}
	wait := func(what string, limit time.Duration, cond func() bool) {
		t.Helper()
		for end := time.Now().Add(limit); !cond(); time.Sleep(50 * time.Millisecond) {
			select {
			case err := <-stale:
				t.Fatal(err)
			default:
			}
			if time.Now().After(end) {
				t.Fatalf("%s: not within %v\nC:\n%s", what, limit, c.Logs)
			}
		}
	}
	wait("reads through C before the cut", time.Minute, func() bool { return count(func(r cutRead) bool { return r.err == nil }) >= 6 })

	netC.cut()
	cutAt := time.Now()
	if err := a.splitHot("range"); err != nil {
		t.Fatalf("split through A: %v", err)
	}
	// A prober reads through C once C's lease has run out (the readers'
	// reads may all be held): C must answer it, with an error.
	time.Sleep(lease + drain)
	probeAt := time.Now()
	readers.Add(1)
	go readLoop(upper, 100*time.Millisecond)
	// Heal once A has moved the range and C has been cut off for three
	// leases, and has answered an error meanwhile.
	wait("A moves the range", 3*time.Minute, func() bool {
		st, _ := sharedState(t, node, ks)
		return st.Migration == nil && !st.Current.IsUnsplit() || st.Migration != nil && st.Migration.Complete
	})
	moved := time.Since(cutAt)
	wait("C answers an error while cut off", 2*time.Minute, func() bool {
		return time.Since(cutAt) > 3*lease && count(func(r cutRead) bool {
			var re gocql.RequestError
			return r.err != nil && errors.As(r.err, &re) && !r.start.Before(probeAt)
		}) > 0
	})
	netC.heal()
	healAt := time.Now()
	errorsCut := count(func(r cutRead) bool { return r.err != nil && r.end.Before(healAt) })
	wait("C answers correctly after the heal", 3*time.Minute, func() bool {
		return count(func(r cutRead) bool { return r.err == nil && r.start.After(healAt) }) >= 6
	})
	healed := time.Since(healAt)
	close(stop)
	readers.Wait()
	stop = make(chan struct{})
	select {
	case err := <-stale:
		t.Fatal(err)
	default:
	}
	late := count(func(r cutRead) bool { return r.start.Before(healAt) && r.end.After(healAt) })
	mu.Lock()
	for _, r := range answers {
		if r.start.Before(healAt) && r.end.After(healAt) {
			t.Logf("read of c >= %d sent %v after the cut, answered %v after it (after the heal): %d rows, %v",
				r.from, r.start.Sub(cutAt).Round(time.Millisecond), r.end.Sub(cutAt).Round(time.Millisecond), r.rows, r.err)
		}
	}
	mu.Unlock()
	lateOK := count(func(r cutRead) bool { return r.start.Before(healAt) && r.end.After(healAt) && r.err == nil })

	// C routes by the new map: its writes are read back through A, and
	// through C.
	acks := 0
	for i := 0; i < 200; i++ {
		if err := m.write(cS, 2*(i*6)+1, fmt.Sprintf("c%d", i)); err != nil {
			t.Logf("write through C (outcome unknown): %v", err)
			continue
		}
		acks++
	}
	if acks == 0 {
		t.Fatal("no write through C was acknowledged after the heal")
	}
	wait("the split ends", 3*time.Minute, func() bool {
		st, _ := sharedState(t, node, ks)
		return st.Migration == nil
	})
	time.Sleep(lease + drain)
	checkHot(t, "A", aS, m)
	n := checkHot(t, "C", cS, m)
	st, epoch := sharedState(t, node, ks)
	t.Logf("A moved the range %v after the cut; C answered %d errors while cut off (%d reads in all), "+
		"%d reads sent before the heal were answered after it (%d with rows, all correct); correct again %v after the heal; "+
		"%d rows read back through A and C, state epoch %d with %d pieces",
		moved.Round(time.Millisecond), errorsCut, count(func(cutRead) bool { return true }), late, lateOK,
		healed.Round(time.Millisecond), n, epoch, len(st.Current.AllShards()))
}
