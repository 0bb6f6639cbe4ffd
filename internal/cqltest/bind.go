package cqltest

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/engine"
	"github.com/partita-db/partita/internal/protocol"
	"github.com/partita-db/partita/internal/types"
)

// The bind command prepares statements and executes them with bound
// values, as a driver does, unset values included:
//
//	bind
//	UPDATE t SET v = ? WHERE k = ?
//	  unset | 1
//	  2 | 1
//	----
//
// Each line that does not start with a space is a statement (a trailing
// ';' is dropped); each indented line under it executes it once with the
// values it lists, separated by " | ": unset, null, 0x... (the value's
// bytes), or a CQL literal of the marker's type (strings in single quotes;
// lists, sets and maps of such literals). A statement with no value line
// executes once with none. The outcome prints as Exec prints it.

// BoundExec is one execution of a bind command: a statement and the
// texts of its values.
type BoundExec struct {
	Stmt   string
	Values []string
}

// ParseBind reads a bind command's input.
func ParseBind(input string) []BoundExec {
	var out []BoundExec
	stmt, used := "", true
	for _, line := range strings.Split(input, "\n") {
		switch {
		case strings.TrimSpace(line) == "":
		case line[0] == ' ':
			out = append(out, BoundExec{Stmt: stmt, Values: strings.Split(strings.TrimSpace(line), " | ")})
			used = true
		default:
			if !used {
				out = append(out, BoundExec{Stmt: stmt})
			}
			stmt, used = strings.TrimSuffix(strings.TrimSpace(line), ";"), false
		}
	}
	if !used {
		out = append(out, BoundExec{Stmt: stmt})
	}
	return out
}

// boundValue encodes the text of one bound value for type t.
func boundValue(t *types.Type, text string) (protocol.Value, error) {
	switch text {
	case "unset":
		return protocol.Value{Unset: true}, nil
	case "null":
		return protocol.Value{}, nil
	}
	v, err := encodeBoundLiteral(t, strings.TrimSpace(text))
	return protocol.Value{Bytes: v}, err
}

func encodeBoundLiteral(t *types.Type, text string) ([]byte, error) {
	if strings.HasPrefix(text, "0x") {
		return hex.DecodeString(text[2:])
	}
	switch {
	case (t.Kind == types.KindList || t.Kind == types.KindSet) && len(text) >= 2 && (text[0] == '[' || text[0] == '{'):
		var elems [][]byte
		for _, e := range splitTopLevel(text[1:len(text)-1], ',') {
			v, err := encodeBoundLiteral(t.Elems[0], e)
			if err != nil {
				return nil, err
			}
			elems = append(elems, v)
		}
		return types.EncodeCollection(elems), nil
	case t.Kind == types.KindMap && len(text) >= 2 && text[0] == '{':
		var keys, vals [][]byte
		for _, e := range splitTopLevel(text[1:len(text)-1], ',') {
			kv := splitTopLevel(e, ':')
			if len(kv) != 2 {
				return nil, fmt.Errorf("bad map entry %q", e)
			}
			k, err := encodeBoundLiteral(t.Elems[0], kv[0])
			if err != nil {
				return nil, err
			}
			v, err := encodeBoundLiteral(t.Elems[1], kv[1])
			if err != nil {
				return nil, err
			}
			keys, vals = append(keys, k), append(vals, v)
		}
		return types.EncodeMap(keys, vals), nil
	}
	kind := types.LitInteger
	switch {
	case len(text) >= 2 && text[0] == '\'':
		return types.ParseLiteral(t, types.LitString, strings.ReplaceAll(text[1:len(text)-1], "''", "'"))
	case text == "true" || text == "false":
		kind = types.LitBoolean
	case strings.Count(text, "-") == 4 && len(text) == 36:
		kind = types.LitUUID
	case strings.ContainsAny(text, ".eE") || text == "NaN" || strings.HasSuffix(text, "Infinity"):
		kind = types.LitFloat
	}
	return types.ParseLiteral(t, kind, text)
}

