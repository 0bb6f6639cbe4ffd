package main

import (
	"strings"
	"testing"
)

// TestServeBackendFlags: the backend flags reach the configuration and its
// validation before anything starts.
func TestServeBackendFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--backend", "cassandra"}, "backend_contact_points: the cassandra backend needs at least one host:port"},
		{[]string{"--backend", "cassandra", "--contact-points", "10.0.0.1"}, `backend_contact_points: "10.0.0.1" is not host:port`},
		{[]string{"--backend", "cassandra", "--contact-points", "10.0.0.1:9042", "--backend-consistency", "SERIAL"}, `backend_consistency: must be one of`},
		{[]string{"--backend", "rocksdb"}, `backend: must be "pebble" or "cassandra", not "rocksdb"`},
	} {
		cmd := newServeCmd()
		cmd.SetArgs(append([]string{"--http-addr", "", "--cql-addr", "127.0.0.1:0", "--data-dir", t.TempDir()}, tc.args...))
		cmd.SilenceUsage, cmd.SilenceErrors = true, true
		err := cmd.Execute()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want an error with %q", tc.args, err, tc.want)
		}
	}
}
