package engine

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"log"
	"sync"
	"sync/atomic"
	"time"

	"github.com/partita-db/partita/internal/auth"
	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/exec"
	"github.com/partita-db/partita/internal/split"
	"github.com/partita-db/partita/internal/systables"
)

// Engine executes statements against one backend.
type Engine struct {
	cfg      Config
	backend  backend.Backend
	catalog  *catalog.Catalog
	split    *split.Layer
	exec     *exec.Executor
	node     systables.Node
	prepared *preparedCache
	clock    monotonicClock
	traces   *traceStore
	auth     *auth.Manager
	// stmtStats are the statement statistics (stmtstats.go).
	stmtStats *statementStats
	// peers are the other live gateways over a shared backend (peers.go).
	peers atomic.Pointer[[]systables.Node]

	mu        sync.Mutex
	listeners []func(*catalog.Change)
	stop      context.CancelFunc
	done      sync.WaitGroup
	// writeRate is the per-partition write-rate guard (nil: off).
	writeRate *writeRate
	// writeGate is held shared by every write while it runs; building a new
	// index takes it exclusively for an instant to drain writes planned
	// before the index existed.
	writeGate sync.RWMutex
}

const (
	metaSchema = "schema"
	metaHostID = "host_id"
	metaTokens = "tokens"
)

// Open builds an engine on b: it loads the schema, registers the system
// keyspaces and the node's identity (host id and tokens, kept in b).
func Open(ctx context.Context, b backend.Backend, cfg Config) (*Engine, error) {
	e := &Engine{cfg: cfg, backend: b, prepared: newPreparedCache(cfg.PreparedCacheSize, cfg.PreparedCacheBytes), traces: newTraceStore(cfg),
		stmtStats: newStatementStats(),
		writeRate: newWriteRate(cfg.PartitionWriteRateWarnThreshold, cfg.PartitionWriteRateFailThreshold)}
	layer, err := split.New(ctx, b)
	if err != nil {
		return nil, err
	}
	e.split = layer
	hostID, tokens, err := nodeIdentity(ctx, b, cfg)
	if err != nil {
		return nil, err
	}
	membership, shared := b.(backend.Membership)
	if shared {
		hostID, tokens = gatewayIdentity(cfg)
	}
	e.node = systables.Node{ClusterName: cfg.ClusterName, DataCenter: cfg.DataCenter, Rack: cfg.Rack,
		ReleaseVersion: systables.DefaultReleaseVersion, CQLVersion: systables.DefaultCQLVersion, HostID: hostID,
		RPCAddress: cfg.RPCAddress, ListenAddress: cfg.ListenAddress, BroadcastAddress: cfg.ListenAddress,
		NativePort: cfg.NativePort, Tokens: tokens, Partitioner: systables.Murmur3Partitioner,
		GossipGeneration: int32(time.Now().Unix())}
	topo := catalog.Topology{DataCenters: []string{cfg.DataCenter}, Nodes: 1}
	cat, err := catalog.Open(ctx, schemaStore{b}, topo, systables.Keyspaces())
	if err != nil {
		return nil, err
	}
	e.catalog = cat
	if e.auth, err = auth.Open(ctx, b, cfg.Auth); err != nil {
		return nil, err
	}
	cat.OnChange(func(_ *catalog.Schema, c *catalog.Change) {
		e.mu.Lock()
		ls := append([]func(*catalog.Change){}, e.listeners...)
		e.mu.Unlock()
		for _, l := range ls {
			l(c)
		}
	})
	if m, ok := b.(backend.Maintainer); ok {
		m.SetGCGrace(e.gcGrace)
	}
	layer.SetPolicy(e.splitPolicy)
	layer.SetLogger(log.Default())
	bg, cancel := context.WithCancel(context.Background())
	e.stop = cancel
	if cfg.Split.Enabled && cfg.SplitTick > 0 {
		e.done.Add(1)
		go func() {
			defer e.done.Done()
			layer.Run(bg, cfg.SplitTick)
		}()
	}
	if shared {
		e.done.Add(1)
		go func() {
			defer e.done.Done()
			e.announce(bg, membership)
		}()
	}
	if m, ok := b.(backend.Maintainer); ok && cfg.GCInterval > 0 {
		e.done.Add(1)
		go func() {
			defer e.done.Done()
			e.collectGarbage(bg, m)
		}()
	}
	e.exec = exec.New(e.split, e.systemEnv, exec.Limits{
		TombstoneWarn: cfg.TombstoneWarnThreshold, TombstoneFailure: cfg.TombstoneFailureThreshold,
		MaxPageBytes: cfg.MaxPageBytes, BatchSizeWarn: cfg.BatchSizeWarnThresholdBytes,
		BatchSizeFail: cfg.BatchSizeFailThresholdBytes, UnloggedBatchAcrossPartitionsWarn: cfg.UnloggedBatchAcrossPartitionsWarn,
	})
	return e, nil
}

func (e *Engine) systemEnv() *systables.Env {
	return &systables.Env{Schema: e.catalog.Current(), Node: e.node, Peers: e.peerNodes(), Partita: partitaSource{e}, Traces: e.traces,
		Auth: authSource{e.auth}}
}

