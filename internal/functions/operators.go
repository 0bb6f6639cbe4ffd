package functions

import (
	"math"
	"math/big"

	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/types"
)

// The arithmetic operators (cql3/functions/OperationFcts.java): each
// overload is a native function named _add, _substract, _multiply, _divide,
// _modulo or _negate over every pair of numeric types, timestamp and date ±
// duration, and + over text and ascii. The planner picks an overload as
// Cassandra's FunctionResolver does; these are not callable by name.

// operatorNames maps an operator to its function name.
var operatorNames = map[byte]string{'+': "_add", '-': "_substract", '*': "_multiply", '/': "_divide", '%': "_modulo"}

// OperatorName returns the function name of a binary operator.
func OperatorName(op byte) string { return operatorNames[op] }

// NegationName is the function name of unary minus.
const NegationName = "_negate"

// numericOperandTypes are the types of OperationFcts.all, in its order.
var numericOperandTypes = []*types.Type{types.Tinyint, types.Smallint, types.Int, types.Bigint, types.Float,
	types.Double, types.Decimal, types.Varint, types.Counter}

var (
	operatorOverloads = map[byte][]*Func{}
	negations         []*Func
	operatorOf        = map[*Func]byte{}
)

func init() {
	for _, op := range []byte{'+', '-', '*', '/', '%'} {
		for _, l := range numericOperandTypes {
			for _, r := range numericOperandTypes {
				addOperator(op, numericOperation(op, l, r))
			}
		}
	}
	for _, op := range []byte{'+', '-'} {
		addOperator(op, temporalOperation(op, types.Timestamp))
		addOperator(op, temporalOperation(op, types.Date))
	}
	for _, args := range [][3]*types.Type{{types.Text, types.Text, types.Text}, {types.Ascii, types.Ascii, types.Ascii},
		{types.Text, types.Ascii, types.Text}, {types.Text, types.Text, types.Ascii}} {
		addOperator('+', concatenation(args[0], args[1], args[2]))
	}
	for _, t := range negationOrder {
		negations = append(negations, negation(t))
	}
}

func addOperator(op byte, f *Func) {
	operatorOverloads[op] = append(operatorOverloads[op], f)
	operatorOf[f] = op
}

// Operators returns the overloads of a binary operator (+ - * / %).
func Operators(op byte) []*Func { return operatorOverloads[op] }

// Negations returns the overloads of unary minus, in the order Cassandra
// lists them in its errors.
func Negations() []*Func { return negations }

// OperatorOf returns the operator symbol of an operator overload.
func OperatorOf(f *Func) (byte, bool) {
	op, ok := operatorOf[f]
	return op, ok
}

// negationOrder is the order in which Cassandra 5.0 lists the _negate
// signatures (its function map's order).
var negationOrder = []*types.Type{types.Int, types.Double, types.Bigint, types.Float, types.Tinyint,
	types.Varint, types.Decimal, types.Counter, types.Smallint}

// operationFailure is OperationExecutionException: a FunctionFailure
// naming the operator and its argument types.
func operationFailure(op byte, f *Func, cause error) error {
	msg := cause.Error()
	if ce, ok := cause.(*cqlerr.Error); ok {
		msg = ce.Message
	}
	e := cqlerr.New(cqlerr.FunctionFailure, "the operation '%s %c %s' failed: %s", f.Args[0], op, f.Args[1], msg)
	e.Keyspace, e.Function, e.ArgTypes = "system", f.Name, []string{f.Args[0].String(), f.Args[1].String()}
	return e
}

// operationResult is OperationFcts.returnType: floating point if either
// operand is, of the larger operand's size (counter counts as bigint; a
// decimal or varint operand is unbounded).
func operationResult(l, r *types.Type) *types.Type {
	floating := l.Kind == types.KindFloat || l.Kind == types.KindDouble || l.Kind == types.KindDecimal ||
		r.Kind == types.KindFloat || r.Kind == types.KindDouble || r.Kind == types.KindDecimal
	size := max(numericSize(l), numericSize(r))
	if floating {
		switch size {
		case 4:
			return types.Float
		case 8:
			return types.Double
		}
		return types.Decimal
	}
	switch size {
	case 1:
		return types.Tinyint
	case 2:
		return types.Smallint
	case 4:
		return types.Int
	case 8:
		return types.Bigint
	}
	return types.Varint
}

func numericSize(t *types.Type) int {
	switch t.Kind {
	case types.KindTinyint:
		return 1
	case types.KindSmallint:
		return 2
	case types.KindInt, types.KindFloat:
		return 4
	case types.KindBigint, types.KindCounter, types.KindDouble:
		return 8
	}
	return math.MaxInt
}

