package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/storage"
)

// engineOpenError explains an engine that could not load what the
// embedded store holds (schema, roles, split states): unless the store already named a
// damaged file, or the cause is a request-level error, the metadata itself
// could not be decoded, and the node cannot start on that directory.
func engineOpenError(dataDir string, embedded bool, err error) error {
	var coded *cqlerr.Error
	if !embedded || errors.Is(err, storage.ErrDamaged) || errors.As(err, &coded) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("open engine: %w", err)
	}
	return fmt.Errorf("open engine: the metadata stored in %s (schema, roles, split states) cannot be read: %w; "+
		"the node cannot start on it: restore the data directory from a snapshot (partita restore --snapshot DIR --data-dir NEW; docs/operations.md, Backups)",
		dataDir, err)
}
