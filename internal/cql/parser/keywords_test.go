package parser

import (
	"strings"
	"testing"

	"github.com/partita-db/partita/internal/cql/ast"
)

// TestKeywordTable checks the keyword table against itself and against the
// reserved words package ast quotes when formatting.
func TestKeywordTable(t *testing.T) {
	seen := map[string]keyword{}
	for kw := kwNone + 1; kw < numKeywords; kw++ {
		info := keywords[kw]
		if info.name == "" || info.name != strings.ToLower(info.name) {
			t.Errorf("keyword %d has name %q", kw, info.name)
		}
		if prev, dup := seen[info.name]; dup {
			t.Errorf("%q is keyword %d and %d", info.name, prev, kw)
		}
		seen[info.name] = kw
		if got := keywordByName[info.name]; got != kw {
			t.Errorf("keywordByName[%q] = %d, want %d", info.name, got, kw)
		}
		reserved := info.class == classReserved
		if ast.IsReservedWord(info.name) != reserved {
			t.Errorf("%q: reserved in parser %v, in ast %v", info.name, reserved, !reserved)
		}
		if !strings.HasPrefix(kw.antlrName(), "K_") {
			t.Errorf("%q: ANTLR name %q", info.name, kw.antlrName())
		}
	}
	for _, w := range []string{"true", "false"} {
		if !ast.IsReservedWord(w) {
			t.Errorf("ast must quote %q", w)
		}
	}
	if kwFrom.antlrName() != "K_FROM" || kwTable.antlrName() != "K_COLUMNFAMILY" {
		t.Errorf("ANTLR names: %s, %s", kwFrom.antlrName(), kwTable.antlrName())
	}
}

// TestUnreservedKeywordsAsNames checks that every non-reserved keyword works
// unquoted as a keyspace, table and column name, and that every reserved one
// is rejected there.
func TestUnreservedKeywordsAsNames(t *testing.T) {
	for kw := kwNone + 1; kw < numKeywords; kw++ {
		name := keywords[kw].name
		t.Run(name, func(t *testing.T) {
			q := "SELECT " + name + " FROM " + name + "." + name + " WHERE " + name + " = 1"
			stmt, err := Parse(q)
			if keywords[kw].class == classReserved {
				if err == nil {
					t.Errorf("%q parsed as %s", q, stmt)
				}
				return
			}
			if err != nil {
				t.Fatalf("%q: %v", q, err)
			}
			if err := roundTrip(stmt); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestQuotedNamesRoundTrip checks that any name, quoted, survives formatting.
func TestQuotedNamesRoundTrip(t *testing.T) {
	for _, name := range []string{"select", "Mixed", "with space", `a"b`, "true", "nan", "1abc", "é", "json", "distinct", "ttl", "token", "count", "key", "text", "map", "cluster"} {
		t.Run(name, func(t *testing.T) {
			quoted := `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
			for _, q := range []string{
				"SELECT " + quoted + " FROM " + quoted + "." + quoted,
				"SELECT " + quoted + "(" + quoted + ") AS " + quoted + " FROM t",
				"CREATE TABLE t (k frozen<" + quoted + "> PRIMARY KEY, " + quoted + " " + quoted + "." + quoted + ")",
				"CREATE TYPE " + quoted + " (" + quoted + " int)",
				"DESCRIBE " + quoted,
				"DESCRIBE TYPE " + quoted,
				"DESCRIBE FUNCTION " + quoted + "." + quoted,
				"INSERT INTO t (" + quoted + ") VALUES ({" + quoted + ": :" + quoted + "})",
			} {
				stmt, err := Parse(q)
				if err != nil {
					t.Fatalf("%q: %v", q, err)
				}
				if err := roundTrip(stmt); err != nil {
					t.Errorf("%q: %v", q, err)
				}
			}
		})
	}
}
