package bench

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"
)

// cassandraSystem is a Cassandra peer: the same gocql system as Partita's
// (same keyspace, tables, statements, connections and driver settings), on
// a node this harness started.
type cassandraSystem struct {
	*cqlSystem
	node *cassandraNode
}

// openCassandra starts a node for peer (PeerCassandra or
// PeerCassandraPeriodic), creates the keyspace and warms the JVM up.
func openCassandra(ctx context.Context, o Options, peer string) (*cassandraSystem, error) {
	sync := "batch"
	if peer == PeerCassandraPeriodic {
		sync = "periodic"
	}
	node, err := startCassandra(ctx, o.CassandraScript, sync, o.CassandraHeap, o.Connections)
	if err != nil {
		return nil, fmt.Errorf("start Cassandra (%s): %w", peer, err)
	}
	cql, err := newCQLSystem(ctx, peer, node.addr(), o.Connections)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("%s: %w", peer, err), node.remove())
	}
	cql.pid = node.pid
	cql.own = true
	cs := &cassandraSystem{cqlSystem: cql, node: node}
	if err := cs.warmUp(ctx, o.Concurrency, 2*o.Duration); err != nil {
		return nil, errors.Join(fmt.Errorf("%s: JVM warm-up: %w", peer, err), cs.close())
	}
	return cs, nil
}

func (c *cassandraSystem) close() error {
	return errors.Join(c.cqlSystem.close(), c.node.remove())
}

// warmUp runs single-row writes and then reads of a scratch table for dur,
// untimed, with conc requests in flight, and drops the table: the first
// workload then meets code the JIT has compiled, as a Cassandra that has
// been serving for a while would (Partita, compiled ahead of time, needs
// no warm-up).
func (c *cassandraSystem) warmUp(ctx context.Context, conc int, dur time.Duration) error {
	s := c.session
	if err := s.Query("CREATE TABLE IF NOT EXISTS jvm_warmup (k text, c int, v text, PRIMARY KEY (k, c))").WithContext(ctx).Exec(); err != nil {
		return err
	}
	key := func(i int64) string { return "w" + strconv.FormatInt(i%100, 10) }
	for _, phase := range []func(i int64) error{
		func(i int64) error {
			return s.Query("INSERT INTO jvm_warmup (k, c, v) VALUES (?, ?, ?)", key(i), int(i), "warm-up").WithContext(ctx).Exec()
		},
		func(i int64) error {
			iter := s.Query("SELECT c, v FROM jvm_warmup WHERE k = ? LIMIT 10", key(i)).WithContext(ctx).Iter()
			return iter.Close()
		},
	} {
		if err := runFor(ctx, conc, dur/2, phase); err != nil {
			return err
		}
	}
	return s.Query("DROP TABLE jvm_warmup").WithContext(ctx).Exec()
}

// runFor calls f with increasing indexes from conc goroutines until dur has
// passed; it returns the first error.
func runFor(ctx context.Context, conc int, dur time.Duration, f func(i int64) error) error {
	deadline := time.Now().Add(dur)
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil && time.Now().Before(deadline) {
				if err := f(next.Add(1)); err != nil {
					errOnce.Do(func() { firstErr = err; cancel() })
					return
				}
			}
		}()
	}
	wg.Wait()
	if firstErr == nil {
		firstErr = ctx.Err()
	}
	return firstErr
}

// settleTimeout bounds the wait for a Cassandra node's compactions.
const settleTimeout = 5 * time.Minute

// settle waits, untimed, until the node runs no compaction (two empty
// looks at system_views.sstable_tasks half a second apart), so that the
// compaction of the data a workload wrote does not run beside the next
// system's steps (package invariant 2). It returns how long it waited.
func (c *cassandraSystem) settle(ctx context.Context) (time.Duration, error) {
	return settleNode(ctx, c.session, c.name(), settleTimeout)
}

