package exec

import (
	"bytes"
	"sort"
	"strings"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/plan"
	"github.com/partita-db/partita/internal/token"
	"github.com/partita-db/partita/internal/types"
)

// partitionKey is one resolved partition key.
type partitionKey struct {
	components [][]byte
	logical    backend.LogicalPartition
}

func newPartitionKey(t *catalog.Table, components [][]byte) (partitionKey, error) {
	// A component too long for the composite's 2-byte length is refused
	// with the sum of the components' lengths, as Cassandra 5.0 reports it
	// (testdata/key_limits); otherwise the serialized key is checked.
	if len(components) > 1 {
		total, tooLong := 0, false
		for _, c := range components {
			total += len(c)
			tooLong = tooLong || len(c) > token.MaxKeyLength
		}
		if tooLong {
			return partitionKey{}, cqlerr.Invalidf("Key length of %d is longer than maximum of %d", total, token.MaxKeyLength)
		}
	}
	key := token.SerializeKey(components)
	if len(components) == 1 && len(key) == 0 {
		return partitionKey{}, cqlerr.Invalidf("Key may not be empty")
	}
	if err := token.ValidateKey(key); err != nil {
		return partitionKey{}, err
	}
	return partitionKey{components: components, logical: backend.LogicalPartition{Table: t.StorageID, Token: token.Of(key), Key: key}}, nil
}

// partitionKeys is the cartesian product of each partition key column's
// values, de-duplicated and sorted by the columns' types (Cassandra reads
// IN partitions in that order).
func (e *evaluator) partitionKeys(t *catalog.Table, perColumn [][]*plan.Term) ([]partitionKey, error) {
	combos, err := e.partitionKeyComponents(t, perColumn)
	if err != nil {
		return nil, err
	}
	out := make([]partitionKey, 0, len(combos))
	for _, c := range combos {
		pk, err := newPartitionKey(t, c)
		if err != nil {
			return nil, err
		}
		out = append(out, pk)
	}
	return out, nil
}

// partitionKeyComponents is partitionKeys before the keys are checked: the
// components of each key, de-duplicated and sorted.
func (e *evaluator) partitionKeyComponents(t *catalog.Table, perColumn [][]*plan.Term) ([][][]byte, error) {
	combos := [][][]byte{nil}
	for i, terms := range perColumn {
		vals, err := e.keyValues(t.PartitionKey[i].Name, terms)
		if err != nil {
			return nil, err
		}
		next := make([][][]byte, 0, len(combos)*len(vals))
		for _, c := range combos {
			for _, v := range vals {
				next = append(next, append(append([][]byte(nil), c...), v))
			}
		}
		combos = next
	}
	sort.SliceStable(combos, func(i, j int) bool { return compareComponents(t.PartitionKey, combos[i], combos[j]) < 0 })
	out := make([][][]byte, 0, len(combos))
	for i, c := range combos {
		if i > 0 && compareComponents(t.PartitionKey, combos[i-1], c) == 0 {
			continue
		}
		out = append(out, c)
	}
	return out, nil
}

func compareComponents(cols []*catalog.Column, a, b [][]byte) int {
	for i, c := range cols {
		if r := types.Compare(c.Type, a[i], b[i]); r != 0 {
			return r
		}
	}
	return 0
}

// encodeClustering appends the order-preserving encoding of clustering
// values starting at column position from.
func encodeClustering(dst []byte, t *catalog.Table, from int, values [][]byte) []byte {
	for i, v := range values {
		c := t.Clustering[from+i]
		dst = types.AppendKey(dst, c.Type, v, c.Desc)
	}
	return dst
}

// decodeClustering splits an encoded clustering key into its values.
func decodeClustering(t *catalog.Table, key []byte, dst [][]byte) ([][]byte, error) {
	dst = dst[:0]
	rest := key
	for _, c := range t.Clustering {
		if len(rest) == 0 {
			break
		}
		v, r, err := types.DecodeKey(c.Type, rest, c.Desc)
		if err != nil {
			return nil, err
		}
		dst = append(dst, v)
		rest = r
	}
	return dst, nil
}

// clusteringTuples evaluates one EQ/IN restriction into the value tuples
// it allows (one value per column of the restriction).
func (e *evaluator) clusteringTuples(r *plan.Restriction) ([][][]byte, error) {
	terms := r.Values
	if r.Kind == plan.RestrictEQ {
		terms = []*plan.Term{r.Value}
	}
	name := r.Columns[0].Name
	if r.Multi {
		if err := e.checkTupleUnset(r, terms); err != nil {
			return nil, err
		}
	}
	vals, err := e.keyValues(name, terms)
	if err != nil {
		return nil, err
	}
	out := make([][][]byte, 0, len(vals))
	for _, v := range vals {
		if !r.Multi {
			out = append(out, [][]byte{v})
			continue
		}
		parts, err := types.DecodeTuple(types.TupleOf(columnTypes(r.Columns)...), v)
		if err != nil {
			return nil, err
		}
		if len(parts) != len(r.Columns) {
			return nil, cqlerr.Invalidf("Expected %d elements in value tuple, but got %d", len(r.Columns), len(parts))
		}
		for i, p := range parts {
			if p == nil && r.Kind == plan.RestrictIN {
				// An IN tuple names all its columns (MultiColumnRestriction IN).
				return nil, cqlerr.Invalidf("Invalid null value in condition for columns: [%s]", columnNameList(r.Columns))
			}
			if p == nil {
				// An equality's tuple element; a slice bound's says "in
				// condition".
				return nil, cqlerr.Invalidf("Invalid null value for column %s", r.Columns[i].Name)
			}
		}
		out = append(out, parts)
	}
	return out, nil
}

