package config

import (
	"strings"
	"testing"
)

// TestParseReplication: each form of backend_replication, as the CQL
// map CREATE KEYSPACE is given, or the error.
func TestParseReplication(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{in: "3", want: "{'class': 'SimpleStrategy', 'replication_factor': 3}"},
		{in: " 1 ", want: "{'class': 'SimpleStrategy', 'replication_factor': 1}"},
		{in: "dc1:3", want: "{'class': 'NetworkTopologyStrategy', 'dc1': 3}"},
		{in: "dc1:3, dc2 : 2,eu-west:0", want: "{'class': 'NetworkTopologyStrategy', 'dc1': 3, 'dc2': 2, 'eu-west': 0}"},
		{in: "{'class': 'NetworkTopologyStrategy', 'dc1': 3}", want: "{'class': 'NetworkTopologyStrategy', 'dc1': 3}"},
		{in: "{'dc1': '3', 'class' : 'org.apache.cassandra.locator.NetworkTopologyStrategy','dc''s': 1}",
			want: "{'class': 'org.apache.cassandra.locator.NetworkTopologyStrategy', 'dc1': 3, 'dc''s': 1}"},
		{in: "{'class':'SimpleStrategy','replication_factor':'2'}", want: "{'class': 'SimpleStrategy', 'replication_factor': 2}"},
		{in: "{'class': 'NetworkTopologyStrategy', 'replication_factor': 3}", want: "{'class': 'NetworkTopologyStrategy', 'replication_factor': 3}"},

		{in: "", err: "empty replication"},
		{in: "0", err: "SimpleStrategy needs a replication_factor of at least 1"},
		{in: "-1", err: `replication_factor: "-1" is not a number of replicas`},
		{in: "three", err: `replication_factor: "three" is not a number of replicas`},
		{in: "dc1:0", err: "NetworkTopologyStrategy needs replicas in at least one data center"},
		{in: "dc1:3,dc1:2", err: `data center "dc1" is given twice`},
		{in: "dc1:3,", err: `"" is not data_center:replicas`},
		{in: ":3", err: `":3" is not data_center:replicas`},
		{in: "dc1:3/1", err: `dc1: "3/1" is not a number of replicas`},
		{in: "{'class': 'NetworkTopologyStrategy', 'dc1': '3/1'}", err: `dc1: "3/1" is not a number of replicas`},
		{in: "{'dc1': 3}", err: "the replication map has no 'class'"},
		{in: "{'class': 'LocalStrategy'}", err: `class "LocalStrategy": the keyspace's strategy must be SimpleStrategy or NetworkTopologyStrategy`},
		{in: "{'class': 'SimpleStrategy', 'replication_factor': 1, 'dc1': 2}", err: "SimpleStrategy takes one option, 'replication_factor'"},
		{in: "{'class': 'SimpleStrategy'}", err: "SimpleStrategy takes one option, 'replication_factor'"},
		{in: "{'class': 'NetworkTopologyStrategy', 'dc1': 3, 'dc1': 2}", err: `option "dc1" is given twice`},
		{in: "{'class': 'NetworkTopologyStrategy', 'dc1': 3", err: "replication map, at its end: want ',' or '}'"},
		{in: "{'class': 'SimpleStrategy', 'replication_factor': '1}", err: "replication map, at character 51: the quote is not closed"},
		{in: "{'class': 'NetworkTopologyStrategy' 'dc1': 3}", err: "at character 37: want ',' or '}'"},
		{in: "{class: 'SimpleStrategy'}", err: "at character 2: want a quoted option name"},
		{in: "{'class: 'SimpleStrategy'}", err: `at character 11: want ':' after "class: "`},
		{in: "{'class': 'SimpleStrategy', 'replication_factor': }", err: `want a quoted string or a number for "replication_factor"`},
		{in: "{'class': 'SimpleStrategy', 'replication_factor': 1} x", err: "unexpected text after '}'"},
	} {
		r, err := ParseReplication(tc.in)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: got %v, want an error with %q", tc.in, err, tc.err)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.in, err)
		case r.CQL() != tc.want:
			t.Errorf("%q: got %s, want %s", tc.in, r.CQL(), tc.want)
		}
		if err == nil { // what CQL writes reads back the same
			again, err := ParseReplication(r.CQL())
			if err != nil || again.CQL() != r.CQL() {
				t.Errorf("%q: %s reads back as %s, %v", tc.in, r.CQL(), again.CQL(), err)
			}
		}
	}
}
