package differential_test

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/partita-db/partita/internal/cqltest"
)

// maxShrinkAttempts bounds the replays of one shrink (each costs a CREATE
// TABLE or two on the reference node, the slow part), besides its time
// budget (PARTITA_RANDOM_DIFF_SHRINK).
const maxShrinkAttempts = 400

// shrinkKeyspaceAttempts is how many attempts share one keyspace of the
// reference before it is dropped and created again.
const shrinkKeyspaceAttempts = 25

// shrink returns a shorter session whose last statement (the one that
// diverged) still diverges, and no statement before it: the reads and the
// statements both servers refused go first (neither changes anything),
// then the statements on other tables, then chunks of the rest (ddmin),
// and last the target's page size. Schema statements are kept while a
// kept statement needs them.
//
// Every attempt replays in one keyspace of the reference with its tables
// and types renamed (tab_a becomes tab_a_a7), so an attempt costs its
// CREATE TABLE statements and no keyspace round trip; Partita starts
// fresh for each.
func (run *randomRun) shrink(stmts []rStmt, outs []rOutcome) []rStmt {
	if stmts[len(stmts)-1].kind == stmtSchema {
		// The schema statements come first: nothing to drop before this one.
		return stmts
	}
	const ks = "rnd_shrink"
	run.openKeyspace(ks).Close()
	defer run.dropKeyspace(ks, nil)
	deadline := time.Now().Add(run.cfg.shrink)
	target := stmts[len(stmts)-1]
	names := schemaNames(stmts)
	attempts := 0
	reproduces := func(body []rStmt, target rStmt) bool {
		if attempts >= maxShrinkAttempts || time.Now().After(deadline) {
			return false
		}
		attempts++
		if attempts%shrinkKeyspaceAttempts == 0 {
			// Each attempt's tables stay on the reference; a fresh keyspace
			// now and then frees them (hundreds of tables filled a 512 MiB
			// heap and stopped the node).
			run.openKeyspace(ks).Close()
		}
		cand := withSchema(stmts, append(append([]rStmt(nil), body...), target))
		outs := run.replayRenamed(ks, cand, names, fmt.Sprintf("_a%d", attempts))
		return len(outs) == len(cand) && outs[len(outs)-1].differ
	}
	var body []rStmt
	var quiet []rStmt // the body without reads and refused statements
	for i, s := range stmts[:len(stmts)-1] {
		if s.kind == stmtSchema {
			continue
		}
		body = append(body, s)
		if s.kind != stmtRead && !strings.HasPrefix(outs[i].ours, "error") {
			quiet = append(quiet, s)
		}
	}
	switch {
	case reproduces(nil, target):
		body = nil
	case len(quiet) < len(body) && reproduces(quiet, target):
		body = quiet
	}
	if same := onTables(body, target.tables); len(same) < len(body) && reproduces(same, target) {
		body = same
	}
	body = ddmin(body, func(cand []rStmt) bool { return reproduces(cand, target) })
	if target.pageSize > 0 {
		unpaged := target
		unpaged.pageSize = 0
		if reproduces(body, unpaged) {
			target = unpaged
		}
	}
	run.t.Logf("shrunk in %d attempts", attempts)
	return withSchema(stmts, append(body, target))
}

// replayRenamed runs stmts, their table and type names suffixed, on a
// fresh Partita and on the reference in keyspace ks (which the reference
// keeps between replays, so a replay costs only its own schema
// statements), up to the first statement whose answers differ.
func (run *randomRun) replayRenamed(ks string, stmts []rStmt, names *regexp.Regexp, suffix string) []rOutcome {
	h := run.useKeyspace(ks)
	defer h.Close()
	var outs []rOutcome
	for _, s := range renamed(stmts, names, suffix) {
		o := run.exec(h, s)
		outs = append(outs, o)
		if o.differ {
			break
		}
	}
	return outs
}

// useKeyspace opens a fresh Partita with keyspace ks created and used,
// and uses ks on the reference (which keeps it between replays).
func (run *randomRun) useKeyspace(ks string) *cqltest.Harness {
	h := cqltest.New(run.t)
	for _, stmt := range []string{
		"CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"USE " + ks,
	} {
		h.Exec(stmt, 0)
	}
	run.ref.Exec("USE "+ks, 0)
	return h
}

