package parser

import (
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/partita-db/partita/internal/cql/ast"
	"github.com/partita-db/partita/internal/cqlerr"
)

// TestDataDriven runs testdata/*.txt. Commands:
//
//	parse            the input is one statement; prints its canonical form
//	                 or the error, and checks that the canonical form
//	                 parses back to the same tree
//	parse tree       also prints the tree (without positions)
//	parse pos        also prints the position of every node
//	parse-all        the input is a script; prints one canonical statement
//	                 per line
//	term             the input is one term; prints the tree and canonical form
//	selector         the input is one selector; prints the tree and canonical form
//	type             the input is one type; prints the tree and canonical form
//	lex              prints the tokens of the input, one per line
//
// Errors print as `error (Syntax 0x2000): message`.
func TestDataDriven(t *testing.T) {
	for _, path := range testdataFiles(t) {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
				switch td.Cmd {
				case "parse":
					return runParse(t, td)
				case "parse-all":
					return runParseAll(t, td)
				case "term":
					return runFragment(t, td.Input, func(p *parser) ast.Node { return p.parseTerm() })
				case "selector":
					return runFragment(t, td.Input, func(p *parser) ast.Node { return p.parseUnaliasedSelector() })
				case "type":
					return runFragment(t, td.Input, func(p *parser) ast.Node { return p.parseType() })
				case "lex":
					return runLex(td.Input)
				default:
					td.Fatalf(t, "unknown command %q", td.Cmd)
					return ""
				}
			})
		})
	}
}

func errorString(err error) string {
	e := cqlerr.As(err)
	return fmt.Sprintf("error (%s): %s\n", e.Code, e.Message)
}

func runParse(t *testing.T, td *datadriven.TestData) string {
	stmt, err := Parse(td.Input)
	if err != nil {
		return errorString(err)
	}
	checkRoundTrip(t, td.Input, stmt)
	var out strings.Builder
	out.WriteString(stmt.String())
	out.WriteByte('\n')
	if td.HasArg("tree") {
		out.WriteString(dumpTree(stmt))
		out.WriteByte('\n')
	}
	if td.HasArg("pos") {
		ast.Walk(stmt, func(n ast.Node) bool {
			p := n.Position()
			fmt.Fprintf(&out, "%d:%d@%d %T\n", p.Line, p.Col, p.Offset, n)
			return true
		})
	}
	return out.String()
}

func runParseAll(t *testing.T, td *datadriven.TestData) string {
	stmts, err := ParseAll(td.Input)
	if err != nil {
		return errorString(err)
	}
	var out strings.Builder
	for _, s := range stmts {
		checkRoundTrip(t, s.String(), s)
		out.WriteString(s.String())
		out.WriteByte('\n')
	}
	if len(stmts) == 0 {
		out.WriteString("(no statements)\n")
	}
	return out.String()
}

// parseFragment runs one grammar rule over text, which must be consumed
// entirely.
func parseFragment(text string, rule func(p *parser) ast.Node) (ast.Node, error) {
	p := newParser(text)
	var n ast.Node
	err := p.run(func() {
		n = rule(p)
		if !p.is(tkEOF) {
			p.mismatch("EOF")
		}
	})
	return n, err
}

func runFragment(t *testing.T, text string, rule func(p *parser) ast.Node) string {
	n, err := parseFragment(text, rule)
	if err != nil {
		return errorString(err)
	}
	formatted := n.String()
	again, err := parseFragment(formatted, rule)
	if err != nil {
		t.Errorf("%q formats as %q, which does not parse: %v", text, formatted, err)
	} else if !equalIgnoringPos(n, again) {
		t.Errorf("%q formats as %q, which parses to\n%s\nnot\n%s", text, formatted, dumpTree(again), dumpTree(n))
	}
	return dumpTree(n) + "\n" + formatted + "\n"
}

func runLex(text string) string {
	var out strings.Builder
	for _, tok := range lexAll(text) {
		fmt.Fprintf(&out, "%d:%d %s", tok.pos.Line, tok.pos.Col, tokNames[tok.kind])
		if tok.kw != kwNone {
			fmt.Fprintf(&out, " %s", tok.kw.antlrName())
		}
		if tok.kind != tkEOF {
			fmt.Fprintf(&out, " %q", tok.text)
		}
		out.WriteByte('\n')
	}
	return out.String()
}

// checkRoundTrip verifies invariant 1 of package ast for stmt, parsed from
// input: its canonical form parses to the same tree, and formats to itself.
func checkRoundTrip(t *testing.T, input string, stmt ast.Statement) {
	t.Helper()
	if err := roundTrip(stmt); err != nil {
		t.Errorf("round trip of %q: %v", input, err)
	}
}

