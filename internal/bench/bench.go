package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Run runs the workloads of o and returns the report. It returns an error
// only when the harness cannot run (a server or peer that does not start,
// an output it cannot write); a workload that fails is recorded in the
// report (Report.Failed), and missed targets are only reported.
func Run(ctx context.Context, o Options) (rep *Report, err error) {
	peerAuto := o.Peer == ""
	if o, err = o.Resolve(); err != nil {
		return nil, err
	}
	started := time.Now()
	rep = &Report{Started: started.UTC(), Machine: machine(), Settings: settingsOf(o)}
	env, err := openSystems(ctx, o, peerAuto, rep)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, env.close()) }()
	r := &runner{opts: o}
	var probe string
	for _, name := range o.Workloads {
		w, err := buildWorkload(name, o)
		if err != nil {
			return nil, err
		}
		if probe == "" {
			probe = w.probe
		}
		if env.cluster != nil {
			rep.Workloads = append(rep.Workloads, runWorkloadInterleaved(ctx, r, w, env.systems, env.cluster))
		} else {
			rep.Workloads = append(rep.Workloads, runWorkload(ctx, r, w, env.systems))
		}
		if ctx.Err() != nil {
			return rep, ctx.Err()
		}
	}
	rep.IngestPeakRSS = ingestPeakRSS(rep, SystemPartita)
	switch {
	case env.node == nil && env.child == nil:
		rep.Notes = append(rep.Notes, "the server is external (--cql-addr): restart time, CPU, allocations and RSS are not measured")
	case probe == "":
	case env.child != nil:
		fmt.Fprintln(o.Log, "restarting the server process")
		n, restart, err := restartChildNode(ctx, env.child, probe, o.Connections)
		env.child = n
		if err != nil {
			rep.RestartError = err.Error()
		} else {
			rep.Restart = &restart
		}
	default:
		fmt.Fprintln(o.Log, "restarting the in-process server")
		n, restart, err := restartNode(ctx, env.node, probe, o.Connections)
		env.node = n
		if err != nil {
			rep.RestartError = err.Error()
		} else {
			rep.Restart = &restart
		}
	}
	env.measurePeers(ctx, o, probe, rep)
	rep.computeRatios()
	rep.computeTargets()
	rep.Seconds = time.Since(started).Seconds()
	if o.OutDir != "" {
		if err := writeOutputs(rep, o.OutDir); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

func settingsOf(o Options) Settings {
	server := ServerProcess
	switch {
	case o.CQLAddr != "":
		server = o.CQLAddr
	case o.InProcess:
		server = ServerInProcess
	}
	s := Settings{Workloads: o.Workloads, Quick: o.Quick, Server: server, Connections: o.Connections,
		Concurrency: o.Concurrency, ReadSeconds: o.Duration.Seconds(), Rows: o.Rows, WideRows: o.WideRows,
		TombstoneRows: o.TombstoneRows, SplitRows: o.SplitRows, SplitOther: o.SplitOtherRows, SplitMaxRows: o.SplitMaxRows,
		SplitWindowSeconds: o.serverSplitTiming().window.Seconds(), Peer: o.Peer, PebbleFloor: o.PebbleFloor,
		Target: o.Target}
	if o.Target == TargetGateway {
		s.Rounds, s.SingleGateway = o.Rounds, o.SingleGateway
	}
	if o.hasPeer(PeerCassandra) || o.hasPeer(PeerCassandraPeriodic) {
		s.CassandraHeap = o.CassandraHeap
	}
	return s
}

func writeOutputs(rep *Report, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := rep.WriteJSON(dir); err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	if _, err := rep.WriteCharts(dir); err != nil {
		return fmt.Errorf("draw charts: %w", err)
	}
	return nil
}

// How Settings.Server names the two servers the harness starts.
const (
	ServerProcess   = "process"
	ServerInProcess = "in-process"
)

// environment holds the systems under test and what runs them.
type environment struct {
	// node is the in-process server, child the server process; both are
	// nil when the server is external.
	node  *node
	child *childNode
	// dataDir holds the server's data directory (data), its log and the
	// binary the harness built.
	dataDir string
	pg      *pgCluster
	// systems are in systemOrder; each Cassandra peer is also in
	// cassandras, and closing it stops its node.
	systems    []system
	cassandras []*cassandraSystem
	// cluster is the gateway target's Cassandra node (nil for the node
	// target); closing it drops the keyspaces the run made there.
	cluster *gatewayCluster
}

// openSystems starts the in-process server (unless o.CQLAddr is set), the
// PostgreSQL cluster and the Pebble floor as o asks. A PostgreSQL peer that
// was only chosen by default and fails to start is left out with a note.
func openSystems(ctx context.Context, o Options, peerAuto bool, rep *Report) (env *environment, err error) {
	env = &environment{}
	defer func() {
		if err != nil {
			err = errors.Join(err, env.close())
		}
	}()
	if o.Target == TargetGateway {
		if env.cluster, err = openGatewayCluster(ctx, o); err != nil {
			return env, err
		}
		rep.Settings.ClusterAddr = env.cluster.addr
		rep.Settings.ClusterVersion = env.cluster.version
		rep.Settings.BackendKeyspace, rep.Settings.DirectKeyspace = env.cluster.backendKeyspace, env.cluster.directKeyspace
	}
	addr, err := env.startPartita(ctx, o)
	if err != nil {
		return env, err
	}
	p, err := newCQLSystem(ctx, SystemPartita, addr, o.Connections)
	if err != nil {
		return env, err
	}
	switch {
	case env.node != nil:
		p.pid = os.Getpid
	case env.child != nil:
		p.pid, p.own = func() int { return env.child.pid() }, true
		p.httpAddr = func() string { return env.child.httpAddr }
	}
	env.systems = append(env.systems, p)
	if env.cluster != nil {
		direct, err := env.cluster.openDirect(ctx, o)
		if err != nil {
			return env, err
		}
		env.systems = append(env.systems, direct)
	}
	if o.hasPeer(PeerPostgres) {
		if err := env.openPostgres(ctx, o); err != nil {
			if !peerAuto {
				return env, err
			}
			rep.Notes = append(rep.Notes, "PostgreSQL peer left out: "+err.Error())
			rep.Settings.Peer = PeerNone
		}
	}
	if err := env.openCassandras(ctx, o); err != nil {
		return env, err
	}
	if o.PebbleFloor {
		pb, err := newPebbleSystem()
		if err != nil {
			return env, fmt.Errorf("pebble floor: %w", err)
		}
		env.systems = append(env.systems, pb)
	}
	return env, nil
}

// startPartita starts the server o asks for, unless it is external, and
// returns its CQL address.
func (env *environment) startPartita(ctx context.Context, o Options) (addr string, err error) {
	if o.CQLAddr != "" {
		return o.CQLAddr, nil
	}
	if env.dataDir, err = os.MkdirTemp("", "partita-bench-data"); err != nil {
		return "", err
	}
	data := filepath.Join(env.dataDir, "data")
	if o.InProcess {
		if env.node, err = startNode(ctx, data, 0, o.splitTiming); err != nil {
			return "", fmt.Errorf("start Partita: %w", err)
		}
		return env.node.addr, nil
	}
	bin := o.ServerBin
	if bin == "" {
		if bin, err = buildServer(ctx, env.dataDir, o.Log); err != nil {
			return "", err
		}
	}
	if err := os.Mkdir(data, 0o755); err != nil {
		return "", err
	}
	var backendArgs []string
	if env.cluster != nil {
		backendArgs = env.cluster.gatewayArgs()
	}
	if env.child, err = startChildNode(ctx, bin, data, o.splitTiming, backendArgs); err != nil {
		return "", fmt.Errorf("start Partita: %w", err)
	}
	fmt.Fprintf(o.Log, "partita serve (pid %d) on %s, metrics on %s, log in %s\n", env.child.pid(), env.child.addr, env.child.httpAddr, env.child.logPath)
	return env.child.addr, nil
}

func (env *environment) openPostgres(ctx context.Context, o Options) error {
	pg, err := startPostgres(ctx, o.PostgresBin, o.Concurrency)
	if err != nil {
		return fmt.Errorf("start PostgreSQL: %w", err)
	}
	env.pg = pg
	sys, err := newPGSystem(ctx, pg.connString(), o.Concurrency)
	if err != nil {
		return fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	sys.pid = func() int {
		if pg.proc == nil || pg.proc.hasExited() {
			return 0
		}
		return pg.proc.pid()
	}
	env.systems = append(env.systems, sys)
	return nil
}

func (env *environment) close() error {
	var errs []error
	for _, s := range env.systems {
		errs = append(errs, s.close())
	}
	env.systems, env.cassandras = nil, nil
	if env.pg != nil {
		errs = append(errs, env.pg.stop())
		env.pg = nil
	}
	if env.node != nil {
		errs = append(errs, env.node.stop())
		env.node = nil
	}
	if env.child != nil {
		errs = append(errs, env.child.stop())
		env.child = nil
	}
	if env.cluster != nil { // after the gateway, whose keyspace it drops
		errs = append(errs, env.cluster.close())
		env.cluster = nil
	}
	if env.dataDir != "" {
		errs = append(errs, os.RemoveAll(env.dataDir))
		env.dataDir = ""
	}
	return errors.Join(errs...)
}

// runWorkload runs every step of w on each system in turn. A system that
// fails a step stops there; the others still run.
func runWorkload(ctx context.Context, r *runner, w *workload, systems []system) *WorkloadResult {
	wr := &WorkloadResult{Name: w.name, Description: w.description}
	steps := make(map[string]*StepResult)
	for _, st := range w.steps {
		sr := &StepResult{Name: st.name, Kind: stepKind(st), Width: st.width}
		steps[st.name] = sr
		wr.Steps = append(wr.Steps, sr)
	}
	for _, sys := range systems {
		if sys.name() == SystemPebble && (!hasIngest(w) || w.noFloor) {
			continue
		}
		if err := sys.createTables(ctx, w.tables); err != nil {
			wr.Errors = append(wr.Errors, fmt.Sprintf("%s: %v", sys.name(), err))
			continue
		}
		runSteps(ctx, r, w, sys, steps, wr)
		if ctx.Err() != nil {
			return wr
		}
		if s, ok := sys.(settler); ok {
			waited, err := s.settle(ctx)
			if err != nil {
				// Figures of the next system may then include this
				// one's background work; they are still figures.
				fmt.Fprintf(r.opts.Log, "%s after %s: %v\n", sys.name(), w.name, err)
			} else if waited > time.Second {
				fmt.Fprintf(r.opts.Log, "%s after %s: waited %.1f s for its compactions\n", sys.name(), w.name, waited.Seconds())
			}
		}
	}
	if w.finish != nil {
		w.finish(wr)
	}
	return wr
}

// runSteps runs w's steps on sys in order, until one fails.
func runSteps(ctx context.Context, r *runner, w *workload, sys system, steps map[string]*StepResult, wr *WorkloadResult) {
	for _, st := range w.steps {
		if sys.name() == SystemPebble && !st.ingest {
			continue
		}
		res := r.runStep(ctx, w.name, sys, st)
		steps[st.name].Results = append(steps[st.name].Results, &res)
		if res.Error != "" {
			wr.Errors = append(wr.Errors, fmt.Sprintf("%s, step %s: %s", sys.name(), st.name, res.Error))
			return
		}
		if ctx.Err() != nil {
			return
		}
		if a, ok := sys.(analyzer); ok && st.stmt.kind != kindRead && st.build == nil && res.Skipped == "" {
			if err := a.analyze(ctx, w.tables); err != nil {
				wr.Errors = append(wr.Errors, fmt.Sprintf("%s: %v", sys.name(), err))
				return
			}
		}
	}
}

func hasIngest(w *workload) bool {
	for _, st := range w.steps {
		if st.ingest {
			return true
		}
	}
	return false
}

func stepKind(st *step) string {
	switch {
	case st.build != nil:
		return "cas"
	case st.stmt.kind == kindRead:
		return "read"
	case st.stmt.kind == kindDelete:
		return "delete"
	}
	return "write"
}

// ingestPeakRSS is the largest RSS sampled during an ingest step of
// system.
func ingestPeakRSS(rep *Report, system string) int64 {
	var peak int64
	for _, w := range rep.Workloads {
		for _, s := range w.Steps {
			if r := s.result(system); r != nil {
				peak = max(peak, r.PeakRSS)
			}
		}
	}
	return peak
}
