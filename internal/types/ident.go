package types

import "strings"

// QuoteIdent returns name as Cassandra prints an identifier: unquoted when
// it is lower case alphanumeric starting with a letter and not a reserved
// word, otherwise double-quoted with embedded quotes doubled
// (ColumnIdentifier.maybeQuote).
func QuoteIdent(name string) string {
	if isPlainIdent(name) && !IsReservedKeyword(name) {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

func isPlainIdent(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// IsReservedKeyword reports whether word (any case) is one of CQL's reserved
// keywords, which must be quoted to be used as identifiers
// (cql3/ReservedKeywords.java).
func IsReservedKeyword(word string) bool {
	_, ok := reservedKeywords[strings.ToUpper(word)]
	return ok
}

var reservedKeywords = map[string]struct{}{}

func init() {
	for _, w := range strings.Fields(reservedKeywordList) {
		reservedKeywords[w] = struct{}{}
	}
}

// reservedKeywordList is Cassandra 4.1/5.0's
// src/resources/org/apache/cassandra/cql3/reserved_keywords.txt.
const reservedKeywordList = `
ADD ALLOW ALTER AND APPLY ASC AUTHORIZE BATCH BEGIN BY COLUMNFAMILY CREATE
DELETE DESC DESCRIBE DROP ENTRIES EXECUTE FROM FULL GRANT IF IN INDEX
INFINITY INSERT INTO IS KEYSPACE LIMIT MATERIALIZED MODIFY NAN NORECURSIVE
NOT NULL OF ON OR ORDER PRIMARY RENAME REVOKE SCHEMA SELECT SET TABLE TO
TOKEN TRUNCATE UNLOGGED UPDATE USE USING VIEW WHERE WITH
`
