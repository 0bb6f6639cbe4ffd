package describe

import (
	"strings"

	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cql/ast"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/types"
)

// The result set's keyspace and table, as its column specifications name
// them (DescribeStatement.KS and CF).
const (
	ResultKeyspace = "system"
	ResultTable    = "describe"
)

// Result is the answer to a DESCRIBE statement: one row per element, every
// cell text. The one exception is DESCRIBE CLUSTER in a non-system keyspace,
// whose last column, range_ownership, is a map<text, list<text>>: its value
// is RangeOwnership and its rows hold only the text cells before it.
// ColumnTypes and Values give the uniform view a protocol encoder needs.
type Result struct {
	Columns []string
	Rows    [][]string
	// RangeOwnership is non-nil exactly when Columns ends with
	// range_ownership.
	RangeOwnership map[string][]string
}

// Cluster is what DESCRIBE CLUSTER reports. Empty fields take the values a
// default Cassandra node reports.
type Cluster struct {
	// Name is cluster_name.
	Name string
	// Partitioner and Snitch are Java class names; DESCRIBE CLUSTER trims
	// their org.apache.cassandra.dht. and org.apache.cassandra.locator.
	// package prefixes.
	Partitioner, Snitch string
	// RangeOwnership returns, for the session's keyspace, the end token of
	// each token range mapped to the endpoints ("127.0.0.1:7000") that
	// replicate it. Nil reports no ranges.
	RangeOwnership func(keyspace string) map[string][]string
}

// Defaults of Cluster: cassandra.yaml's cluster_name and partitioner, and
// the snitch DatabaseDescriptor.getEndpointSnitch returns with
// dynamic_snitch on (its default).
const (
	DefaultClusterName = "Test Cluster"
	DefaultPartitioner = "org.apache.cassandra.dht.Murmur3Partitioner"
	DefaultSnitch      = "org.apache.cassandra.locator.DynamicEndpointSnitch"
)

var (
	listColumns    = []string{"keyspace_name", "type", "name"}
	elementColumns = []string{"keyspace_name", "type", "name", "create_statement"}
)

// Describe answers a DESCRIBE statement from a schema snapshot. keyspace is
// the session's keyspace ("" for none). DESCRIBE CLUSTER reports the
// defaults of Cluster; DescribeWith takes the node's own.
func Describe(s *catalog.Schema, keyspace string, d *ast.Describe) (Result, error) {
	return DescribeWith(s, keyspace, d, Cluster{})
}

// DescribeWith is Describe with the cluster that DESCRIBE CLUSTER reports.
func DescribeWith(s *catalog.Schema, keyspace string, d *ast.Describe, c Cluster) (Result, error) {
	x := &describer{schema: s, session: keyspace, internals: d.WithInternals}
	switch d.Kind {
	case ast.DescribeCluster:
		return describeCluster(keyspace, c), nil
	case ast.DescribeKeyspaces:
		var elems []element
		for _, ks := range sortedKeyspaces(s) {
			elems = append(elems, keyspaceElement(ks))
		}
		return x.list(elems), nil
	case ast.DescribeTables, ast.DescribeTypes, ast.DescribeFunctions, ast.DescribeAggregates:
		return x.listing(d.Kind)
	case ast.DescribeSchema, ast.DescribeFullSchema:
		var elems []element
		for _, ks := range sortedKeyspaces(s) {
			if d.Kind == ast.DescribeFullSchema || !isSystemKeyspace(ks.Name) {
				elems = append(elems, keyspaceElements(ks, false)...)
			}
		}
		return x.describe(elems), nil
	case ast.DescribeGeneric:
		return x.generic(d.Keyspace, d.Name)
	}
	ks, err := x.keyspaceOf(d.Keyspace)
	if err != nil {
		return Result{}, err
	}
	elems, err := x.named(d.Kind, ks, d.Name, d.Only)
	if err != nil {
		return Result{}, err
	}
	return x.describe(elems), nil
}

// describer holds what one DESCRIBE statement needs.
type describer struct {
	schema    *catalog.Schema
	session   string
	internals bool
}

// keyspaceOf resolves the keyspace an element statement names, or the
// session's (DescribeStatement.Element.describe and validateKeyspace).
func (x *describer) keyspaceOf(name string) (*catalog.Keyspace, error) {
	if name == "" {
		if x.session == "" {
			return nil, cqlerr.Invalidf("No keyspace specified and no current keyspace")
		}
		name = x.session
	}
	return x.keyspace(name)
}

// keyspace is DescribeStatement.validateKeyspace.
func (x *describer) keyspace(name string) (*catalog.Keyspace, error) {
	ks := x.schema.Keyspace(name)
	if ks == nil {
		return nil, cqlerr.Invalidf("'%s' not found in keyspaces", name)
	}
	return ks, nil
}

