package engine_test

import (
	"fmt"
	"sort"
)

// This file decides, for a generated SELECT, whether Cassandra accepts it
// and how it reads: the checks of StatementRestrictions' constructor and of
// SelectStatement.RawStatement.prepare, in their order, for the forms the
// generator produces (Cassandra 5.0: src/java/org/apache/cassandra/cql3/
// restrictions/StatementRestrictions.java, ClusteringColumnRestrictions.java,
// statements/SelectStatement.java). Where releases differ, the rules are
// 5.0.6's, checked on a node from scripts/cassandra.sh (4.0 refused IN on
// a regular column, IN on a partially restricted partition key, and an
// index query selecting only static columns; 5.0.6 answers all three).
// Forms whose handling the test does not model exactly are reported as
// unsure and not run.

// rqMsgAllowFiltering is StatementRestrictions.REQUIRES_ALLOW_FILTERING_MESSAGE.
const rqMsgAllowFiltering = "Cannot execute this query as it might involve data filtering and thus may have unpredictable performance. If you want to execute this query despite the performance unpredictability, use ALLOW FILTERING"

// rqMsgPagedInOrderBy is SelectStatement.execute's refusal to page a query
// that is sorted after reading.
const rqMsgPagedInOrderBy = "Cannot page queries with both ORDER BY and a IN restriction on the partition key; you must either remove the ORDER BY or the IN and sort client side, or disable paging for this query"

// rqVerdict is what the rules say about a query.
type rqVerdict struct {
	ok     bool
	msg    string // Cassandra's error when !ok
	unsure string // set: outside what the test models; the query is not run

	keyRange  bool // a range scan in token order (not a list of partitions)
	usesIndex bool
	reversed  bool // read in reverse clustering order
	// postSort: IN on the partition key with ORDER BY; the rows are sorted
	// after reading, and paging is refused, unless emptyRead.
	postSort bool
	// emptyRead: the clustering slices select nothing (whatever columns
	// are selected), so SelectStatement.getQuery makes ReadQuery.empty and
	// a Cassandra 5.0.6 node answers no rows where it would refuse to page.
	emptyRead    bool
	groupPrefix  int // clustering columns in the GROUP BY groups; -1: no GROUP BY
	aggregateAll bool
}

// rqRels is a query's relations by the kind of column they restrict.
type rqRels struct {
	pk, ck, nonPK []*rqRel
	token         *rqRel
}

func rqSplitRelations(q *rqQuery) rqRels {
	var s rqRels
	for _, r := range q.rels {
		switch {
		case r.kind == relToken:
			s.token = r
		case r.first().kind == rqPK:
			s.pk = append(s.pk, r)
		case r.first().kind == rqCK:
			s.ck = append(s.ck, r)
		default:
			s.nonPK = append(s.nonPK, r)
		}
	}
	sort.SliceStable(s.ck, func(i, j int) bool { return s.ck[i].first().pos < s.ck[j].first().pos })
	return s
}

// rqSupportedBy reports whether the (legacy) index on column ix answers
// relation r: EQ on the column, CONTAINS for a set's values() index
// (CassandraIndex.supportsOperator and its collection subclasses).
func rqSupportedBy(r *rqRel, ix string) bool {
	if r.multi || r.kind == relToken || r.first().name != ix {
		return false
	}
	if r.first().typ == rqSetInt {
		return r.kind == relContains
	}
	return r.kind == relEQ
}

func rqSupported(r *rqRel, indexed map[string]bool) bool {
	for ix := range indexed {
		if rqSupportedBy(r, ix) {
			return true
		}
	}
	return false
}

func reject(v rqVerdict, format string, args ...any) rqVerdict {
	v.ok, v.msg = false, fmt.Sprintf(format, args...)
	return v
}

// rqCheck applies Cassandra's acceptance rules to q on a table whose
// indexed columns are given.
func rqCheck(q *rqQuery, indexed map[string]bool) rqVerdict {
	q = rqOneValueINAsEQ(q)
	v := rqVerdict{ok: true, groupPrefix: -1}
	rels := rqSplitRelations(q)
	if why := rqUnsureRelations(q, rels, indexed); why != "" {
		v.unsure = why
		return v
	}
	if !q.allowFiltering {
		if msg := rqMergeClustering(q); msg != "" {
			return reject(v, "%s", msg)
		}
	}
	hasIndex, hasCKIndex := false, false
	for _, r := range q.rels {
		if rqSupported(r, indexed) {
			hasIndex = true
			hasCKIndex = hasCKIndex || r.first().kind == rqCK
		}
	}
	v, filter, stop := rqCheckRestrictions(q, rels, v, hasIndex, hasCKIndex)
	if stop {
		return v
	}
	if v, stop = rqCheckSelection(q, rels, v); stop {
		return v
	}
	if !q.allowFiltering && (v.keyRange || v.usesIndex) && rqNeedsFiltering(filter, rels, indexed) {
		return reject(v, rqMsgAllowFiltering)
	}
	return v
}

