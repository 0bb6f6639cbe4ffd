package bench

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
)

// TestStatements prints, per workload, each table as CQL and as SQL, and
// each step's statements and first requests: the equivalence of what
// Partita and PostgreSQL run, reviewed as a diff.
//
//	workload name=<name> [rows=N] [wide-rows=N] [tombstone-rows=N] [quick]
func TestStatements(t *testing.T) {
	datadriven.RunTest(t, "testdata/statements", func(t *testing.T, d *datadriven.TestData) string {
		switch d.Cmd {
		case "workload":
		default:
			d.Fatalf(t, "unknown command %s", d.Cmd)
		}
		var name string
		o := Options{Peer: PeerNone, Rows: 1000, WideRows: 2000, TombstoneRows: 500}
		d.ScanArgs(t, "name", &name)
		d.MaybeScanArgs(t, "rows", &o.Rows)
		d.MaybeScanArgs(t, "wide-rows", &o.WideRows)
		d.MaybeScanArgs(t, "tombstone-rows", &o.TombstoneRows)
		o.Quick = d.HasArg("quick")
		o, err := o.Resolve()
		if err != nil {
			return "error: " + err.Error()
		}
		w, err := buildWorkload(name, o)
		if err != nil {
			return "error: " + err.Error()
		}
		return describeWorkload(w)
	})
}

func describeWorkload(w *workload) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", w.description)
	for _, t := range w.tables {
		fmt.Fprintf(&b, "table %s\n  cql: %s\n", t.name, t.createCQL())
		for _, s := range t.createSQL() {
			fmt.Fprintf(&b, "  sql: %s\n", s)
		}
	}
	for _, st := range w.steps {
		mode := fmt.Sprintf("%d requests", st.requests)
		if st.timed {
			mode = "timed"
		}
		fmt.Fprintf(&b, "step %s (%s, %s", st.name, stepKind(st), mode)
		if st.ingest {
			b.WriteString(", ingest")
		}
		b.WriteString(")\n")
		if st.only != nil {
			fmt.Fprintf(&b, "  only on %s: %s\n", strings.Join(st.only, ", "), st.onlyWhy)
		}
		if st.before != nil || st.after != nil {
			b.WriteString("  with untimed work before or after it (arguments may depend on it)\n")
		}
		if st.build == nil {
			fmt.Fprintf(&b, "  cql: %s\n  sql: %s\n", st.stmt.cql, st.stmt.sqlText())
		}
		for i := range min(2, st.requests) {
			rows := st.args(i)
			fmt.Fprintf(&b, "  request %d: %d row(s), first %s", i, len(rows), formatArgs(rows[0]))
			if st.expect != nil {
				fmt.Fprintf(&b, " → %d rows", st.expect(i))
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

func formatArgs(args []any) string {
	parts := make([]string, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case time.Time:
			parts[i] = v.UTC().Format(time.RFC3339Nano)
		case [16]byte:
			parts[i] = fmt.Sprintf("%x-%x-%x-%x-%x", v[0:4], v[4:6], v[6:8], v[8:10], v[10:])
		case string:
			parts[i] = fmt.Sprintf("%q", strings.TrimRight(v, " "))
		default:
			parts[i] = fmt.Sprintf("%v", v)
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
