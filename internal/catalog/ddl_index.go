package catalog

import (
	"context"
	"strings"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/types"
)

// IndexSpec is a CREATE INDEX statement's content.
type IndexSpec struct {
	Keyspace, Table string
	Name            string // "" for the default name
	IfNotExists     bool
	Column          string
	// Target is "", "values", "keys", "entries" or "full".
	Target  string
	Custom  bool
	Class   string
	Options map[string]string
}

// IndexKind is system_schema.indexes.kind.
func (ix *Index) IndexKind() string {
	if ix.Custom {
		return "CUSTOM"
	}
	return "COMPOSITES"
}

// TargetText is the index target as system_schema.indexes.options
// reports it: the column name, or keys(c), values(c), entries(c), full(c).
func (ix *Index) TargetText() string {
	col := types.QuoteIdent(ix.Column)
	if ix.Target == "" {
		return col
	}
	return ix.Target + "(" + col + ")"
}

// CreateIndex implements CREATE INDEX (CreateIndexStatement.java). The
// engine builds the index's entries for existing rows afterwards.
func (c *Catalog) CreateIndex(ctx context.Context, spec IndexSpec) (Result, *Index, error) {
	var created *Index
	res, err := c.update(ctx, func(s *Schema) (Result, []backend.TableID, error) {
		ks := s.Keyspaces[spec.Keyspace]
		if ks == nil {
			return Result{}, nil, cqlerr.Invalidf("Keyspace '%s' doesn't exist", spec.Keyspace)
		}
		old := ks.Tables[spec.Table]
		if old == nil {
			return Result{}, nil, cqlerr.Invalidf("Table '%s.%s' doesn't exist", spec.Keyspace, spec.Table)
		}
		if ks.IsSystem() || old.Virtual {
			return Result{}, nil, notModifiable(spec.Keyspace)
		}
		ix, err := newIndex(old, spec)
		if err != nil {
			return Result{}, nil, err
		}
		if existing := findIndex(ks, ix.Name); existing != nil {
			if spec.IfNotExists {
				return Result{}, nil, nil
			}
			return Result{}, nil, cqlerr.Invalidf("Index '%s' already exists", ix.Name)
		}
		for _, other := range old.Indexes {
			if other.Column == ix.Column && other.Target == ix.Target && other.Class == ix.Class {
				if spec.IfNotExists {
					return Result{}, nil, nil
				}
				return Result{}, nil, cqlerr.Invalidf("Index %s is a duplicate of existing index %s", ix.Name, other.Name)
			}
		}
		ix.StorageID = s.NextTableID
		s.NextTableID++
		t := old.clone()
		t.Indexes = append(t.Indexes, ix)
		ks = ks.clone()
		ks.Tables[t.Name] = t
		s.Keyspaces[ks.Name] = ks
		created = ix
		return Result{Change: &Change{Type: "UPDATED", Target: "TABLE", Keyspace: ks.Name, Name: t.Name}}, nil, nil
	})
	return res, created, err
}

func findIndex(ks *Keyspace, name string) *Index {
	for _, t := range ks.Tables {
		for _, ix := range t.Indexes {
			if ix.Name == name {
				return ix
			}
		}
	}
	return nil
}

// newIndex validates an index on t.
func newIndex(t *Table, spec IndexSpec) (*Index, error) {
	col := t.Column(spec.Column)
	if col == nil {
		return nil, cqlerr.Invalidf("Column '%s' doesn't exist", spec.Column)
	}
	if t.IsCounter {
		return nil, cqlerr.Invalidf("Secondary indexes on counter tables aren't supported")
	}
	if col.Kind == PartitionKey && len(t.PartitionKey) == 1 {
		return nil, cqlerr.Invalidf("Cannot create secondary index on the only partition key column %s", col.Name)
	}
	target := spec.Target
	switch {
	case target == "" && col.Type.IsCollection() && col.Type.IsMultiCell():
		target = "values"
	case target == "full" && col.Type.IsMultiCell():
		return nil, cqlerr.Invalidf("full() indexes can only be created on frozen collections")
	case (target == "keys" || target == "entries") && col.Type.Kind != types.KindMap:
		return nil, cqlerr.Invalidf("Cannot create secondary index on %s(%s): %s is not a map", target, col.Name, col.Name)
	case target == "values" && !col.Type.IsCollection():
		return nil, cqlerr.Invalidf("Cannot create secondary index on values(%s): %s is not a collection", col.Name, col.Name)
	case target != "" && target != "full" && !col.Type.IsMultiCell():
		return nil, cqlerr.Invalidf("Cannot create %s() index on frozen column %s. Frozen collections only support full() indexes", target, col.Name)
	}
	if col.Type.Kind == types.KindDuration {
		return nil, cqlerr.Invalidf("Secondary indexes are not supported on duration columns")
	}
	name := spec.Name
	if name == "" {
		name = defaultIndexName(t.Name, col.Name)
	}
	if !validName.MatchString(name) {
		return nil, cqlerr.Configf("Illegal index name %s", name)
	}
	ix := &Index{Name: name, Column: col.Name, Target: target, Custom: spec.Custom, Class: spec.Class, Options: spec.Options}
	return ix, nil
}

// defaultIndexName is Cassandra's <table>_<column>_idx with non-word
// characters removed.
func defaultIndexName(table, column string) string {
	clean := func(s string) string {
		var b strings.Builder
		for _, r := range s {
			if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
				b.WriteRune(r)
			}
		}
		return b.String()
	}
	return clean(table) + "_" + clean(column) + "_idx"
}

// DropIndex implements DROP INDEX; the index's entries go with it.
func (c *Catalog) DropIndex(ctx context.Context, keyspace, name string, ifExists bool) (Result, error) {
	return c.update(ctx, func(s *Schema) (Result, []backend.TableID, error) {
		ks := s.Keyspaces[keyspace]
		var ix *Index
		if ks != nil {
			ix = findIndex(ks, name)
		}
		if ix == nil {
			if ifExists {
				return Result{}, nil, nil
			}
			return Result{}, nil, cqlerr.Invalidf("Index '%s.%s' doesn't exist'", keyspace, name)
		}
		for tname, t := range ks.Tables {
			for i, other := range t.Indexes {
				if other != ix {
					continue
				}
				nt := t.clone()
				nt.Indexes = append(append([]*Index(nil), t.Indexes[:i]...), t.Indexes[i+1:]...)
				ks = ks.clone()
				ks.Tables[tname] = nt
				s.Keyspaces[keyspace] = ks
				return Result{Change: &Change{Type: "UPDATED", Target: "TABLE", Keyspace: keyspace, Name: tname}},
					[]backend.TableID{ix.StorageID}, nil
			}
		}
		return Result{}, nil, cqlerr.Serverf("index %s not attached to a table", name)
	})
}
