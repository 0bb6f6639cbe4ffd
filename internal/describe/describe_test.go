package describe_test

import (
	"context"
	"crypto/md5"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cql/ast"
	"github.com/partita-db/partita/internal/cql/parser"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/describe"
	"github.com/partita-db/partita/internal/plan"
	"github.com/partita-db/partita/internal/systables"
)

// TestDescribe runs the files in testdata. Each file starts from a fresh
// catalog holding the built-in keyspaces.
//
// Commands:
//
//	schema
//	    runs the CQL statements of the input (CREATE/ALTER/DROP KEYSPACE,
//	    TABLE, TYPE through the planner and the catalog; CREATE INDEX is
//	    added to the snapshot by the test, as Cassandra 4.1 would record
//	    it, and DROP INDEX removes it) and prints ok or the first error.
//	    Described tables get ids derived from their names, so WITH
//	    INTERNALS output is stable.
//
//	describe [keyspace=<session keyspace>]
//	    parses the DESCRIBE statement of the input and prints the column
//	    names, then each row: the cells before create_statement joined by
//	    " | ", then create_statement on the following lines. DESCRIBE
//	    CLUSTER reports a test cluster with one token range.
func TestDescribe(t *testing.T) {
	files, err := filepath.Glob("testdata/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		if fi, err := os.Stat(path); err != nil || fi.IsDir() {
			continue // testdata/fuzz holds fuzz corpora
		}
		t.Run(filepath.Base(path), func(t *testing.T) { runFile(t, path) })
	}
}

func runFile(t *testing.T, path string) {
	h := newHarness(t)
	datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
		switch d.Cmd {
		case "schema":
			return h.runSchema(d.Input)
		case "describe":
			var ks string
			if d.HasArg("keyspace") {
				d.ScanArgs(t, "keyspace", &ks)
			}
			return h.describe(t, ks, d.Input)
		default:
			t.Fatalf("unknown command %s", d.Cmd)
			return ""
		}
	})
}

type harness struct {
	cat *catalog.Catalog
	// indexes are the indexes CREATE INDEX added, by keyspace.table (the
	// catalog keeps none of its own yet).
	indexes map[string][]*catalog.Index
}

// memStore is a catalog.Store that keeps nothing.
type memStore struct{}

func (memStore) LoadSchema(context.Context) ([]byte, error) { return nil, nil }
func (memStore) SaveSchema(context.Context, []byte, []backend.TableID) error {
	return nil
}

func newHarness(t testing.TB) *harness {
	cat, err := catalog.Open(context.Background(), memStore{},
		catalog.Topology{DataCenters: []string{"datacenter1"}, Nodes: 1}, systables.Keyspaces())
	if err != nil {
		t.Fatal(err)
	}
	return &harness{cat: cat, indexes: map[string][]*catalog.Index{}}
}

func (h *harness) runSchema(script string) string {
	stmts, err := parser.ParseAll(script)
	if err != nil {
		return formatError(err)
	}
	ctx := context.Background()
	for _, stmt := range stmts {
		switch s := stmt.(type) {
		case *ast.CreateIndex:
			if err := h.createIndex(s); err != nil {
				return formatError(err)
			}
			continue
		case *ast.DropIndex:
			h.dropIndex(s.Name.Keyspace, s.Name.Name)
			continue
		}
		p, err := plan.Plan(stmt, h.cat.Current(), "")
		if err != nil {
			return formatError(err)
		}
		if err := runPlan(ctx, h.cat, p); err != nil {
			return formatError(err)
		}
	}
	return "ok"
}

func runPlan(ctx context.Context, c *catalog.Catalog, p plan.Statement) error {
	var err error
	switch p := p.(type) {
	case *plan.CreateKeyspace:
		_, err = c.CreateKeyspace(ctx, p.Spec)
	case *plan.AlterKeyspace:
		_, err = c.AlterKeyspace(ctx, p.Spec)
	case *plan.DropKeyspace:
		_, err = c.DropKeyspace(ctx, p.Name, p.IfExists)
	case *plan.CreateTable:
		_, err = c.CreateTable(ctx, p.Spec)
	case *plan.AlterTable:
		_, err = c.AlterTable(ctx, p.Spec)
	case *plan.DropTable:
		_, err = c.DropTable(ctx, p.Keyspace, p.Name, p.IfExists)
	case *plan.CreateType:
		_, err = c.CreateType(ctx, p.Spec)
	case *plan.DropType:
		_, err = c.DropType(ctx, p.Keyspace, p.Name, p.IfExists)
	default:
		err = fmt.Errorf("unexpected plan %T", p)
	}
	return err
}

var nonWord = regexp.MustCompile(`\W`)