// named returns the elements of DESCRIBE KEYSPACE, TABLE, INDEX, TYPE,
// MATERIALIZED VIEW, FUNCTION or AGGREGATE in keyspace ks.
func (x *describer) named(kind ast.DescribeKind, ks *catalog.Keyspace, name string, only bool) ([]element, error) {
	switch kind {
	case ast.DescribeKeyspace:
		return keyspaceElements(ks, only), nil
	case ast.DescribeTable:
		// A view is not a table here, as the reference node shows.
		t := ks.Table(name)
		if t == nil || t.View != nil {
			return nil, cqlerr.Invalidf("Table '%s' not found in keyspace '%s'", name, ks.Name)
		}
		return tableElements(ks, t), nil
	case ast.DescribeIndex:
		t, ix := findIndex(ks, name)
		if t == nil {
			return nil, cqlerr.Invalidf("Table for existing index '%s' not found in '%s'", name, ks.Name)
		}
		return []element{indexElement(t, ix)}, nil
	case ast.DescribeType:
		udt := ks.Type(name)
		if udt == nil {
			return nil, cqlerr.Invalidf("User defined type '%s' not found in '%s'", name, ks.Name)
		}
		return []element{typeElement(ks, udt)}, nil
	case ast.DescribeMaterializedView:
		if t := ks.Table(name); t != nil && t.View != nil {
			return []element{viewElement(ks, t)}, nil
		}
		return nil, cqlerr.Invalidf("Materialized view '%s' not found in '%s'", name, ks.Name)
	case ast.DescribeFunction:
		return nil, cqlerr.Invalidf("User defined function '%s' not found in '%s'", name, ks.Name)
	case ast.DescribeAggregate:
		return nil, cqlerr.Invalidf("User defined aggregate '%s' not found in '%s'", name, ks.Name)
	}
	return nil, cqlerr.Serverf("unexpected DESCRIBE form %s", kind)
}

// generic resolves DESCRIBE [ks.]name: a keyspace, else a table, an index
// or a view of that name, in this order (DescribeStatement.generic).
func (x *describer) generic(keyspace, name string) (Result, error) {
	if keyspace == "" {
		if ks := x.schema.Keyspace(name); ks != nil {
			return x.describe(keyspaceElements(ks, false)), nil
		}
		keyspace = x.session
		if keyspace == "" {
			keyspace = name
		}
	}
	ks, err := x.keyspace(keyspace)
	if err != nil {
		return Result{}, err
	}
	if t := ks.Table(name); t != nil && t.View != nil {
		return x.describe([]element{viewElement(ks, t)}), nil
	}
	if t := ks.Table(name); t != nil {
		return x.describe(tableElements(ks, t)), nil
	}
	if t, ix := findIndex(ks, name); t != nil {
		return x.describe([]element{indexElement(t, ix)}), nil
	}
	return Result{}, cqlerr.Invalidf("'%s' not found in keyspace '%s'", name, keyspace)
}

// listing answers DESCRIBE TABLES, TYPES, FUNCTIONS and AGGREGATES: the
// session's keyspace, or every keyspace when there is none
// (DescribeStatement.Listing). Partita has no functions or aggregates.
func (x *describer) listing(kind ast.DescribeKind) (Result, error) {
	keyspaces := sortedKeyspaces(x.schema)
	if x.session != "" {
		ks, err := x.keyspace(x.session)
		if err != nil {
			return Result{}, err
		}
		keyspaces = []*catalog.Keyspace{ks}
	}
	var elems []element
	for _, ks := range keyspaces {
		switch kind {
		case ast.DescribeTables:
			for _, t := range sortedTables(ks) {
				elems = append(elems, tableElement(ks, t))
			}
		case ast.DescribeTypes:
			for _, udt := range sortedByName(ks.Types, func(t *types.Type) string { return t.Name }) {
				elems = append(elems, typeElement(ks, udt))
			}
		}
	}
	return x.list(elems), nil
}

// list renders elements as a listing: keyspace_name, type, name.
func (x *describer) list(elems []element) Result {
	res := Result{Columns: listColumns, Rows: make([][]string, 0, len(elems))}
	for _, e := range elems {
		res.Rows = append(res.Rows, []string{types.QuoteIdent(e.keyspace), e.kind, types.QuoteIdent(e.name)})
	}
	return res
}

// describe renders elements with their CQL.
func (x *describer) describe(elems []element) Result {
	res := Result{Columns: elementColumns, Rows: make([][]string, 0, len(elems))}
	for _, e := range elems {
		res.Rows = append(res.Rows, []string{types.QuoteIdent(e.keyspace), e.kind, types.QuoteIdent(e.name), e.cql(x.internals)})
	}
	return res
}

// describeCluster answers DESCRIBE CLUSTER. Range ownership is reported
// only for a session keyspace that is not a system one.
func describeCluster(session string, c Cluster) Result {
	orDefault := func(v, def string) string {
		if v == "" {
			return def
		}
		return v
	}
	res := Result{
		Columns: []string{"cluster", "partitioner", "snitch"},
		Rows: [][]string{{
			orDefault(c.Name, DefaultClusterName),
			strings.TrimPrefix(orDefault(c.Partitioner, DefaultPartitioner), "org.apache.cassandra.dht."),
			strings.TrimPrefix(orDefault(c.Snitch, DefaultSnitch), "org.apache.cassandra.locator."),
		}},
	}
	if session != "" && !isSystemKeyspace(session) {
		res.Columns = append(res.Columns, "range_ownership")
		if c.RangeOwnership != nil {
			res.RangeOwnership = c.RangeOwnership(session)
		}
		if res.RangeOwnership == nil {
			res.RangeOwnership = map[string][]string{}
		}
	}
	return res
}

// isSystemKeyspace is SchemaConstants.isSystemKeyspace: the local (virtual
// included) and replicated system keyspaces, whatever the case, and
// Partita's own.
func isSystemKeyspace(name string) bool {
	return catalog.IsSystemKeyspace(strings.ToLower(name))
}
