package types

import (
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/partita-db/partita/internal/cqlerr"
)

// TestDataDriven runs the files under testdata/datadriven. Commands:
//
//	literal type=T    each input line is a CQL literal token ('string',
//	                  0xhex, true, uuid, integer, float, duration); prints
//	                  "token -> Format | FormatLiteral" or the error
//	format type=T     each input line is a value in hex ("empty", "null");
//	                  prints "Format | FormatLiteral"
//	validate type=T   each input line is a value in hex; prints ok or the
//	                  error
//
// T is a CQL type without spaces; the UDT "address" is (street text,
// zip int).
func TestDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata/datadriven", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			var typeText string
			td.ScanArgs(t, "type", &typeText)
			typ, err := ParseType(typeText, testUDTs)
			if err != nil {
				td.Fatalf(t, "bad type %q: %v", typeText, err)
			}
			var out strings.Builder
			for _, line := range strings.Split(td.Input, "\n") {
				if line == "" {
					continue
				}
				switch td.Cmd {
				case "literal":
					fmt.Fprintf(&out, "%s -> %s\n", line, runLiteral(t, typ, line))
				case "format":
					v := parseHexLine(t, line)
					fmt.Fprintf(&out, "%s | %s\n", Format(typ, v), FormatLiteral(typ, v))
				case "validate":
					fmt.Fprintf(&out, "%s: %s\n", line, errText(Validate(typ, parseHexLine(t, line))))
				default:
					td.Fatalf(t, "unknown command %q", td.Cmd)
				}
			}
			return out.String()
		})
	})
}

func testUDTs(name string) (*Type, error) {
	if name == "address" {
		return addressType(), nil
	}
	return nil, cqlerr.Invalidf("Unknown type ks.%s", name)
}

func errText(err error) string {
	if err == nil {
		return "ok"
	}
	e := cqlerr.As(err)
	return fmt.Sprintf("error (%s): %s", e.Code, e.Message)
}

func parseHexLine(t *testing.T, line string) []byte {
	switch line {
	case "null":
		return nil
	case "empty":
		return []byte{}
	}
	v, err := hex.DecodeString(strings.Join(strings.Fields(line), ""))
	if err != nil {
		t.Fatalf("bad hex %q", line)
	}
	return v
}

var (
	uuidToken  = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	intToken   = regexp.MustCompile(`^-?[0-9]+$`)
	floatToken = regexp.MustCompile(`^-?([0-9]+\.[0-9]*([eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+|NaN|Infinity)$`)
)

// lexLiteral classifies a literal token as the CQL lexer would.
func lexLiteral(tok string) (LiteralKind, string) {
	switch {
	case strings.HasPrefix(tok, "'") && strings.HasSuffix(tok, "'") && len(tok) >= 2:
		return LitString, strings.ReplaceAll(tok[1:len(tok)-1], "''", "'")
	case strings.HasPrefix(strings.ToLower(tok), "0x"):
		return LitHex, tok
	case strings.EqualFold(tok, "true") || strings.EqualFold(tok, "false"):
		return LitBoolean, tok
	case uuidToken.MatchString(tok):
		return LitUUID, tok
	case intToken.MatchString(tok):
		return LitInteger, tok
	case floatToken.MatchString(tok):
		return LitFloat, tok
	}
	return LitDuration, tok
}

// runLiteral parses a token, formats the value, and checks that its
// FormatLiteral form parses back to an equal value.
func runLiteral(t *testing.T, typ *Type, tok string) string {
	kind, text := lexLiteral(tok)
	v, err := ParseLiteral(typ, kind, text)
	if err != nil {
		return errText(LiteralErrorFor(err, "col"))
	}
	if err := Validate(typ, v); err != nil {
		t.Errorf("%s: parsed value %x does not validate: %v", tok, v, err)
	}
	lit := FormatLiteral(typ, v)
	if k, txt := lexLiteral(lit); typ.IsNative() && !strings.HasPrefix(lit, "blobAs") {
		back, err := ParseLiteral(typ, k, txt)
		if err != nil || Compare(typ, back, v) != 0 {
			t.Errorf("%s: FormatLiteral %s parses back to %x (%v), want %x", tok, lit, back, err, v)
		}
	}
	return Format(typ, v) + " | " + lit
}
