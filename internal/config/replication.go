package config

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"
)

// Replication is the replication of the keyspace a gateway creates in its
// cluster (backend_replication): a strategy class and its replica counts,
// by data center for NetworkTopologyStrategy, in the order given.
type Replication struct {
	Class    string
	Replicas []ReplicaCount
}

// ReplicaCount is one option of a replication map: a data center (or
// replication_factor) and its number of replicas.
type ReplicaCount struct {
	Name  string
	Count int
}

// The strategies a gateway's keyspace may use, by their short names;
// either may be written with its org.apache.cassandra.locator package.
const (
	simpleStrategy          = "SimpleStrategy"
	networkTopologyStrategy = "NetworkTopologyStrategy"
	strategyPackage         = "org.apache.cassandra.locator."
	replicationFactorOption = "replication_factor"
)

// ParseReplication reads backend_replication in one of its forms:
//
//	3                                                   SimpleStrategy, 3 replicas
//	dc1:3, dc2:2                                        NetworkTopologyStrategy
//	{'class': 'NetworkTopologyStrategy', 'dc1': 3}      CQL's replication map
//
// and checks it: a known class, and whole numbers of replicas (Cassandra's
// transient replicas, "3/1", are not offered).
func ParseReplication(s string) (Replication, error) {
	s = strings.TrimSpace(s)
	var r Replication
	switch {
	case s == "":
		return r, fmt.Errorf("empty replication")
	case strings.HasPrefix(s, "{"):
		entries, err := parseCQLMap(s)
		if err != nil {
			return r, err
		}
		for _, e := range entries {
			if e.key == "class" {
				r.Class = e.value
				continue
			}
			n, err := replicaCount(e.key, e.value)
			if err != nil {
				return r, err
			}
			r.Replicas = append(r.Replicas, ReplicaCount{e.key, n})
		}
		if r.Class == "" {
			return r, fmt.Errorf("the replication map has no 'class'")
		}
	case !strings.ContainsAny(s, ":,"):
		n, err := replicaCount(replicationFactorOption, s)
		if err != nil {
			return r, err
		}
		r = Replication{Class: simpleStrategy, Replicas: []ReplicaCount{{replicationFactorOption, n}}}
	default:
		r.Class = networkTopologyStrategy
		seen := map[string]bool{}
		for _, part := range strings.Split(s, ",") {
			dc, count, ok := strings.Cut(part, ":")
			dc, count = strings.TrimSpace(dc), strings.TrimSpace(count)
			if !ok || dc == "" {
				return r, fmt.Errorf("%q is not data_center:replicas", strings.TrimSpace(part))
			}
			if seen[dc] {
				return r, fmt.Errorf("data center %q is given twice", dc)
			}
			seen[dc] = true
			n, err := replicaCount(dc, count)
			if err != nil {
				return r, err
			}
			r.Replicas = append(r.Replicas, ReplicaCount{dc, n})
		}
	}
	return r, r.check()
}

func replicaCount(name, text string) (int, error) {
	n, err := strconv.Atoi(text)
	if err != nil || n < 0 || text[0] == '+' {
		return 0, fmt.Errorf("%s: %q is not a number of replicas", name, text)
	}
	return n, nil
}

// check applies the strategies' rules (SimpleStrategy.validateOptions and
// NetworkTopologyStrategy's in Cassandra).
func (r Replication) check() error {
	switch strings.TrimPrefix(r.Class, strategyPackage) {
	case simpleStrategy:
		if len(r.Replicas) != 1 || r.Replicas[0].Name != replicationFactorOption {
			return fmt.Errorf("SimpleStrategy takes one option, 'replication_factor'")
		}
		if r.Replicas[0].Count < 1 {
			return fmt.Errorf("SimpleStrategy needs a replication_factor of at least 1")
		}
	case networkTopologyStrategy:
		total := 0
		for _, c := range r.Replicas {
			total += c.Count
		}
		if total == 0 {
			return fmt.Errorf("NetworkTopologyStrategy needs replicas in at least one data center")
		}
	default:
		return fmt.Errorf("class %q: the keyspace's strategy must be SimpleStrategy or NetworkTopologyStrategy", r.Class)
	}
	return nil
}

