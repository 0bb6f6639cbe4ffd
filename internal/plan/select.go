package plan

import (
	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cql/ast"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/types"
)

// Select is a planned SELECT.
type Select struct {
	Table     *catalog.Table
	Vars      []BindVar
	Selection *Selection

	// PartitionKey holds, for each partition key column, its EQ value or IN
	// values, when the partition key is fully restricted; nil means a range
	// scan (IsKeyRange).
	PartitionKey [][]*Term
	IsKeyRange   bool
	// Token restricts a range scan by token(partition key).
	Token *Restriction
	// Clustering are the clustering restrictions that select slices: EQ/IN
	// on a prefix of the clustering columns, then at most one slice.
	Clustering []*Restriction
	// Filters are checked on every row read.
	Filters []*Restriction

	Distinct bool
	Json     bool
	// Reversed reads in reverse clustering order (ORDER BY opposite to the
	// table's order).
	Reversed bool
	// PostOrder sorts rows across partitions after reading (IN + ORDER BY):
	// by the clustering columns, descending where PostOrderDesc says.
	PostOrder     []*catalog.Column
	PostOrderDesc []bool
	// GroupByClustering is the number of clustering columns in GROUP BY;
	// GroupBy reports whether there is a GROUP BY at all. GroupByFunc, when
	// set, is the monotonic function (floor(ts, 1h)) of the last of those
	// columns whose value groups rows instead of the column's own value.
	GroupBy           bool
	GroupByClustering int
	GroupByFunc       *Selector

	Limit             *Term
	PerPartitionLimit *Term
	AllowFiltering    bool

	// StaticOnlyPartitions: a partition holding a static row and no
	// clustering row gives one row, the static row with nulls elsewhere.
	StaticOnlyPartitions bool

	// Index, when set, answers the query from a secondary index
	// (Cassandra's rule: the index serves one expression, the others are
	// row filters). The candidates are the index entries for IndexValue,
	// one expression that every candidate row is re-checked against (an
	// entry whose row no longer matches is stale); PartitionKey, Token and
	// Clustering narrow the candidates, and Filters apply as they do
	// without an index.
	Index      *catalog.Index
	IndexValue *Restriction
}

// Columns returns the result columns of a SELECT.
func (s *Select) Columns() []ResultColumn {
	var out []ResultColumn
	for _, sel := range s.Selection.Visible() {
		out = append(out, ResultColumn{Keyspace: s.Table.Keyspace, Table: s.Table.Name, Name: sel.Name, Type: sel.Type})
	}
	if s.Json {
		return []ResultColumn{{Keyspace: s.Table.Keyspace, Table: s.Table.Name, Name: "[json]", Type: types.Text}}
	}
	return out
}

// ResultColumn is one column of a result set.
type ResultColumn struct {
	Keyspace, Table, Name string
	Type                  *types.Type
}

func (p *planner) planSelect(stmt *ast.Select) (*Select, error) {
	t, err := p.table(stmt.Table)
	if err != nil {
		return nil, err
	}
	b := &p.binder
	sel, err := b.prepareSelection(t, stmt.Selectors)
	if err != nil {
		return nil, err
	}
	w, err := b.analyseWhere(t, stmt.Where, stmtSelect, stmt.AllowFiltering)
	if err != nil {
		return nil, err
	}
	if err := w.processPartitionKey(); err != nil {
		return nil, err
	}
	if err := w.processClustering(sel.StaticOnly); err != nil {
		return nil, err
	}
	if err := w.processNonPrimaryKey(); err != nil {
		return nil, err
	}
	if err := w.validateIndexSelection(); err != nil {
		return nil, err
	}
	s := &Select{Table: t, Selection: sel, Distinct: stmt.Distinct, Json: stmt.Json,
		AllowFiltering: stmt.AllowFiltering, IsKeyRange: w.isKeyRange, Token: w.token,
		StaticOnlyPartitions: w.returnsStaticOnlyPartitions()}
	if err := p.planSelectParts(s, stmt, w); err != nil {
		return nil, err
	}
	if err := w.checkNeedsFiltering(); err != nil {
		return nil, err
	}
	if err := checkRowFilters(s.Filters); err != nil {
		return nil, err
	}
	if ie, ok := w.chooseIndex(); ok {
		s.Index, s.IndexValue = ie.index, ie.expr
	}
	s.Vars = b.vars
	return s, nil
}

