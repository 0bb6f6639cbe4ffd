package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/gocql/gocql"
)

// gatewayCluster is the gateway target's Cassandra node: one that runs
// already (Options.ClusterAddr, a node other jobs may share) or a
// throwaway node the harness starts, and the two keyspaces the run makes
// on it: the gateway's backend keyspace, holding Partita's tables, and the
// direct system's, holding the workloads' tables as plain CQL tables.
// Both names are fresh, so that runs sharing a node never meet; close
// drops them (or removes the throwaway node).
type gatewayCluster struct {
	addr, version                   string
	singleGateway                   bool
	node                            *cassandraNode // nil on a node the harness did not start
	backendKeyspace, directKeyspace string
	// admin is a one-connection session to the node, for its compactions
	// and the drops.
	admin *gocql.Session
}

// gatewaySettleTimeout bounds the wait for the node's compactions after
// a write step. A shared node may compact other jobs' data for longer;
// the wait is logged, and the steps go on.
const gatewaySettleTimeout = time.Minute

func openGatewayCluster(ctx context.Context, o Options) (c *gatewayCluster, err error) {
	var suffix [4]byte
	if _, err := rand.Read(suffix[:]); err != nil {
		return nil, err
	}
	tag := hex.EncodeToString(suffix[:])
	c = &gatewayCluster{addr: o.ClusterAddr, singleGateway: o.SingleGateway, backendKeyspace: "partita_bench_gateway_" + tag, directKeyspace: "partita_bench_direct_" + tag}
	defer func() {
		if err != nil {
			err = errors.Join(err, c.close())
		}
	}()
	if c.addr == "" {
		if err := installCassandra(ctx, o.CassandraScript); err != nil {
			return c, err
		}
		fmt.Fprintln(o.Log, "starting a Cassandra node for the gateway (Cassandra takes 20 to 120 s to start)")
		if c.node, err = startCassandra(ctx, o.CassandraScript, "batch", o.CassandraHeap, o.Connections); err != nil {
			return c, fmt.Errorf("start Cassandra for the gateway: %w", err)
		}
		c.addr = c.node.addr()
	}
	cluster, err := newCluster(c.addr, 1)
	if err != nil {
		return c, err
	}
	if c.admin, err = cluster.CreateSession(); err != nil {
		return c, fmt.Errorf("connect to Cassandra on %s: %w", c.addr, err)
	}
	if err := c.admin.Query("SELECT release_version FROM system.local").WithContext(ctx).Scan(&c.version); err != nil {
		return c, fmt.Errorf("Cassandra on %s: %w", c.addr, err)
	}
	fmt.Fprintf(o.Log, "gateway over Cassandra %s on %s: backend keyspace %s, direct keyspace %s\n",
		c.version, c.addr, c.backendKeyspace, c.directKeyspace)
	return c, nil
}

// gatewayArgs are serve's flags that make the child process a gateway
// over the node. Unless Options.SingleGateway, the gateway keeps the
// default of several gateways per keyspace (leases on read-modify-writes,
// shared split states), as a scaled-out deployment runs it.
func (c *gatewayCluster) gatewayArgs() []string {
	args := []string{"--backend", "cassandra", "--contact-points", c.addr, "--backend-keyspace", c.backendKeyspace}
	if c.singleGateway {
		args = append(args, "--backend-single-gateway")
	}
	return args
}

// openDirect is the node read and written directly: the same gocql
// settings as the gateway's clients, in the direct keyspace. A node the
// harness started gets its JVM warm-up (a shared node has served for a
// while) and is measured as the Cassandra peer's is.
func (c *gatewayCluster) openDirect(ctx context.Context, o Options) (system, error) {
	sys, err := newCQLSystemIn(ctx, SystemCassandraDirect, c.addr, c.directKeyspace, o.Connections)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", SystemCassandraDirect, err)
	}
	if c.node != nil {
		sys.pid, sys.own = c.node.pid, true
		if err := (&cassandraSystem{cqlSystem: sys}).warmUp(ctx, o.Concurrency, 2*o.Duration); err != nil {
			sys.close()
			return nil, fmt.Errorf("%s: JVM warm-up: %w", SystemCassandraDirect, err)
		}
	}
	return sys, nil
}

// settle waits for the node's compactions, untimed, so that those of one
// write step do not run under the next step's figures.
func (c *gatewayCluster) settle(ctx context.Context, log func(string, ...any)) {
	waited, err := settleNode(ctx, c.admin, "Cassandra on "+c.addr, gatewaySettleTimeout)
	switch {
	case err != nil && ctx.Err() == nil:
		log("%v\n", err)
	case waited > time.Second:
		log("waited %.1f s for the compactions of Cassandra on %s\n", waited.Seconds(), c.addr)
	}
}

// close drops the run's keyspaces from a node the harness did not start,
// or removes the node it started.
func (c *gatewayCluster) close() error {
	if c.node != nil {
		if c.admin != nil {
			c.admin.Close()
		}
		return c.node.remove()
	}
	if c.admin == nil {
		return nil
	}
	defer c.admin.Close()
	var errs []error
	for _, ks := range []string{c.backendKeyspace, c.directKeyspace} {
		if err := c.admin.Query("DROP KEYSPACE IF EXISTS " + ks).Exec(); err != nil {
			errs = append(errs, fmt.Errorf("drop keyspace %s on %s: %w", ks, c.addr, err))
		}
	}
	return errors.Join(errs...)
}

