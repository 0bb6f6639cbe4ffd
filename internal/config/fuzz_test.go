package config

import (
	"os"
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary documents to the YAML configuration parser,
// seeded with every input of testdata/parse. Parse must not panic, and a
// configuration it returns has passed Validate (invariant 2).
func FuzzParse(f *testing.F) {
	data, err := os.ReadFile("testdata/parse")
	if err != nil {
		f.Fatal(err)
	}
	// A datadriven case is "parse", its input, then "----".
	var input []string
	inCase := false
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case !inCase && line == "parse":
			inCase, input = true, nil
		case inCase && line == "----":
			f.Add([]byte(strings.Join(input, "\n")))
			inCase = false
		case inCase:
			input = append(input, line)
		}
	}
	f.Add([]byte("client_encryption_options:\n  enabled: true\n  keystore: /k.pem\n"))
	f.Add([]byte("native_transport_max_frame_size: 9223372036854775807GiB\n"))
	f.Add([]byte("a: &x [*x]\n"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		c, err := Parse(doc)
		if err != nil {
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("Parse returned a configuration that Validate refuses: %v\n%s", err, doc)
		}
	})
}

// FuzzParseSize: a size ParseSize accepts is never negative and prints
// back (FormatSize) to a text that parses to the same size.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"0", "0B", "16MiB", "1KiB", "3GiB", "1024B", "-1MiB", "1.5MiB", "16mib", "99999999999999999999B"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err != nil {
			return
		}
		if n < 0 {
			t.Fatalf("ParseSize(%q) = %d", s, n)
		}
		back, err := ParseSize(FormatSize(n))
		if err != nil || back != n {
			t.Fatalf("ParseSize(%q) = %d, printed %q, which parses to %d, %v", s, n, FormatSize(n), back, err)
		}
	})
}
