package catalog

import (
	"context"
	"reflect"
	"strings"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/types"
)

// AlterTableSpec is one ALTER TABLE statement; exactly one action is set.
type AlterTableSpec struct {
	Keyspace, Name string
	IfExists       bool

	Add            []ColumnSpec
	AddIfNotExists bool

	Drop          []string
	DropIfExists  bool
	DropTimestamp int64 // microseconds; the drop time recorded

	Rename         [][2]string
	RenameIfExists bool

	AlterColumnType string

	Properties []Property
}

// AlterTable implements ALTER TABLE (AlterTableStatement.java).
func (c *Catalog) AlterTable(ctx context.Context, spec AlterTableSpec) (Result, error) {
	return c.update(ctx, func(s *Schema) (Result, []backend.TableID, error) {
		ks := s.Keyspaces[spec.Keyspace]
		var old *Table
		if ks != nil {
			old = ks.Tables[spec.Name]
		}
		if old == nil {
			if spec.IfExists {
				return Result{}, nil, nil
			}
			return Result{}, nil, cqlerr.Invalidf("Table '%s.%s' doesn't exist", spec.Keyspace, spec.Name)
		}
		if ks.IsSystem() {
			return Result{}, nil, notModifiable(spec.Keyspace)
		}
		views, err := checkBaseAlter(ks, old, spec)
		if err != nil {
			return Result{}, nil, err
		}
		t := old.clone()
		switch {
		case spec.AlterColumnType != "":
			err = cqlerr.Invalidf("Altering column types is no longer supported")
		case len(spec.Add) > 0:
			err = t.addColumns(spec)
		case len(spec.Drop) > 0:
			err = t.dropColumns(spec)
		case len(spec.Rename) > 0:
			err = t.renameColumns(spec)
		default:
			err = t.Options.Apply(spec.Properties)
			if err == nil && t.IsCounter && t.Options.DefaultTTL > 0 {
				err = cqlerr.Invalidf("Cannot set default_time_to_live on a table with counters")
			}
		}
		if err != nil {
			return Result{}, nil, err
		}
		t.finish()
		if sameColumns(old, t) && reflect.DeepEqual(old.Options, t.Options) {
			// Nothing changed (IF [NOT] EXISTS, or options set to what they
			// were): Cassandra answers Void, with no schema change event.
			return Result{}, nil, nil
		}
		ks = ks.clone()
		ks.Tables[t.Name] = t
		updateViews(ks, t, spec, views)
		s.Keyspaces[ks.Name] = ks
		return Result{Change: &Change{Type: "UPDATED", Target: "TABLE", Keyspace: ks.Name, Name: t.Name}}, nil, nil
	})
}

func (t *Table) addColumns(spec AlterTableSpec) error {
	for _, col := range spec.Add {
		if t.Column(col.Name) != nil {
			if spec.AddIfNotExists {
				continue
			}
			return cqlerr.Invalidf("Column with name '%s' already exists", col.Name)
		}
		if col.Static && len(t.Clustering) == 0 {
			return cqlerr.Invalidf("Static columns are only useful (and thus allowed) if the table has at least one clustering column")
		}
		if d, ok := t.Dropped[col.Name]; ok {
			if !d.Type.Equal(col.Type) && !compatibleReAdd(d.Type, col.Type) {
				return cqlerr.Invalidf("Cannot re-add previously dropped column '%s' of type %s, incompatible with previous type %s", col.Name, col.Type, d.Type)
			}
			wantKind := Regular
			if col.Static {
				wantKind = Static
			}
			if d.Kind != wantKind {
				return cqlerr.Invalidf("Cannot re-add previously dropped column '%s' of kind %s, incompatible with previous kind %s",
					col.Name, strings.ToUpper(wantKind.String()), strings.ToUpper(d.Kind.String()))
			}
			if t.IsCounter {
				return cqlerr.Invalidf("Cannot re-add previously dropped counter column %s", col.Name)
			}
		}
		// TableMetadata.validate, which prefixes the table's name.
		if t.IsCounter && !col.Type.IsCounter() {
			return cqlerr.Configf("%s: Cannot have a non counter column (\"%s\") in a counter table", t.QualifiedName(), col.Name)
		}
		if !t.IsCounter && col.Type.IsCounter() {
			return cqlerr.Configf("%s: Cannot have a counter column (\"%s\") in a non counter table", t.QualifiedName(), col.Name)
		}
		kind := Regular
		if col.Static {
			kind = Static
		}
		if d, ok := t.Dropped[col.Name]; ok && d.HasID {
			t.Columns = append(t.Columns, &Column{Name: col.Name, Type: col.Type, Kind: kind, Position: -1, ID: d.ID, HiddenUpTo: d.DroppedAt})
		} else {
			t.addColumn(col.Name, col.Type, kind, -1, false)
		}
		t.finish()
	}
	return nil
}