// CQL writes r as CQL's replication map, for CREATE KEYSPACE.
func (r Replication) CQL() string {
	var b strings.Builder
	b.WriteString("{'class': " + cqlQuote(r.Class))
	for _, c := range r.Replicas {
		fmt.Fprintf(&b, ", %s: %d", cqlQuote(c.Name), c.Count)
	}
	b.WriteString("}")
	return b.String()
}

func cqlQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

type cqlMapEntry struct{ key, value string }

// parseCQLMap reads a map literal of strings to strings or integers:
//
//	map   = "{" [ entry { "," entry } ] "}"
//	entry = string ":" ( string | integer )
//	string = "'" { char | "''" } "'"
func parseCQLMap(s string) ([]cqlMapEntry, error) {
	p := mapScanner{text: s}
	if !p.take('{') {
		return nil, p.errorf("want '{'")
	}
	var entries []cqlMapEntry
	seen := map[string]bool{}
	for !p.take('}') {
		if len(entries) > 0 && !p.take(',') {
			return nil, p.errorf("want ',' or '}'")
		}
		key, ok, err := p.quoted()
		if err != nil || !ok {
			return nil, cmp.Or(err, p.errorf("want a quoted option name"))
		}
		if seen[key] {
			return nil, fmt.Errorf("option %q is given twice", key)
		}
		seen[key] = true
		if !p.take(':') {
			return nil, p.errorf("want ':' after %q", key)
		}
		value, ok, err := p.quoted()
		if err != nil {
			return nil, err
		}
		if !ok {
			if value, ok = p.integer(); !ok {
				return nil, p.errorf("want a quoted string or a number for %q", key)
			}
		}
		entries = append(entries, cqlMapEntry{key, value})
	}
	if p.skipSpace(); p.pos < len(p.text) {
		return nil, p.errorf("unexpected text after '}'")
	}
	return entries, nil
}

type mapScanner struct {
	text string
	pos  int
}

func (p *mapScanner) errorf(format string, args ...any) error {
	if p.pos >= len(p.text) {
		return fmt.Errorf("replication map, at its end: %s", fmt.Sprintf(format, args...))
	}
	return fmt.Errorf("replication map, at character %d: %s", p.pos+1, fmt.Sprintf(format, args...))
}

func (p *mapScanner) skipSpace() {
	for p.pos < len(p.text) && unicode.IsSpace(rune(p.text[p.pos])) {
		p.pos++
	}
}

func (p *mapScanner) take(c byte) bool {
	p.skipSpace()
	if p.pos < len(p.text) && p.text[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

// quoted reads a quoted string; found is false, with no error, when the
// next character is not a quote.
func (p *mapScanner) quoted() (s string, found bool, err error) {
	p.skipSpace()
	if p.pos >= len(p.text) || p.text[p.pos] != '\'' {
		return "", false, nil
	}
	var b strings.Builder
	for i := p.pos + 1; i < len(p.text); i++ {
		if p.text[i] != '\'' {
			b.WriteByte(p.text[i])
			continue
		}
		if i+1 < len(p.text) && p.text[i+1] == '\'' {
			b.WriteByte('\'')
			i++
			continue
		}
		p.pos = i + 1
		return b.String(), true, nil
	}
	return "", true, p.errorf("the quote is not closed")
}

func (p *mapScanner) integer() (string, bool) {
	p.skipSpace()
	start := p.pos
	for p.pos < len(p.text) && p.text[p.pos] >= '0' && p.text[p.pos] <= '9' {
		p.pos++
	}
	return p.text[start:p.pos], p.pos > start
}

// replicaMap is backend_replication in the file: text in one of
// ParseReplication's forms, or a YAML mapping with the CQL map's options
// (class: NetworkTopologyStrategy, dc1: 3).
type replicaMap struct{ text string }

func (f *replicaMap) UnmarshalYAML(node *yaml.Node) error {
	switch node.Kind {
	case yaml.ScalarNode:
		f.text = node.Value
		return nil
	case yaml.MappingNode:
		var b strings.Builder
		b.WriteString("{")
		for i := 0; i+1 < len(node.Content); i += 2 {
			key, value := node.Content[i], node.Content[i+1]
			if key.Kind != yaml.ScalarNode || value.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: a replication option's name and value must be plain values", key.Line)
			}
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(cqlQuote(key.Value) + ": " + cqlQuote(value.Value))
		}
		b.WriteString("}")
		f.text = b.String()
		return nil
	}
	return fmt.Errorf("must be text (3, dc1:3, or a CQL replication map) or a mapping of replication options")
}
