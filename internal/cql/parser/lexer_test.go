package parser

import (
	"strings"
	"testing"

	"github.com/partita-db/partita/internal/cql/ast"
)

func TestLexerTokens(t *testing.T) {
	tests := []struct {
		in   string
		kind tokKind
		text string
		end  int
	}{
		{"abc", tkIdent, "abc", 3},
		{"ABC_1", tkIdent, "abc_1", 5},
		{"a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8", tkIdent, "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8", 36},
		{"deadbeef-dead-beef-dead-beefdeadbeef", tkUUID, "deadbeef-dead-beef-dead-beefdeadbeef", 36},
		{"deadbeef-dead-beef-dead-beefdeadbee", tkIdent, "deadbeef", 8},
		{"0", tkInteger, "0", 1},
		{"-0", tkInteger, "-0", 2},
		{"007", tkInteger, "007", 3},
		{"1e+5", tkFloat, "1e+5", 4},
		{"1E-5x", tkFloat, "1E-5", 4},
		{"1.e5", tkFloat, "1.e5", 4},
		{"1ms2", tkDuration, "1ms", 3},
		{"1MO", tkDuration, "1MO", 3},
		{"1µs", tkDuration, "1µs", len("1µs")},
		{"-1h1m", tkDuration, "-1h1m", 5},
		{"P", tkIdent, "p", 1},
		{"PT", tkIdent, "pt", 2},
		{"PT1H2M3S", tkDuration, "PT1H2M3S", 8},
		{"PT1S2M", tkIdent, "pt1s2m", 6}, // a longer identifier wins
		{"PT1S-", tkDuration, "PT1S", 4},
		{"P1M2D", tkDuration, "P1M2D", 5},
		{"pt1h", tkIdent, "pt1h", 4},
		{"0x1g", tkHex, "0x1", 3},
		{"0X1F", tkHex, "0X1F", 4},
		{"''", tkString, "", 2},
		{"''''", tkString, "'", 4},
		{"$$$$", tkString, "", 4},
		{"$$a$b$$", tkString, "a$b", 7},
		{`""`, tkEmptyQuotedName, "", 2},
		{`"a"`, tkQuotedName, "a", 3},
		{`""""`, tkQuotedName, `"`, 4},
		{"-nanx", tkNegNaN, "-nan", 4},
		{"- 1", tkMinus, "", 1},
		{"-=", tkMinusEq, "", 2},
		{"true_", tkIdent, "true_", 5},
		{"columnfamilies", tkIdent, "columnfamilies", 14},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			tok := newLexer(tt.in, false).next()
			if tok.kind != tt.kind || tok.text != tt.text || tok.end != tt.end {
				t.Errorf("got %s %q end %d, want %s %q end %d", tokNames[tok.kind], tok.text, tok.end, tokNames[tt.kind], tt.text, tt.end)
			}
		})
	}
}

// TestLexerPositions checks lines and character columns, which count runes,
// not bytes.
func TestLexerPositions(t *testing.T) {
	toks := lexAll("'héllo' x\r\n\ty\n\n  z")
	want := []ast.Pos{{Line: 1, Col: 0, Offset: 0}, {Line: 1, Col: 8, Offset: 9}, {Line: 2, Col: 1, Offset: 13}, {Line: 4, Col: 2, Offset: 18}, {Line: 4, Col: 3, Offset: 19}}
	if len(toks) != len(want) {
		t.Fatalf("got %d tokens", len(toks))
	}
	for i, tok := range toks {
		if tok.pos != want[i] {
			t.Errorf("token %d at %+v, want %+v", i, tok.pos, want[i])
		}
	}
}

// TestLexerNeverLoops lexes every short string over an alphabet of tricky
// characters, expecting each to end in EOF or an illegal token.
func TestLexerNeverLoops(t *testing.T) {
	alphabet := []string{"-", "'", "\"", "$", ".", "1", "P", "T", "e", "/", "*", "µ", "\n", "x", "!"}
	var gen func(prefix string, depth int)
	gen = func(prefix string, depth int) {
		toks := lexAll(prefix)
		last := toks[len(toks)-1]
		if last.kind != tkEOF && last.kind != tkIllegal {
			t.Fatalf("%q: lexing ended with %s", prefix, tokNames[last.kind])
		}
		for i := 0; i+1 < len(toks); i++ {
			if toks[i].end <= toks[i].pos.Offset {
				t.Fatalf("%q: empty token %s at %d", prefix, tokNames[toks[i].kind], toks[i].pos.Offset)
			}
		}
		if depth == 0 {
			return
		}
		for _, c := range alphabet {
			gen(prefix+c, depth-1)
		}
	}
	gen("", 4)
}

func TestSnippetHelpers(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"a\nb\n\n", []string{"a", "b"}},
		{"a\n\nb", []string{"a", "", "b"}},
		{"", []string{""}},
		{"\n", []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := javaSplitLines(tt.in)
			var s []string
			for _, l := range got {
				s = append(s, string(l))
			}
			if strings.Join(s, "|") != strings.Join(tt.want, "|") {
				t.Errorf("got %q, want %q", s, tt.want)
			}
		})
	}
	if got := string(highlight([]rune("abcdef"), 2, 4)); got != "ab[cd]ef" {
		t.Errorf("highlight: %q", got)
	}
	if got := string(highlight([]rune("ab"), 1, 9)); got != "a[b]" {
		t.Errorf("highlight past the end: %q", got)
	}
}
