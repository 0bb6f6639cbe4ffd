package describe

import (
	"strings"

	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/types"
)

func viewElement(ks *catalog.Keyspace, v *catalog.Table) element {
	return element{keyspace: ks.Name, kind: "materialized_view", name: v.Name,
		cql: func(internals bool) string { return viewCQL(v, internals) }}
}

// viewCQL is ViewMetadata.appendCqlTo: the SELECT lists the view's columns
// in select order (or * when the view selects every column), and the
// options are the table's without default_time_to_live.
func viewCQL(v *catalog.Table, internals bool) string {
	var c cqlBuilder
	c.append("CREATE MATERIALIZED VIEW ").append(v.QualifiedName()).append(" AS").newLine().increaseIndent().
		append("SELECT ")
	if v.View.IncludeAll {
		c.append("*")
	} else {
		cols := createOrder(v)
		names := make([]string, len(cols))
		for i, col := range cols {
			names[i] = types.QuoteIdent(col.Name)
		}
		c.append(strings.Join(names, ", "))
	}
	c.newLine().append("FROM ").ident(v.Keyspace).append(".").ident(v.View.Base).newLine().
		append("WHERE ").append(v.View.WhereClause).newLine()
	appendPrimaryKey(&c, v)
	c.decreaseIndent().append(" WITH ").increaseIndent()
	appendTableOptions(&c, v, false, internals)
	return c.String()
}
