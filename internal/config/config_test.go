package config

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestParse runs testdata/parse. Command:
//
//	parse
//	<YAML>
//	----
//	<the fields that differ from Default(), one per line, or "defaults">
//	| error: <message>
func TestParse(t *testing.T) {
	datadriven.RunTest(t, "testdata/parse", func(t *testing.T, d *datadriven.TestData) string {
		c, err := Parse([]byte(d.Input))
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		return diffFromDefault(c)
	})
}

func diffFromDefault(c Config) string {
	def := Default()
	got, want := reflect.ValueOf(c), reflect.ValueOf(def)
	var b strings.Builder
	for i := range got.NumField() {
		g, w, name := got.Field(i), want.Field(i), got.Type().Field(i).Name
		if g.Kind() == reflect.Struct { // one line per field that differs
			for j := range g.NumField() {
				if !reflect.DeepEqual(g.Field(j).Interface(), w.Field(j).Interface()) {
					fmt.Fprintf(&b, "%s.%s: %v\n", name, g.Type().Field(j).Name, g.Field(j).Interface())
				}
			}
			continue
		}
		if !reflect.DeepEqual(g.Interface(), w.Interface()) {
			fmt.Fprintf(&b, "%s: %v\n", name, g.Interface())
		}
	}
	if b.Len() == 0 {
		return "defaults\n"
	}
	return b.String()
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"16MiB", 16 << 20, true},
		{"5KiB", 5 << 10, true},
		{"50KiB", 50 << 10, true},
		{"1GiB", 1 << 30, true},
		{"123B", 123, true},
		{"0", 0, true},
		{"0B", 0, true},
		{"8589934591GiB", 8589934591 << 30, true},
		{"8589934592GiB", 0, false}, // overflows int64
		{"16", 0, false},            // a unit is required but for 0
		{"16mib", 0, false},         // case matters
		{"16MB", 0, false},
		{"16 MiB", 0, false},
		{"-1KiB", 0, false},
		{"+1KiB", 0, false},
		{"1.5MiB", 0, false},
		{"MiB", 0, false},
		{"", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseSize(tc.in)
			if (err == nil) != tc.ok || got != tc.want {
				t.Fatalf("ParseSize(%q) = %d, %v; want %d, ok=%v", tc.in, got, err, tc.want, tc.ok)
			}
			if tc.ok {
				back, err := ParseSize(FormatSize(got))
				if err != nil || back != got {
					t.Fatalf("FormatSize(%d) = %q does not parse back", got, FormatSize(got))
				}
			}
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "partita.yaml")
	if err := os.WriteFile(path, []byte("cluster_name: Test\nlog_level: debug\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.ClusterName != "Test" || c.LogLevel != "debug" {
		t.Fatalf("got %+v", c)
	}
	if _, err := Load(filepath.Join(dir, "missing.yaml")); err == nil {
		t.Fatal("missing file loaded")
	}
	if err := os.WriteFile(path, []byte("clustr_name: Test\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load(path)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), `"clustr_name"`) {
		t.Fatalf("error %v should name the file and the key", err)
	}
}

func TestMappings(t *testing.T) {
	c, err := Parse([]byte(`
cluster_name: Prod
rpc_address: 10.1.2.3
native_transport_port: 19042
native_transport_max_frame_size: 32MiB
tombstone_warn_threshold: 10
tombstone_failure_threshold: 20
batch_size_warn_threshold: 1KiB
batch_size_fail_threshold: 2KiB
unlogged_batch_across_partitions_warn_threshold: 3
data_center: dc2
rack: r9
max_page_bytes: 1MiB
trace_probability: 0.5
`))
	if err != nil {
		t.Fatal(err)
	}
	e := c.Engine()
	if e.ClusterName != "Prod" || e.DataCenter != "dc2" || e.Rack != "r9" ||
		e.RPCAddress.String() != "10.1.2.3" || e.NativePort != 19042 ||
		e.TombstoneWarnThreshold != 10 || e.TombstoneFailureThreshold != 20 ||
		e.BatchSizeWarnThresholdBytes != 1024 || e.BatchSizeFailThresholdBytes != 2048 ||
		e.UnloggedBatchAcrossPartitionsWarn != 3 || e.MaxPageBytes != 1<<20 || e.PreparedCacheSize == 0 ||
		e.TraceProbability != 0.5 {
		t.Fatalf("engine config %+v", e)
	}
	if s := c.Server(); s.MaxFrameSize != 32<<20 || s.MaxInFlightPerConn == 0 {
		t.Fatalf("server config %+v", s)
	}
	if got := c.CQLAddress(); got != "10.1.2.3:19042" {
		t.Fatalf("CQLAddress %s", got)
	}
}

func TestSetCQLAddress(t *testing.T) {
	tests := []struct {
		in, host string
		port     int
		ok       bool
	}{
		{"127.0.0.1:0", "127.0.0.1", 0, true},
		{"[::1]:9042", "::1", 9042, true},
		{":9042", "0.0.0.0", 9042, true},
		{"localhost:9043", "localhost", 9043, true},
		{"127.0.0.1", "", 0, false},
		{"127.0.0.1:x", "", 0, false},
		{"127.0.0.1:70000", "", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			c := Default()
			err := c.SetCQLAddress(tc.in)
			if (err == nil) != tc.ok {
				t.Fatalf("SetCQLAddress(%q): %v", tc.in, err)
			}
			if tc.ok && (c.RPCAddress != tc.host || c.NativeTransportPort != tc.port) {
				t.Fatalf("got %s %d", c.RPCAddress, c.NativeTransportPort)
			}
		})
	}
}

func TestParseLogLevel(t *testing.T) {
	for in, want := range map[string]slog.Level{"debug": slog.LevelDebug, "INFO": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError} {
		if got, err := ParseLogLevel(in); err != nil || got != want {
			t.Errorf("ParseLogLevel(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseLogLevel("loud"); err == nil {
		t.Error("accepted log level loud")
	}
}