// settleNode waits, up to timeout, until the node s is connected to runs
// no compaction; name is the node's in the error.
func settleNode(ctx context.Context, s *gocql.Session, name string, timeout time.Duration) (time.Duration, error) {
	began := time.Now()
	quiet := 0
	err := poll(ctx, timeout, 500*time.Millisecond, name+"'s compactions to finish", func() (bool, error) {
		iter := s.Query("SELECT kind FROM system_views.sstable_tasks").WithContext(ctx).Iter()
		tasks := iter.NumRows()
		if err := iter.Close(); err != nil {
			return false, fmt.Errorf("read system_views.sstable_tasks: %w", err)
		}
		if quiet++; tasks > 0 {
			quiet = 0
		}
		return quiet >= 2, nil
	})
	return time.Since(began), err
}

// restart stops the node as an operator would, starts it again on its data
// and times until query answers through a new driver session, as
// restartNode does for Partita. The benchmark's session is closed first:
// no step runs after the restart.
func (c *cassandraSystem) restart(ctx context.Context, query string) (Restart, error) {
	r := Restart{Query: query}
	c.cqlSystem.close()
	stopped, err := c.node.stop()
	r.StopMs = millis(stopped)
	if err != nil {
		return r, fmt.Errorf("stop: %w", err)
	}
	r.DataBytes = c.node.dataBytes()
	opened, answered, err := c.node.launch(ctx, Keyspace, query)
	if err != nil {
		return r, fmt.Errorf("start again: %w", err)
	}
	r.OpenMs, r.FirstQueryMs = millis(opened), millis(answered)
	return r, nil
}

func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// openCassandras starts the Cassandra peers o names, at the same time
// (nothing is measured while they start), after installing Cassandra with
// the script.
func (env *environment) openCassandras(ctx context.Context, o Options) error {
	var peers []string
	for _, p := range []string{PeerCassandra, PeerCassandraPeriodic} {
		if o.hasPeer(p) {
			peers = append(peers, p)
		}
	}
	if len(peers) == 0 {
		return nil
	}
	if err := installCassandra(ctx, o.CassandraScript); err != nil {
		return err
	}
	fmt.Fprintf(o.Log, "starting %s (Cassandra takes 20 to 120 s to start)\n", strings.Join(peers, " and "))
	opened := make([]*cassandraSystem, len(peers))
	errs := make([]error, len(peers))
	var wg sync.WaitGroup
	for i, p := range peers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			opened[i], errs[i] = openCassandra(ctx, o, p)
		}()
	}
	wg.Wait()
	for _, cs := range opened {
		if cs != nil {
			env.systems = append(env.systems, cs)
			env.cassandras = append(env.cassandras, cs)
			fmt.Fprintf(o.Log, "%s: Cassandra %s on %s answered %.1f s after its start\n", cs.name(), cs.node.version,
				cs.node.addr(), cs.node.firstStart.Seconds())
		}
	}
	return errors.Join(errs...)
}

// measurePeers records what the run saw of each Cassandra peer's server,
// and restarts the batch-mode one on its data (the periodic one would
// restart the same way: a drained node replays no commit log).
func (env *environment) measurePeers(ctx context.Context, o Options, probe string, rep *Report) {
	for _, cs := range env.cassandras {
		ps := &PeerServer{Version: cs.node.version, CommitlogSync: cs.node.sync, Heap: cs.node.heap,
			StartMs: millis(cs.node.firstStart), IngestPeakRSS: ingestPeakRSS(rep, cs.name())}
		if cs.name() == SystemCassandra && probe != "" && ctx.Err() == nil {
			fmt.Fprintf(o.Log, "restarting %s\n", cs.name())
			restart, err := cs.restart(ctx, probe)
			if err != nil {
				ps.RestartError = err.Error()
			} else {
				ps.Restart = &restart
			}
		}
		if rep.PeerServers == nil {
			rep.PeerServers = map[string]*PeerServer{}
		}
		rep.PeerServers[cs.name()] = ps
	}
}