func columnNameList(cols []*catalog.Column) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

func columnTypes(cols []*catalog.Column) []*types.Type {
	out := make([]*types.Type, len(cols))
	for i, c := range cols {
		out[i] = c.Type
	}
	return out
}

// clusteringPrefixes is the cartesian product of the EQ/IN restrictions, as
// encoded prefixes; the last restriction may be a slice, returned apart.
func (e *evaluator) clusteringPrefixes(t *catalog.Table, rs []*plan.Restriction) ([][]byte, *plan.Restriction, error) {
	prefixes := [][]byte{nil}
	for _, r := range rs {
		if r.Kind == plan.RestrictSlice {
			return prefixes, r, nil
		}
		tuples, err := e.clusteringTuples(r)
		if err != nil {
			return nil, nil, err
		}
		next := make([][]byte, 0, len(prefixes)*len(tuples))
		for _, p := range prefixes {
			for _, tup := range tuples {
				next = append(next, encodeClustering(append([]byte(nil), p...), t, r.Columns[0].Position, tup))
			}
		}
		prefixes = next
	}
	return prefixes, nil, nil
}

// clusteringSlices turns clustering restrictions into sorted, disjoint
// slices of the encoded key space.
func (e *evaluator) clusteringSlices(t *catalog.Table, rs []*plan.Restriction) ([]backend.Slice, error) {
	prefixes, slice, err := e.clusteringPrefixes(t, rs)
	if err != nil {
		return nil, err
	}
	var out []backend.Slice
	for _, p := range prefixes {
		if slice == nil {
			out = append(out, backend.PrefixSlice(p))
			continue
		}
		ss, err := e.sliceRanges(t, p, slice)
		if err != nil {
			return nil, err
		}
		out = append(out, ss...)
	}
	return normalizeSlices(out), nil
}

// clusteringEmpty reports that clustering restrictions select nothing as
// Cassandra judges it before reading (Slice.isEmpty): no prefix is left
// (IN ()), or the slice's start lies after its end, or on it without both
// being inclusive, comparing the bounds' values. Bounds with no value
// between them, such as c > 2 AND c < 3 on an int, are not empty to
// Cassandra, though their key range is. A shorter bound equal to the start
// of a longer one lies before its extension when it is an inclusive start
// or an exclusive end, after it otherwise.
func (e *evaluator) clusteringEmpty(t *catalog.Table, rs []*plan.Restriction) (bool, error) {
	prefixes, slice, err := e.clusteringPrefixes(t, rs)
	if err != nil {
		return false, err
	}
	if len(prefixes) == 0 {
		return true, nil
	}
	if slice == nil || slice.Start.Value == nil || slice.End.Value == nil {
		return false, nil
	}
	lo, err := e.boundValues(slice, slice.Start)
	if err != nil {
		return false, err
	}
	hi, err := e.boundValues(slice, slice.End)
	if err != nil {
		return false, err
	}
	base := slice.Columns[0].Position
	for i := 0; i < len(lo) && i < len(hi); i++ {
		if c := types.Compare(t.Clustering[base+i].Type, lo[i], hi[i]); c != 0 {
			return c > 0, nil
		}
	}
	switch {
	case len(lo) < len(hi):
		return !slice.Start.Inclusive, nil
	case len(lo) > len(hi):
		return !slice.End.Inclusive, nil
	default:
		return !slice.Start.Inclusive || !slice.End.Inclusive, nil
	}
}

// boundValues evaluates a slice bound into the values of its columns.
func (e *evaluator) boundValues(r *plan.Restriction, b plan.Bound) ([][]byte, error) {
	v, unset, err := e.evalValid(b.Value)
	if err != nil {
		return nil, err
	}
	if unset && r.Multi {
		if err := e.checkTupleUnset(r, []*plan.Term{b.Value}); err != nil {
			return nil, err
		}
	}
	if unset {
		return nil, cqlerr.Invalidf("Invalid unset value for column %s", r.Columns[0].Name)
	}
	if v == nil {
		return nil, cqlerr.Invalidf("Invalid null value in condition for column %s", r.Columns[0].Name)
	}
	if !r.Multi {
		return [][]byte{v}, nil
	}
	cols := r.BoundColumns(b)
	parts, err := types.DecodeTuple(types.TupleOf(columnTypes(cols)...), v)
	if err != nil {
		return nil, err
	}
	for i, p := range parts {
		if p == nil {
			return nil, cqlerr.Invalidf("Invalid null value in condition for column %s", cols[i].Name)
		}
	}
	return parts, nil
}

