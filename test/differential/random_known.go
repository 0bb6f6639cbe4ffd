package differential

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// RandomKnown is a divergence class the random session test
// (random_test.go) has found and that is not fixed yet: a statement whose
// answers differ, matched by regular expressions, with the reason and the
// shortest session that shows it.
type RandomKnown struct {
	Name string
	// Stmt must match the statement (whitespace folded by Normalize);
	// Partita and Cassandra, when set, must match the printed answers.
	Stmt, Partita, Cassandra *regexp.Regexp
	Why                      string
	// Repro is a session that shows the divergence at its last statement,
	// run in a fresh keyspace.
	Repro []ReproStmt
}

// ReproStmt is one statement of a repro, fetched PageSize rows a page
// (0: unpaged).
type ReproStmt struct {
	Text     string
	PageSize int
}

// Matches reports whether a divergence at stmt with these answers is of
// this class.
func (k *RandomKnown) Matches(stmt, partita, cassandra string) bool {
	return k.Stmt.MatchString(Normalize(stmt)) &&
		(k.Partita == nil || k.Partita.MatchString(partita)) &&
		(k.Cassandra == nil || k.Cassandra.MatchString(cassandra))
}

// MatchRandomKnown returns the first class in known that the divergence
// matches, or nil.
func MatchRandomKnown(known []*RandomKnown, stmt, partita, cassandra string) *RandomKnown {
	for _, k := range known {
		if k.Matches(stmt, partita, cassandra) {
			return k
		}
	}
	return nil
}

// LoadRandomKnown reads random_known.txt: entries of "name:", "stmt:",
// optional "partita:" and "cassandra:" (regular expressions, RE2 syntax),
// "why:" (continued by indented lines) and "repro:" followed by indented
// lines, one statement each, a statement fetched in pages prefixed by
// "[page-size=N] ". Entries are separated by blank lines; lines starting
// with '#' are comments. Every entry needs a name, a statement pattern, a
// reason and a repro.
func LoadRandomKnown(path string) ([]*RandomKnown, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	l := &knownLoader{path: path, names: map[string]bool{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l.lineNo++
		if err := l.line(sc.Text()); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if err := l.flush(); err != nil {
		return nil, err
	}
	return l.known, nil
}

// knownLoader is LoadRandomKnown's state between lines.
type knownLoader struct {
	path   string
	lineNo int
	known  []*RandomKnown
	names  map[string]bool
	cur    *RandomKnown // the entry being read
	field  string       // the field indented lines continue
}

func (l *knownLoader) errorf(format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", l.path, l.lineNo, fmt.Sprintf(format, args...))
}

// flush ends the current entry.
func (l *knownLoader) flush() error {
	cur := l.cur
	if cur == nil {
		return nil
	}
	if cur.Name == "" || cur.Stmt == nil || cur.Why == "" || len(cur.Repro) == 0 {
		return l.errorf("an entry needs name:, stmt:, why: and repro:")
	}
	if l.names[cur.Name] {
		return l.errorf("%s is listed twice", cur.Name)
	}
	l.names[cur.Name] = true
	l.known = append(l.known, cur)
	l.cur, l.field = nil, ""
	return nil
}

func (l *knownLoader) line(raw string) error {
	line := strings.TrimSpace(raw)
	switch {
	case line == "":
		return l.flush()
	case strings.HasPrefix(line, "#"):
		return nil
	}
	if l.cur == nil {
		l.cur = &RandomKnown{}
	}
	if raw[0] == ' ' || raw[0] == '\t' {
		switch l.field {
		case "why":
			l.cur.Why += " " + line
		case "repro":
			l.cur.Repro = append(l.cur.Repro, parseReproLine(line))
		default:
			return l.errorf("unexpected indented line")
		}
		return nil
	}
	key, val, ok := strings.Cut(line, ":")
	if !ok {
		return l.errorf("unexpected line %q", line)
	}
	val, l.field = strings.TrimSpace(val), key
	var re **regexp.Regexp
	switch key {
	case "name":
		l.cur.Name = val
	case "why":
		l.cur.Why = val
	case "repro":
	case "stmt":
		re = &l.cur.Stmt
	case "partita":
		re = &l.cur.Partita
	case "cassandra":
		re = &l.cur.Cassandra
	default:
		return l.errorf("unknown field %q", key)
	}
	if re != nil {
		var err error
		if *re, err = regexp.Compile(val); err != nil {
			return l.errorf("%v", err)
		}
	}
	return nil
}

func parseReproLine(line string) ReproStmt {
	if rest, ok := strings.CutPrefix(line, "[page-size="); ok {
		if n, after, ok := strings.Cut(rest, "] "); ok {
			if size, err := strconv.Atoi(n); err == nil {
				return ReproStmt{Text: strings.TrimSpace(after), PageSize: size}
			}
		}
	}
	return ReproStmt{Text: line}
}

// FormatReproLine renders a repro statement as LoadRandomKnown reads it.
func FormatReproLine(s ReproStmt) string {
	if s.PageSize > 0 {
		return fmt.Sprintf("[page-size=%d] %s", s.PageSize, s.Text)
	}
	return s.Text
}