func (p *planner) planSelectParts(s *Select, stmt *ast.Select, w *where) error {
	t := s.Table
	if !w.isKeyRange {
		for _, c := range t.PartitionKey {
			r := w.pk[c.Name]
			if r.isEQ() {
				s.PartitionKey = append(s.PartitionKey, []*Term{r.Value})
			} else {
				s.PartitionKey = append(s.PartitionKey, r.Values)
			}
		}
	} else if w.pkNeedsFiltering {
		for _, c := range t.PartitionKey {
			if r := w.pk[c.Name]; r != nil {
				s.Filters = append(s.Filters, r)
			}
		}
	}
	// Clustering restrictions past the prefix that slices select are row
	// filters (ClusteringColumnRestrictions.addToRowFilter); the analysis
	// has refused them unless filtering or an index allows them.
	prefix, rest := w.slicePrefix()
	s.Clustering = prefix
	s.Filters = append(s.Filters, rest...)
	s.Filters = append(s.Filters, w.nonPK...)
	if stmt.Distinct {
		if stmt.PerPartitionLimit != nil {
			return cqlerr.Invalidf("PER PARTITION LIMIT is not allowed with SELECT DISTINCT queries")
		}
		ordering, err := resultSetOrdering(t, stmt, w)
		if err != nil {
			return err
		}
		if err := validateDistinct(s, w, ordering); err != nil {
			return err
		}
	}
	if err := p.planGroupBy(s, stmt, w); err != nil {
		return err
	}
	if s.Selection.Aggregate && !s.GroupBy && stmt.PerPartitionLimit != nil {
		return cqlerr.Invalidf("PER PARTITION LIMIT is not allowed with aggregate queries.")
	}
	if len(stmt.OrderBy) > 0 {
		if err := p.planOrderBy(s, stmt, w); err != nil {
			return err
		}
	}
	var err error
	if stmt.Limit != nil {
		if s.Limit, err = p.binder.prepareTerm(stmt.Limit, receiver{t.Keyspace, t.Name, "[limit]", types.Int}); err != nil {
			return err
		}
	}
	if stmt.PerPartitionLimit != nil {
		if s.PerPartitionLimit, err = p.binder.prepareTerm(stmt.PerPartitionLimit, receiver{t.Keyspace, t.Name, "[per_partition_limit]", types.Int}); err != nil {
			return err
		}
	}
	return nil
}

