package plan

import (
	"sort"
	"strings"

	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cql/ast"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/types"
)

// statementType is what a WHERE clause belongs to; the rules differ.
type statementType uint8

const (
	stmtSelect statementType = iota
	stmtUpdate
	stmtDelete
)

func (s statementType) String() string {
	switch s {
	case stmtUpdate:
		return "UPDATE"
	case stmtDelete:
		return "DELETE"
	}
	return "SELECT"
}

// RequiresAllowFiltering is Cassandra's message for a query that would
// filter without ALLOW FILTERING.
const RequiresAllowFiltering = "Cannot execute this query as it might involve data filtering and thus may have unpredictable performance. If you want to execute this query despite the performance unpredictability, use ALLOW FILTERING"

// where is a WHERE clause analysed the way StatementRestrictions does it.
type where struct {
	table          *catalog.Table
	stmt           statementType
	allowFiltering bool

	pk         map[string]*Restriction // single-column restrictions on partition key columns
	token      *Restriction
	clustering []*Restriction // sorted by first column position
	nonPK      []*Restriction

	// isKeyRange: the query reads a range of partitions (no partition key,
	// or one that needs filtering, or a token() range over a partial key).
	isKeyRange bool
	// pkNeedsFiltering: the partition key restrictions are row filters
	// (PartitionKeyRestrictions.needFiltering).
	pkNeedsFiltering bool
	// clusteringNeedsFilter: some clustering restriction is not part of the
	// prefix that slices select (ClusteringColumnRestrictions.needFiltering).
	clusteringNeedsFilter bool
	// hasQueriableIndex: some restriction has a supporting index;
	// hasClusteringIndex: some clustering restriction has one.
	hasQueriableIndex, hasClusteringIndex bool
	// usesIndex is StatementRestrictions.usesSecondaryIndexing.
	usesIndex bool
	// rowFilter are the restrictions Cassandra puts in the RowFilter
	// (filterRestrictions): the ones an index or filtering must answer.
	rowFilter []*Restriction
}

func (b *binder) analyseWhere(t *catalog.Table, rels []ast.Relation, stmt statementType, allowFiltering bool) (*where, error) {
	w := &where{table: t, stmt: stmt, allowFiltering: allowFiltering, pk: map[string]*Restriction{}}
	for _, rel := range rels {
		r, err := b.toRestriction(t, rel)
		if err != nil {
			return nil, err
		}
		if err := w.add(r); err != nil {
			return nil, err
		}
	}
	if stmt == stmtSelect {
		w.findSupportingIndexes()
	}
	return w, nil
}

// add files a restriction into its set, merging it with what restricts the
// same column already (RestrictionSet.addRestriction).
func (w *where) add(r *Restriction) error {
	switch {
	case r.OnToken:
		if w.token == nil {
			w.token = r
			return nil
		}
		merged, err := mergeRestrictions(w.token, r)
		w.token = merged
		return err
	case r.Multi || r.first().Kind == catalog.Clustering:
		return w.addClustering(r)
	case r.first().Kind == catalog.PartitionKey:
		name := r.first().Name
		if old := w.pk[name]; old != nil {
			merged, err := mergeRestrictions(old, r)
			w.pk[name] = merged
			return err
		}
		w.pk[name] = r
		return nil
	}
	for i, old := range w.nonPK {
		if old.first() == r.first() {
			merged, err := mergeRestrictions(old, r)
			w.nonPK[i] = merged
			return err
		}
	}
	w.nonPK = append(w.nonPK, r)
	return nil
}

