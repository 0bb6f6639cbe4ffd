package config

import "testing"

// TestServerTLSPolicy: the server's optional flag follows Cassandra's
// rule for client_encryption_options.
func TestServerTLSPolicy(t *testing.T) {
	for _, tc := range []struct {
		yaml     string
		optional bool
	}{
		{"client_encryption_options:\n  enabled: true\n  keystore: /k.pem\n", false},
		{"client_encryption_options:\n  enabled: false\n  keystore: /k.pem\n", true},
		{"client_encryption_options:\n  keystore: /k.pem\n  optional: false\n", false},
		{"client_encryption_options:\n  enabled: true\n  optional: true\n  keystore: /k.pem\n", true},
		{"", false},
	} {
		c, err := Parse([]byte(tc.yaml))
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Server().TLSOptional; got != tc.optional {
			t.Errorf("%q: TLSOptional %v, want %v", tc.yaml, got, tc.optional)
		}
	}
}
