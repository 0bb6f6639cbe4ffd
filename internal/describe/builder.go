package describe

import (
	"strings"

	"github.com/partita-db/partita/internal/types"
)

// indentation is CqlBuilder.INDENTATION.
const indentation = "    "

// cqlBuilder is cql3/CqlBuilder: text is indented when it is the first
// thing written after newLine, by one indentation per level.
type cqlBuilder struct {
	b         strings.Builder
	indent    int
	isNewLine bool
}

func (c *cqlBuilder) append(s string) *cqlBuilder {
	if c.isNewLine {
		for i := 0; i < c.indent; i++ {
			c.b.WriteString(indentation)
		}
		c.isNewLine = false
	}
	c.b.WriteString(s)
	return c
}

// ident appends an identifier, quoted where CQL needs it
// (appendQuotingIfNeeded).
func (c *cqlBuilder) ident(name string) *cqlBuilder { return c.append(types.QuoteIdent(name)) }

// quoted appends s in single quotes (appendWithSingleQuotes).
func (c *cqlBuilder) quoted(s string) *cqlBuilder { return c.append(types.QuoteString(s)) }

func (c *cqlBuilder) newLine() *cqlBuilder {
	c.b.WriteByte('\n')
	c.isNewLine = true
	return c
}

func (c *cqlBuilder) increaseIndent() *cqlBuilder {
	c.indent++
	return c
}

func (c *cqlBuilder) decreaseIndent() *cqlBuilder {
	if c.indent > 0 {
		c.indent--
	}
	return c
}

// stringMap appends m as {'k': 'v', ...} with its keys in TreeMap order;
// with quoteValues false the values go in as they are
// (CqlBuilder.append(Map, boolean)).
func (c *cqlBuilder) stringMap(m map[string]string, quoteValues bool) *cqlBuilder {
	c.append("{")
	for i, k := range sortedKeys(m) {
		if i > 0 {
			c.b.WriteString(", ")
		}
		c.b.WriteString(types.QuoteString(k))
		c.b.WriteString(": ")
		if quoteValues {
			c.b.WriteString(types.QuoteString(m[k]))
		} else {
			c.b.WriteString(m[k])
		}
	}
	c.b.WriteByte('}')
	return c
}

func (c *cqlBuilder) String() string { return c.b.String() }
