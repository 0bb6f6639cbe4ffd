package parser

import (
	"strings"
	"testing"

	"github.com/partita-db/partita/internal/cql/ast"
	"pgregory.net/rapid"
)

// corpus returns every statement of testdata that parses.
func corpus(t testing.TB) []string {
	var stmts []string
	for _, in := range testdataInputs(t, "parse", "parse-all") {
		list, err := ParseAll(in)
		if err != nil {
			continue
		}
		for _, s := range list {
			if _, ok := s.(*ast.Unsupported); !ok { // its text is kept verbatim
				stmts = append(stmts, s.String())
			}
		}
	}
	if len(stmts) < 100 {
		t.Fatalf("corpus has only %d statements", len(stmts))
	}
	return stmts
}

// TestRoundTripCorpus checks invariant 1 of package ast over the corpus:
// parse(format(parse(s))) equals parse(s), positions aside, and formatting
// is idempotent.
func TestRoundTripCorpus(t *testing.T) {
	for _, in := range testdataInputs(t, "parse", "parse-all") {
		stmts, err := ParseAll(in)
		if err != nil {
			continue
		}
		for _, s := range stmts {
			if err := roundTrip(s); err != nil {
				t.Errorf("%q: %v", in, err)
			}
		}
	}
}

// TestLexicalNoise is a property test: changing the case of keywords and
// unquoted identifiers and adding whitespace and comments between tokens
// never changes the tree.
func TestLexicalNoise(t *testing.T) {
	stmts := corpus(t)
	rapid.Check(t, func(rt *rapid.T) {
		src := rapid.SampledFrom(stmts).Draw(rt, "statement")
		want, err := Parse(src)
		if err != nil {
			rt.Fatalf("corpus statement %q does not parse: %v", src, err)
		}
		noisy := addNoise(rt, src)
		got, err := Parse(noisy)
		if err != nil {
			rt.Fatalf("%q with noise %q: %v", src, noisy, err)
		}
		if !equalIgnoringPos(want, got) {
			rt.Fatalf("%q with noise %q parses to\n%s\nnot\n%s", src, noisy, dumpTree(got), dumpTree(want))
		}
	})
}

var separators = []string{" ", "  ", "\n", "\t", "\r\n", " /* c */ ", " -- c\n", " // c\n"}

// addNoise rewrites src token by token with random separators and, for
// case-insensitive words, random case.
func addNoise(rt *rapid.T, src string) string {
	l := newLexer(src, false)
	var b strings.Builder
	prev := token{kind: tkEOF}
	for i := 0; ; i++ {
		tok := l.next()
		if tok.kind == tkEOF {
			break
		}
		// 'expr(' is one token in Cassandra's lexer: keep it together.
		glued := prev.kind == tkIdent && src[prev.pos.Offset:prev.end] == "expr" && tok.kind == tkLParen && tok.pos.Offset == prev.end
		if i > 0 && !glued {
			b.WriteString(rapid.SampledFrom(separators).Draw(rt, "sep"))
		}
		text := src[tok.pos.Offset:tok.end]
		if (tok.kind == tkIdent && text != "expr" || tok.kind == tkBoolean) && rapid.Bool().Draw(rt, "flip") {
			text = randomCase(rt, text)
		}
		b.WriteString(text)
		prev = tok
	}
	return b.String()
}

func randomCase(rt *rapid.T, s string) string {
	b := []byte(s)
	for i, c := range b {
		if rapid.Bool().Draw(rt, "upper") {
			if c >= 'a' && c <= 'z' {
				b[i] = c - 'a' + 'A'
			}
		}
	}
	return string(b)
}

// TestParseAllPositions checks that positions in a script are relative to
// the whole script and that markers restart at 0 in each statement.
func TestParseAllPositions(t *testing.T) {
	stmts, err := ParseAll("SELECT ? FROM t;\n  UPDATE t SET v = ? WHERE k = ?;")
	if err != nil {
		t.Fatal(err)
	}
	if len(stmts) != 2 {
		t.Fatalf("got %d statements", len(stmts))
	}
	if got, want := stmts[1].Position(), (ast.Pos{Line: 2, Col: 2, Offset: 19}); got != want {
		t.Errorf("second statement at %+v, want %+v", got, want)
	}
	var indexes []int
	ast.Walk(stmts[1], func(n ast.Node) bool {
		if m, ok := n.(*ast.BindMarker); ok {
			indexes = append(indexes, m.Index)
		}
		return true
	})
	if len(indexes) != 2 || indexes[0] != 0 || indexes[1] != 1 {
		t.Errorf("marker indexes %v, want [0 1]", indexes)
	}
}

func TestSplit(t *testing.T) {
	tests := []struct {
		script string
		want   []string
	}{
		{"", nil},
		{" ;; ", nil},
		{"USE ks; SELECT 'a;b' FROM t -- c;\n;", []string{"USE ks", "SELECT 'a;b' FROM t"}},
		{"BEGIN BATCH INSERT INTO t (k) VALUES (1); APPLY BATCH;GRANT ALL ON t TO r", []string{"BEGIN BATCH INSERT INTO t (k) VALUES (1); APPLY BATCH", "GRANT ALL ON t TO r"}},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			got, err := Split(tt.script)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	if _, err := Split("SELECT * FROM t SELECT"); err == nil {
		t.Error("no error for a missing semicolon")
	}
}