// rqOneValueINAsEQ is q with each single-column IN of one value made an
// EQ, as SingleColumnRelation.newINRestriction makes it: an index answers
// v IN (5), v = 5 AND k IN (1) is no index query with IN on the partition
// key, and k IN (1) ... ORDER BY pages (checked on a Cassandra 5.0.6 node
// from scripts/cassandra.sh).
func rqOneValueINAsEQ(q *rqQuery) *rqQuery {
	var out *rqQuery
	for i, r := range q.rels {
		if r.kind == relIN && !r.multi && len(r.in) == 1 {
			if out == nil {
				out = q.clone()
			}
			out.rels[i] = &rqRel{kind: relEQ, cols: r.cols, vals: r.in[0]}
		}
	}
	if out == nil {
		return q
	}
	return out
}

// rqUnsureRelations names the relation forms the test does not model.
func rqUnsureRelations(q *rqQuery, rels rqRels, indexed map[string]bool) string {
	if rels.token != nil && len(rels.pk) > 0 {
		return "token() next to partition key relations (TokenFilter)"
	}
	for _, r := range rels.ck {
		if !r.multi {
			continue
		}
		for _, c := range r.cols {
			if indexed[c.name] {
				return "tuple relation on an indexed clustering column"
			}
		}
	}
	pkIN := false
	for _, r := range rels.pk {
		pkIN = pkIN || r.kind == relIN
	}
	if pkIN && len(q.orderBy) > 0 && (len(q.groupBy) > 0 || q.hasAggregate() || q.distinct) {
		// Sorting aggregated rows after reading (orderResults over the
		// ordering columns added to the selection) is not modelled.
		return "IN and ORDER BY with GROUP BY, aggregates or DISTINCT"
	}
	return ""
}

// rqMergeClustering is the check ClusteringColumnRestrictions.mergeWith
// makes without ALLOW FILTERING as each clustering relation is added, in
// the order of the WHERE clause: nothing may follow a slice.
func rqMergeClustering(q *rqQuery) string {
	var set []*rqRel // sorted by first column
	for _, r := range q.rels {
		if r.kind == relToken || r.first().kind != rqCK {
			continue
		}
		if len(set) > 0 {
			last := set[len(set)-1]
			if last.isSlice() && r.first().pos > last.first().pos {
				return fmt.Sprintf("Clustering column \"%s\" cannot be restricted (preceding column \"%s\" is restricted by a non-EQ relation)", r.first().name, last.first().name)
			}
			if r.first().pos < last.first().pos && r.isSlice() {
				next := last
				for _, o := range set {
					if o.first().pos > r.first().pos {
						next = o
						break
					}
				}
				return fmt.Sprintf("PRIMARY KEY column \"%s\" cannot be restricted (preceding column \"%s\" is restricted by a non-EQ relation)", next.first().name, r.first().name)
			}
		}
		set = append(set, r)
		sort.SliceStable(set, func(i, j int) bool { return set[i].first().pos < set[j].first().pos })
	}
	return ""
}

// rqClusteringNeedsFiltering is ClusteringColumnRestrictions.needFiltering:
// the relations must cover a prefix of the clustering columns, nothing
// after a slice.
func rqClusteringNeedsFiltering(ck []*rqRel) bool {
	position := 0
	for _, r := range ck {
		if r.first().pos != position {
			return true
		}
		if !r.isSlice() {
			position = r.cols[len(r.cols)-1].pos + 1
		}
	}
	return false
}

