package clusterstore

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/internal/backend"
)

// Options configure a Store.
type Options struct {
	// Cluster is the driver configuration (contact points, port,
	// authentication, TLS). Open sets token-aware routing and the
	// consistency on a copy of it.
	Cluster *gocql.ClusterConfig
	// Keyspace holds every table the store creates (default "partita").
	Keyspace string
	// Replication is the keyspace's replication map as CQL, used only
	// when the keyspace does not exist yet (default SimpleStrategy, 1
	// replica: a single node; set it for a real cluster).
	Replication string
	// Consistency of every read and write (default LOCAL_QUORUM).
	Consistency gocql.Consistency
	// MaxInFlight bounds the requests this store has outstanding at once
	// (default 64).
	MaxInFlight int
	// PageSize is how many backing rows a read fetches per round trip
	// (default 5000).
	PageSize int
	// MaxBatchBytes bounds the values of one logged batch (the cluster
	// refuses batches past batch_size_fail_threshold, 50 KiB by default);
	// a larger commit over several partitions goes through the store's
	// batch log (default 40 KiB).
	MaxBatchBytes int
	// SingleGateway says no other gateway uses the keyspace: read-modify-
	// writes then take no cluster-wide lease (lease.go), only the
	// gateway's own locks. Running a second gateway loses updates. Open
	// refuses it over a keyspace whose split states several gateways
	// shared (checkNoSharedStates).
	SingleGateway bool
	// LeaseDuration is a read-modify-write lease's tenure, renewed while
	// held (default 3s); LeaseSkew the clock difference between gateways
	// it tolerates (default 250ms).
	LeaseDuration, LeaseSkew time.Duration
	// StateLease and StateDrain are the leases of the split states the
	// gateways share (states.go; 0: the split layer's defaults, 10 s
	// each). With SingleGateway the split states are kept as metadata
	// instead, with no lease.
	StateLease, StateDrain time.Duration
}

// DefaultKeyspace is the keyspace of Partita's own tables in the cluster.
const DefaultKeyspace = "partita"

// Store is a backend.Backend over a Cassandra cluster.
type Store struct {
	session  *gocql.Session
	keyspace string
	opts     Options
	slots    chan struct{} // bounds requests in flight
	clock    atomic.Int64  // last metadata timestamp handed out (µs)
	gen      atomic.Int64  // last generation handed out for moved data
	// ddl serialises this store's schema changes: concurrent CREATE TABLE
	// IF NOT EXISTS of one table can leave the cluster's schema versions
	// disagreeing.
	ddl sync.Mutex
	// leases serialise read-modify-writes across gateways (nil with
	// Options.SingleGateway).
	leases *leases

	mu struct {
		sync.Mutex
		tables  map[backend.TableID]bool
		shards  map[string]bool // registered (table, key, shard)
		gcGrace func(backend.TableID) (int64, bool)
	}
}