// createIndex records CREATE INDEX as Cassandra 4.1 would: the default
// name is table_column_idx without non-word characters
// (IndexMetadata.generateDefaultIndexName), and a plain index on a
// non-frozen collection covers its values.
func (h *harness) createIndex(ci *ast.CreateIndex) error {
	t := h.cat.Current().Table(ci.Table.Keyspace, ci.Table.Name)
	if t == nil || len(ci.Targets) != 1 {
		return fmt.Errorf("test CREATE INDEX needs an existing table and one target")
	}
	target := ci.Targets[0]
	col := t.Column(target.Column.Name)
	if col == nil {
		return fmt.Errorf("no column %s", target.Column.Name)
	}
	ix := &catalog.Index{Name: ci.Name, Column: col.Name, Custom: ci.Custom}
	if ix.Name == "" {
		ix.Name = nonWord.ReplaceAllString(t.Name+"_"+col.Name+"_idx", "")
	}
	switch {
	case target.Kind != ast.IndexSimple:
		ix.Target = strings.ToLower(target.Kind.String())
	case col.Type.IsCollection() && col.Type.IsMultiCell():
		ix.Target = "values"
	}
	if ci.Using != nil {
		ix.Class = ci.Using.Text
	}
	for _, p := range ci.Options {
		if m, ok := p.Value.(*ast.MapLiteral); ok && strings.EqualFold(p.Name, "options") {
			ix.Options = map[string]string{}
			for _, e := range m.Entries {
				ix.Options[literalText(e.Key)] = literalText(e.Value)
			}
		}
	}
	key := t.Keyspace + "." + t.Name
	h.indexes[key] = append(h.indexes[key], ix)
	return nil
}

func (h *harness) dropIndex(keyspace, name string) {
	for key, ixs := range h.indexes {
		if !strings.HasPrefix(key, keyspace+".") {
			continue
		}
		kept := ixs[:0]
		for _, ix := range ixs {
			if ix.Name != name {
				kept = append(kept, ix)
			}
		}
		h.indexes[key] = kept
	}
}

func literalText(e ast.Expr) string {
	if l, ok := e.(*ast.Literal); ok {
		return l.Text
	}
	return e.String()
}

// snapshot is the catalog's schema with the test's indexes added and user
// tables given ids derived from their names.
func (h *harness) snapshot() *catalog.Schema {
	s := *h.cat.Current()
	s.Keyspaces = maps.Clone(s.Keyspaces)
	for name, ks := range s.Keyspaces {
		if ks.IsSystem() {
			continue
		}
		k := *ks
		k.Tables = maps.Clone(ks.Tables)
		for tname, tbl := range ks.Tables {
			c := *tbl
			c.ID = catalog.UUID(md5.Sum([]byte(name + "." + tname)))
			c.ID[6] = c.ID[6]&0x0f | 0x40
			c.ID[8] = c.ID[8]&0x3f | 0x80
			c.Indexes = append(append([]*catalog.Index(nil), tbl.Indexes...), h.indexes[name+"."+tname]...)
			k.Tables[tname] = &c
		}
		s.Keyspaces[name] = &k
	}
	return &s
}

func (h *harness) describe(t *testing.T, keyspace, input string) string {
	stmt, err := parser.Parse(input)
	if err != nil {
		return formatError(err)
	}
	d, ok := stmt.(*ast.Describe)
	if !ok {
		t.Fatalf("not a DESCRIBE statement: %s", input)
	}
	res, err := describe.DescribeWith(h.snapshot(), keyspace, d, testCluster)
	if err != nil {
		return formatError(err)
	}
	return formatResult(res)
}

var testCluster = describe.Cluster{
	Name: "Partita Cluster",
	RangeOwnership: func(keyspace string) map[string][]string {
		return map[string][]string{"-9223372036854775808": {"127.0.0.1:7000"}}
	},
}

func formatResult(res describe.Result) string {
	var b strings.Builder
	b.WriteString(strings.Join(res.Columns, ", "))
	b.WriteByte('\n')
	for _, row := range res.Rows {
		cells := row
		var create string
		if len(res.Columns) == 4 && res.Columns[3] == "create_statement" {
			cells, create = row[:3], row[3]
		}
		b.WriteString(strings.Join(cells, " | "))
		if res.RangeOwnership != nil {
			fmt.Fprintf(&b, " | %v", res.RangeOwnership)
		}
		b.WriteByte('\n')
		if create != "" {
			b.WriteString(create)
			b.WriteString("\n\n")
		}
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

func formatError(err error) string {
	e := cqlerr.As(err)
	return fmt.Sprintf("error (%s): %s", e.Code, e.Message)
}