// rqCheckRestrictions follows StatementRestrictions' constructor
// (processPartitionKeyRestrictions, processClusteringColumnsRestrictions,
// the non-primary-key part, validateSecondaryIndexSelections). It returns
// the relations that end up in the row filter.
func rqCheckRestrictions(q *rqQuery, rels rqRels, v rqVerdict, hasIndex, hasCKIndex bool) (rqVerdict, []*rqRel, bool) {
	v, pkFiltering, stop := rqCheckPartitionKey(q, rels, v, hasIndex)
	if stop {
		return v, nil, true
	}
	var filter []*rqRel
	if v.usesIndex || pkFiltering {
		filter = append(filter, rels.pk...)
	}
	if rqSelectsOnlyStatics(q) && len(rels.ck) > 0 {
		return reject(v, "Cannot restrict clustering columns when selecting only static columns"), nil, true
	}
	ckFiltering := rqClusteringNeedsFiltering(rels.ck)
	if ckFiltering {
		if hasIndex {
			v.usesIndex = true
		} else if !q.allowFiltering {
			var restricted []*rqColumn
			for _, r := range rels.ck {
				restricted = append(restricted, r.cols...)
			}
			for i, c := range restricted {
				if q.t.ck[i] != c {
					return reject(v, "PRIMARY KEY column \"%s\" cannot be restricted as preceding column \"%s\" is not restricted", c.name, q.t.ck[i].name), nil, true
				}
			}
		}
	}
	if v.keyRange && hasCKIndex {
		v.usesIndex = true
	}
	if v.usesIndex || ckFiltering {
		for _, r := range rels.ck {
			if r.multi {
				v.unsure = "tuple relation checked as a filter"
				return v, nil, true
			}
		}
		filter = append(filter, rels.ck...)
	}
	if len(rels.nonPK) > 0 {
		if hasIndex {
			v.usesIndex = true
		} else if !q.allowFiltering {
			return reject(v, rqMsgAllowFiltering), nil, true
		}
		filter = append(filter, rels.nonPK...)
	}
	if v.usesIndex && rqHasKind(rels.pk, relIN) {
		return reject(v, "Select on indexed columns and with IN clause for the PRIMARY KEY are not supported"), nil, true
	}
	return v, filter, false
}

// rqCheckPartitionKey is processPartitionKeyRestrictions: it reports
// whether the partition key relations are filters.
func rqCheckPartitionKey(q *rqQuery, rels rqRels, v rqVerdict, hasIndex bool) (rqVerdict, bool, bool) {
	pkFiltering := len(rels.pk) > 0 && (len(rels.pk) < len(q.t.pk) || rqHasKind(rels.pk, relSlice))
	if rels.token != nil {
		v.keyRange = true
	}
	if len(rels.pk) == 0 && rels.token == nil {
		v.keyRange, v.usesIndex = true, hasIndex
	}
	if pkFiltering {
		if !q.allowFiltering && !hasIndex {
			return reject(v, rqMsgAllowFiltering), false, true
		}
		v.keyRange, v.usesIndex = true, hasIndex
	}
	return v, pkFiltering, false
}

func rqHasKind(rels []*rqRel, kind rqRelKind) bool {
	for _, r := range rels {
		if r.kind == kind {
			return true
		}
	}
	return false
}

// rqSelectsOnlyStatics is SelectStatement.selectOnlyStaticColumns: the
// selection names static columns and no regular or clustering column.
func rqSelectsOnlyStatics(q *rqQuery) bool {
	if q.star || len(q.t.statics) == 0 {
		return false
	}
	static := false
	for _, s := range q.sels {
		if s.col == nil {
			continue
		}
		switch s.col.kind {
		case rqStatic:
			static = true
		case rqCK, rqRegular:
			return false
		}
	}
	return static
}

// rqNeedsFiltering is StatementRestrictions.needFiltering: the row filter
// needs filtering unless one index answers all of it (each legacy index is
// its own index group); an empty filter needs it when clustering columns
// are restricted in a range query.
func rqNeedsFiltering(filter []*rqRel, rels rqRels, indexed map[string]bool) bool {
	if len(filter) == 0 {
		return len(rels.ck) > 0
	}
	for ix := range indexed {
		all := true
		for _, r := range filter {
			all = all && rqSupportedBy(r, ix)
		}
		if all {
			return false
		}
	}
	return true
}

// rqCheckSelection follows SelectStatement.RawStatement.prepare after the
// restrictions: DISTINCT, GROUP BY and aggregates, ORDER BY.
func rqCheckSelection(q *rqQuery, rels rqRels, v rqVerdict) (rqVerdict, bool) {
	if q.distinct {
		if q.ppl > 0 {
			return reject(v, "PER PARTITION LIMIT is not allowed with SELECT DISTINCT queries"), true
		}
		if msg := rqCheckDistinct(q, rels, v); msg != "" {
			return reject(v, "%s", msg), true
		}
	}
	if len(q.groupBy) == 0 {
		v.aggregateAll = q.hasAggregate()
	} else {
		prefix, msg := rqCheckGroupBy(q)
		if msg != "" {
			return reject(v, "%s", msg), true
		}
		v.groupPrefix = prefix
	}
	if v.aggregateAll && q.ppl > 0 {
		return reject(v, "PER PARTITION LIMIT is not allowed with aggregate queries."), true
	}
	if len(q.orderBy) > 0 {
		if v.usesIndex {
			return reject(v, "ORDER BY with 2ndary indexes is not supported, except for ANN queries."), true
		}
		if v.keyRange {
			return reject(v, "ORDER BY is only supported when the partition key is restricted by an EQ or an IN."), true
		}
		reversed, msg := rqCheckOrderBy(q)
		if msg != "" {
			return reject(v, "%s", msg), true
		}
		v.reversed = reversed
		for _, r := range rels.pk {
			v.postSort = v.postSort || r.kind == relIN
		}
		v.emptyRead = rqEmptySlices(rels.ck)
	}
	return v, false
}