// resultSetOrdering is the ORDER BY columns a query over an IN of partition
// keys adds to its selection to sort its rows after reading them
// (SelectStatement.getResultSetOrdering), in ORDER BY order.
func resultSetOrdering(t *catalog.Table, stmt *ast.Select, w *where) ([]*catalog.Column, error) {
	var out []*catalog.Column
	for _, o := range stmt.OrderBy {
		c, err := column(t, o.Column.Name)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if !w.pkHasIN() {
		return nil, nil
	}
	return out, nil
}

// validateDistinct is SelectStatement.validateDistinctSelection; the
// selection's columns include the ordering columns it adds.
func validateDistinct(s *Select, w *where, ordering []*catalog.Column) error {
	if !w.returnsStaticOnlyPartitions() {
		// Clustering or regular column restrictions select rows, not
		// partitions.
		return cqlerr.Invalidf("SELECT DISTINCT with WHERE clause only supports restriction by partition key and/or static columns.")
	}
	cols := s.Selection.Columns
	if s.Selection.Wildcard {
		cols = s.Table.Columns
	}
	cols = append(append([]*catalog.Column(nil), cols...), ordering...)
	for _, c := range cols {
		if c.Kind != catalog.PartitionKey && c.Kind != catalog.Static {
			return cqlerr.Invalidf("SELECT DISTINCT queries must only request partition key columns and/or static columns (not %s)", c.Name)
		}
	}
	if !w.isKeyRange {
		return nil
	}
	selected := map[*catalog.Column]bool{}
	for _, c := range cols {
		selected[c] = true
	}
	for _, c := range s.Table.PartitionKey {
		if !selected[c] {
			return cqlerr.Invalidf("SELECT DISTINCT queries must request all the partition key columns (missing %s)", c.Name)
		}
	}
	return nil
}

// restrictedByEQ reports whether column c is restricted by a single-value EQ.
func (w *where) restrictedByEQ(c *catalog.Column) bool {
	if c.Kind == catalog.PartitionKey {
		r := w.pk[c.Name]
		return r != nil && r.isEQ()
	}
	for _, r := range w.clustering {
		for _, rc := range r.Columns {
			if rc == c {
				return r.isEQ()
			}
		}
	}
	return false
}

// planGroupBy is SelectStatement.getAggregationSpecFactory: GROUP BY names a
// primary key prefix in declared order (columns restricted by EQ may be
// skipped), its last element may be a monotonic function of a clustering
// column.
func (p *planner) planGroupBy(s *Select, stmt *ast.Select, w *where) error {
	if len(stmt.GroupBy) == 0 {
		return nil
	}
	t := s.Table
	pk := append(append([]*catalog.Column(nil), t.PartitionKey...), t.Clustering...)
	next := 0
	clusteringPrefix := 0
	var groupFunc *Selector
	for _, g := range stmt.GroupBy {
		var c *catalog.Column
		switch g := g.(type) {
		case *ast.FunctionCall:
			var err error
			if groupFunc, c, err = p.planGroupByFunction(t, g); err != nil {
				return err
			}
		case *ast.CountRows:
			// count(*) is the function system.count_rows (CountRowsFunction).
			return cqlerr.Invalidf("Aggregate functions are not supported within the GROUP BY clause, got: system.count_rows")
		case *ast.ColumnRef:
			var err error
			if c, err = column(t, g.Name); err != nil {
				return err
			}
			if !c.IsPrimaryKey() {
				return cqlerr.Invalidf("Group by is currently only supported on the columns of the PRIMARY KEY, got %s", c.Name)
			}
			if groupFunc != nil {
				return cqlerr.Invalidf("Functions are only supported on the last element of the GROUP BY clause")
			}
		default:
			return cqlerr.Invalidf("Group by is currently only supported on the columns of the PRIMARY KEY, got %s", g)
		}
		for {
			if next >= len(pk) {
				return cqlerr.Invalidf("Group by currently only support groups of columns following their declared order in the PRIMARY KEY")
			}
			pc := pk[next]
			next++
			if pc.Kind == catalog.Clustering {
				clusteringPrefix++
			}
			if pc == c {
				break
			}
			if !w.restrictedByEQ(pc) {
				return cqlerr.Invalidf("Group by currently only support groups of columns following their declared order in the PRIMARY KEY")
			}
		}
	}
	if next < len(pk) && pk[next].Kind == catalog.PartitionKey {
		return cqlerr.Invalidf("Group by is not supported on only a part of the partition key")
	}
	if clusteringPrefix > 0 && stmt.Distinct {
		return cqlerr.Invalidf("Grouping on clustering columns is not allowed for SELECT DISTINCT queries")
	}
	s.GroupBy, s.GroupByClustering, s.GroupByFunc = true, clusteringPrefix, groupFunc
	return nil
}

// planOrderBy is SelectStatement.verifyOrderingIsAllowed and isReversed.
func (p *planner) planOrderBy(s *Select, stmt *ast.Select, w *where) error {
	t := s.Table
	type ordering struct {
		col  *catalog.Column
		desc bool
	}
	var orders []ordering
	for _, o := range stmt.OrderBy {
		c, err := column(t, o.Column.Name)
		if err != nil {
			return err
		}
		orders = append(orders, ordering{c, o.Desc})
	}
	if w.usesIndex {
		// Cassandra 5.0's text (4.1 ends after "supported.").
		return cqlerr.Invalidf("ORDER BY with 2ndary indexes is not supported, except for ANN queries.")
	}
	if w.isKeyRange {
		return cqlerr.Invalidf("ORDER BY is only supported when the partition key is restricted by an EQ or an IN.")
	}
	reversed := make([]*bool, len(t.Clustering))
	i := 0
	for _, o := range orders {
		if o.col.Kind != catalog.Clustering {
			return cqlerr.Invalidf("Order by is currently only supported on the clustered columns of the PRIMARY KEY, got %s", o.col.Name)
		}
		for i != o.col.Position {
			if i > o.col.Position || !w.restrictedByEQ(t.Clustering[i]) {
				return cqlerr.Invalidf("Order by currently only supports the ordering of columns following their declared order in the PRIMARY KEY")
			}
			i++
		}
		i++
		r := o.desc != o.col.Desc
		reversed[o.col.Position] = &r
	}
	var isReversed *bool
	for _, r := range reversed {
		if r == nil {
			continue
		}
		if isReversed == nil {
			isReversed = r
			continue
		}
		if *isReversed != *r {
			return cqlerr.Invalidf("Unsupported order by relation")
		}
	}
	s.Reversed = *isReversed
	// An IN on the partition key, even of one value, reads the partitions
	// in key order: the rows are sorted after reading
	// (SelectStatement.needsPostQueryOrdering, keyIsInRelation).
	if w.pkHasIN() {
		for _, o := range orders {
			s.PostOrder = append(s.PostOrder, o.col)
			s.PostOrderDesc = append(s.PostOrderDesc, o.desc)
		}
	}
	return nil
}
