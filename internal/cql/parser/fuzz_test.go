package parser

import (
	"testing"

	"github.com/partita-db/partita/internal/cqlerr"
)

// FuzzParse checks that no input panics the parser, that every error is a
// syntax error, and that whatever parses round-trips through its canonical
// form (package ast invariant 1). Seeds are the testdata inputs.
func FuzzParse(f *testing.F) {
	for _, in := range testdataInputs(f, "parse", "parse-all", "term", "selector", "type", "lex") {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if n := Normalize(text); len(n) > 2*len(text)+8 {
			t.Fatalf("%q: normalized to %q", text, n)
		}
		stmt, err := Parse(text)
		if err != nil {
			if !cqlerr.Is(err, cqlerr.SyntaxError) {
				t.Fatalf("%q: error %v is not a syntax error", text, err)
			}
		} else if err := roundTrip(stmt); err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		stmts, err := ParseAll(text)
		if err != nil {
			if !cqlerr.Is(err, cqlerr.SyntaxError) {
				t.Fatalf("%q: script error %v is not a syntax error", text, err)
			}
			return
		}
		for _, s := range stmts {
			if err := roundTrip(s); err != nil {
				t.Fatalf("%q: statement %q: %v", text, s, err)
			}
		}
	})
}