// rqCheckDistinct is SelectStatement.validateDistinctSelection.
func rqCheckDistinct(q *rqQuery, rels rqRels, v rqVerdict) string {
	nonStatic := false
	for _, r := range rels.nonPK {
		nonStatic = nonStatic || r.first().kind != rqStatic
	}
	if len(rels.ck) > 0 || nonStatic {
		return "SELECT DISTINCT with WHERE clause only supports restriction by partition key and/or static columns."
	}
	selected := map[*rqColumn]bool{}
	for _, s := range q.selectors() {
		if s.col != nil && s.col.kind != rqPK && s.col.kind != rqStatic {
			return fmt.Sprintf("SELECT DISTINCT queries must only request partition key columns and/or static columns (not %s)", s.col.name)
		}
		selected[s.col] = true
	}
	if !v.keyRange {
		return ""
	}
	for _, c := range q.t.pk {
		if !selected[c] {
			return fmt.Sprintf("SELECT DISTINCT queries must request all the partition key columns (missing %s)", c.name)
		}
	}
	return ""
}

// rqEQRestrictedColumn is StatementRestrictions.isColumnRestrictedByEq: a
// single-column EQ on c.
func rqEQRestrictedColumn(q *rqQuery, c *rqColumn) bool { return rqEQRestricted(q, c) }

// rqCheckGroupBy is SelectStatement.getAggregationSpecification: the GROUP
// BY columns follow the primary key, skipping only EQ-restricted columns,
// and cover the whole partition key.
func rqCheckGroupBy(q *rqQuery) (int, string) {
	const order = "Group by currently only support groups of columns following their declared order in the PRIMARY KEY"
	keys := append(append([]*rqColumn{}, q.t.pk...), q.t.ck...)
	next, prefix := 0, 0
	for _, g := range q.groupBy {
		for {
			if next == len(keys) {
				return 0, order
			}
			k := keys[next]
			next++
			if k.kind == rqCK {
				prefix++
			}
			if k == g {
				break
			}
			if !rqEQRestrictedColumn(q, k) {
				return 0, order
			}
		}
	}
	if next < len(keys) && keys[next].kind == rqPK {
		return 0, "Group by is not supported on only a part of the partition key"
	}
	if prefix > 0 && q.distinct {
		return 0, "Grouping on clustering columns is not allowed for SELECT DISTINCT queries"
	}
	return prefix, ""
}

// rqCheckOrderBy is SelectStatement.isReversed: clustering columns in
// declared order (skipping EQ-restricted ones), all in the table's order or
// all reversed.
func rqCheckOrderBy(q *rqQuery) (bool, string) {
	i := 0
	var reversed *bool
	for n, c := range q.orderBy {
		if c.kind != rqCK {
			return false, fmt.Sprintf("Order by is currently only supported on the clustered columns of the PRIMARY KEY, got %s", c.name)
		}
		for i != c.pos {
			if i > c.pos || !rqEQRestrictedColumn(q, q.t.ck[i]) {
				return false, "Order by currently only supports the ordering of columns following their declared order in the PRIMARY KEY"
			}
			i++
		}
		i++
		r := q.orderDesc[n] != c.desc
		if reversed != nil && *reversed != r {
			return false, "Unsupported order by relation"
		}
		reversed = &r
	}
	return *reversed, ""
}

// rqEmptySlices reports whether the clustering relations that make slices
// (the prefix up to the first slice or gap; later ones are filters) end in
// a slice whose bounds select nothing (Slice.isEmpty): its end bound does
// not sort after its start bound, a bound on a prefix of the columns
// sorting before (inclusive start, exclusive end) or after (exclusive
// start, inclusive end) every key with that prefix.
func rqEmptySlices(ck []*rqRel) bool {
	var r *rqRel
	position := 0
	for _, c := range ck {
		if c.first().pos != position {
			break
		}
		if c.isSlice() {
			r = c
			break
		}
		position = c.cols[len(c.cols)-1].pos + 1
	}
	if r == nil || r.lo == nil || r.hi == nil {
		return false
	}
	loSide, hiSide := 1, -1
	if r.lo.incl {
		loSide = -1
	}
	if r.hi.incl {
		hiSide = 1
	}
	n := min(len(r.lo.vals), len(r.hi.vals))
	for i := 0; i < n; i++ {
		if c := rqCompare(r.cols[i].typ, r.lo.vals[i], r.hi.vals[i]); c != 0 {
			return c > 0
		}
	}
	switch {
	case len(r.lo.vals) < len(r.hi.vals):
		return loSide > 0
	case len(r.lo.vals) > len(r.hi.vals):
		return hiSide < 0
	}
	return loSide >= hiSide
}