func roundTrip(stmt ast.Statement) error {
	formatted := stmt.String()
	again, err := Parse(formatted)
	if err != nil {
		return fmt.Errorf("canonical form %q does not parse: %v", formatted, err)
	}
	if !equalIgnoringPos(stmt, again) {
		return fmt.Errorf("canonical form %q parses to\n%s\nnot\n%s", formatted, dumpTree(again), dumpTree(stmt))
	}
	if f2 := again.String(); f2 != formatted {
		return fmt.Errorf("formatting is not idempotent: %q then %q", formatted, f2)
	}
	return nil
}

var posType = reflect.TypeOf(ast.Pos{})

// equalIgnoringPos compares two trees with every ast.Pos zeroed.
func equalIgnoringPos(a, b ast.Node) bool {
	return reflect.DeepEqual(zeroPos(reflect.ValueOf(a)), zeroPos(reflect.ValueOf(b)))
}

// zeroPos returns a deep copy of v with all ast.Pos values zeroed.
func zeroPos(v reflect.Value) any {
	if !v.IsValid() {
		return nil
	}
	c := reflect.New(v.Type()).Elem()
	copyZeroPos(c, v)
	return c.Interface()
}

func copyZeroPos(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.Pointer:
		if src.IsNil() {
			return
		}
		n := reflect.New(src.Type().Elem())
		copyZeroPos(n.Elem(), src.Elem())
		dst.Set(n)
	case reflect.Interface:
		if src.IsNil() {
			return
		}
		n := reflect.New(src.Elem().Type()).Elem()
		copyZeroPos(n, src.Elem())
		dst.Set(n)
	case reflect.Struct:
		if src.Type() == posType {
			return
		}
		for i := 0; i < src.NumField(); i++ {
			copyZeroPos(dst.Field(i), src.Field(i))
		}
	case reflect.Slice:
		if src.IsNil() {
			return
		}
		n := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
		for i := 0; i < src.Len(); i++ {
			copyZeroPos(n.Index(i), src.Index(i))
		}
		dst.Set(n)
	default:
		dst.Set(src)
	}
}

// dumpTree prints a node compactly: Type{Field: value, ...}, leaving out
// positions and zero fields.
func dumpTree(n any) string {
	var b strings.Builder
	dumpValue(&b, reflect.ValueOf(n))
	return b.String()
}

func dumpValue(b *strings.Builder, v reflect.Value) {
	switch v.Kind() {
	case reflect.Invalid:
		b.WriteString("nil")
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		dumpValue(b, v.Elem())
	case reflect.Struct:
		dumpStruct(b, v)
	case reflect.Slice:
		b.WriteByte('[')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			dumpValue(b, v.Index(i))
		}
		b.WriteByte(']')
	case reflect.String:
		fmt.Fprintf(b, "%q", v.String())
	default:
		if s, ok := v.Interface().(fmt.Stringer); ok {
			b.WriteString(s.String())
			return
		}
		fmt.Fprintf(b, "%v", v.Interface())
	}
}

func dumpStruct(b *strings.Builder, v reflect.Value) {
	typ := v.Type()
	switch typ.Name() {
	case "Ident":
		fmt.Fprintf(b, "%q", v.FieldByName("Name").String())
		return
	case "QualifiedName":
		fmt.Fprintf(b, "%q", v.Interface().(ast.QualifiedName).String())
		return
	case "TypeRef":
		fmt.Fprintf(b, "Type(%s)", v.Interface().(ast.TypeRef).String())
		return
	}
	b.WriteString(typ.Name())
	b.WriteByte('{')
	var fields []string
	for i := 0; i < v.NumField(); i++ {
		f := typ.Field(i)
		if f.Type == posType || v.Field(i).IsZero() && !isEnum(f.Type) {
			continue
		}
		var fb strings.Builder
		fb.WriteString(f.Name + ": ")
		dumpValue(&fb, v.Field(i))
		fields = append(fields, fb.String())
	}
	b.WriteString(strings.Join(fields, ", "))
	b.WriteByte('}')
}

// isEnum reports whether t is a small integer kind with a String method
// (operators, literal kinds), which the dump shows even when zero.
func isEnum(t reflect.Type) bool {
	_, ok := t.MethodByName("String")
	return ok && t.Kind() == reflect.Uint8
}

// testdataInputs returns the input of every directive of the given commands
// in testdata, for corpus-wide tests.
func testdataInputs(t testing.TB, cmds ...string) []string {
	var inputs []string
	want := map[string]bool{}
	for _, c := range cmds {
		want[c] = true
	}
	paths := testdataFiles(t)
	for _, path := range paths {
		datadriven.RunTestAny(t, path, func(_ testing.TB, td *datadriven.TestData) string {
			if want[td.Cmd] {
				inputs = append(inputs, td.Input)
			}
			return td.Expected
		})
	}
	return inputs
}

// testdataFiles lists testdata/*.txt (testdata/fuzz holds the fuzz corpus).
func testdataFiles(t testing.TB) []string {
	paths, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	sort.Strings(paths)
	return paths
}
