package describe

import (
	"sort"

	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/types"
)

// element is one schema element (cql3/SchemaElement.java): its keyspace,
// type as the result's type column names it, unquoted name, and CQL.
type element struct {
	keyspace, kind, name string
	cql                  func(internals bool) string
}

func keyspaceElement(ks *catalog.Keyspace) element {
	return element{keyspace: ks.Name, kind: "keyspace", name: ks.Name,
		cql: func(bool) string { return keyspaceCQL(ks) }}
}

func typeElement(ks *catalog.Keyspace, udt *types.Type) element {
	return element{keyspace: ks.Name, kind: "type", name: udt.Name,
		cql: func(bool) string { return typeCQL(ks.Name, udt) }}
}

func tableElement(ks *catalog.Keyspace, t *catalog.Table) element {
	return element{keyspace: ks.Name, kind: "table", name: t.Name,
		cql: func(internals bool) string { return tableCQL(t, ks.Virtual, internals) }}
}

func indexElement(t *catalog.Table, ix *catalog.Index) element {
	return element{keyspace: t.Keyspace, kind: "index", name: ix.Name,
		cql: func(bool) string { return indexCQL(t, ix) }}
}

// keyspaceElements is DescribeStatement.getKeyspaceElements: the keyspace,
// then (unless only) its types with dependencies first, its functions and
// aggregates (Partita has none), and its tables, each followed by its
// indexes and materialized views.
func keyspaceElements(ks *catalog.Keyspace, only bool) []element {
	elems := []element{keyspaceElement(ks)}
	if only {
		return elems
	}
	for _, udt := range typesByDependency(ks) {
		elems = append(elems, typeElement(ks, udt))
	}
	for _, t := range sortedTables(ks) {
		elems = append(elems, tableElements(ks, t)...)
	}
	return elems
}

// tableElements is the table followed by its indexes and its materialized
// views, each by name (DescribeStatement.getTableElements).
func tableElements(ks *catalog.Keyspace, t *catalog.Table) []element {
	elems := []element{tableElement(ks, t)}
	for _, ix := range sortedByName(t.Indexes, func(ix *catalog.Index) string { return ix.Name }) {
		elems = append(elems, indexElement(t, ix))
	}
	for _, v := range sortedByName(ks.ViewsOf(t.Name), func(v *catalog.Table) string { return v.Name }) {
		elems = append(elems, viewElement(ks, v))
	}
	return elems
}

// findIndex returns the index named name and its table
// (KeyspaceMetadata.findIndexedTable), or nils.
func findIndex(ks *catalog.Keyspace, name string) (*catalog.Table, *catalog.Index) {
	for _, tname := range ks.TableNames() {
		t := ks.Tables[tname]
		for _, ix := range t.Indexes {
			if ix.Name == name {
				return t, ix
			}
		}
	}
	return nil, nil
}

func sortedKeyspaces(s *catalog.Schema) []*catalog.Keyspace {
	all := make([]*catalog.Keyspace, 0, len(s.Keyspaces))
	for _, ks := range s.Keyspaces {
		all = append(all, ks)
	}
	return sortedByName(all, func(ks *catalog.Keyspace) string { return ks.Name })
}

// sortedTables lists a keyspace's tables, its views left out.
func sortedTables(ks *catalog.Keyspace) []*catalog.Table {
	all := make([]*catalog.Table, 0, len(ks.Tables))
	for _, t := range ks.Tables {
		if t.View == nil {
			all = append(all, t)
		}
	}
	return sortedByName(all, func(t *catalog.Table) string { return t.Name })
}

// sortedByName returns a sorted copy of elems in SchemaElement.NAME_COMPARATOR
// order (String.compareToIgnoreCase). Names equal but for case, which
// Cassandra leaves in its maps' order, are put in byte order.
func sortedByName[E any](elems []E, name func(E) string) []E {
	out := append([]E(nil), elems...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := name(out[i]), name(out[j])
		if c := compareIgnoreCase(a, b); c != 0 {
			return c < 0
		}
		return a < b
	})
	return out
}

// typesByDependency is Types.sortedStream: the types by name (in
// ByteBuffer order), each preceded by the types it uses, depth first, every
// type once.
func typesByDependency(ks *catalog.Keyspace) []*types.Type {
	byName := append([]*types.Type(nil), ks.Types...)
	sort.SliceStable(byName, func(i, j int) bool { return compareSignedBytes(byName[i].Name, byName[j].Name) < 0 })
	var out []*types.Type
	seen := map[string]bool{}
	var visit func(t *types.Type)
	visit = func(t *types.Type) {
		for _, sub := range t.Elems {
			visit(sub)
		}
		if t.Kind != types.KindUDT || seen[t.Name] {
			return
		}
		if udt := ks.Type(t.Name); udt != nil {
			seen[t.Name] = true
			out = append(out, udt)
		}
	}
	for _, t := range byName {
		visit(t)
	}
	return out
}
