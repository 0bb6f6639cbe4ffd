package catalog

import (
	"context"
	"crypto/rand"
	"sync"
	"sync/atomic"

	"github.com/partita-db/partita/internal/backend"
)

// Store persists the schema. SaveSchema writes the new schema and removes
// the data of dropped tables in one atomic step.
type Store interface {
	LoadSchema(ctx context.Context) ([]byte, error)
	SaveSchema(ctx context.Context, schema []byte, droppedTables []backend.TableID) error
}

// Change describes what a DDL statement changed, as the SCHEMA_CHANGE
// result and event report it.
type Change struct {
	Type     string // CREATED, UPDATED, DROPPED
	Target   string // KEYSPACE, TABLE, TYPE
	Keyspace string
	Name     string // table or type; "" for a keyspace
}

// Catalog owns the current schema.
type Catalog struct {
	store    Store
	topology Topology
	builtin  map[string]*Keyspace
	mu       sync.Mutex // serialises changes (invariant 2)
	current  atomic.Pointer[Schema]
	// listeners are told about every published change.
	listeners []func(*Schema, *Change)
}

// Open loads the persisted schema and adds the built-in (virtual and
// system) keyspaces.
func Open(ctx context.Context, store Store, topo Topology, builtin []*Keyspace) (*Catalog, error) {
	c := &Catalog{store: store, topology: topo, builtin: map[string]*Keyspace{}}
	for _, ks := range builtin {
		c.builtin[ks.Name] = ks
	}
	data, err := store.LoadSchema(ctx)
	if err != nil {
		return nil, err
	}
	s := &Schema{Keyspaces: map[string]*Keyspace{}, NextTableID: 1}
	if data != nil {
		if s, err = decodeSchema(data); err != nil {
			return nil, err
		}
	} else {
		s.Version = newUUID()
	}
	for name, ks := range c.builtin {
		s.Keyspaces[name] = ks
	}
	s.index()
	c.current.Store(s)
	return c, nil
}

// Current returns the published schema.
func (c *Catalog) Current() *Schema { return c.current.Load() }

// OnChange registers a function called after every published change.
func (c *Catalog) OnChange(f func(*Schema, *Change)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.listeners = append(c.listeners, f)
}

// Result is the outcome of a DDL statement: the change (nil when IF [NOT]
// EXISTS made it a no-op) and client warnings.
type Result struct {
	Change   *Change
	Warnings []string
}

// update runs one schema change (invariant 2): fn mutates a clone of the
// current schema and reports the change; a nil change publishes nothing.
func (c *Catalog) update(ctx context.Context, fn func(s *Schema) (Result, []backend.TableID, error)) (Result, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	next := c.current.Load().clone()
	res, dropped, err := fn(next)
	if err != nil || res.Change == nil {
		return res, err
	}
	next.Version = newUUID()
	next.index()
	data, err := encodeSchema(next)
	if err != nil {
		return Result{}, err
	}
	if err := c.store.SaveSchema(ctx, data, dropped); err != nil {
		return Result{}, err
	}
	c.current.Store(next)
	for _, l := range c.listeners {
		l(next, res.Change)
	}
	return res, nil
}

// Truncate removes a table's data; the schema is unchanged.
func (c *Catalog) Truncate(ctx context.Context, t *Table) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	data, err := encodeSchema(c.current.Load())
	if err != nil {
		return err
	}
	return c.store.SaveSchema(ctx, data, t.storageIDs())
}

func newUUID() UUID {
	var u UUID
	_, _ = rand.Read(u[:])
	u[6] = (u[6] & 0x0f) | 0x40
	u[8] = (u[8] & 0x3f) | 0x80
	return u
}

// NewTableID returns a random (version 4) table id.
func NewTableID() UUID { return newUUID() }
