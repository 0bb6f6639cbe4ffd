package describe

import (
	"slices"
	"testing"

	"github.com/partita-db/partita/internal/types"
)

func TestResultValues(t *testing.T) {
	for _, tc := range []struct {
		name      string
		res       Result
		wantTypes []string
		wantCells int
	}{
		{
			name:      "listing",
			res:       Result{Columns: listColumns, Rows: [][]string{{"ks", "table", "t"}}},
			wantTypes: []string{"text", "text", "text"},
			wantCells: 3,
		},
		{
			name:      "cluster without a keyspace",
			res:       describeCluster("", Cluster{}),
			wantTypes: []string{"text", "text", "text"},
			wantCells: 3,
		},
		{
			name: "cluster in a keyspace",
			res: describeCluster("ks", Cluster{RangeOwnership: func(string) map[string][]string {
				return map[string][]string{"9": {"127.0.0.2:7000"}, "-3": {"127.0.0.1:7000", "127.0.0.2:7000"}}
			}}),
			wantTypes: []string{"text", "text", "text", "map<text, list<text>>"},
			wantCells: 4,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, typ := range tc.res.ColumnTypes() {
				got = append(got, typ.String())
			}
			if !slices.Equal(got, tc.wantTypes) {
				t.Errorf("ColumnTypes() = %v, want %v", got, tc.wantTypes)
			}
			for _, row := range tc.res.Values() {
				if len(row) != tc.wantCells {
					t.Fatalf("row has %d cells, want %d", len(row), tc.wantCells)
				}
			}
		})
	}
}

func TestDescribeClusterDefaults(t *testing.T) {
	res := describeCluster("", Cluster{})
	want := []string{"Test Cluster", "Murmur3Partitioner", "DynamicEndpointSnitch"}
	if !slices.Equal(res.Rows[0], want) {
		t.Errorf("row = %v, want %v", res.Rows[0], want)
	}
	res = describeCluster("ks", Cluster{Partitioner: "com.example.MyPartitioner", Snitch: "org.apache.cassandra.locator.GossipingPropertyFileSnitch"})
	want = []string{"Test Cluster", "com.example.MyPartitioner", "GossipingPropertyFileSnitch"}
	if !slices.Equal(res.Rows[0], want) || res.RangeOwnership == nil || len(res.RangeOwnership) != 0 {
		t.Errorf("row = %v, ownership %v; want %v and an empty map", res.Rows[0], res.RangeOwnership, want)
	}
}

func TestRangeOwnershipEncoding(t *testing.T) {
	v := encodeRangeOwnership(map[string][]string{"9": {"b"}, "-3": {"a", "b"}})
	keys, vals, err := types.DecodeMap(v)
	if err != nil {
		t.Fatal(err)
	}
	// Keys in UTF8Type (byte) order: "-3" before "9".
	if len(keys) != 2 || string(keys[0]) != "-3" || string(keys[1]) != "9" {
		t.Fatalf("keys = %q", keys)
	}
	elems, err := types.DecodeCollection(vals[0])
	if err != nil || len(elems) != 2 || string(elems[0]) != "a" || string(elems[1]) != "b" {
		t.Fatalf("first value = %q, %v", elems, err)
	}
}