func numericOperation(op byte, l, r *types.Type) *Func {
	f := &Func{Name: operatorNames[op], Args: []*types.Type{l, r}, Return: operationResult(l, r), Deterministic: true}
	f.Impl = func(a [][]byte) ([]byte, error) {
		if len(a[0]) == 0 || len(a[1]) == 0 {
			return nil, nil // an empty number reads as null (ArgumentDeserializer)
		}
		out, err := arithmetic(op, f.Return, l, a[0], r, a[1])
		if err != nil {
			return nil, operationFailure(op, f, err)
		}
		return out, nil
	}
	return f
}

// arithmetic computes l op r in the result type, converting the operands
// as Java's Number accessors do (NumberType.add ...).
func arithmetic(op byte, result, lt *types.Type, l []byte, rt *types.Type, r []byte) ([]byte, error) {
	switch result.Kind {
	case types.KindFloat, types.KindDouble:
		x, err := types.Float64(lt, l)
		if err != nil {
			return nil, err
		}
		y, err := types.Float64(rt, r)
		if err != nil {
			return nil, err
		}
		if result.Kind == types.KindFloat {
			return types.EncodeFloat(floatArithmetic(op, float32(x), float32(y))), nil
		}
		return types.EncodeDouble(doubleArithmetic(op, x, y)), nil
	case types.KindDecimal:
		return decimalArithmetic(op, lt, l, rt, r)
	case types.KindVarint:
		return varintArithmetic(op, lt, l, rt, r)
	}
	x, err := types.Int64(lt, l)
	if err != nil {
		return nil, err
	}
	y, err := types.Int64(rt, r)
	if err != nil {
		return nil, err
	}
	if (op == '/' || op == '%') && y == 0 {
		return nil, types.ErrLongDivideByZero
	}
	var n int64
	switch op {
	case '+':
		n = x + y
	case '-':
		n = x - y
	case '*':
		n = x * y
	case '/':
		n = x / y // Go, like Java, gives MinInt64 / -1 = MinInt64
	case '%':
		n = x % y
	}
	return types.EncodeInt(result, wrapToType(n, result))
}

// wrapToType keeps the low bits of n that fit t, as Java's narrowing casts
// do.
func wrapToType(n int64, t *types.Type) int64 {
	switch t.Kind {
	case types.KindTinyint:
		return int64(int8(n))
	case types.KindSmallint:
		return int64(int16(n))
	case types.KindInt:
		return int64(int32(n))
	}
	return n
}

func floatArithmetic(op byte, x, y float32) float32 {
	switch op {
	case '+':
		return x + y
	case '-':
		return x - y
	case '*':
		return x * y
	case '/':
		return x / y
	}
	// fmod's result is exact, so computing it in float64 is exact too.
	return float32(math.Mod(float64(x), float64(y)))
}

func doubleArithmetic(op byte, x, y float64) float64 {
	switch op {
	case '+':
		return x + y
	case '-':
		return x - y
	case '*':
		return x * y
	case '/':
		return x / y
	}
	return math.Mod(x, y)
}

func varintArithmetic(op byte, lt *types.Type, l []byte, rt *types.Type, r []byte) ([]byte, error) {
	x, err := types.BigInt(lt, l)
	if err != nil {
		return nil, err
	}
	y, err := types.BigInt(rt, r)
	if err != nil {
		return nil, err
	}
	if (op == '/' || op == '%') && y.Sign() == 0 {
		return nil, types.ErrBigDivideByZero
	}
	n := new(big.Int)
	switch op {
	case '+':
		n.Add(x, y)
	case '-':
		n.Sub(x, y)
	case '*':
		n.Mul(x, y)
	case '/':
		n.Quo(x, y) // BigInteger.divide truncates toward zero
	case '%':
		n.Rem(x, y)
	}
	return types.EncodeBigInt(n), nil
}

// toDecimal is DecimalType.toBigDecimal: decimals as they are, varints
// exactly, every other number through its double (so 5 is 5.0).
func toDecimal(t *types.Type, v []byte) (types.BigDecimal, error) {
	switch t.Kind {
	case types.KindDecimal:
		return types.DecodeBigDecimal(v)
	case types.KindVarint:
		n, err := types.BigInt(t, v)
		if err != nil {
			return types.BigDecimal{}, err
		}
		return types.DecimalFromInt(n), nil
	}
	f, err := types.Float64(t, v)
	if err != nil {
		return types.BigDecimal{}, err
	}
	return types.DecimalFromJavaDouble(f)
}

