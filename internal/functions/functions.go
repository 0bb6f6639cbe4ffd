package functions

import (
	"strings"
	"time"

	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/token"
	"github.com/partita-db/partita/internal/types"
)

// Func is one overload of a native scalar function.
type Func struct {
	// Name is the name Cassandra reports (system.<name>).
	Name          string
	Args          []*types.Type
	Return        *types.Type
	Deterministic bool
	// NullSafe functions are called with null arguments; others return
	// null when any argument is null.
	NullSafe bool
	// Monotonic functions never decrease as an argument grows;
	// MonotonicFirstArg ones only as the first grows with the others fixed
	// (NativeFunction.isMonotonic, isPartialApplicationMonotonic). GROUP BY
	// groups on monotonic functions only.
	Monotonic, MonotonicFirstArg bool
	Impl                         func(args [][]byte) ([]byte, error)
}

// Signature prints f's signature as Cassandra's errors list it.
func (f *Func) Signature() string {
	return Signature(f.Name, f.Args, f.Return)
}

// Signature formats a function's signature as Cassandra 5.0 prints it in
// errors (AbstractFunction.toString): "system.todate : (timestamp) -> date".
func Signature(name string, args []*types.Type, ret *types.Type) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = a.String()
	}
	return "system." + name + " : (" + strings.Join(parts, ", ") + ") -> " + ret.String()
}

// Call runs f, applying the null rule.
func (f *Func) Call(args [][]byte) ([]byte, error) {
	if !f.NullSafe {
		for _, a := range args {
			if a == nil {
				return nil, nil
			}
		}
	}
	return f.Impl(args)
}

var registry = map[string][]*Func{}

// register adds f under its name, and a copy of it under each alias: an
// alias is a function of its own, reporting its own name (5.0's snake_case
// names such as to_date beside todate).
func register(f *Func, aliases ...string) {
	registry[strings.ToLower(f.Name)] = append(registry[strings.ToLower(f.Name)], f)
	for _, a := range aliases {
		c := *f
		c.Name = strings.ToLower(a)
		registry[c.Name] = append(registry[c.Name], &c)
	}
}

// Overloads returns every overload of a function name (case-insensitive),
// or nil if there is no such function.
func Overloads(name string) []*Func {
	return registry[strings.ToLower(strings.TrimPrefix(strings.ToLower(name), "system."))]
}

func nowMillis() int64 { return time.Now().UnixMilli() }

func init() {
	registerTimeFunctions()
	registerFloorFunctions()
	registerConversionFunctions()
	registerMathFunctions()
	registerCollectionFunctions()
	registerMaskingFunctions()
}

func registerTimeFunctions() {
	register(&Func{Name: "now", Return: types.Timeuuid, Impl: func([][]byte) ([]byte, error) {
		return types.NewTimeUUID(), nil
	}}, "current_timeuuid", "currentTimeUUID")
	register(&Func{Name: "uuid", Return: types.UUID, Impl: func([][]byte) ([]byte, error) {
		return types.NewRandomUUID(), nil
	}})
	register(&Func{Name: "currenttimestamp", Return: types.Timestamp, Impl: func([][]byte) ([]byte, error) {
		return types.EncodeTimestamp(nowMillis()), nil
	}}, "current_timestamp")
	register(&Func{Name: "currentdate", Return: types.Date, Impl: func([][]byte) ([]byte, error) {
		return types.EncodeDate(floorDiv(nowMillis(), 86400000))
	}}, "current_date")
	register(&Func{Name: "currenttime", Return: types.Time, Impl: func([][]byte) ([]byte, error) {
		ms := nowMillis()
		return types.EncodeTime((ms - floorDiv(ms, 86400000)*86400000) * 1e6)
	}}, "current_time")

	toTimestamp := func(from *types.Type) *Func {
		return &Func{Name: "totimestamp", Args: []*types.Type{from}, Return: types.Timestamp, Deterministic: true, Monotonic: true,
			Impl: func(a [][]byte) ([]byte, error) {
				ms, err := millisOf(from, a[0])
				if err != nil {
					return nil, err
				}
				return types.EncodeTimestamp(ms), nil
			}}
	}
	register(toTimestamp(types.Timeuuid), "to_timestamp")
	register(toTimestamp(types.Date), "to_timestamp")

	toDate := func(from *types.Type) *Func {
		return &Func{Name: "todate", Args: []*types.Type{from}, Return: types.Date, Deterministic: true, Monotonic: true,
			Impl: func(a [][]byte) ([]byte, error) {
				ms, err := millisOf(from, a[0])
				if err != nil {
					return nil, err
				}
				return types.EncodeDate(floorDiv(ms, 86400000))
			}}
	}
	register(toDate(types.Timeuuid), "to_date")
	register(toDate(types.Timestamp), "to_date")

	toUnix := func(from *types.Type) *Func {
		return &Func{Name: "tounixtimestamp", Args: []*types.Type{from}, Return: types.Bigint, Deterministic: true, Monotonic: true,
			Impl: func(a [][]byte) ([]byte, error) {
				ms, err := millisOf(from, a[0])
				if err != nil {
					return nil, err
				}
				return types.EncodeInt(types.Bigint, ms)
			}}
	}
	register(toUnix(types.Timeuuid), "to_unix_timestamp")
	register(toUnix(types.Timestamp), "to_unix_timestamp")
	register(toUnix(types.Date), "to_unix_timestamp")

	register(&Func{Name: "mintimeuuid", Args: []*types.Type{types.Timestamp}, Return: types.Timeuuid, Deterministic: true,
		Impl: func(a [][]byte) ([]byte, error) {
			ms, err := millisOf(types.Timestamp, a[0])
			if err != nil {
				return nil, err
			}
			return types.MinTimeUUID(ms), nil
		}}, "min_timeuuid")
	register(&Func{Name: "maxtimeuuid", Args: []*types.Type{types.Timestamp}, Return: types.Timeuuid, Deterministic: true,
		Impl: func(a [][]byte) ([]byte, error) {
			ms, err := millisOf(types.Timestamp, a[0])
			if err != nil {
				return nil, err
			}
			return types.MaxTimeUUID(ms), nil
		}}, "max_timeuuid")
}

