package functions

import (
	"math"
	"math/big"

	"github.com/partita-db/partita/internal/types"
)

// map_keys, map_values, collection_count, collection_min, collection_max,
// collection_sum and collection_avg (cql3/functions/CollectionFcts.java):
// one overload per collection type. The aggregating ones treat the
// elements as the aggregates of the same names treat rows.
func registerCollectionFunctions() {
	// map_keys is a set of the keys, map_values a list of the values.
	for _, side := range []struct {
		name  string
		index int
		of    func(*types.Type) *types.Type
	}{{"map_keys", 0, types.SetOf}, {"map_values", 1, types.ListOf}} {
		side := side
		registerFactory(&Factory{Name: side.name, Params: []Param{anyMapParam()}, build: func(a []*types.Type) *Func {
			return &Func{Name: side.name, Args: a, Return: side.of(types.Frozen(a[0].Elems[side.index])), Deterministic: true,
				Impl: func(v [][]byte) ([]byte, error) {
					keys, vals, err := types.DecodeMap(v[0])
					if err != nil {
						return nil, err
					}
					if side.index == 0 {
						return types.EncodeCollection(keys), nil
					}
					return types.EncodeCollection(vals), nil
				}}
		}})
	}
	registerFactory(&Factory{Name: "collection_count", Params: []Param{anyCollectionParam()}, build: func(a []*types.Type) *Func {
		return &Func{Name: "collection_count", Args: a, Return: types.Int, Deterministic: true,
			Impl: func(v [][]byte) ([]byte, error) {
				n, err := collectionSize(a[0], v[0])
				if err != nil {
					return nil, err
				}
				return types.EncodeInt(types.Int, int64(n))
			}}
	}})
	for _, name := range []string{"collection_min", "collection_max"} {
		name := name
		registerFactory(&Factory{Name: name, Params: []Param{setOrListParam()}, build: func(a []*types.Type) *Func {
			elem := a[0].Elems[0]
			return &Func{Name: name, Args: a, Return: elem, Deterministic: true,
				Impl: func(v [][]byte) ([]byte, error) {
					elems, err := types.DecodeCollection(v[0])
					if err != nil {
						return nil, err
					}
					var best []byte
					for _, e := range elems {
						if e == nil {
							continue
						}
						if best == nil {
							best = e
							continue
						}
						c := types.Compare(elem, e, best)
						if (name == "collection_max" && c > 0) || (name == "collection_min" && c < 0) {
							best = e
						}
					}
					return best, nil
				}}
		}})
	}
	for _, name := range []string{"collection_sum", "collection_avg"} {
		name := name
		registerFactory(&Factory{Name: name, Params: []Param{numericSetOrListParam()}, build: func(a []*types.Type) *Func {
			elem := a[0].Elems[0]
			return &Func{Name: name, Args: a, Return: elem, Deterministic: true,
				Impl: func(v [][]byte) ([]byte, error) {
					elems, err := types.DecodeCollection(v[0])
					if err != nil {
						return nil, err
					}
					return sumElements(elem, elems, name == "collection_avg")
				}}
		}})
	}
}

func collectionSize(t *types.Type, v []byte) (int, error) {
	if t.Kind == types.KindMap {
		keys, _, err := types.DecodeMap(v)
		return len(keys), err
	}
	elems, err := types.DecodeCollection(v)
	return len(elems), err
}

// sumElements is sum or avg over values of type t: integers exactly,
// wrapped to t at the end (Java's sums overflow), integer averages
// truncated; floats in double; an average of nothing is 0.
func sumElements(t *types.Type, elems [][]byte, avg bool) ([]byte, error) {
	n := int64(0)
	switch t.Kind {
	case types.KindFloat, types.KindDouble:
		var sum float64
		for _, e := range elems {
			if len(e) == 0 {
				continue
			}
			f, err := types.Float64(t, e)
			if err != nil {
				return nil, err
			}
			sum += f
			n++
		}
		if avg {
			if n == 0 {
				sum = 0
			} else {
				sum /= float64(n)
			}
		}
		if t.Kind == types.KindFloat {
			return types.EncodeFloat(float32(sum)), nil
		}
		return types.EncodeDouble(sum), nil
	case types.KindDecimal:
		// The sum is exact; the average is Cassandra's running mean.
		sum := types.BigDecimal{Unscaled: big.NewInt(0)}
		var mean DecimalMean
		for _, e := range elems {
			if len(e) == 0 {
				continue
			}
			d, err := types.DecodeBigDecimal(e)
			if err != nil {
				return nil, err
			}
			sum = exactDecimalAdd(sum, d)
			if err := mean.Add(e); err != nil {
				return nil, err
			}
		}
		if avg {
			return mean.Result(), nil
		}
		return sum.Encode(), nil
	}
	sum := new(big.Int)
	for _, e := range elems {
		if len(e) == 0 {
			continue
		}
		x, err := types.BigInt(t, e)
		if err != nil {
			return nil, err
		}
		sum.Add(sum, x)
		n++
	}
	if avg && n > 0 {
		sum.Quo(sum, big.NewInt(n))
	}
	if t.Kind == types.KindVarint {
		return types.EncodeBigInt(sum), nil
	}
	return types.EncodeInt(t, wrapBig(sum, t))
}

func wrapBig(n *big.Int, t *types.Type) int64 {
	x := new(big.Int).And(n, new(big.Int).SetUint64(math.MaxUint64)).Uint64()
	return wrapToType(int64(x), t)
}

// exactDecimalAdd is BigDecimal.add: exact, at the larger scale.
func exactDecimalAdd(a, b types.BigDecimal) types.BigDecimal {
	if a.Scale < b.Scale {
		a, b = b, a
	}
	u := new(big.Int).Mul(b.Unscaled, pow10(int64(a.Scale)-int64(b.Scale)))
	return types.BigDecimal{Unscaled: u.Add(u, a.Unscaled), Scale: a.Scale}
}

// DecimalMean is the running average of decimals as Cassandra's avg keeps
// it (AggregateFcts.avgFunctionForDecimal): each value moves it by
// (value - mean) / count, at that difference's scale, rounded half-even.
type DecimalMean struct {
	mean types.BigDecimal
	n    int64
}

// Add takes one serialized decimal into the average.
func (m *DecimalMean) Add(v []byte) error {
	d, err := types.DecodeBigDecimal(v)
	if err != nil {
		return err
	}
	if m.mean.Unscaled == nil {
		m.mean = types.BigDecimal{Unscaled: big.NewInt(0)}
	}
	m.n++
	diff := exactDecimalAdd(d, m.mean.Neg())
	m.mean = exactDecimalAdd(m.mean, types.BigDecimal{Unscaled: roundQuo(diff.Unscaled, big.NewInt(m.n)), Scale: diff.Scale})
	return nil
}

// Result is the serialized average, 0 for no values.
func (m *DecimalMean) Result() []byte {
	if m.mean.Unscaled == nil {
		return types.BigDecimal{Unscaled: big.NewInt(0)}.Encode()
	}
	return m.mean.Encode()
}
