package systables

import (
	"context"
	"net"
	"strconv"
	"testing"

	"github.com/partita-db/partita/internal/token"
	"github.com/partita-db/partita/internal/types"
)

func TestValues(t *testing.T) {
	tests := []struct {
		name string
		typ  *types.Type
		v    []byte
		want string
	}{
		{"empty text is not null", types.Text, textValue(""), "''"},
		{"text", types.Text, textValue("it's"), "'it''s'"},
		{"int", types.Int, intValue(-1), "-1"},
		{"double", types.Double, doubleValue(0.01), "0.01"},
		{"boolean", types.Boolean, booleanValue(false), "false"},
		{"uuid", types.UUID, uuidValue([16]byte{15: 1}), "00000000-0000-0000-0000-000000000001"},
		{"inet v4", types.Inet, inetValue(net.IPv4(10, 1, 2, 3)), "'10.1.2.3'"},
		{"inet v6", types.Inet, inetValue(net.ParseIP("::1")), "'::1'"},
		{"inet none", types.Inet, inetValue(nil), "null"},
		{"timestamp", types.Timestamp, timestampValue(0), "'1970-01-01T00:00:00.000Z'"},
		{"set sorted and deduplicated", setOfText, textSetValue([]string{"b", "a", "b", "-1", "10"}),
			"{'-1', '10', 'a', 'b'}"},
		{"list keeps order", frozenTexts, textListValue([]string{"b", "a"}), "['b', 'a']"},
		{"map sorted by key", frozenTextMap, textMapValue(map[string]string{"z": "1", "a": "2"}),
			"{'a': '2', 'z': '1'}"},
		{"empty map", frozenTextMap, textMapValue(nil), "{}"},
		{"blob map", frozenBlobMap, blobMapValue(map[string][]byte{"k": {0xca, 0xfe}}), "{'k': 0xcafe}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.v != nil {
				if err := types.Validate(tc.typ, tc.v); err != nil {
					t.Fatalf("invalid value: %v", err)
				}
			}
			if got := types.FormatLiteral(tc.typ, tc.v); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestNodeDefaults(t *testing.T) {
	hostID := [16]byte{1, 2, 3}
	rpc := net.IPv4(192, 168, 1, 9)
	tests := []struct {
		name  string
		node  Node
		check func(t *testing.T, n Node)
	}{
		{"empty", Node{HostID: hostID, RPCAddress: rpc}, func(t *testing.T, n Node) {
			if n.ClusterName != DefaultClusterName || n.DataCenter != DefaultDataCenter || n.Rack != DefaultRack ||
				n.ReleaseVersion != DefaultReleaseVersion || n.CQLVersion != DefaultCQLVersion ||
				n.Partitioner != Murmur3Partitioner || n.NativePort != DefaultNativePort {
				t.Errorf("defaults not applied: %+v", n)
			}
			if !n.ListenAddress.Equal(rpc) || !n.BroadcastAddress.Equal(rpc) {
				t.Errorf("addresses %v %v, want %v", n.ListenAddress, n.BroadcastAddress, rpc)
			}
			if want := int64(token.Of(hostID[:])); len(n.Tokens) != 1 || n.Tokens[0] != want {
				t.Errorf("tokens %v, want [%d]", n.Tokens, want)
			}
		}},
		{"broadcast follows listen", Node{RPCAddress: rpc, ListenAddress: net.IPv4(10, 0, 0, 1)}, func(t *testing.T, n Node) {
			if !n.BroadcastAddress.Equal(net.IPv4(10, 0, 0, 1)) {
				t.Errorf("broadcast %v", n.BroadcastAddress)
			}
		}},
		{"given values kept", fixtureNode(), func(t *testing.T, n Node) {
			if n.ClusterName != "Partita Cluster" || len(n.Tokens) != 3 || !n.ListenAddress.Equal(net.IPv4(10, 0, 0, 5)) {
				t.Errorf("values replaced: %+v", n)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.check(t, tc.node.withDefaults()) })
	}
}

// TestLocalTokens checks that system.local.tokens holds decimal strings.
func TestLocalTokens(t *testing.T) {
	s := fixtureSchema(t)
	local := s.Table(SystemKeyspace, "local")
	rows, err := Rows(context.Background(), &Env{Schema: s, Node: Node{Tokens: []int64{-5, 7}}}, local)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1", len(rows))
	}
	elems, err := types.DecodeCollection(rows[0][columnIndex(local, "tokens")])
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, e := range elems {
		n, err := strconv.ParseInt(string(e), 10, 64)
		if err != nil {
			t.Fatalf("token %q is not a decimal int64", e)
		}
		got = append(got, n)
	}
	if len(got) != 2 || got[0] != -5 || got[1] != 7 {
		t.Errorf("tokens %v, want [-5 7]", got)
	}
}