// compatibleReAdd reports whether a dropped column of type old may come
// back as new: new must read old's values (AbstractType
// .isValueCompatibleWith, as AlterTableStatement.AddColumns checks).
func compatibleReAdd(old, new *types.Type) bool { return valueCompatible(new, old) }

// valueCompatible is AbstractType.isValueCompatibleWith: new can decode
// every value of old.
func valueCompatible(new, old *types.Type) bool {
	if new.Equal(old) || comparisonCompatible(new, old) {
		return true
	}
	// Fixed-length types read only themselves (Cassandra 5.0.6 refuses blob
	// or varint over int), except bigint and timestamp, both 8-byte longs.
	switch new.Kind {
	case types.KindBigint:
		return old.Kind == types.KindTimestamp
	case types.KindTimestamp:
		return old.Kind == types.KindBigint
	}
	if !new.IsCollection() || new.Kind != old.Kind || new.IsMultiCell() != old.IsMultiCell() {
		return false
	}
	// CollectionType.isValueCompatibleWithInternal: the cell-path part
	// (set elements, map keys) must sort alike, values need only decode.
	switch new.Kind {
	case types.KindList:
		return valueCompatible(new.Elems[0], old.Elems[0])
	case types.KindSet:
		return comparisonCompatible(new.Elems[0], old.Elems[0])
	default:
		return comparisonCompatible(new.Elems[0], old.Elems[0]) && valueCompatible(new.Elems[1], old.Elems[1])
	}
}

// comparisonCompatible is AbstractType.isCompatibleWith: new sorts and
// decodes old's values alike (text and blob compare bytes, uuid orders
// timeuuids as they order themselves).
func comparisonCompatible(new, old *types.Type) bool {
	if new.Equal(old) {
		return true
	}
	switch new.Kind {
	case types.KindBlob:
		return old.Kind == types.KindAscii || old.Kind == types.KindVarchar
	case types.KindVarchar:
		return old.Kind == types.KindAscii
	case types.KindUUID:
		return old.Kind == types.KindTimeuuid
	}
	return false
}

func (t *Table) dropColumns(spec AlterTableSpec) error {
	for _, name := range spec.Drop {
		col := t.Column(name)
		if col == nil {
			if spec.DropIfExists {
				continue
			}
			return cqlerr.Invalidf("Column %s was not found in table '%s'", name, t.QualifiedName())
		}
		if col.IsPrimaryKey() {
			return cqlerr.Invalidf("Cannot drop PRIMARY KEY column %s", name)
		}
		if col.Type.Kind == types.KindUDT && col.Type.IsMultiCell() {
			return cqlerr.Invalidf("Cannot drop non-frozen column %s of user type %s", name, col.Type)
		}
		if ix := t.IndexOn(name); ix != nil {
			return cqlerr.Invalidf("Cannot drop column %s because it has dependent secondary indexes (%s)", name, ix.Name)
		}
		t.Dropped[name] = Dropped{Type: col.Type, DroppedAt: spec.DropTimestamp, Kind: col.Kind, ID: col.ID, HasID: true}
		kept := t.Columns[:0]
		for _, c := range t.Columns {
			if c.Name != name {
				kept = append(kept, c)
			}
		}
		t.Columns = kept
		t.finish()
	}
	return nil
}

func (t *Table) renameColumns(spec AlterTableSpec) error {
	for _, pair := range spec.Rename {
		from, to := pair[0], pair[1]
		col := t.Column(from)
		if col == nil {
			if spec.RenameIfExists {
				continue
			}
			return cqlerr.Invalidf("Column %s was not found in table %s", from, t.QualifiedName())
		}
		if !col.IsPrimaryKey() {
			return cqlerr.Invalidf("Cannot rename non PRIMARY KEY column %s", from)
		}
		if t.Column(to) != nil {
			return cqlerr.Invalidf("Cannot rename column %s to %s in table '%s'; another column with that name already exists", from, to, t.QualifiedName())
		}
		if ix := t.IndexOn(from); ix != nil {
			return cqlerr.Invalidf("Can't rename column %s because it has dependent secondary indexes (%s)", from, ix.Name)
		}
		col.Name = to
		t.finish()
	}
	return nil
}

// sameColumns reports whether two versions of a table have the same
// columns (names, kinds and ids).
func sameColumns(a, b *Table) bool {
	if len(a.Columns) != len(b.Columns) {
		return false
	}
	for i := range a.Columns {
		x, y := a.Columns[i], b.Columns[i]
		if x.Name != y.Name || x.ID != y.ID || x.Kind != y.Kind {
			return false
		}
	}
	return true
}