// millisOf returns the instant a timeuuid, timestamp or date denotes.
func millisOf(t *types.Type, v []byte) (int64, error) {
	switch t.Kind {
	case types.KindTimeuuid:
		return types.TimeUUIDTimestamp(v)
	case types.KindTimestamp:
		return types.Int64(types.Timestamp, v)
	case types.KindDate:
		days, err := types.DateDays(v)
		return days * 86400000, err
	}
	return 0, cqlerr.Invalidf("cannot take a time from %s", t)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// blobConvertible are the types with typeAsBlob / blobAsType functions.
var blobConvertible = []*types.Type{types.Ascii, types.Bigint, types.Boolean, types.Counter, types.Date,
	types.Decimal, types.Double, types.Duration, types.Float, types.Inet, types.Int, types.Smallint,
	types.Text, types.Time, types.Timestamp, types.Timeuuid, types.Tinyint, types.UUID, types.Varint}

func registerConversionFunctions() {
	for _, t := range blobConvertible {
		t := t
		name := t.String()
		register(&Func{Name: name + "asblob", Args: []*types.Type{t}, Return: types.Blob, Deterministic: true,
			Impl: func(a [][]byte) ([]byte, error) { return a[0], nil }}, name+"_as_blob")
		for _, fn := range []string{"blobas" + name, "blob_as_" + name} {
			fn := fn
			register(&Func{Name: fn, Args: []*types.Type{types.Blob}, Return: t, Deterministic: true,
				Impl: func(a [][]byte) ([]byte, error) {
					if err := types.Validate(t, a[0]); err != nil {
						return nil, cqlerr.Invalidf("In call to function system.%s, value 0x%x is not a valid binary representation for type %s", fn, a[0], name)
					}
					return a[0], nil
				}})
		}
	}
	register(&Func{Name: "varcharasblob", Args: []*types.Type{types.Text}, Return: types.Blob, Deterministic: true,
		Impl: func(a [][]byte) ([]byte, error) { return a[0], nil }})
	register(&Func{Name: "blobasvarchar", Args: []*types.Type{types.Blob}, Return: types.Text, Deterministic: true,
		Impl: func(a [][]byte) ([]byte, error) { return a[0], nil }})
}

// Token returns the token() function for a table whose partition key has
// the given column types: it serializes its arguments as the partition key
// and returns the key's Murmur3 token (bigint).
func Token(pk []*types.Type) *Func {
	return &Func{Name: "token", Args: pk, Return: types.Bigint, Deterministic: true,
		Impl: func(args [][]byte) ([]byte, error) {
			return types.EncodeInt(types.Bigint, int64(token.Of(token.SerializeKey(args))))
		}}
}

// ToJSON is toJson() for an argument of type t.
func ToJSON(t *types.Type) *Func {
	return &Func{Name: "tojson", Args: []*types.Type{t}, Return: types.Text, Deterministic: true, NullSafe: true,
		Impl: func(args [][]byte) ([]byte, error) { return []byte(types.ToJSON(t, args[0])), nil }}
}

// FromJSON is fromJson() producing a value of type t. As FromJsonFct
// does, it reports a MarshalException as a FunctionFailure in the
// exception's words; and, as FunctionCall does, a result its type does not
// accept (the empty duration "" gives) as a Server error.
func FromJSON(t *types.Type) *Func {
	return &Func{Name: "fromjson", Args: []*types.Type{types.Text}, Return: t, Deterministic: true,
		Impl: func(args [][]byte) ([]byte, error) {
			v, err := types.DecodeJSON(string(args[0]))
			if err != nil {
				// FunctionExecutionException.create wraps the
				// InvalidRequestException of undecodable text.
				e := cqlerr.New(cqlerr.FunctionFailure, "execution of 'system.fromjson[text]' failed: %s", cqlerr.As(err).Message)
				e.Keyspace, e.Function, e.ArgTypes = "system", "fromjson", []string{"text"}
				return nil, e
			}
			out, err := types.FromJSON(t, v)
			if types.IsMarshalError(err) {
				e := cqlerr.New(cqlerr.FunctionFailure, "org.apache.cassandra.serializers.MarshalException: %s", cqlerr.As(err).Message)
				e.Keyspace, e.Function, e.ArgTypes = "system", "fromjson", []string{"text"}
				return nil, e
			}
			if err == nil && out != nil && types.Validate(t, out) != nil {
				return nil, cqlerr.Serverf("java.lang.RuntimeException: Return of function system.fromjson : (text) -> %s (%x) is not a valid value for its declared return type %s", t, out, t)
			}
			return out, err
		}}
}
