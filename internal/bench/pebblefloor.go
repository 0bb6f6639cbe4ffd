package bench

import (
	"context"
	"errors"
	"log"
	"os"

	"github.com/cockroachdb/pebble/v2"
)

// pebbleSystem writes rows straight into Pebble, one batch per request,
// committed with Sync: the floor under Partita's write path, with Pebble
// tuned as Partita's storage tunes it.
type pebbleSystem struct {
	dir   string
	db    *pebble.DB
	cache *pebble.Cache
}

func newPebbleSystem() (*pebbleSystem, error) {
	dir, err := os.MkdirTemp("", "partita-bench-pebble")
	if err != nil {
		return nil, err
	}
	cache := pebble.NewCache(64 << 20)
	db, err := pebble.Open(dir, &pebble.Options{
		Cache:                      cache,
		MemTableSize:               32 << 20,
		L0CompactionThreshold:      4,
		L0StopWritesThreshold:      1000,
		LBaseMaxBytes:              64 << 20,
		CompactionConcurrencyRange: func() (int, int) { return 1, 2 },
		Logger:                     pebbleLogger{},
	})
	if err != nil {
		cache.Unref()
		os.RemoveAll(dir)
		return nil, err
	}
	return &pebbleSystem{dir: dir, db: db, cache: cache}, nil
}

func (p *pebbleSystem) name() string { return SystemPebble }

func (p *pebbleSystem) createTables(context.Context, []*table) error { return nil }

func (p *pebbleSystem) prepare(_ context.Context, st statement) (op, error) {
	if st.kind != kindWrite || st.table == nil {
		return nil, errNotApplicable
	}
	t := st.table
	return func(_ context.Context, rows [][]any) (int, error) {
		b := p.db.NewBatch()
		defer b.Close()
		var key, value []byte
		for _, r := range rows {
			var err error
			if key, value, err = encodeKeyValue(key[:0], value[:0], t, r); err != nil {
				return 0, err
			}
			if err := b.Set(key, value, nil); err != nil {
				return 0, err
			}
		}
		return 0, b.Commit(pebble.Sync)
	}, nil
}

// pebbleLogger drops Pebble's informational lines, which would interleave
// with the progress output, and keeps its errors.
type pebbleLogger struct{}

func (pebbleLogger) Infof(string, ...any)              {}
func (pebbleLogger) Errorf(format string, args ...any) { log.Printf("pebble floor: "+format, args...) }
func (pebbleLogger) Fatalf(format string, args ...any) { log.Fatalf("pebble floor: "+format, args...) }

func (p *pebbleSystem) close() error {
	err := p.db.Close()
	p.cache.Unref()
	return errors.Join(err, os.RemoveAll(p.dir))
}