// addClustering is ClusteringColumnRestrictions.mergeWith.
func (w *where) addClustering(r *Restriction) error {
	var overlapping []int
	for i, old := range w.clustering {
		if sharesColumn(old, r) {
			overlapping = append(overlapping, i)
		}
	}
	// A restriction on a column restricted already merges with it (and
	// merging reports the conflicts); only a new column is placed.
	if len(w.clustering) > 0 && !w.allowFiltering && len(overlapping) == 0 {
		last := w.clustering[len(w.clustering)-1]
		lastStart, newStart := last.first(), r.first()
		if last.isSlice() && newStart.Position > lastStart.Position {
			return cqlerr.Invalidf("Clustering column \"%s\" cannot be restricted (preceding column \"%s\" is restricted by a non-EQ relation)",
				newStart.Name, lastStart.Name)
		}
		if newStart.Position < lastStart.Position && r.isSlice() {
			// The message names the next restricted column, not the next
			// clustering column (restrictions.nextColumn).
			next := lastStart
			for _, old := range w.clustering {
				if p := old.first().Position; p > newStart.Position && p < next.Position {
					next = old.first()
				}
			}
			return cqlerr.Invalidf("PRIMARY KEY column \"%s\" cannot be restricted (preceding column \"%s\" is restricted by a non-EQ relation)",
				next.Name, newStart.Name)
		}
	}
	if len(overlapping) == 0 {
		w.clustering = append(w.clustering, r)
		sort.SliceStable(w.clustering, func(i, j int) bool {
			return w.clustering[i].first().Position < w.clustering[j].first().Position
		})
		return nil
	}
	merged := r
	for _, i := range overlapping {
		m, err := mergeRestrictions(w.clustering[i], merged)
		if err != nil {
			return err
		}
		merged = m
	}
	kept := w.clustering[:0]
	for i, old := range w.clustering {
		if !containsInt(overlapping, i) {
			kept = append(kept, old)
		}
	}
	w.clustering = append(kept, merged)
	sort.SliceStable(w.clustering, func(i, j int) bool {
		return w.clustering[i].first().Position < w.clustering[j].first().Position
	})
	return nil
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func sharesColumn(a, b *Restriction) bool {
	for _, x := range a.Columns {
		for _, y := range b.Columns {
			if x == y {
				return true
			}
		}
	}
	return false
}

func commonColumns(a, b *Restriction) string {
	var names []string
	for _, x := range a.Columns {
		for _, y := range b.Columns {
			if x == y {
				names = append(names, x.Name)
			}
		}
	}
	return strings.Join(names, ", ")
}

// mergeCollectionRestrictions merges CONTAINS, CONTAINS KEY and map-entry
// relations on one collection into one CONTAINS restriction that requires
// them all.
func mergeCollectionRestrictions(old, r *Restriction) *Restriction {
	asContains := func(x *Restriction) *Restriction {
		if x.Kind != RestrictMapEQ {
			return x
		}
		return &Restriction{Kind: RestrictContains, Columns: x.Columns, Entries: []MapEntry{{x.MapKey, x.Value}}, Text: x.Text}
	}
	old, r = asContains(old), asContains(r)
	merged := *old
	merged.Contains = append(append([]*Term(nil), old.Contains...), r.Contains...)
	merged.ContainsKey = append(append([]*Term(nil), old.ContainsKey...), r.ContainsKey...)
	merged.Entries = append(append([]MapEntry(nil), old.Entries...), r.Entries...)
	return &merged
}

// mergeRestrictions merges two restrictions on the same column(s)
// (SingleColumnRestriction / MultiColumnRestriction / TokenRestriction
// mergeWith).
func mergeRestrictions(old, r *Restriction) (*Restriction, error) {
	name := old.columnNames()
	if old.Multi {
		name = commonColumns(old, r)
	}
	if old.OnToken {
		name = "token(" + old.columnNames() + ")"
	}
	switch old.Kind {
	case RestrictEQ, RestrictMapEQ:
		if old.Kind == RestrictMapEQ && (r.Kind == RestrictMapEQ || r.Kind == RestrictContains) {
			return mergeCollectionRestrictions(old, r), nil
		}
		return nil, cqlerr.Invalidf("%s cannot be restricted by more than one relation if it includes an Equal", name)
	case RestrictIN:
		return nil, cqlerr.Invalidf("%s cannot be restricted by more than one relation if it includes a IN", name)
	case RestrictContains:
		if r.Kind != RestrictContains && r.Kind != RestrictMapEQ {
			return nil, cqlerr.Invalidf("Collection column %s can only be restricted by CONTAINS, CONTAINS KEY, or map-entry equality", name)
		}
		return mergeCollectionRestrictions(old, r), nil
	}
	if !r.isSlice() {
		return nil, cqlerr.Invalidf("Column \"%s\" cannot be restricted by both an equality and an inequality relation", name)
	}
	if (old.Multi || r.Multi) && old.first() != r.first() {
		return nil, cqlerr.Invalidf("Column \"%s\" cannot be restricted by two inequalities not starting with the same column", r.first().Name)
	}
	if old.Multi != r.Multi {
		// Cassandra 5.0 merges a single-column slice with a multi-column
		// slice starting at that column (4.1 refused the mix): the column
		// is a one-element tuple, (b) > (1) AND (b, c) < (2, 3).
		old, r = asMultiColumn(old), asMultiColumn(r)
	}
	merged := *old
	if r.Start.Value != nil {
		if old.Start.Value != nil {
			return nil, cqlerr.Invalidf("More than one restriction was found for the start bound on %s", name)
		}
		merged.Start = r.Start
	}
	if r.End.Value != nil {
		if old.End.Value != nil {
			return nil, cqlerr.Invalidf("More than one restriction was found for the end bound on %s", name)
		}
		merged.End = r.End
	}
	if len(r.Columns) > len(merged.Columns) {
		merged.Columns = r.Columns
	}
	merged.Text = old.Text + " AND " + r.Text
	return &merged, nil
}

// asMultiColumn returns a single-column slice as the multi-column slice on
// that one column.
func asMultiColumn(r *Restriction) *Restriction {
	if r.Multi {
		return r
	}
	out := *r
	out.Multi = true
	tuple := func(b Bound) Bound {
		if b.Value != nil {
			b.Value = &Term{Kind: TermTuple, Type: tupleType(r.Columns), Args: []*Term{b.Value}, Text: "(" + b.Value.String() + ")"}
			b.Size = 1
		}
		return b
	}
	out.Start, out.End = tuple(r.Start), tuple(r.End)
	return &out
}

// unrestrictedPK lists the partition key columns without a restriction.
func (w *where) unrestrictedPK() []string {
	var out []string
	for _, c := range w.table.PartitionKey {
		if w.pk[c.Name] == nil {
			out = append(out, c.Name)
		}
	}
	return out
}

func (w *where) pkHasSliceOrContains() bool {
	for _, r := range w.pk {
		if r.isSlice() || r.Kind == RestrictContains {
			return true
		}
	}
	return false
}

// processPartitionKey is StatementRestrictions.processPartitionKeyRestrictions.
func (w *where) processPartitionKey() error {
	if w.stmt != stmtSelect {
		if w.token != nil {
			return cqlerr.Invalidf("The token function cannot be used in WHERE clauses for %s statements", w.stmt)
		}
		if missing := w.unrestrictedPK(); len(missing) > 0 {
			return cqlerr.Invalidf("Some partition key parts are missing: %s", strings.Join(missing, ", "))
		}
		if w.pkHasSliceOrContains() {
			return cqlerr.Invalidf("Only EQ and IN relation are supported on the partition key (unless you use the token() function) for %s statements", w.stmt)
		}
		return nil
	}
	// PartitionKeyRestrictions.needFiltering: a partial key, or a slice or
	// CONTAINS on a key column. A token() range beside a complete EQ/IN key
	// only narrows the named partitions (its isOnToken is false), so that
	// query reads partitions by key and needs no filtering.
	w.pkNeedsFiltering = len(w.pk) > 0 && (len(w.unrestrictedPK()) > 0 || w.pkHasSliceOrContains())
	if w.token != nil && (len(w.pk) == 0 || w.pkNeedsFiltering) {
		w.isKeyRange = true
	}
	if len(w.pk) == 0 && w.token == nil {
		w.isKeyRange = true
		w.usesIndex = w.hasQueriableIndex
	}
	if w.pkNeedsFiltering {
		if !w.allowFiltering && !w.hasQueriableIndex {
			return cqlerr.Invalidf(RequiresAllowFiltering)
		}
		w.isKeyRange = true
		w.usesIndex = w.hasQueriableIndex
	}
	if w.usesIndex || w.pkNeedsFiltering {
		for _, c := range w.table.PartitionKey {
			if r := w.pk[c.Name]; r != nil {
				w.rowFilter = append(w.rowFilter, r)
			}
		}
	}
	return nil
}

// clusteringNeedsFiltering is ClusteringColumnRestrictions.needFiltering:
// restrictions must cover a prefix of the clustering columns, with nothing
// after a slice.
func (w *where) clusteringNeedsFiltering() bool {
	_, rest := w.slicePrefix()
	return len(rest) > 0
}

// processClustering is StatementRestrictions.processClusteringColumnsRestrictions.
func (w *where) processClustering(staticOnly bool) error {
	if staticOnly && len(w.clustering) > 0 {
		if w.stmt == stmtSelect {
			return cqlerr.Invalidf("Cannot restrict clustering columns when selecting only static columns")
		}
		return cqlerr.Invalidf("Invalid restrictions on clustering columns since the %s statement modifies only static columns", w.stmt)
	}
	hasSlice := false
	for _, r := range w.clustering {
		hasSlice = hasSlice || r.isSlice()
	}
	if w.stmt == stmtUpdate {
		if hasSlice {
			return cqlerr.Invalidf("Slice restrictions are not supported on the clustering columns in %s statements", w.stmt)
		}
		if !staticOnly {
			if missing := w.unrestrictedClustering(); len(missing) > 0 {
				return cqlerr.Invalidf("Some clustering keys are missing: %s", strings.Join(missing, ", "))
			}
		}
		return nil
	}
	for _, r := range w.clustering {
		if r.Kind == RestrictContains && !w.allowFiltering && !w.hasQueriableIndex {
			return cqlerr.Invalidf("Clustering columns can only be restricted with CONTAINS with a secondary index or filtering")
		}
	}
	w.clusteringNeedsFilter = len(w.clustering) > 0 && w.clusteringNeedsFiltering()
	if w.clusteringNeedsFilter {
		switch {
		case w.hasQueriableIndex && w.stmt == stmtSelect:
			w.usesIndex = true
		case !w.allowFiltering || w.stmt != stmtSelect:
			if err := w.checkClusteringPrefix(); err != nil {
				return err
			}
		}
	}
	if w.stmt != stmtSelect {
		return nil
	}
	// Covers indexes on the first clustering column (among others).
	if w.isKeyRange && w.hasClusteringIndex {
		w.usesIndex = true
	}
	if w.usesIndex || w.clusteringNeedsFilter {
		w.rowFilter = append(w.rowFilter, w.clustering...)
	}
	return nil
}

// checkClusteringPrefix rejects restrictions that skip a clustering column.
func (w *where) checkClusteringPrefix() error {
	var restricted []*catalog.Column
	for _, r := range w.clustering {
		restricted = append(restricted, r.Columns...)
	}
	for i, rc := range restricted {
		if cc := w.table.Clustering[i]; cc != rc {
			return cqlerr.Invalidf("PRIMARY KEY column \"%s\" cannot be restricted as preceding column \"%s\" is not restricted", rc.Name, cc.Name)
		}
	}
	return nil
}

func (w *where) unrestrictedClustering() []string {
	restricted := map[*catalog.Column]bool{}
	for _, r := range w.clustering {
		for _, c := range r.Columns {
			restricted[c] = true
		}
	}
	var out []string
	for _, c := range w.table.Clustering {
		if !restricted[c] {
			out = append(out, c.Name)
		}
	}
	return out
}

// processNonPrimaryKey handles restrictions on regular and static columns.
func (w *where) processNonPrimaryKey() error {
	if len(w.nonPK) == 0 {
		return nil
	}
	if w.stmt != stmtSelect {
		names := make([]string, len(w.nonPK))
		for i, r := range w.nonPK {
			names[i] = r.first().Name
		}
		return cqlerr.Invalidf("Non PRIMARY KEY columns found in where clause: %s ", strings.Join(names, ", "))
	}
	if w.hasQueriableIndex {
		w.usesIndex = true
	} else if !w.allowFiltering {
		return cqlerr.Invalidf(RequiresAllowFiltering)
	}
	w.rowFilter = append(w.rowFilter, w.nonPK...)
	return nil
}

// slicePrefix returns the clustering restrictions that select slices: a
// run of EQ/IN restrictions from the first clustering column, then at most
// one slice. The rest, if any, are filters.
func (w *where) slicePrefix() (prefix []*Restriction, rest []*Restriction) {
	position := 0
	for i, r := range w.clustering {
		if r.Kind == RestrictContains || r.first().Position != position {
			return w.clustering[:i], w.clustering[i:]
		}
		if r.isSlice() {
			return w.clustering[:i+1], w.clustering[i+1:]
		}
		position = r.last().Position + 1
	}
	return w.clustering, nil
}

// keyValueType is the type of a value restricting column c.
func keyValueType(c *catalog.Column) *types.Type { return c.Type }
