package server

import (
	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/engine"
	"github.com/partita-db/partita/internal/protocol"
)

// engineOptions converts QUERY/EXECUTE parameters. Fields whose flag is
// absent keep their zero value, so that PageSize 0 means "no paging".
func engineOptions(p *protocol.QueryParameters) engine.Options {
	o := engine.Options{
		Consistency:       engine.Consistency(p.Consistency),
		Values:            engineValues(p.Values),
		SkipMetadata:      p.SkipMetadata(),
		SerialConsistency: engine.Consistency(p.SerialConsistency),
		ClientLevels:      true,
	}
	if p.Has(protocol.FlagNamesForValues) {
		o.Names = p.Names
	}
	if p.Has(protocol.FlagPageSize) {
		o.PageSize = p.PageSize
	}
	if p.Has(protocol.FlagPagingState) {
		o.PagingState = p.PagingState
	}
	if p.Has(protocol.FlagDefaultTimestamp) {
		o.Timestamp, o.HasTimestamp = p.Timestamp, true
	}
	return o
}

func engineValues(vs []protocol.Value) []engine.Value {
	if len(vs) == 0 {
		return nil
	}
	out := make([]engine.Value, len(vs))
	for i, v := range vs {
		out[i] = engine.Value{Bytes: v.Bytes, Unset: v.Unset}
	}
	return out
}

// engineBatch converts a BATCH request.
func engineBatch(b *protocol.Batch) *engine.BatchRequest {
	r := &engine.BatchRequest{
		Type:              engine.BatchType(b.Type),
		Statements:        make([]engine.BatchStatement, len(b.Statements)),
		Consistency:       engine.Consistency(b.Consistency),
		SerialConsistency: engine.Consistency(b.SerialConsistency),
		ClientLevels:      true,
	}
	if b.Has(protocol.FlagDefaultTimestamp) {
		r.Timestamp, r.HasTimestamp = b.Timestamp, true
	}
	for i, s := range b.Statements {
		st := engine.BatchStatement{Values: engineValues(s.Values)}
		if s.Prepared {
			st.ID = s.ID
		} else {
			st.Query = s.Query
		}
		r.Statements[i] = st
	}
	return r
}

// toResponse converts an engine result into its RESULT message. skip is
// the request's skip_metadata flag: Rows then carry only the column count,
// whatever the engine said (v4 has no way to report changed metadata).
func toResponse(res *engine.Result, skip bool) (protocol.Response, error) {
	if res == nil {
		return nil, cqlerr.Serverf("engine returned no result")
	}
	switch res.Kind {
	case engine.ResultVoid:
		return &protocol.VoidResult{}, nil
	case engine.ResultRows:
		return &protocol.RowsResult{Meta: rowsMetadata(res, skip), Rows: res.Rows}, nil
	case engine.ResultSetKeyspace:
		return &protocol.SetKeyspaceResult{Keyspace: res.Keyspace}, nil
	case engine.ResultPrepared:
		return preparedResult(res), nil
	case engine.ResultSchemaChange:
		if res.Change == nil {
			return nil, cqlerr.Serverf("engine returned a schema change result without the change")
		}
		return &protocol.SchemaChangeResult{Change: schemaChange(res.Change)}, nil
	}
	return nil, cqlerr.Serverf("engine returned a result of unknown kind %d", int(res.Kind))
}

func rowsMetadata(res *engine.Result, skip bool) protocol.RowsMetadata {
	m := protocol.RowsMetadata{
		Columns:     columnSpecs(res.Columns),
		NoMetadata:  res.NoMetadata || skip,
		ColumnCount: len(res.Columns),
	}
	// An empty state would announce a page that cannot be asked for.
	if len(res.PagingState) > 0 {
		m.PagingState = res.PagingState
	}
	return m
}

// preparedResult builds the Prepared RESULT. A statement without result
// columns (anything but a SELECT) gets No_metadata and 0 columns, as
// Cassandra sends.
func preparedResult(res *engine.Result) *protocol.PreparedResult {
	return &protocol.PreparedResult{
		ID: res.PreparedID,
		Variables: protocol.PreparedMetadata{
			PKIndexes: res.PKIndexes,
			Columns:   columnSpecs(res.BindVariables),
		},
		ResultMetadata: protocol.RowsMetadata{
			Columns:    columnSpecs(res.Columns),
			NoMetadata: len(res.Columns) == 0,
		},
	}
}

func columnSpecs(cols []engine.Column) []protocol.ColumnSpec {
	if len(cols) == 0 {
		return nil
	}
	out := make([]protocol.ColumnSpec, len(cols))
	for i, c := range cols {
		out[i] = protocol.ColumnSpec{Keyspace: c.Keyspace, Table: c.Table, Name: c.Name, Type: c.Type}
	}
	return out
}

// schemaChange converts the catalog's description of a DDL change.
func schemaChange(c *catalog.Change) protocol.SchemaChange {
	return protocol.SchemaChange{
		Change:   protocol.SchemaChangeType(c.Type),
		Target:   protocol.SchemaChangeTarget(c.Target),
		Keyspace: c.Keyspace,
		Name:     c.Name,
	}
}
