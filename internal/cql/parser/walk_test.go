package parser

import (
	"reflect"
	"testing"

	"github.com/partita-db/partita/internal/cql/ast"
)

var exprType = reflect.TypeOf((*ast.Expr)(nil)).Elem()

// TestWalkVisitsEveryExpr checks ast.Walk against reflection: over the
// corpus, Walk reaches every expression held anywhere in the tree, so that
// collecting bind markers with Walk cannot miss one.
func TestWalkVisitsEveryExpr(t *testing.T) {
	for _, in := range testdataInputs(t, "parse", "parse-all") {
		stmts, err := ParseAll(in)
		if err != nil {
			continue
		}
		for _, stmt := range stmts {
			all := map[ast.Expr]bool{}
			collectExprs(reflect.ValueOf(stmt), all)
			ast.Walk(stmt, func(n ast.Node) bool {
				if e, ok := n.(ast.Expr); ok {
					delete(all, e)
				}
				return true
			})
			for e := range all {
				t.Errorf("%q: Walk misses %T %s", in, e, e)
			}
		}
	}
}

func collectExprs(v reflect.Value, into map[ast.Expr]bool) {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return
		}
		if v.Type().Implements(exprType) {
			into[v.Interface().(ast.Expr)] = true
		}
		collectExprs(v.Elem(), into)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			collectExprs(v.Field(i), into)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			collectExprs(v.Index(i), into)
		}
	}
}
