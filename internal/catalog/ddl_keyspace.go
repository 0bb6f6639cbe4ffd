package catalog

import (
	"context"
	"maps"
	"regexp"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/cqlerr"
)

// validName is SchemaUtils.isValidName: word characters only, at least one.
var validName = regexp.MustCompile(`^\w+$`)

// Name lengths (SchemaConstants): keyspaces keep the historical 48;
// Cassandra 5.0 allows table names up to 222 characters (the file-name
// limit less the table id suffix) and bounds index names only by their
// characters.
const (
	maxKeyspaceName = 48
	maxTableName    = 222
)

func notModifiable(keyspace string) error {
	return cqlerr.New(cqlerr.Unauthorized, "%s keyspace is not user-modifiable.", keyspace)
}

// CreateKeyspace implements CREATE KEYSPACE.
func (c *Catalog) CreateKeyspace(ctx context.Context, spec KeyspaceSpec) (Result, error) {
	return c.update(ctx, func(s *Schema) (Result, []backend.TableID, error) {
		if !validName.MatchString(spec.Name) {
			return Result{}, nil, cqlerr.Invalidf("Keyspace name must not be empty and must contain alphanumeric or underscore characters only (got \"%s\")", spec.Name)
		}
		if len(spec.Name) > maxKeyspaceName {
			return Result{}, nil, cqlerr.Invalidf("Keyspace name must not be more than %d characters long (got %d characters for \"%s\")", maxKeyspaceName, len(spec.Name), spec.Name)
		}
		if s.Keyspaces[spec.Name] != nil {
			if spec.IfNotExists {
				return Result{}, nil, nil
			}
			return Result{}, nil, cqlerr.NewAlreadyExists(spec.Name, "", "Cannot add existing keyspace \"%s\"", spec.Name)
		}
		ks := &Keyspace{Name: spec.Name, DurableWrites: true, Tables: map[string]*Table{}}
		warnings, err := keyspaceOptions(ks, spec.Properties, true, c.topology)
		if err != nil {
			return Result{}, nil, err
		}
		s.Keyspaces[spec.Name] = ks
		return Result{Change: &Change{Type: "CREATED", Target: "KEYSPACE", Keyspace: spec.Name}, Warnings: warnings}, nil, nil
	})
}

// AlterKeyspace implements ALTER KEYSPACE.
func (c *Catalog) AlterKeyspace(ctx context.Context, spec KeyspaceSpec) (Result, error) {
	return c.update(ctx, func(s *Schema) (Result, []backend.TableID, error) {
		old := s.Keyspaces[spec.Name]
		if old == nil {
			if spec.IfExists {
				return Result{}, nil, nil
			}
			return Result{}, nil, cqlerr.Invalidf("Keyspace '%s' doesn't exist", spec.Name)
		}
		if old.IsSystem() {
			return Result{}, nil, notModifiable(spec.Name)
		}
		ks := old.clone()
		warnings, err := keyspaceOptions(ks, spec.Properties, false, c.topology)
		if err != nil {
			return Result{}, nil, err
		}
		if ks.DurableWrites == old.DurableWrites && maps.Equal(ks.Replication, old.Replication) {
			// Nothing changed: Void, with no schema change event.
			return Result{Warnings: warnings}, nil, nil
		}
		s.Keyspaces[spec.Name] = ks
		return Result{Change: &Change{Type: "UPDATED", Target: "KEYSPACE", Keyspace: spec.Name}, Warnings: warnings}, nil, nil
	})
}

// DropKeyspace implements DROP KEYSPACE; the keyspace's data goes with it.
func (c *Catalog) DropKeyspace(ctx context.Context, name string, ifExists bool) (Result, error) {
	return c.update(ctx, func(s *Schema) (Result, []backend.TableID, error) {
		ks := s.Keyspaces[name]
		if ks == nil {
			if ifExists {
				return Result{}, nil, nil
			}
			return Result{}, nil, cqlerr.Invalidf("Keyspace '%s' doesn't exist", name)
		}
		if ks.IsSystem() {
			return Result{}, nil, notModifiable(name)
		}
		var dropped []backend.TableID
		for _, t := range ks.Tables {
			dropped = append(dropped, t.storageIDs()...)
		}
		delete(s.Keyspaces, name)
		return Result{Change: &Change{Type: "DROPPED", Target: "KEYSPACE", Keyspace: name}}, dropped, nil
	})
}