var keyspaceName = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9_]{0,47}$`)

// Open connects to the cluster and creates the store's keyspace and
// metadata tables if they do not exist.
func Open(ctx context.Context, opts Options) (*Store, error) {
	if opts.Cluster == nil {
		return nil, errors.New("clusterstore: no cluster configuration")
	}
	if opts.Keyspace == "" {
		opts.Keyspace = DefaultKeyspace
	}
	if !keyspaceName.MatchString(opts.Keyspace) {
		return nil, fmt.Errorf("clusterstore: invalid keyspace name %q", opts.Keyspace)
	}
	if opts.Replication == "" {
		opts.Replication = "{'class': 'SimpleStrategy', 'replication_factor': 1}"
	}
	if opts.Consistency == 0 {
		opts.Consistency = gocql.LocalQuorum
	}
	if opts.MaxInFlight <= 0 {
		opts.MaxInFlight = 64
	}
	if opts.PageSize <= 0 {
		opts.PageSize = 5000
	}
	if opts.MaxBatchBytes <= 0 {
		opts.MaxBatchBytes = 40 << 10
	}
	cfg := *opts.Cluster
	cfg.Keyspace = ""
	cfg.Consistency = opts.Consistency
	if cfg.PoolConfig.HostSelectionPolicy == nil {
		cfg.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy())
	}
	if cfg.Timeout < 10*time.Second {
		cfg.Timeout = 10 * time.Second
	}
	session, err := cfg.CreateSession()
	if err != nil {
		// %v, not %w: a failure to connect is never Transient, whatever
		// the driver's error held.
		return nil, fmt.Errorf("clusterstore: connect: %v", err)
	}
	s := &Store{session: session, keyspace: opts.Keyspace, opts: opts, slots: make(chan struct{}, opts.MaxInFlight)}
	s.mu.tables = map[backend.TableID]bool{}
	s.mu.shards = map[string]bool{}
	if err := s.createMetaTables(ctx); err != nil {
		session.Close()
		return nil, err
	}
	if err := s.replayBatchLog(ctx); err != nil {
		session.Close()
		return nil, fmt.Errorf("clusterstore: replay the batch log: %w", err)
	}
	if opts.SingleGateway {
		if err := s.checkNoSharedStates(ctx); err != nil {
			session.Close()
			return nil, err
		}
	} else {
		s.leases = newLeases(s, leaseTimingsOf(opts))
	}
	return s, nil
}

// checkNoSharedStates refuses SingleGateway over a keyspace whose split
// states are shared rows: a single gateway keeps its states as metadata and
// never reads those rows, so it would route a partition split by several
// gateways as unsplit (its moved rows unseen), or by a state the shared
// rows have since replaced.
func (s *Store) checkNoSharedStates(ctx context.Context) error {
	var key []byte
	err := s.session.Query(fmt.Sprintf(`SELECT key FROM %s.splitstates WHERE bucket = 0 LIMIT 1`, s.keyspace)).
		WithContext(ctx).Scan(&key)
	switch {
	case errors.Is(err, gocql.ErrNotFound):
		return nil
	case err != nil:
		return fmt.Errorf("clusterstore: read the split states: %w", clusterError(err))
	}
	return fmt.Errorf("clusterstore: keyspace %s holds split states shared by several gateways, which a single gateway "+
		"does not read; serve it without the single-gateway option (backend_single_gateway)", s.keyspace)
}

func (s *Store) createMetaTables(ctx context.Context) error {
	stmts := []string{
		fmt.Sprintf(`CREATE KEYSPACE IF NOT EXISTS %s WITH replication = %s`, s.keyspace, s.opts.Replication),
		// One partition: metadata is small (catalog, split states) and
		// ScanMeta is a clustering range of it.
		fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s.meta (bucket int, key blob, value blob, PRIMARY KEY (bucket, key))`, s.keyspace),
		// The shard registry: every physical partition other than a home
		// shard, so that scans can list them in token order (invariant 2).
		// Commits too large for one logged batch (batchlog.go).
		fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s.batchlog (id timeuuid PRIMARY KEY, entry blob)`, s.keyspace),
		fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s.shards (table_id bigint, tok bigint, key blob, shard int, PRIMARY KEY (table_id, tok, key, shard))`, s.keyspace),
		// Split states shared by the gateways, changed only by LWT (states.go).
		fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s.splitstates (bucket int, key blob, epoch bigint, value blob, PRIMARY KEY (bucket, key))`, s.keyspace),
		// Read-modify-write leases (lease.go) and live gateways (peers.go).
		fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s.leases (table_id bigint, k blob, owner uuid, expires bigint, ceiling bigint, wanted map<uuid, bigint>, PRIMARY KEY ((table_id, k)))`, s.keyspace),
		fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s.gateways (host_id uuid PRIMARY KEY, address inet, port int, data_center text, rack text, release_version text, schema_version uuid, tokens list<bigint>)`, s.keyspace),
	}
	for _, q := range stmts {
		if err := s.exec(ctx, q); err != nil {
			return fmt.Errorf("clusterstore: create schema: %w", err)
		}
	}
	return nil
}

// homeTable and childTable name the backing tables of a logical table.
func (s *Store) homeTable(t backend.TableID) string { return fmt.Sprintf("%s.t%d", s.keyspace, t) }
func (s *Store) childTable(t backend.TableID) string {
	return fmt.Sprintf("%s.t%d_shards", s.keyspace, t)
}

// ensureTable creates the backing tables of t once per process.
func (s *Store) ensureTable(ctx context.Context, t backend.TableID) error {
	s.mu.Lock()
	ok := s.mu.tables[t]
	s.mu.Unlock()
	if ok {
		return nil
	}
	// Creating the tables is not bounded by the request's deadline (a
	// write under a split-state lease has a short one, split/shared.go):
	// it changes no data, and the driver's timeout bounds each statement.
	ctx = context.WithoutCancel(ctx)
	s.ddl.Lock()
	defer s.ddl.Unlock()
	s.mu.Lock()
	ok = s.mu.tables[t]
	s.mu.Unlock()
	if ok {
		return nil
	}
	const columns = `kind tinyint, c blob, col bigint, path blob, gen bigint, v blob, ttl int, exp bigint`
	const clustering = `kind, c, col, path, gen`
	for _, q := range []string{
		fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s (k blob, %s, PRIMARY KEY ((k), %s))`, s.homeTable(t), columns, clustering),
		fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s (k blob, shard int, %s, PRIMARY KEY ((k, shard), %s))`, s.childTable(t), columns, clustering),
	} {
		if err := s.exec(ctx, q); err != nil {
			return fmt.Errorf("clusterstore: create the tables of table %d: %w", t, err)
		}
	}
	s.mu.Lock()
	s.mu.tables[t] = true
	s.mu.Unlock()
	return nil
}

// acquire takes one of the in-flight slots.
func (s *Store) acquire(ctx context.Context) (func(), error) {
	select {
	case s.slots <- struct{}{}:
		return func() { <-s.slots }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (s *Store) exec(ctx context.Context, q string, values ...any) error {
	release, err := s.acquire(ctx)
	if err != nil {
		return err
	}
	defer release()
	return clusterError(s.session.Query(q, values...).WithContext(ctx).Exec())
}

// timestamp returns a strictly increasing microsecond timestamp for the
// store's own writes (metadata, the shard registry).
func (s *Store) timestamp() int64 {
	for {
		last := s.clock.Load()
		now := time.Now().UnixMicro()
		if now <= last {
			now = last + 1
		}
		if s.clock.CompareAndSwap(last, now) {
			return now
		}
	}
}

// generation returns a generation for data moved now (invariant 4):
// unique per store and increasing, and never 0, which plain writes use.
func (s *Store) generation() int64 {
	for {
		last := s.gen.Load()
		now := time.Now().UnixMicro()
		if now <= last {
			now = last + 1
		}
		if s.gen.CompareAndSwap(last, now) {
			return now
		}
	}
}

// GetMeta implements backend.Backend.
func (s *Store) GetMeta(ctx context.Context, key []byte) ([]byte, error) {
	release, err := s.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	var v []byte
	err = s.session.Query(fmt.Sprintf(`SELECT value FROM %s.meta WHERE bucket = 0 AND key = ?`, s.keyspace), key).
		WithContext(ctx).Scan(&v)
	if errors.Is(err, gocql.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, clusterError(err)
	}
	if v == nil {
		v = []byte{}
	}
	return v, nil
}

// ScanMeta implements backend.Backend.
func (s *Store) ScanMeta(ctx context.Context, prefix []byte) ([]backend.MetaWrite, error) {
	release, err := s.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	q := fmt.Sprintf(`SELECT key, value FROM %s.meta WHERE bucket = 0 AND key >= ?`, s.keyspace)
	args := []any{nonNil(prefix)}
	if end := backend.PrefixSuccessor(prefix); end != nil {
		q += ` AND key < ?`
		args = append(args, end)
	}
	it := s.session.Query(q, args...).WithContext(ctx).PageSize(s.opts.PageSize).Iter()
	var out []backend.MetaWrite
	var k, v []byte
	for it.Scan(&k, &v) {
		out = append(out, backend.MetaWrite{Key: append([]byte{}, k...), Value: append([]byte{}, v...)})
	}
	return out, clusterError(it.Close())
}

// Close implements backend.Backend. Every acknowledged write is already
// held by the cluster at the configured consistency.
func (s *Store) Close() error {
	if s.leases != nil {
		s.leases.close()
	}
	s.session.Close()
	return nil
}

// SetGCGrace implements backend.Maintainer: deletion markers expire after
// their table's gc_grace_seconds, as the cluster's tombstones may.
func (s *Store) SetGCGrace(f func(backend.TableID) (int64, bool)) {
	s.mu.Lock()
	s.mu.gcGrace = f
	s.mu.Unlock()
}

// CollectGarbageStep implements backend.Maintainer. The cluster purges its
// own tombstones and expired cells in compaction, so a pass is always done.
func (s *Store) CollectGarbageStep(context.Context, time.Time, int) (bool, error) { return true, nil }

// markerTTL is how long a deletion marker of table t is kept.
func (s *Store) markerTTL(t backend.TableID) int {
	s.mu.Lock()
	f := s.mu.gcGrace
	s.mu.Unlock()
	grace := int64(864000)
	if f != nil {
		if g, ok := f(t); ok {
			grace = g
		}
	}
	// Kept a day longer than the grace, so a marker outlives the
	// tombstone it stands for; bounded by the cluster's TTL limit.
	return int(min(grace+86400, 630720000))
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

var (
	_ backend.Backend    = (*Store)(nil)
	_ backend.Mover      = (*Store)(nil)
	_ backend.Maintainer = (*Store)(nil)
)
