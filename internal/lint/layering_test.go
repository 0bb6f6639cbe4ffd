package lint

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/partita-db/partita/"

// allowed lists, for each internal package, the project packages it may
// import (docs/architecture.md). A package missing here may import only
// leaves: types, token, cqlerr.
var allowed = map[string][]string{
	"internal/cqlerr":     {},
	"internal/token":      {"internal/cqlerr"},
	"internal/types":      {"internal/cqlerr"},
	"internal/cql/ast":    {},
	"internal/cql/parser": {"internal/cql/ast", "internal/cqlerr"},
	"internal/protocol":   {"internal/types", "internal/cqlerr"},
	"internal/backend":    {"internal/token"},
	"internal/storage":    {"internal/backend", "internal/types", "internal/token", "internal/cqlerr"},
	"internal/catalog":    {"internal/backend", "internal/types", "internal/cqlerr"},
	"internal/functions":  {"internal/types", "internal/token", "internal/cqlerr"},
	"internal/systables":  {"internal/catalog", "internal/types", "internal/token", "internal/cqlerr", "internal/backend"},
	"internal/split":      {"internal/backend", "internal/token", "internal/cqlerr"},
	"internal/plan":       {"internal/cql/ast", "internal/catalog", "internal/functions", "internal/types", "internal/cqlerr", "internal/backend"},
	"internal/exec": {"internal/plan", "internal/split", "internal/systables", "internal/backend", "internal/catalog",
		"internal/functions", "internal/token", "internal/types", "internal/cqlerr", "internal/cql/ast"},
	"internal/auth":     {"internal/backend", "internal/cqlerr"},
	"internal/describe": {"internal/catalog", "internal/cql/ast", "internal/types", "internal/cqlerr"},
	"internal/engine": {"internal/auth", "internal/cql/parser", "internal/cql/ast", "internal/plan", "internal/exec", "internal/catalog",
		"internal/systables", "internal/split", "internal/backend", "internal/describe", "internal/types", "internal/token", "internal/cqlerr",
		"internal/advisor"},
	"internal/metrics": {},
	"internal/advisor": {},
	"internal/server":  {"internal/protocol", "internal/engine", "internal/catalog", "internal/metrics", "internal/types", "internal/cqlerr"},
	"internal/config":  {"internal/engine", "internal/server"},

	"internal/clusterstore": {"internal/backend", "internal/token", "internal/cqlerr"},
}

// TestImportsFlowOneWay fails when a package imports a project package that
// docs/architecture.md does not allow it to (tests excluded).
func TestImportsFlowOneWay(t *testing.T) {
	root := filepath.Join("..", "..")
	for pkg, ok := range allowed {
		allow := map[string]bool{}
		for _, a := range ok {
			allow[a] = true
		}
		for _, imp := range projectImports(t, filepath.Join(root, pkg)) {
			if !allow[imp] {
				t.Errorf("%s imports %s, against the one-way flow (docs/architecture.md)", pkg, imp)
			}
		}
	}
}

// TestEveryPackageIsListed keeps the table above complete.
func TestEveryPackageIsListed(t *testing.T) {
	root := filepath.Join("..", "..", "internal")
	_ = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() || strings.Contains(path, "testdata") {
			return nil
		}
		rel, _ := filepath.Rel(filepath.Join("..", ".."), path)
		rel = filepath.ToSlash(rel)
		if rel == "internal" || rel == "internal/lint" || rel == "internal/cqltest" || rel == "internal/cql" || strings.HasPrefix(rel, "internal/bench") {
			return nil
		}
		if len(goFiles(path)) > 0 {
			if _, ok := allowed[rel]; !ok {
				t.Errorf("package %s is not in the layering table", rel)
			}
		}
		return nil
	})
}

func goFiles(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		n := e.Name()
		if strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			out = append(out, filepath.Join(dir, n))
		}
	}
	return out
}

func projectImports(t *testing.T, dir string) []string {
	seen := map[string]bool{}
	fset := token.NewFileSet()
	for _, f := range goFiles(dir) {
		file, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range file.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			if strings.HasPrefix(p, module) {
				seen[strings.TrimPrefix(p, module)] = true
			}
		}
	}
	var out []string
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}
