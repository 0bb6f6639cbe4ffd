package server

import (
	"context"

	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/engine"
)

// engineAPI is what the server uses of the engine. *engine.Engine provides
// it through engineAdapter; tests substitute a fake to drive every result
// kind without a working engine.
type engineAPI interface {
	NewSession() sessionAPI
	OnSchemaChange(f func(*catalog.Change))
}

// sessionAPI is one connection's engine session. The server calls it from
// several goroutines at once (one per in-flight request), as Cassandra runs
// a connection's requests concurrently against one ClientState.
type sessionAPI interface {
	Query(ctx context.Context, query string, opts *engine.Options) (*engine.Result, error)
	Prepare(ctx context.Context, query string) (*engine.Result, error)
	Execute(ctx context.Context, id []byte, opts *engine.Options) (*engine.Result, error)
	Batch(ctx context.Context, b *engine.BatchRequest) (*engine.Result, error)
}

// engineAdapter turns *engine.Engine into an engineAPI.
type engineAdapter struct{ eng *engine.Engine }

func (a engineAdapter) NewSession() sessionAPI { return a.eng.NewSession() }

func (a engineAdapter) OnSchemaChange(f func(*catalog.Change)) { a.eng.OnSchemaChange(f) }
