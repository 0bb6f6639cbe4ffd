package e2e_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"

	"github.com/partita-db/partita/test/internal/seeds"
)

// The seed documents' scenarios (test/internal/seeds), one test each,
// against the shared node; test/clusterstore TestSeedsThroughGateway runs
// the same ones through a gateway over Cassandra.

// TestSeedScenariosListed checks that every scenario of seeds.All has its
// test in this file, which calls it, so that none is left out here.
func TestSeedScenariosListed(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "seeds_test.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]string{} // test name -> the seeds function it calls
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || len(fn.Body.List) != 1 {
			continue
		}
		if e, ok := fn.Body.List[0].(*ast.ExprStmt); ok {
			if c, ok := e.X.(*ast.CallExpr); ok {
				if sel, ok := c.Fun.(*ast.SelectorExpr); ok {
					calls[fn.Name.Name] = sel.Sel.Name
				}
			}
		}
	}
	for _, sc := range seeds.All {
		if got := calls["Test"+sc.Name]; got != sc.Name {
			t.Errorf("scenario %s: Test%s calls %q, want seeds.%s", sc.Name, sc.Name, got, sc.Name)
		}
	}
}

func TestSeed000NotesByUser(t *testing.T) { seeds.Seed000NotesByUser(t, target) }

func TestSeed000KeyForms(t *testing.T) { seeds.Seed000KeyForms(t, target) }

func TestSeed000TimeBuckets(t *testing.T) { seeds.Seed000TimeBuckets(t, target) }

func TestSeed001IoT(t *testing.T) { seeds.Seed001IoT(t, target) }

func TestSeed003EventsByAssetDay(t *testing.T) { seeds.Seed003EventsByAssetDay(t, target) }

func TestSeed003SplitMetadata(t *testing.T) { seeds.Seed003SplitMetadata(t, target) }

func TestSeed003ReadPath(t *testing.T) { seeds.Seed003ReadPath(t, target) }

func TestSeed003ReadPathUnsplit(t *testing.T) { seeds.Seed003ReadPathUnsplit(t, target) }

func TestSeed004NowAndLiteralTimeUUID(t *testing.T) { seeds.Seed004NowAndLiteralTimeUUID(t, target) }

func TestSeed004RangeAndLatest(t *testing.T) { seeds.Seed004RangeAndLatest(t, target) }

func TestSeed004SkippedClusteringColumn(t *testing.T) {
	seeds.Seed004SkippedClusteringColumn(t, target)
}

func TestSeed004NoPartitionKey(t *testing.T) { seeds.Seed004NoPartitionKey(t, target) }

func TestSeed004LoginEventsByDay(t *testing.T) { seeds.Seed004LoginEventsByDay(t, target) }

func TestSeed004HourBuckets(t *testing.T) { seeds.Seed004HourBuckets(t, target) }

func TestSeed004RoomEvents16Buckets(t *testing.T) { seeds.Seed004RoomEvents16Buckets(t, target) }

func TestSeed004Orders(t *testing.T) { seeds.Seed004Orders(t, target) }

func TestSeed004LoggedBatch(t *testing.T) { seeds.Seed004LoggedBatch(t, target) }

func TestSeed004LoggedBatchAsPreparedText(t *testing.T) {
	seeds.Seed004LoggedBatchAsPreparedText(t, target)
}

func TestSeed004TupleCursorPaging(t *testing.T) { seeds.Seed004TupleCursorPaging(t, target) }

func TestSeed004TupleRelationOnMixedOrder(t *testing.T) {
	seeds.Seed004TupleRelationOnMixedOrder(t, target)
}

func TestSeed004InOnPartitionKeyParts(t *testing.T) { seeds.Seed004InOnPartitionKeyParts(t, target) }