func decimalArithmetic(op byte, lt *types.Type, l []byte, rt *types.Type, r []byte) ([]byte, error) {
	x, err := toDecimal(lt, l)
	if err != nil {
		return nil, err
	}
	y, err := toDecimal(rt, r)
	if err != nil {
		return nil, err
	}
	var out types.BigDecimal
	switch op {
	case '+':
		out, err = x.Add(y)
	case '-':
		out, err = x.Sub(y)
	case '*':
		out, err = x.Mul(y)
	case '/':
		out, err = x.Div(y)
	case '%':
		out, err = x.Rem(y)
	}
	if err != nil {
		return nil, err
	}
	return out.Encode(), nil
}

func negation(t *types.Type) *Func {
	return &Func{Name: NegationName, Args: []*types.Type{t}, Return: t, Deterministic: true,
		Impl: func(a [][]byte) ([]byte, error) {
			if len(a[0]) == 0 {
				return nil, nil
			}
			return negate(t, a[0])
		}}
}

// negate is NumberType.negate: fixed-size integers wrap (-(-128) is -128
// for a tinyint), decimals keep their scale.
func negate(t *types.Type, v []byte) ([]byte, error) {
	switch t.Kind {
	case types.KindFloat:
		f, err := types.Float64(t, v)
		return types.EncodeFloat(-float32(f)), err
	case types.KindDouble:
		f, err := types.Float64(t, v)
		return types.EncodeDouble(-f), err
	case types.KindDecimal:
		d, err := types.DecodeBigDecimal(v)
		if err != nil {
			return nil, err
		}
		return d.Neg().Encode(), nil
	case types.KindVarint:
		n, err := types.BigInt(t, v)
		if err != nil {
			return nil, err
		}
		return types.EncodeBigInt(new(big.Int).Neg(n)), nil
	}
	n, err := types.Int64(t, v)
	if err != nil {
		return nil, err
	}
	return types.EncodeInt(t, wrapToType(-n, t))
}

func concatenation(ret, l, r *types.Type) *Func {
	f := &Func{Name: operatorNames['+'], Args: []*types.Type{l, r}, Return: ret, Deterministic: true}
	f.Impl = func(a [][]byte) ([]byte, error) {
		out := make([]byte, 0, len(a[0])+len(a[1]))
		return append(append(out, a[0]...), a[1]...), nil
	}
	return f
}

const nanosPerMsec = 1000000

// temporalOperation is timestamp or date ± duration
// (TemporalType.addDuration, substractDuration).
func temporalOperation(op byte, t *types.Type) *Func {
	f := &Func{Name: operatorNames[op], Args: []*types.Type{t, types.Duration}, Return: t, Deterministic: true}
	f.Impl = func(a [][]byte) ([]byte, error) {
		if len(a[0]) == 0 || len(a[1]) == 0 {
			return nil, nil
		}
		out, err := addDuration(t, a[0], a[1], op == '-')
		if err != nil {
			return nil, operationFailure(op, f, err)
		}
		return out, nil
	}
	return f
}

func addDuration(t *types.Type, temporal, duration []byte, subtract bool) ([]byte, error) {
	months, days, nanos, err := types.DecodeDuration(duration)
	if err != nil {
		return nil, err
	}
	// SimpleDateType and TimestampType.validateDuration.
	if t.Kind == types.KindDate && nanos != 0 {
		return nil, cqlerr.Invalidf("The duration must have a day precision. Was: %s", types.Format(types.Duration, duration))
	}
	if t.Kind == types.KindTimestamp && nanos%nanosPerMsec != 0 {
		return nil, cqlerr.Invalidf("The duration must have a millisecond precision. Was: %s", types.Format(types.Duration, duration))
	}
	ms, err := millisOf(t, temporal)
	if err != nil {
		return nil, err
	}
	m, d, n := int64(months), int64(days), nanos
	if subtract {
		m, d, n = -m, -d, -n
	}
	ms = durationAddTo(ms, m, d, n)
	if t.Kind == types.KindTimestamp {
		return types.EncodeTimestamp(ms), nil
	}
	// SimpleDateSerializer.timeInMillisToDay: whole days, truncated, the
	// int wrapping as Java's cast does.
	day := int64(int32(floorDiv(ms, 1000) / 86400))
	return types.EncodeDate(day)
}

// durationAddTo is Duration.add: plain milliseconds without months, else a
// GregorianCalendar in UTC adding the months, then the days, then the
// milliseconds (cast to int, as Calendar.add takes an int).
func durationAddTo(ms, months, days, nanos int64) int64 {
	if months == 0 {
		return ms + days*msPerDay + nanos/nanosPerMsec
	}
	ms = types.JavaAddMonths(ms, months)
	return ms + days*msPerDay + int64(int32(nanos/nanosPerMsec))
}
