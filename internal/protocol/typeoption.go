package protocol

import (
	"github.com/partita-db/partita/internal/types"
)

// DurationClass is the custom class that stands for duration on v4: the
// 0x0015 type id only exists from v5 on, so Cassandra sends duration as
// Custom with this class on v4 (transport/DataType.java), and all target
// drivers decode it.
const DurationClass = "org.apache.cassandra.db.marshal.DurationType"

// maxTypeDepth bounds the nesting of a decoded type option so that a
// hostile one cannot exhaust the stack.
const maxTypeDepth = 64

// AppendTypeOption appends t as an [option] (§4.2.5.2): the [short] id,
// then what the id needs (element, key and value, tuple components, UDT
// keyspace, name and fields, or a custom class). A nil type, or a
// collection missing its element types, is written as blob so that the
// frame stays well formed; either is a bug in the caller.
func AppendTypeOption(dst []byte, t *types.Type) []byte {
	if t == nil {
		return appendShort(dst, uint16(types.KindBlob))
	}
	switch t.Kind {
	case types.KindDuration:
		dst = appendShort(dst, uint16(types.KindCustom))
		return appendString(dst, DurationClass)
	case types.KindCustom:
		dst = appendShort(dst, uint16(types.KindCustom))
		return appendString(dst, t.Class)
	case types.KindList, types.KindSet:
		if len(t.Elems) != 1 {
			return appendShort(dst, uint16(types.KindBlob))
		}
		dst = appendShort(dst, uint16(t.Kind))
		return AppendTypeOption(dst, t.Elems[0])
	case types.KindMap:
		if len(t.Elems) != 2 {
			return appendShort(dst, uint16(types.KindBlob))
		}
		dst = appendShort(dst, uint16(t.Kind))
		dst = AppendTypeOption(dst, t.Elems[0])
		return AppendTypeOption(dst, t.Elems[1])
	case types.KindTuple:
		elems := t.Elems[:min(len(t.Elems), maxShort)]
		dst = appendShort(dst, uint16(t.Kind))
		dst = appendShort(dst, uint16(len(elems)))
		for _, e := range elems {
			dst = AppendTypeOption(dst, e)
		}
		return dst
	case types.KindUDT:
		return appendUDTOption(dst, t)
	}
	return appendShort(dst, uint16(t.Kind))
}

// appendUDTOption appends <ks><udt_name><n><name_1><type_1>... (§4.2.5.2).
func appendUDTOption(dst []byte, t *types.Type) []byte {
	n := min(len(t.Elems), len(t.FieldNames), maxShort)
	dst = appendShort(dst, uint16(types.KindUDT))
	dst = appendString(dst, t.Keyspace)
	dst = appendString(dst, t.Name)
	dst = appendShort(dst, uint16(n))
	for i := range n {
		dst = appendString(dst, t.FieldNames[i])
		dst = AppendTypeOption(dst, t.Elems[i])
	}
	return dst
}

// DecodeTypeOption decodes one [option] from the start of b and returns
// the type and the number of bytes it took. The wire does not say whether a
// collection or UDT is frozen: the outermost one comes back not frozen and
// every nested one frozen, the only form CQL allows for nested ones.
func DecodeTypeOption(b []byte) (*types.Type, int, error) {
	r := newReader(b)
	t := r.readTypeOption(0)
	if r.failed() {
		return nil, 0, r.err()
	}
	return t, r.off, nil
}

// readTypeOption reads an [option]; depth counts the enclosing types.
func (r *reader) readTypeOption(depth int) *types.Type {
	if depth > maxTypeDepth {
		r.fail("Type option nested more than %d levels deep", maxTypeDepth)
		return nil
	}
	id := types.Kind(r.readShort("type option id"))
	if r.failed() {
		return nil
	}
	var t *types.Type
	switch id {
	case types.KindCustom:
		class := r.readString("custom type class")
		if class == DurationClass {
			t = types.Duration
		} else {
			t = types.CustomOf(class)
		}
	case types.KindList:
		t = types.ListOf(r.readTypeOption(depth + 1))
	case types.KindSet:
		t = types.SetOf(r.readTypeOption(depth + 1))
	case types.KindMap:
		k := r.readTypeOption(depth + 1)
		t = types.MapOf(k, r.readTypeOption(depth+1))
	case types.KindTuple:
		t = types.TupleOf(r.readTypeOptions(depth)...)
	case types.KindUDT:
		t = r.readUDTOption(depth)
	default:
		if t = types.Native(id); t == nil {
			r.fail("Unknown type option id 0x%04X", uint16(id))
		}
	}
	if r.failed() {
		return nil
	}
	if depth > 0 {
		t = types.Frozen(t)
	}
	return t
}

// readTypeOptions reads a tuple's [short] n and n [option]s.
func (r *reader) readTypeOptions(depth int) []*types.Type {
	n := int(r.readShort("tuple size"))
	// Each [option] takes at least 2 bytes.
	elems := make([]*types.Type, 0, min(n, r.remaining()/2))
	for i := 0; i < n && !r.failed(); i++ {
		elems = append(elems, r.readTypeOption(depth+1))
	}
	return elems
}

// readUDTOption reads a UDT option after its id.
func (r *reader) readUDTOption(depth int) *types.Type {
	ks := r.readString("UDT keyspace")
	name := r.readString("UDT name")
	n := int(r.readShort("UDT field count"))
	// Each field takes at least a [string] and an [option]: 4 bytes.
	names := make([]string, 0, min(n, r.remaining()/4))
	fields := make([]*types.Type, 0, min(n, r.remaining()/4))
	for i := 0; i < n && !r.failed(); i++ {
		names = append(names, r.readString("UDT field name"))
		fields = append(fields, r.readTypeOption(depth+1))
	}
	return types.UDTOf(ks, name, names, fields)
}
