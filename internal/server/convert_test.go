package server

import (
	"reflect"
	"testing"

	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/engine"
	"github.com/partita-db/partita/internal/protocol"
)

func TestEngineOptions(t *testing.T) {
	values := []protocol.Value{{Bytes: []byte{1}}, {}, {Unset: true}}
	engineVals := []engine.Value{{Bytes: []byte{1}}, {}, {Unset: true}}
	tests := []struct {
		name string
		in   protocol.QueryParameters
		want engine.Options
	}{
		{
			name: "no flags",
			in:   protocol.QueryParameters{Consistency: protocol.One, SerialConsistency: protocol.Serial},
			want: engine.Options{ClientLevels: true, Consistency: engine.One, SerialConsistency: engine.Serial},
		},
		{
			// gocql: page size 5000 and a default timestamp (flags 0x24).
			name: "gocql query",
			in: protocol.QueryParameters{Consistency: protocol.One, Flags: protocol.FlagPageSize | protocol.FlagDefaultTimestamp,
				PageSize: 5000, Timestamp: 1700000000000000, SerialConsistency: protocol.Serial},
			want: engine.Options{ClientLevels: true, Consistency: engine.One, PageSize: 5000, Timestamp: 1700000000000000, HasTimestamp: true,
				SerialConsistency: engine.Serial},
		},
		{
			name: "values, names, paging state, serial, skip metadata",
			in: protocol.QueryParameters{Consistency: protocol.LocalQuorum,
				Flags: protocol.FlagValues | protocol.FlagNamesForValues | protocol.FlagPagingState |
					protocol.FlagSerialConsistency | protocol.FlagSkipMetadata,
				Values: values, Names: []string{"a", "b", "c"}, PagingState: []byte{9},
				SerialConsistency: protocol.LocalSerial},
			want: engine.Options{ClientLevels: true, Consistency: engine.LocalQuorum, Values: engineVals, Names: []string{"a", "b", "c"},
				SkipMetadata: true, PagingState: []byte{9}, SerialConsistency: engine.LocalSerial},
		},
		{
			// Fields whose flag is off are not passed on.
			name: "stale fields without flags",
			in: protocol.QueryParameters{Consistency: protocol.Quorum, PageSize: 10, PagingState: []byte{1},
				Timestamp: 5, Names: []string{"x"}, SerialConsistency: protocol.Serial},
			want: engine.Options{ClientLevels: true, Consistency: engine.Quorum, SerialConsistency: engine.Serial},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := engineOptions(&tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestEngineBatch(t *testing.T) {
	in := &protocol.Batch{
		Type: protocol.BatchUnlogged,
		Statements: []protocol.BatchStatement{
			{Query: "INSERT INTO t (k) VALUES (?)", Values: []protocol.Value{{Bytes: []byte{0, 0, 0, 1}}}},
			{Prepared: true, ID: []byte{0xca, 0xfe}, Values: []protocol.Value{{Unset: true}}},
		},
		Consistency: protocol.Quorum, Flags: protocol.FlagDefaultTimestamp | protocol.FlagSerialConsistency,
		SerialConsistency: protocol.LocalSerial, Timestamp: 42,
	}
	want := &engine.BatchRequest{
		Type: engine.UnloggedBatch,
		Statements: []engine.BatchStatement{
			{Query: "INSERT INTO t (k) VALUES (?)", Values: []engine.Value{{Bytes: []byte{0, 0, 0, 1}}}},
			{ID: []byte{0xca, 0xfe}, Values: []engine.Value{{Unset: true}}},
		},
		Consistency: engine.Quorum, SerialConsistency: engine.LocalSerial, Timestamp: 42, HasTimestamp: true,
		ClientLevels: true,
	}
	if got := engineBatch(in); !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
	in.Flags = 0
	if got := engineBatch(in); got.HasTimestamp {
		t.Fatal("timestamp passed on without its flag")
	}
}

func TestToResponse(t *testing.T) {
	tests := []struct {
		name string
		res  *engine.Result
		skip bool
		want string
	}{
		{"nil", nil, false, "ERROR (Server 0x0000): engine returned no result"},
		{"void", &engine.Result{Kind: engine.ResultVoid}, false, "RESULT Void"},
		{"rows", rowsResult(), false, "RESULT Rows [ks.t.k:0x0009 ks.t.v:0x000d] rows=2 (00000001,61) (00000002,null)"},
		{"rows skip", rowsResult(), true, "RESULT Rows no_metadata columns=2 rows=2 (00000001,61) (00000002,null)"},
		{"rows no metadata", &engine.Result{Kind: engine.ResultRows, Columns: rowsColumns, NoMetadata: true},
			false, "RESULT Rows no_metadata columns=2 rows=0"},
		{"empty paging state", &engine.Result{Kind: engine.ResultRows, Columns: rowsColumns[:1], PagingState: []byte{}},
			false, "RESULT Rows [ks.t.k:0x0009] rows=0"},
		{"set keyspace", &engine.Result{Kind: engine.ResultSetKeyspace, Keyspace: "Ks"}, false, "RESULT Set_keyspace Ks"},
		{"schema change keyspace", &engine.Result{Kind: engine.ResultSchemaChange,
			Change: &catalog.Change{Type: "DROPPED", Target: "KEYSPACE", Keyspace: "ks"}},
			false, "RESULT Schema_change DROPPED KEYSPACE ks"},
		{"schema change without change", &engine.Result{Kind: engine.ResultSchemaChange},
			false, "ERROR (Server 0x0000): engine returned a schema change result without the change"},
		{"prepared update", &engine.Result{Kind: engine.ResultPrepared, PreparedID: []byte{1},
			BindVariables: rowsColumns, PKIndexes: []uint16{0}},
			false, "RESULT Prepared id=01 pk=[0] vars=[ks.t.k:0x0009 ks.t.v:0x000d] result=no_metadata columns=0"},
		{"unknown kind", &engine.Result{Kind: 99}, false, "ERROR (Server 0x0000): engine returned a result of unknown kind 99"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := toResponse(tc.res, tc.skip)
			if err != nil {
				resp = protocol.NewErrorMessage(err)
			}
			// Through the wire and back, as a client sees it.
			f := protocol.Frame{}
			raw := protocol.AppendResponse(nil, 1, resp, protocol.ResponseEnvelope{})
			f.Header.Opcode, f.Header.Response, f.Body = resp.Opcode(), true, raw[protocol.HeaderSize:]
			decoded, _, err := protocol.DecodeResponse(f)
			if err != nil {
				t.Fatal(err)
			}
			if got := describe(decoded); got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestCheckCQLVersion(t *testing.T) {
	tests := []struct {
		version string
		ok      bool
	}{
		{"3.0.0", true}, {"3.4.5", true}, {"3.4", true}, {"4.0.0", true},
		{"2.0.0", false}, {"3", false}, {"", false}, {"x.1", false}, {"-3.0", false},
	}
	for _, tc := range tests {
		t.Run(tc.version, func(t *testing.T) {
			err := checkCQLVersion(tc.version)
			if (err == nil) != tc.ok {
				t.Fatalf("checkCQLVersion(%q) = %v", tc.version, err)
			}
			if err != nil && err.Code != cqlerr.ProtocolError {
				t.Fatalf("code %v", err.Code)
			}
		})
	}
}
