package catalog

import (
	"context"
	"strings"

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
		var users []string
		for _, tname := range ks.TableNames() {
			for _, col := range ks.Tables[tname].Columns {
				if usesType(col.Type, keyspace, name) {
					users = append(users, tname)
					break
				}
			}
		}
		if len(users) > 0 {
			// DropTypeStatement lists every table using the type.
			return Result{}, nil, cqlerr.Invalidf("Cannot drop user type '%s.%s' as it is still used by tables %s", keyspace, name, strings.Join(users, ", "))
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

// AlterTypeSpec is an ALTER TYPE statement: add one field, or rename fields.
type AlterTypeSpec struct {
	Keyspace, Name string
	IfExists       bool
	AddField       string
	AddType        *types.Type
	AddIfNotExists bool
	Renames        [][2]string
	RenameIfExists bool
	AlterField     string // ALTER f TYPE t: rejected
}

// AlterType implements ALTER TYPE (AlterTypeStatement.java): the new type
// replaces the old one everywhere it is used.
func (c *Catalog) AlterType(ctx context.Context, spec AlterTypeSpec) (Result, error) {
	return c.update(ctx, func(s *Schema) (Result, []backend.TableID, error) {
		ks := s.Keyspaces[spec.Keyspace]
		var old *types.Type
		if ks != nil {
			old = ks.Type(spec.Name)
		}
		if old == nil {
			if spec.IfExists {
				return Result{}, nil, nil
			}
			return Result{}, nil, cqlerr.Invalidf("Type %s.%s doesn't exist", spec.Keyspace, spec.Name)
		}
		if spec.AlterField != "" {
			return Result{}, nil, cqlerr.Invalidf("Altering field types is no longer supported")
		}
		names := append([]string(nil), old.FieldNames...)
		fields := append([]*types.Type(nil), old.Elems...)
		switch {
		case spec.AddField != "":
			if old.FieldIndex(spec.AddField) >= 0 {
				if spec.AddIfNotExists {
					return Result{}, nil, nil
				}
				return Result{}, nil, cqlerr.Invalidf("Cannot add new field %s to type %s.%s: a field with name %s already exists", spec.AddField, spec.Keyspace, spec.Name, spec.AddField)
			}
			if usesType(spec.AddType, spec.Keyspace, spec.Name) {
				return Result{}, nil, cqlerr.Invalidf("Cannot add new field %s of type %s to user type %s.%s as it would create a circular reference", spec.AddField, spec.AddType, spec.Keyspace, spec.Name)
			}
			names, fields = append(names, spec.AddField), append(fields, spec.AddType)
		default:
			for _, r := range spec.Renames {
				i := old.FieldIndex(r[0])
				if i < 0 {
					if spec.RenameIfExists {
						continue
					}
					return Result{}, nil, cqlerr.Invalidf("Unkown field %s in user type %s.%s", r[0], spec.Keyspace, spec.Name)
				}
				names[i] = r[1]
			}
			seen := map[string]bool{}
			for _, n := range names {
				if seen[n] {
					return Result{}, nil, cqlerr.Invalidf("Duplicate field name %s in type %s.%s", n, spec.Keyspace, spec.Name)
				}
				seen[n] = true
			}
		}
		udt := types.UDTOf(spec.Keyspace, spec.Name, names, fields)
		ks = ks.clone()
		for i, t := range ks.Types {
			ks.Types[i] = replaceUDT(t, old, udt)
		}
		for name, t := range ks.Tables {
			changed := false
			for _, col := range t.Columns {
				if usesType(col.Type, spec.Keyspace, spec.Name) {
					changed = true
				}
			}
			if !changed {
				continue
			}
			nt := t.clone()
			for _, col := range nt.Columns {
				col.Type = replaceUDT(col.Type, old, udt)
			}
			nt.finish()
			ks.Tables[name] = nt
		}
		s.Keyspaces[ks.Name] = ks
		return Result{Change: &Change{Type: "UPDATED", Target: "TYPE", Keyspace: ks.Name, Name: spec.Name}}, nil, nil
	})
}

// replaceUDT rebuilds t with every use of old replaced by new, keeping
// frozenness.
func replaceUDT(t, old, new *types.Type) *types.Type {
	if t.Kind == types.KindUDT && t.Keyspace == old.Keyspace && t.Name == old.Name {
		if t.Frozen {
			return types.Frozen(new)
		}
		return new
	}
	if len(t.Elems) == 0 || !usesType(t, old.Keyspace, old.Name) {
		return t
	}
	n := *t
	n.Elems = make([]*types.Type, len(t.Elems))
	for i, e := range t.Elems {
		n.Elems[i] = replaceUDT(e, old, new)
	}
	return &n
}