// runWorkloadInterleaved is runWorkload for the gateway target, step by
// step rather than system by system: each step runs on the gateway and
// then on the direct system before the next step starts, so that the two
// see the same moment's load of a shared machine; a timed read runs
// Options.Rounds times on each, the first system alternating, and its
// figures pool the rounds. The split workload runs on the gateway alone
// (Cassandra does not split). After each write step the node's
// compactions are waited for.
func runWorkloadInterleaved(ctx context.Context, r *runner, w *workload, systems []system, c *gatewayCluster) *WorkloadResult {
	wr := &WorkloadResult{Name: w.name, Description: w.description}
	if w.name == WorkloadSplit {
		systems = systems[:1]
	}
	var live []system
	for _, sys := range systems {
		if err := sys.createTables(ctx, w.tables); err != nil {
			wr.Errors = append(wr.Errors, fmt.Sprintf("%s: %v", sys.name(), err))
			continue
		}
		live = append(live, sys)
	}
	logf := func(format string, args ...any) { fmt.Fprintf(r.opts.Log, w.name+": "+format, args...) }
	for _, st := range w.steps {
		sr := &StepResult{Name: st.name, Kind: stepKind(st), Width: st.width}
		wr.Steps = append(wr.Steps, sr)
		rounds := 1
		if pooled(st) {
			rounds = r.opts.Rounds
		}
		perSystem := make([][]*Result, len(live))
		for round := range rounds {
			order := slices.Clone(live)
			if round%2 == 1 {
				slices.Reverse(order)
			}
			for _, sys := range order {
				i := slices.Index(live, sys)
				res := r.runStep(ctx, w.name, sys, st)
				perSystem[i] = append(perSystem[i], &res)
				if ctx.Err() != nil {
					break
				}
			}
		}
		var failed []system
		for i, sys := range live {
			res := poolRounds(perSystem[i])
			sr.Results = append(sr.Results, res)
			if res.Error != "" {
				wr.Errors = append(wr.Errors, fmt.Sprintf("%s, step %s: %s", sys.name(), st.name, res.Error))
				failed = append(failed, sys)
			}
		}
		if rounds > 1 && len(live) == 2 {
			sr.RoundRatios = roundRatios(perSystem[0], perSystem[1])
		}
		live = slices.DeleteFunc(live, func(s system) bool { return slices.Contains(failed, s) })
		if ctx.Err() != nil || len(live) == 0 {
			break
		}
		if st.stmt.kind != kindRead && st.build == nil {
			c.settle(ctx, logf)
		}
	}
	if w.finish != nil {
		w.finish(wr)
	}
	return wr
}

// pooled reports whether a step runs in rounds: a timed read with no
// hooks (the split workload's hooks wait for its split, once).
func pooled(st *step) bool {
	return st.timed && st.stmt.kind == kindRead && st.build == nil && st.after == nil
}

// poolRounds merges one system's rounds of a step into one result: counts,
// seconds and server time add up, latencies pool, peak RSS is the
// largest. A round that failed or was skipped is the result.
func poolRounds(rounds []*Result) *Result {
	if len(rounds) == 0 {
		return &Result{Error: "did not run"}
	}
	for _, r := range rounds {
		if !r.ok() {
			return r
		}
	}
	if len(rounds) == 1 {
		return rounds[0]
	}
	p := *rounds[0]
	p.hist = newRecorder()
	p.hist.merge(rounds[0].hist)
	var notes []string
	for _, r := range rounds[1:] {
		p.Requests += r.Requests
		p.Rows += r.Rows
		p.Seconds += r.Seconds
		p.Mismatches += r.Mismatches
		p.ServerErrors += r.ServerErrors
		p.Resent += r.Resent
		p.ServerCPUSeconds += r.ServerCPUSeconds
		p.ServerAllocBytes += r.ServerAllocBytes
		p.PeakRSS = max(p.PeakRSS, r.PeakRSS)
		if p.FirstServerError == "" {
			p.FirstServerError = r.FirstServerError
		}
		if r.Note != "" && r.Note != p.Note {
			notes = append(notes, r.Note)
		}
		p.hist.merge(r.hist)
	}
	p.RequestsPerSec = float64(p.Requests) / p.Seconds
	p.RowsPerSec = float64(p.Rows) / p.Seconds
	p.Latency = p.hist.summary()
	if answered := float64(p.Requests + p.ServerErrors); answered > 0 { // as serverMeter.fill divides
		if p.ServerCPUSeconds > 0 {
			p.ServerCPUMicrosPerRequest = p.ServerCPUSeconds * 1e6 / answered
		}
		if p.ServerAllocBytes > 0 {
			p.ServerAllocBytesPerRequest = float64(p.ServerAllocBytes) / answered
		}
	}
	for _, n := range notes {
		p.Note += "; " + n
	}
	return &p
}

// roundRatios divides the gateway's p50 and p99 by the direct system's,
// round by round, for the rounds where both have figures.
func roundRatios(gateway, direct []*Result) []RoundRatio {
	var out []RoundRatio
	for i := range min(len(gateway), len(direct)) {
		g, d := gateway[i], direct[i]
		if !g.ok() || !d.ok() || d.Latency.P50 <= 0 || d.Latency.P99 <= 0 {
			continue
		}
		out = append(out, RoundRatio{P50: g.Latency.P50 / d.Latency.P50, P99: g.Latency.P99 / d.Latency.P99})
	}
	return out
}
