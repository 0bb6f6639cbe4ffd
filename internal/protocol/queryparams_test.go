package protocol

import "testing"

func TestQueryFlagsString(t *testing.T) {
	cases := []struct {
		flags QueryFlags
		want  string
	}{
		{0, "0"},
		{FlagPageSize | FlagDefaultTimestamp, "PAGE_SIZE|TIMESTAMP"},
		{0xFF, "VALUES|SKIP_METADATA|PAGE_SIZE|PAGING_STATE|SERIAL_CONSISTENCY|TIMESTAMP|NAMES_FOR_VALUES|0x80"},
	}
	for _, tc := range cases {
		t.Run(tc.want, func(t *testing.T) {
			if got := tc.flags.String(); got != tc.want {
				t.Fatalf("got %s", got)
			}
		})
	}
}

func TestValue(t *testing.T) {
	if !(Value{}).IsNull() || (Value{Unset: true}).IsNull() || (Value{Bytes: []byte{}}).IsNull() {
		t.Fatal("IsNull")
	}
}

func TestNamedValuesWithoutNames(t *testing.T) {
	// Encoding named values with fewer names than values writes "" for the
	// missing ones rather than a malformed body.
	q := &Query{Query: "Q", Params: QueryParameters{Flags: FlagValues | FlagNamesForValues,
		Values: []Value{{Bytes: []byte{1}}, {Bytes: []byte{2}}}, Names: []string{"a"}}}
	var back Query
	if err := back.Decode(q.Encode(nil)); err != nil {
		t.Fatal(err)
	}
	if describe(back.Params.Names) != `["a" ""]` || len(back.Params.Values) != 2 {
		t.Fatalf("got %s", describe(&back))
	}
}
