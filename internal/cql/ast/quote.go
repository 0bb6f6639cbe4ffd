package ast

import "strings"

// reservedWords are the words an unquoted identifier can never be: the
// reserved keywords of Cassandra 4.1/5.0
// (src/resources/org/apache/cassandra/cql3/reserved_keywords.txt, which
// matches the keywords missing from Parser.g's unreserved_keyword rule) and
// the boolean literals, which the lexer reads before identifiers.
var reservedWords = wordSet(`
add allow alter and apply asc authorize batch begin by columnfamily create
delete desc describe drop entries execute from full grant if in index
infinity insert into is keyspace limit materialized modify nan norecursive
not null of on or order primary rename revoke schema select set table to
token truncate unlogged update use using view where with
true false`)

// nativeTypeNames are the native_type keywords of Parser.g.
var nativeTypeNames = wordSet(`
ascii bigint blob boolean counter date decimal double duration float inet
int smallint text time timestamp timeuuid tinyint uuid varchar varint`)

// notFunctionNames are keywords usable as identifiers but not as function
// names (unreserved_keyword minus allowedFunctionName in Parser.g).
var notFunctionNames = wordSet(`ttl writetime maxwritetime key cast json distinct`)

// notTypeNames are words that cannot name a user type unquoted: native types,
// the unreserved keywords non_type_ident excludes, Parser.g's
// reservedTypeNames, and the type constructors (quoted so that a bare name is
// never read as one).
var notTypeNames = wordSet(`
ascii bigint blob boolean counter date decimal double duration float inet
int smallint text time timestamp timeuuid tinyint uuid varchar varint
ttl count writetime maxwritetime cast json distinct
byte complex enum interval macaddr bitstring
map list set frozen tuple vector`)

// selectorQuoted are column names that must be quoted as selectors: bare,
// SELECT would read them as the JSON or DISTINCT keyword.
var selectorQuoted = wordSet(`json distinct`)

func wordSet(s string) map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// IsReservedWord reports whether name (lower case) can only be used as an
// identifier when quoted: a reserved keyword or a boolean literal.
func IsReservedWord(name string) bool { return reservedWords[name] }

// isPlainName reports whether name reads back as itself unquoted: a letter
// followed by lower-case letters, digits and underscores.
func isPlainName(name string) bool {
	if name == "" || name[0] < 'a' || name[0] > 'z' {
		return false
	}
	for i := 1; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func writeQuoted(buf *strings.Builder, name string) {
	buf.WriteByte('"')
	buf.WriteString(strings.ReplaceAll(name, `"`, `""`))
	buf.WriteByte('"')
}

// writeIdent appends a column, keyspace, table or property name.
func writeIdent(buf *strings.Builder, name string) {
	if isPlainName(name) && !reservedWords[name] {
		buf.WriteString(name)
		return
	}
	writeQuoted(buf, name)
}

// writeFunctionName appends a function name; token and count are reserved or
// special elsewhere but allowed here (allowedFunctionName).
func writeFunctionName(buf *strings.Builder, name string) {
	if name == "token" || name == "count" ||
		isPlainName(name) && !reservedWords[name] && !notFunctionNames[name] {
		buf.WriteString(name)
		return
	}
	writeQuoted(buf, name)
}

// writeTypeName appends the name of a user-defined type.
func writeTypeName(buf *strings.Builder, name string) {
	if isPlainName(name) && !reservedWords[name] && !notTypeNames[name] {
		buf.WriteString(name)
		return
	}
	writeQuoted(buf, name)
}

// writeString appends s as a CQL string constant.
func writeString(buf *strings.Builder, s string) {
	buf.WriteByte('\'')
	buf.WriteString(strings.ReplaceAll(s, "'", "''"))
	buf.WriteByte('\'')
}