// splitTopLevel splits s at sep outside brackets and quotes, trimming the
// parts; an empty s has none.
func splitTopLevel(s string, sep byte) []string {
	var parts []string
	depth, quoted, start := 0, false, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'':
			quoted = !quoted
		case quoted:
		case c == '[' || c == '{' || c == '(':
			depth++
		case c == ']' || c == '}' || c == ')':
			depth--
		case c == sep && depth == 0:
			parts = append(parts, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	if rest := strings.TrimSpace(s[start:]); rest != "" || len(parts) > 0 {
		parts = append(parts, rest)
	}
	return parts
}

// boundValues encodes the values of an execution for the markers' types.
func boundValues(markers []*types.Type, texts []string) ([]protocol.Value, error) {
	if len(texts) != len(markers) {
		return nil, fmt.Errorf("%d values for %d bind markers", len(texts), len(markers))
	}
	out := make([]protocol.Value, len(texts))
	for i, text := range texts {
		v, err := boundValue(markers[i], text)
		if err != nil {
			return nil, fmt.Errorf("value %d (%s): %v", i, text, err)
		}
		out[i] = v
	}
	return out, nil
}

// Bind prepares b.Stmt and executes it with b.Values.
func (h *Harness) Bind(b BoundExec) string {
	ctx := context.Background()
	prep, err := h.Session.Prepare(ctx, b.Stmt)
	if err != nil {
		e := cqlerr.As(err)
		return fmt.Sprintf("error (%s): %s\n", e.Code, e.Message)
	}
	markers := make([]*types.Type, len(prep.BindVariables))
	for i, c := range prep.BindVariables {
		markers[i] = c.Type
	}
	vals, err := boundValues(markers, b.Values)
	if err != nil {
		return fmt.Sprintf("error (harness): %v\n", err)
	}
	opts := &engine.Options{Values: make([]engine.Value, len(vals))}
	for i, v := range vals {
		opts.Values[i] = engine.Value{Bytes: v.Bytes, Unset: v.Unset}
	}
	res, err := h.Session.Execute(ctx, prep.PreparedID, opts)
	if err != nil {
		e := cqlerr.As(err)
		return fmt.Sprintf("error (%s): %s\n", e.Code, e.Message)
	}
	var out strings.Builder
	for _, w := range res.Warnings {
		fmt.Fprintf(&out, "warning: %s\n", w)
	}
	if res.Kind == engine.ResultRows {
		FormatRows(&out, res)
	} else {
		out.WriteString("ok\n")
	}
	return out.String()
}

// Bind prepares b.Stmt on the node and executes it with b.Values, printing
// the outcome as Harness.Bind does.
func (s *WireSession) Bind(b BoundExec) string {
	resp, _, err := s.roundTrip(&protocol.Prepare{Query: b.Stmt})
	if err != nil {
		return fmt.Sprintf("error (connection): %v\n", err)
	}
	var prep *protocol.PreparedResult
	switch r := resp.(type) {
	case *protocol.ErrorMessage:
		e := cqlerr.As(r.Err)
		return fmt.Sprintf("error (%s): %s\n", e.Code, e.Message)
	case *protocol.PreparedResult:
		prep = r
	default:
		return fmt.Sprintf("error (connection): PREPARE answered with %T\n", resp)
	}
	markers := make([]*types.Type, len(prep.Variables.Columns))
	for i, c := range prep.Variables.Columns {
		markers[i] = c.Type
	}
	vals, err := boundValues(markers, b.Values)
	if err != nil {
		return fmt.Sprintf("error (harness): %v\n", err)
	}
	params := protocol.QueryParameters{Consistency: protocol.One, Values: vals}
	if len(vals) > 0 {
		params.Flags |= protocol.FlagValues
	}
	resp, env, err := s.roundTrip(&protocol.Execute{ID: prep.ID, Params: params})
	if err != nil {
		return fmt.Sprintf("error (connection): %v\n", err)
	}
	var out strings.Builder
	for _, w := range env.Warnings {
		fmt.Fprintf(&out, "warning: %s\n", w)
	}
	switch r := resp.(type) {
	case *protocol.ErrorMessage:
		e := cqlerr.As(r.Err)
		return fmt.Sprintf("error (%s): %s\n", e.Code, e.Message)
	case *protocol.RowsResult:
		names := make([]string, len(r.Meta.Columns))
		typs := make([]*types.Type, len(r.Meta.Columns))
		for i, c := range r.Meta.Columns {
			names[i], typs[i] = c.Name, c.Type
		}
		formatTable(&out, names, typs, r.Rows)
	default:
		out.WriteString("ok\n")
	}
	return out.String()
}
