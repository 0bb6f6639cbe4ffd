package types

import (
	"testing"

	"github.com/partita-db/partita/internal/cqlerr"
)

func addressType() *Type {
	return UDTOf("ks", "address", []string{"street", "zip"}, []*Type{Text, Int})
}

func TestTypeString(t *testing.T) {
	tests := []struct {
		typ  *Type
		want string
	}{
		{Text, "text"},
		{Varchar, "text"},
		{Int, "int"},
		{Timeuuid, "timeuuid"},
		{ListOf(Int), "list<int>"},
		{Frozen(ListOf(Int)), "frozen<list<int>>"},
		{MapOf(Text, Int), "map<text, int>"},
		{SetOf(Frozen(MapOf(Int, Text))), "set<frozen<map<int, text>>>"},
		{TupleOf(Int, Text), "frozen<tuple<int, text>>"},
		{ListOf(TupleOf(Int, ListOf(Int))), "list<frozen<tuple<int, frozen<list<int>>>>>"},
		{Frozen(ListOf(ListOf(Int))), "frozen<list<frozen<list<int>>>>"},
		{addressType(), "address"},
		{Frozen(addressType()), "frozen<address>"},
		{UDTOf("ks", "Addr", nil, nil), `"Addr"`},
		{UDTOf("ks", "select", nil, nil), `"select"`},
		{MapOf(Text, Frozen(addressType())), "map<text, frozen<address>>"},
		{CustomOf("org.example.MyType"), "'org.example.MyType'"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := tt.typ.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseTypeRoundTrip(t *testing.T) {
	udts := map[string]*Type{"address": addressType(), "Addr": UDTOf("ks", "Addr", []string{"a"}, []*Type{Int})}
	resolve := func(name string) (*Type, error) {
		if u, ok := udts[name]; ok {
			return u, nil
		}
		return nil, cqlerr.Invalidf("Unknown type ks.%s", name)
	}
	types := []*Type{
		Text, Int, Bigint, Blob, Boolean, Counter, Decimal, Double, Float, Timestamp, UUID,
		Varint, Timeuuid, Inet, Date, Time, Smallint, Tinyint, Duration, Ascii,
		ListOf(Int), SetOf(Text), MapOf(Text, Int), Frozen(ListOf(Int)),
		Frozen(MapOf(Frozen(SetOf(Int)), ListOf(Text))),
		TupleOf(Int, Text, TupleOf(Float)), addressType(), Frozen(addressType()),
		ListOf(Frozen(addressType())), udts["Addr"], CustomOf("a.b'C"),
	}
	for _, typ := range types {
		s := typ.String()
		t.Run(s, func(t *testing.T) {
			got, err := ParseType(s, resolve)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equal(typ) {
				t.Errorf("ParseType(%q) = %s (%+v), want %+v", s, got, got, typ)
			}
		})
	}
}

func TestParseTypeForms(t *testing.T) {
	tests := []struct {
		in   string
		want string
		err  string
	}{
		{in: "VARCHAR", want: "text"},
		{in: " map < text ,int > ", want: "map<text, int>"},
		{in: "frozen<list<list<int>>>", want: "frozen<list<frozen<list<int>>>>"},
		{in: "tuple<int,list<int>>", want: "frozen<tuple<int, frozen<list<int>>>>"},
		{in: "frozen<int>", err: "Invalid 0x2200: frozen<> is only allowed on collections, tuples, and user-defined types (got int)"},
		{in: "list<int", err: `Syntax 0x2000: Invalid type "list<int": expected '>' at offset 8`},
		{in: "map<int>", err: `Syntax 0x2000: Invalid type "map<int>": map takes 2 type parameter(s), got 1`},
		{in: "nosuch", err: "Invalid 0x2200: Unknown type nosuch"},
		{in: "int int", err: `Syntax 0x2000: Invalid type "int int": unexpected "int"`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseType(tt.in, nil)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error = %v, want %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestTypePredicates(t *testing.T) {
	if !ListOf(Int).IsMultiCell() || Frozen(ListOf(Int)).IsMultiCell() || !addressType().IsMultiCell() {
		t.Error("IsMultiCell")
	}
	if TupleOf(Int).IsMultiCell() || Int.IsMultiCell() {
		t.Error("IsMultiCell of tuple/int")
	}
	if !Counter.IsCounter() || !Counter.IsNumeric() || Text.IsNumeric() || !Varint.IsInteger() || Double.IsInteger() {
		t.Error("numeric predicates")
	}
	if Frozen(Int) != Int {
		t.Error("Frozen(int) must be int")
	}
	f := Frozen(ListOf(Int))
	if Frozen(f) != f {
		t.Error("Frozen of a frozen type must be itself")
	}
	if ListOf(Int).Equal(Frozen(ListOf(Int))) || !MapOf(Int, Text).Equal(MapOf(Int, Text)) {
		t.Error("Equal")
	}
	if NativeByName("VarChar") != Text || Native(KindInt) != Int || Native(KindList) != nil {
		t.Error("native lookups")
	}
	if QuoteIdent("abc_1") != "abc_1" || QuoteIdent("Abc") != `"Abc"` || QuoteIdent(`a"b`) != `"a""b"` || QuoteIdent("key") != "key" || QuoteIdent("table") != `"table"` {
		t.Error("QuoteIdent")
	}
}
