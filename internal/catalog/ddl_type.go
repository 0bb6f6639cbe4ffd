package catalog

import (
	"context"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/types"
)

// TypeSpec is a CREATE TYPE statement's content.
type TypeSpec struct {
	Keyspace, Name string
	IfNotExists    bool
	FieldNames     []string
	FieldTypes     []*types.Type
}

// CreateType implements CREATE TYPE (CreateTypeStatement.java).
func (c *Catalog) CreateType(ctx context.Context, spec TypeSpec) (Result, error) {
	return c.update(ctx, func(s *Schema) (Result, []backend.TableID, error) {
		ks := s.Keyspaces[spec.Keyspace]
		if ks == nil {
			return Result{}, nil, cqlerr.Invalidf("Keyspace '%s' doesn't exist", spec.Keyspace)
		}
		if ks.IsSystem() {
			return Result{}, nil, notModifiable(spec.Keyspace)
		}
		if ks.Type(spec.Name) != nil {
			if spec.IfNotExists {
				return Result{}, nil, nil
			}
			return Result{}, nil, cqlerr.Invalidf("A user type with name '%s' already exists", spec.Name)
		}
		seen := map[string]bool{}
		for i, f := range spec.FieldNames {
			if seen[f] {
				return Result{}, nil, cqlerr.Invalidf("Duplicate field name '%s' in type '%s'", f, spec.Name)
			}
			seen[f] = true
			if spec.FieldTypes[i].IsCounter() {
				return Result{}, nil, cqlerr.Invalidf("A user type cannot contain counters")
			}
			if spec.FieldTypes[i].Kind == types.KindUDT && spec.FieldTypes[i].Name == spec.Name {
				return Result{}, nil, cqlerr.Invalidf("User type %s cannot reference itself", spec.Name)
			}
		}
		udt := types.UDTOf(spec.Keyspace, spec.Name, spec.FieldNames, spec.FieldTypes)
		ks = ks.clone()
		ks.Types = append(ks.Types, udt)
		s.Keyspaces[ks.Name] = ks
		return Result{Change: &Change{Type: "CREATED", Target: "TYPE", Keyspace: ks.Name, Name: spec.Name}}, nil, nil
	})
}

// DropType implements DROP TYPE.
func (c *Catalog) DropType(ctx context.Context, keyspace, name string, ifExists bool) (Result, error) {
	return c.update(ctx, func(s *Schema) (Result, []backend.TableID, error) {
		ks := s.Keyspaces[keyspace]
		if ks == nil || ks.Type(name) == nil {
			if ifExists {
				return Result{}, nil, nil
			}
			return Result{}, nil, cqlerr.Invalidf("Type '%s.%s' doesn't exist", keyspace, name)
		}
		for _, other := range ks.Types {
			if other.Name != name && usesType(other, keyspace, name) {
				return Result{}, nil, cqlerr.Invalidf("Cannot drop user type '%s.%s' as it is still used by user type %s", keyspace, name, other.Name)
			}
		}
		for _, tname := range ks.TableNames() {
			for _, col := range ks.Tables[tname].Columns {
				if usesType(col.Type, keyspace, name) {
					return Result{}, nil, cqlerr.Invalidf("Cannot drop user type '%s.%s' as it is still used by table %s", keyspace, name, ks.Tables[tname].QualifiedName())
				}
			}
		}
		ks = ks.clone()
		kept := ks.Types[:0]
		for _, t := range ks.Types {
			if t.Name != name {
				kept = append(kept, t)
			}
		}
		ks.Types = kept
		s.Keyspaces[keyspace] = ks
		return Result{Change: &Change{Type: "DROPPED", Target: "TYPE", Keyspace: keyspace, Name: name}}, nil, nil
	})
}

func usesType(t *types.Type, keyspace, name string) bool {
	if t.Kind == types.KindUDT && t.Keyspace == keyspace && t.Name == name {
		return true
	}
	for _, e := range t.Elems {
		if usesType(e, keyspace, name) {
			return true
		}
	}
	return false
}
