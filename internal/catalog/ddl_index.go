package catalog

import (
	"context"
	"fmt"
	"sort"
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
			return Result{}, nil, cqlerr.Invalidf("Table '%s' doesn't exist", spec.Table)
		}
		if ks.IsSystem() || old.Virtual {
			return Result{}, nil, notModifiable(spec.Keyspace)
		}
		if old.View != nil {
			return Result{}, nil, cqlerr.Invalidf("Secondary indexes on materialized views aren't supported")
		}
		// A named index that exists is reported before the target is
		// looked at; IF NOT EXISTS makes it a no-op.
		if spec.Name != "" && findIndex(ks, spec.Name) != nil {
			if spec.IfNotExists {
				return Result{}, nil, nil
			}
			return Result{}, nil, cqlerr.Invalidf("Index '%s' already exists", spec.Name)
		}
		ix, err := newIndex(old, spec)
		if err != nil {
			return Result{}, nil, err
		}
		if spec.Name == "" {
			ix.Name = availableIndexName(ks, defaultIndexName(old.Name, ix.Column))
		}
		for _, other := range old.Indexes {
			if other.sameDefinition(ix) {
				if spec.IfNotExists {
					return Result{}, nil, nil
				}
				return Result{}, nil, cqlerr.Invalidf("Index %s is a duplicate of existing index %s", ix.Name, other.Name)
			}
		}
		if ix.Custom {
			if err := checkCustomIndex(old, ix); err != nil {
				return Result{}, nil, err
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

// newIndex validates an index on t (IndexTarget.Raw.prepare,
// CreateIndexStatement.validateIndexTarget, in Cassandra's order). A
// target written without a modifier on a collection indexes its values.
func newIndex(t *Table, spec IndexSpec) (*Index, error) {
	if t.IsCounter {
		return nil, cqlerr.Invalidf("Secondary indexes on counter tables aren't supported")
	}
	col := t.Column(spec.Column)
	if col == nil {
		return nil, cqlerr.Invalidf("Undefined column name %s in table %s", types.QuoteIdent(spec.Column), t.QualifiedName())
	}
	target := spec.Target
	if target == "" && col.Type.IsCollection() {
		target = "values"
	}
	if err := checkIndexTarget(t, col, target); err != nil {
		return nil, err
	}
	if spec.Name != "" && !validName.MatchString(spec.Name) {
		return nil, cqlerr.Configf("Illegal index name %s", spec.Name)
	}
	ix := &Index{Name: spec.Name, Column: col.Name, Target: target, Custom: spec.Custom, Class: spec.Class, Options: spec.Options}
	return ix, nil
}

// checkIndexTarget is CreateIndexStatement.validateIndexTarget.
func checkIndexTarget(t *Table, col *Column, target string) error {
	typ := col.Type
	if typ.ReferencesDuration() {
		switch {
		case typ.IsCollection():
			return cqlerr.Invalidf("Secondary indexes are not supported on collections containing durations")
		case typ.IsTuple():
			return cqlerr.Invalidf("Secondary indexes are not supported on tuples containing durations")
		case typ.IsUDT():
			return cqlerr.Invalidf("Secondary indexes are not supported on UDTs containing durations")
		}
		return cqlerr.Invalidf("Secondary indexes are not supported on duration columns")
	}
	if col.Kind == PartitionKey && len(t.PartitionKey) == 1 {
		return cqlerr.Invalidf("Cannot create secondary index on the only partition key column %s", col.Name)
	}
	frozenCollection := typ.IsCollection() && !typ.IsMultiCell()
	switch {
	case frozenCollection && target != "full":
		return cqlerr.Invalidf("Cannot create %s() index on frozen column %s. Frozen collections are immutable and must be fully indexed by using the 'full(%s)' modifier", target, col.Name, col.Name)
	case !frozenCollection && target == "full":
		return cqlerr.Invalidf("full() indexes can only be created on frozen collections")
	case !typ.IsCollection() && target != "":
		return cqlerr.Invalidf("Cannot create %s() index on %s. Non-collection columns only support simple indexes", target, col.Name)
	case (target == "keys" || target == "entries") && !(typ.Kind == types.KindMap && typ.IsMultiCell()):
		return cqlerr.Invalidf("Cannot create index on %s of column %s with non-map type", target, col.Name)
	case typ.IsUDT() && typ.IsMultiCell():
		return cqlerr.Invalidf("Cannot create index on non-frozen UDT column %s", col.Name)
	}
	return nil
}

// sameDefinition reports whether two indexes differ in name only
// (IndexMetadata.equalsWithoutName: kind, target, class and options).
func (ix *Index) sameDefinition(o *Index) bool {
	if ix.Column != o.Column || ix.Target != o.Target || ix.Custom != o.Custom || ix.Class != o.Class || len(ix.Options) != len(o.Options) {
		return false
	}
	for k, v := range ix.Options {
		if w, ok := o.Options[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// IsStorageAttached reports whether a custom index names the
// storage-attached index class, by its class name or an alias
// (IndexMetadata.indexNameAliases, matched in lower case).
func (ix *Index) IsStorageAttached() bool {
	switch strings.ToLower(ix.Class) {
	case "sai", "storageattachedindex":
		return true
	}
	return ix.Class == "org.apache.cassandra.index.sai.StorageAttachedIndex"
}

// storageAttachedOptions are the options a storage-attached index
// understands (StorageAttachedIndex.VALID_OPTIONS, Cassandra 5.0), besides
// target and class_name.
var storageAttachedOptions = map[string]bool{
	"case_sensitive": true, "normalize": true, "ascii": true, // analyzer
	"similarity_function": true, "optimize_for": true, // vector
}

// checkCustomIndex validates a custom index once it would join t
// (IndexMetadata.validate: the class must exist, and understand the
// options). The storage-attached index is the only custom class.
func checkCustomIndex(t *Table, ix *Index) error {
	if !ix.IsStorageAttached() {
		return cqlerr.Configf("Unable to find custom indexer class '%s'", ix.Class)
	}
	var unknown []string
	for k := range ix.Options {
		if !storageAttachedOptions[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return cqlerr.Configf("Properties specified [%s] are not understood by StorageAttachedIndex", strings.Join(unknown, ", "))
	}
	for _, other := range t.Indexes {
		if other.Custom && other.IsStorageAttached() && other.Column == ix.Column && other.Target == ix.Target {
			return cqlerr.Invalidf("Cannot create more than one storage-attached index on the same column: %s", ix.Column)
		}
	}
	col := t.Column(ix.Column)
	valueType := col.Type
	switch {
	case ix.Target == "keys":
		valueType = col.Type.Elems[0]
	case ix.Target == "values":
		valueType = col.Type.Elems[len(col.Type.Elems)-1]
	}
	for k := range ix.Options {
		switch k {
		case "case_sensitive", "normalize", "ascii":
			if !valueType.IsText() {
				return cqlerr.Invalidf("CQL type %s cannot be analyzed.", valueType)
			}
		case "similarity_function", "optimize_for":
			// Vector options: no column type here is a vector.
			return cqlerr.Invalidf("CQL type %s cannot have vector options", valueType)
		}
	}
	return nil
}

// availableIndexName is base, or base_1, base_2, ... the first name no
// index of the keyspace has (KeyspaceMetadata.findAvailableIndexName).
func availableIndexName(ks *Keyspace, base string) string {
	name := base
	for i := 1; findIndex(ks, name) != nil; i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	return name
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
