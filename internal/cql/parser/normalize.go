package parser

import "strings"

// Normalize returns the shape of a statement for grouping statistics:
// every literal becomes ?, a list of several ? becomes "?, ...", comments
// go, whitespace is one space and keywords are upper case; names keep
// their spelling. Two statements that differ only in their values (or in
// the number of values of an IN list) normalize alike. Text that does not
// lex is returned with its whitespace collapsed.
func Normalize(query string) string {
	toks := lexAll(query)
	if last := toks[len(toks)-1]; last.kind == tkIllegal {
		return strings.Join(strings.Fields(query), " ")
	}
	var sb strings.Builder
	prev, prevKeyword := tkEOF, false
	for i := 0; i < len(toks) && toks[i].kind != tkEOF; i++ {
		t := toks[i]
		if t.kind == tkSemi {
			continue
		}
		text := query[t.pos.Offset:t.end]
		switch t.kind {
		case tkString, tkInteger, tkFloat, tkBoolean, tkDuration, tkUUID, tkHex, tkNegNaN, tkNegInfinity, tkQMark:
			text = "?"
			// "?, ?, ?" is "?, ...": skip the rest of a run of values.
			j := i
			for j+2 < len(toks) && toks[j+1].kind == tkComma && isValue(toks[j+2].kind) {
				j += 2
			}
			if j > i {
				text, i = "?, ...", j
			}
		case tkIdent:
			// A keyword is upper case, unless it names a function: count(*).
			if t.kw != kwNone && (toks[i+1].kind != tkLParen || spacedBeforeParen[t.text]) {
				text = strings.ToUpper(text)
			}
		}
		if sb.Len() > 0 && spaceBetween(prev, prevKeyword, t.kind) {
			sb.WriteByte(' ')
		}
		sb.WriteString(text)
		prev, prevKeyword = t.kind, t.kind == tkIdent && spacedBeforeParen[t.text]
	}
	return sb.String()
}

// spacedBeforeParen are the keywords a parenthesis follows as an operand
// rather than as a call's arguments.
var spacedBeforeParen = map[string]bool{"in": true, "values": true, "and": true, "where": true, "if": true,
	"by": true, "key": true, "contains": true, "set": true, "or": true, "on": true}

func isValue(k tokKind) bool {
	switch k {
	case tkString, tkInteger, tkFloat, tkBoolean, tkDuration, tkUUID, tkHex, tkNegNaN, tkNegInfinity, tkQMark:
		return true
	}
	return false
}

func spaceBetween(prev tokKind, prevKeyword bool, next tokKind) bool {
	switch prev {
	case tkLParen, tkLBracket, tkLBrace, tkDot:
		return false
	}
	switch next {
	case tkComma, tkRParen, tkRBracket, tkRBrace, tkDot, tkColon:
		return false
	case tkLParen:
		// a function call or a column list after a name: f(x), t(a, b)
		return prevKeyword || prev != tkIdent && prev != tkQuotedName
	}
	return true
}