// Catalog returns the engine's catalog.
func (e *Engine) Catalog() *catalog.Catalog { return e.catalog }

// Close stops the engine's background work (not the backend).
func (e *Engine) Close() error {
	if e.stop != nil {
		e.stop()
	}
	e.done.Wait()
	return nil
}

// Split returns the engine's split layer (operators, tests).
func (e *Engine) Split() *split.Layer { return e.split }

// splitPolicy is the server's split policy overridden by a table's
// extension options.
func (e *Engine) splitPolicy(id backend.TableID) split.Policy {
	t := e.catalog.Current().TableByStorageID(id)
	if t == nil {
		return split.Policy{}
	}
	return e.cfg.Split.WithExtensions(t.Options.Extensions)
}

// OnSchemaChange registers f to be called after every schema change.
func (e *Engine) OnSchemaChange(f func(*catalog.Change)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.listeners = append(e.listeners, f)
}

// nodeIdentity loads (or creates and stores) the node's host id and tokens.
func nodeIdentity(ctx context.Context, b backend.Backend, cfg Config) ([16]byte, []int64, error) {
	var id [16]byte
	v, err := b.GetMeta(ctx, []byte(metaHostID))
	if err != nil {
		return id, nil, err
	}
	tv, err := b.GetMeta(ctx, []byte(metaTokens))
	if err != nil {
		return id, nil, err
	}
	if len(v) == 16 && len(tv) >= 8 {
		copy(id[:], v)
		tokens := cfg.Tokens
		if len(tokens) == 0 {
			for i := 0; i+8 <= len(tv); i += 8 {
				tokens = append(tokens, int64(binary.BigEndian.Uint64(tv[i:])))
			}
		}
		return id, tokens, nil
	}
	_, _ = rand.Read(id[:])
	id[6] = id[6]&0x0f | 0x40
	id[8] = id[8]&0x3f | 0x80
	tokens := cfg.Tokens
	if len(tokens) == 0 {
		tokens = []int64{int64(binary.BigEndian.Uint64(id[:8]))}
	}
	var enc []byte
	for _, t := range tokens {
		enc = binary.BigEndian.AppendUint64(enc, uint64(t))
	}
	err = b.Apply(ctx, &backend.WriteBatch{Meta: []backend.MetaWrite{
		{Key: []byte(metaHostID), Value: id[:]}, {Key: []byte(metaTokens), Value: enc}}})
	return id, tokens, err
}

// StoredSchema reads the schema a backend holds, without opening an engine
// on it (offline tools that write a table's data in its storage encoding).
func StoredSchema(ctx context.Context, b backend.Backend) (*catalog.Schema, error) {
	cat, err := catalog.Open(ctx, schemaStore{b}, catalog.Topology{Nodes: 1}, nil)
	if err != nil {
		return nil, err
	}
	return cat.Current(), nil
}

// schemaStore keeps the catalog in the backend's metadata.
type schemaStore struct{ b backend.Backend }

func (s schemaStore) LoadSchema(ctx context.Context) ([]byte, error) {
	return s.b.GetMeta(ctx, []byte(metaSchema))
}

func (s schemaStore) SaveSchema(ctx context.Context, data []byte, dropped []backend.TableID) error {
	return s.b.Apply(ctx, &backend.WriteBatch{Meta: []backend.MetaWrite{{Key: []byte(metaSchema), Value: data}}, DropTables: dropped})
}

// monotonicClock hands out strictly increasing microsecond timestamps, as
// Cassandra's ClientState.getTimestamp does, so two writes of one client
// never share a timestamp.
type monotonicClock struct{ last atomic.Int64 }

func (c *monotonicClock) now() int64 {
	for {
		now := time.Now().UnixMicro()
		last := c.last.Load()
		if now <= last {
			now = last + 1
		}
		if c.last.CompareAndSwap(last, now) {
			return now
		}
	}
}

// gcGrace is a stored table's (or index's) gc_grace_seconds; ok is false
// for data whose table no longer exists.
func (e *Engine) gcGrace(id backend.TableID) (int64, bool) {
	s := e.catalog.Current()
	if t := s.TableByStorageID(id); t != nil {
		return int64(t.Options.GCGraceSeconds), true
	}
	for _, name := range s.KeyspaceNames() {
		for _, t := range s.Keyspace(name).Tables {
			for _, ix := range t.Indexes {
				if ix.StorageID == id {
					return int64(t.Options.GCGraceSeconds), true
				}
			}
		}
	}
	// A table id newer than the schema knows may belong to a DDL being
	// published right now: keep its data.
	if id >= s.NextTableID {
		return int64(catalog.DefaultOptions().GCGraceSeconds), true
	}
	return 0, false
}

// collectGarbage purges expired cells and old tombstones in the background,
// a bounded number of partitions every GCInterval.
func (e *Engine) collectGarbage(ctx context.Context, m backend.Maintainer) {
	t := time.NewTicker(e.cfg.GCInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if _, err := m.CollectGarbageStep(ctx, time.Now(), e.cfg.GCPartitionsPerStep); err != nil && ctx.Err() == nil {
			log.Printf("garbage collection: %v", err)
		}
	}
}