// sliceRanges expresses a (possibly multi-column) slice under a prefix as
// key ranges. (c1..cn) > (v1..vn) is the union over i of c1=v1 … c(i-1)=v(i-1)
// AND ci > vi; each term is one contiguous range whose direction depends on
// whether ci is stored descending.
func (e *evaluator) sliceRanges(t *catalog.Table, prefix []byte, r *plan.Restriction) ([]backend.Slice, error) {
	base := r.Columns[0].Position
	side := func(b plan.Bound, lower bool) ([]backend.Slice, error) {
		if b.Value == nil {
			return []backend.Slice{backend.PrefixSlice(prefix)}, nil
		}
		vals, err := e.boundValues(r, b)
		if err != nil {
			return nil, err
		}
		var out []backend.Slice
		p := append([]byte(nil), prefix...)
		for i, v := range vals {
			col := t.Clustering[base+i]
			q := types.AppendKey(append([]byte(nil), p...), col.Type, v, col.Desc)
			last := i == len(vals)-1
			out = append(out, oneSide(p, q, lower, col.Desc, last && b.Inclusive))
			p = q
		}
		return out, nil
	}
	lows, err := side(r.Start, true)
	if err != nil {
		return nil, err
	}
	highs, err := side(r.End, false)
	if err != nil {
		return nil, err
	}
	var out []backend.Slice
	for _, lo := range lows {
		for _, hi := range highs {
			if s := lo.Intersect(hi); !s.IsEmpty() {
				out = append(out, s)
			}
		}
	}
	return out, nil
}

// oneSide is the range of keys under prefix p whose next component is
// greater (lower bound) or smaller (upper bound) than the one q ends with.
func oneSide(p, q []byte, lower, desc, inclusive bool) backend.Slice {
	after := backend.PrefixSuccessor(q) // first key past every key starting with q
	end := backend.PrefixSuccessor(p)
	if len(p) == 0 {
		end = nil
	}
	greater := lower != desc // in key order, "greater values" come after q when ascending
	switch {
	case greater && inclusive:
		return backend.Slice{Start: q, End: end}
	case greater:
		return backend.Slice{Start: after, End: end}
	case inclusive:
		return backend.Slice{Start: p, End: after}
	default:
		return backend.Slice{Start: p, End: q}
	}
}

// normalizeSlices sorts slices and merges overlapping or touching ones.
func normalizeSlices(in []backend.Slice) []backend.Slice {
	var s []backend.Slice
	for _, x := range in {
		if !x.IsEmpty() {
			s = append(s, x)
		}
	}
	sort.Slice(s, func(i, j int) bool { return bytes.Compare(s[i].Start, s[j].Start) < 0 })
	out := s[:0]
	for _, x := range s {
		if n := len(out); n > 0 {
			prev := &out[n-1]
			if prev.End == nil || bytes.Compare(x.Start, prev.End) <= 0 {
				if prev.End != nil && (x.End == nil || bytes.Compare(x.End, prev.End) > 0) {
					prev.End = x.End
				}
				continue
			}
		}
		out = append(out, x)
	}
	return out
}

// inTokenRange reports whether tok lies between two token bounds (nil:
// unbounded).
func inTokenRange(tok token.Token, start, end *backend.TokenBound) bool {
	if start != nil && (tok < start.Token || tok == start.Token && !start.Inclusive) {
		return false
	}
	return end == nil || tok < end.Token || tok == end.Token && end.Inclusive
}

// sliceSet holds a query's clustering slices (sorted, disjoint) for reads
// that cannot seek to them: a range scan reads every row of a partition in
// order and keeps those inside.
type sliceSet []backend.Slice

// contains reports whether the clustering key k is inside a slice.
func (s sliceSet) contains(k []byte) bool {
	i := sort.Search(len(s), func(i int) bool { return s[i].End == nil || bytes.Compare(k, s[i].End) < 0 })
	return i < len(s) && s[i].Contains(k)
}

// past reports whether the clustering key k lies after every slice, so no
// later row of its partition (in clustering order) is inside one.
func (s sliceSet) past(k []byte) bool {
	if len(s) == 0 {
		return true
	}
	last := s[len(s)-1]
	return last.End != nil && bytes.Compare(k, last.End) >= 0
}

// checkTupleUnset refuses a multi-column relation whose tuple, or list of
// tuples (IN ?), is bound unset, in the words of Cassandra's
// MultiColumnRestriction: "tuple (a, b)", "in(a, b)".
func (e *evaluator) checkTupleUnset(r *plan.Restriction, terms []*plan.Term) error {
	for _, t := range terms {
		if t.Kind != plan.TermBind && t.Kind != plan.TermBindList || t.Bind >= len(e.values) || !e.values[t.Bind].Unset {
			continue
		}
		names := make([]string, len(r.Columns))
		for i, c := range r.Columns {
			names[i] = c.Name
		}
		if t.Kind == plan.TermBindList {
			return cqlerr.Invalidf("Invalid unset value for in(%s)", strings.Join(names, ", "))
		}
		return cqlerr.Invalidf("Invalid unset value for tuple (%s)", strings.Join(names, ", "))
	}
	return nil
}
