package types

import (
	"strings"

	"github.com/partita-db/partita/internal/cqlerr"
)

// maxTypeDepth caps type nesting so hostile type strings cannot exhaust
// the stack.
const maxTypeDepth = 64

// ParseType parses a CQL type as String writes it (and as CQL DDL accepts
// it, keywords in any case): native names (varchar = text),
// list<..>, set<..>, map<.., ..>, tuple<..>, frozen<..>, a quoted custom
// class, or a user-defined type name, which udt resolves (it receives the
// unquoted name and may be nil when no UDTs are expected). Types inside
// frozen<> are frozen, as Cassandra freezes them.
func ParseType(s string, udt func(name string) (*Type, error)) (*Type, error) {
	p := typeParser{s: s, udt: udt}
	t, err := p.parse(0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(p.s) {
		return nil, p.errorf("unexpected %q", p.s[p.pos:])
	}
	return t, nil
}

type typeParser struct {
	s   string
	pos int
	udt func(string) (*Type, error)
}

func (p *typeParser) errorf(format string, args ...any) error {
	return cqlerr.Syntaxf("Invalid type %q: "+format, append([]any{p.s}, args...)...)
}

func (p *typeParser) skipSpace() {
	for p.pos < len(p.s) && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t' || p.s[p.pos] == '\n' || p.s[p.pos] == '\r') {
		p.pos++
	}
}

func (p *typeParser) expect(c byte) error {
	p.skipSpace()
	if p.pos >= len(p.s) || p.s[p.pos] != c {
		return p.errorf("expected '%c' at offset %d", c, p.pos)
	}
	p.pos++
	return nil
}

// word reads an unquoted identifier.
func (p *typeParser) word() string {
	p.skipSpace()
	start := p.pos
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || p.pos > start && c >= '0' && c <= '9') {
			break
		}
		p.pos++
	}
	return p.s[start:p.pos]
}

// quoted reads a 'string' or "identifier" with the quote doubled inside.
func (p *typeParser) quoted(q byte) (string, error) {
	p.pos++ // opening quote
	var b strings.Builder
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		p.pos++
		if c != q {
			b.WriteByte(c)
			continue
		}
		if p.pos < len(p.s) && p.s[p.pos] == q {
			b.WriteByte(q)
			p.pos++
			continue
		}
		return b.String(), nil
	}
	return "", p.errorf("unterminated quote")
}

func (p *typeParser) parse(depth int) (*Type, error) {
	if depth > maxTypeDepth {
		return nil, p.errorf("nested more than %d levels deep", maxTypeDepth)
	}
	p.skipSpace()
	if p.pos < len(p.s) && (p.s[p.pos] == '\'' || p.s[p.pos] == '"') {
		q := p.s[p.pos]
		name, err := p.quoted(q)
		if err != nil {
			return nil, err
		}
		if q == '\'' {
			return CustomOf(name), nil
		}
		return p.resolve(name)
	}
	w := p.word()
	if w == "" {
		return nil, p.errorf("expected a type at offset %d", p.pos)
	}
	switch strings.ToLower(w) {
	case "frozen":
		return p.frozen(depth)
	case "list", "set", "map", "tuple":
		return p.composite(strings.ToLower(w), depth)
	}
	if t := NativeByName(w); t != nil {
		return t, nil
	}
	return p.resolve(strings.ToLower(w))
}

func (p *typeParser) frozen(depth int) (*Type, error) {
	if err := p.expect('<'); err != nil {
		return nil, err
	}
	inner, err := p.parse(depth + 1)
	if err != nil {
		return nil, err
	}
	if err := p.expect('>'); err != nil {
		return nil, err
	}
	switch inner.Kind {
	case KindList, KindSet, KindMap, KindTuple, KindUDT:
		return Frozen(inner), nil
	}
	return nil, cqlerr.Invalidf("frozen<> is only allowed on collections, tuples, and user-defined types (got %s)", inner)
}

func (p *typeParser) composite(kind string, depth int) (*Type, error) {
	if err := p.expect('<'); err != nil {
		return nil, err
	}
	var elems []*Type
	for {
		t, err := p.parse(depth + 1)
		if err != nil {
			return nil, err
		}
		elems = append(elems, t)
		p.skipSpace()
		if p.pos < len(p.s) && p.s[p.pos] == ',' {
			p.pos++
			continue
		}
		break
	}
	if err := p.expect('>'); err != nil {
		return nil, err
	}
	want := map[string]int{"list": 1, "set": 1, "map": 2}[kind]
	if want != 0 && len(elems) != want {
		return nil, p.errorf("%s takes %d type parameter(s), got %d", kind, want, len(elems))
	}
	switch kind {
	case "list":
		return ListOf(elems[0]), nil
	case "set":
		return SetOf(elems[0]), nil
	case "map":
		return MapOf(elems[0], elems[1]), nil
	}
	return TupleOf(elems...), nil
}

func (p *typeParser) resolve(name string) (*Type, error) {
	if p.udt == nil {
		return nil, cqlerr.Invalidf("Unknown type %s", name)
	}
	t, err := p.udt(name)
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, cqlerr.Invalidf("Unknown type %s", name)
	}
	return t, nil
}