// ddmin removes chunks of items while test holds (Zeller's delta
// debugging, complements only), halving the chunk size when no chunk can
// go.
func ddmin(items []rStmt, test func([]rStmt) bool) []rStmt {
	n := 2
	for len(items) > 0 {
		chunk := (len(items) + n - 1) / n
		reduced := false
		for start := 0; start < len(items); start += chunk {
			end := min(start+chunk, len(items))
			cand := append(append([]rStmt(nil), items[:start]...), items[end:]...)
			if test(cand) {
				items, reduced = cand, true
				n = max(n-1, 2)
				break
			}
		}
		if !reduced {
			if chunk == 1 {
				break
			}
			n = min(2*n, len(items))
		}
	}
	return items
}

// withSchema prefixes body with the schema statements of session that it
// needs: the tables its statements name and the types those tables use.
func withSchema(session, body []rStmt) []rStmt {
	tables, types := map[string]bool{}, map[string]bool{}
	for _, s := range body {
		for _, t := range s.tables {
			tables[t] = true
		}
	}
	var schema []rStmt
	for _, s := range session {
		if s.kind == stmtSchema && len(s.tables) > 0 && tables[s.tables[0]] {
			for _, ty := range s.types {
				types[ty] = true
			}
		}
	}
	for _, s := range session {
		if s.kind != stmtSchema {
			continue
		}
		if len(s.tables) > 0 && tables[s.tables[0]] || len(s.tables) == 0 && len(s.types) > 0 && types[s.types[0]] {
			schema = append(schema, s)
		}
	}
	return append(schema, body...)
}

// onTables keeps the statements that name only the given tables.
func onTables(body []rStmt, tables []string) []rStmt {
	want := map[string]bool{}
	for _, t := range tables {
		want[t] = true
	}
	var out []rStmt
	for _, s := range body {
		ok := true
		for _, t := range s.tables {
			ok = ok && want[t]
		}
		if ok {
			out = append(out, s)
		}
	}
	return out
}

// schemaNames matches the session's table and type names as words.
func schemaNames(session []rStmt) *regexp.Regexp {
	var names []string
	for _, s := range session {
		if s.kind == stmtSchema {
			names = append(names, s.tables...)
			if len(s.tables) == 0 {
				names = append(names, s.types...)
			}
		}
	}
	return regexp.MustCompile(`\b(` + strings.Join(names, "|") + `)\b`)
}

// renamed returns stmts with every table and type name suffixed.
func renamed(stmts []rStmt, names *regexp.Regexp, suffix string) []rStmt {
	out := make([]rStmt, len(stmts))
	for i, s := range stmts {
		s.text = names.ReplaceAllString(s.text, "${1}"+suffix)
		out[i] = s
	}
	return out
}

var (
	literalPattern = regexp.MustCompile(`'(?:[^']|'')*'|0x[0-9a-fA-F]*|[0-9a-fA-F]{8}-[0-9a-fA-F-]{27}|-?\b[0-9][0-9.e]*\b|NaN|-?Infinity`)
	digitsPattern  = regexp.MustCompile(`[0-9]+`)
)

// signature is the shape of a divergence, so that one bug found many times
// is reported once: when a server refused the statement, the first word of
// the statement and each server's error (literals and numbers replaced);
// otherwise the statement with its literals replaced.
func signature(stmt string, o rOutcome) string {
	kind := func(out string) string {
		line, _, _ := strings.Cut(out, "\n")
		if strings.HasPrefix(line, "error") {
			return digitsPattern.ReplaceAllString(literalPattern.ReplaceAllString(line, "?"), "N")
		}
		return "rows"
	}
	ours, theirs := kind(o.ours), kind(o.theirs)
	if ours != "rows" || theirs != "rows" {
		verb, _, _ := strings.Cut(stmt, " ")
		return verb + " | " + ours + " | " + theirs
	}
	return literalPattern.ReplaceAllString(stmt, "?") + " | rows"
}
