package differential

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Key names one statement of one datadriven file.
type Key struct{ File, Stmt string }

// LoadKnown reads known_differences.txt: entries of "file:", "stmt:" and
// "why:" lines, separated by blank lines; an indented line continues the
// statement or reason above it, and lines starting with '#' are comments.
// Every entry must give its reason.
func LoadKnown(path string) (map[Key]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	known := map[Key]string{}
	var key Key
	var why string
	lineNo := 0
	flush := func() error {
		if key == (Key{}) && why == "" {
			return nil
		}
		if key.File == "" || key.Stmt == "" || why == "" || why == "TODO" {
			return fmt.Errorf("%s:%d: an entry needs file:, stmt: and a reason in why:", path, lineNo)
		}
		if _, dup := known[key]; dup {
			return fmt.Errorf("%s:%d: %s: %q is listed twice", path, lineNo, key.File, key.Stmt)
		}
		known[key] = why
		key, why = Key{}, ""
		return nil
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	field := ""
	for sc.Scan() {
		lineNo++
		raw := sc.Text()
		line := strings.TrimSpace(raw)
		if line != "" && (raw[0] == ' ' || raw[0] == '\t') && field != "" {
			// A continuation line of a long statement or reason.
			if field == "stmt" {
				key.Stmt = Normalize(key.Stmt + " " + line)
			} else {
				why += " " + line
			}
			continue
		}
		switch {
		case line == "":
			if err := flush(); err != nil {
				return nil, err
			}
		case strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "file:"):
			key.File, field = strings.TrimSpace(strings.TrimPrefix(line, "file:")), ""
		case strings.HasPrefix(line, "stmt:"):
			key.Stmt, field = Normalize(strings.TrimPrefix(line, "stmt:")), "stmt"
		case strings.HasPrefix(line, "why:"):
			why, field = strings.TrimSpace(strings.TrimPrefix(line, "why:")), "why"
		default:
			return nil, fmt.Errorf("%s:%d: unexpected line %q", path, lineNo, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return known, flush()
}

// Normalize folds whitespace runs so that a known difference matches its
// statement however the file wraps it.
func Normalize(stmt string) string { return strings.Join(strings.Fields(stmt), " ") }

// Canonical rewrites the parts of a printed answer whose order Cassandra
// leaves to a hash map, so that two answers compare equal when only that
// order differs: the signatures listed by a function-resolution error
// (FunctionResolver prints the candidates of a HashMap).
func Canonical(out string) string {
	for _, marker := range []string{"(known type signatures: ", "(can be matched by following signatures: "} {
		start := strings.Index(out, marker)
		if start < 0 {
			continue
		}
		start += len(marker)
		end := strings.Index(out[start:], ")\n")
		if end < 0 {
			end = strings.Index(out[start:], "):")
		}
		if end < 0 {
			continue
		}
		list := out[start : start+end]
		items := strings.Split(list, ", system.")
		for i := 1; i < len(items); i++ {
			items[i] = "system." + items[i]
		}
		sort.Strings(items)
		out = out[:start] + strings.Join(items, ", ") + out[start+end:]
	}
	return out
}

// SameAnswer reports whether two printed answers agree: equal as printed,
// equal once Canonical, or differing only in the values of ttl(...)
// columns by at most two seconds (a TTL counts down while the statements
// run, and the reference node runs them more slowly).
func SameAnswer(a, b string) bool {
	if a == b || Canonical(a) == Canonical(b) {
		return true
	}
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	if len(la) != len(lb) {
		return false
	}
	var ttlColumns map[int]bool
	for i := range la {
		if la[i] == lb[i] {
			if cols := strings.Split(la[i], " | "); anyTTL(cols) {
				ttlColumns = map[int]bool{}
				for j, c := range cols {
					ttlColumns[j] = strings.HasPrefix(c, "ttl(")
				}
			}
			continue
		}
		ca, cb := strings.Split(la[i], " | "), strings.Split(lb[i], " | ")
		if ttlColumns == nil || len(ca) != len(cb) {
			return false
		}
		for j := range ca {
			if ca[j] == cb[j] {
				continue
			}
			x, errA := strconv.Atoi(ca[j])
			y, errB := strconv.Atoi(cb[j])
			if !ttlColumns[j] || errA != nil || errB != nil || x-y > 2 || y-x > 2 {
				return false
			}
		}
	}
	return true
}

func anyTTL(cols []string) bool {
	for _, c := range cols {
		if strings.HasPrefix(c, "ttl(") {
			return true
		}
	}
	return false
}
