package parser

import "github.com/partita-db/partita/internal/cql/ast"

// tokKind is the lexical class of a token (src/antlr/Lexer.g).
type tokKind uint8

const (
	tkEOF             tokKind = iota
	tkIllegal                 // a lexer error; text holds the message
	tkIdent                   // IDENT or a keyword (kw != kwNone)
	tkQuotedName              // "..."
	tkEmptyQuotedName         // ""
	tkString                  // '...' or $$...$$
	tkInteger
	tkFloat
	tkBoolean
	tkDuration
	tkUUID
	tkHex
	tkNegNaN      // -NaN
	tkNegInfinity // -Infinity
	tkQMark       // ?
	tkRange       // ..
	tkSemi
	tkLParen
	tkRParen
	tkComma
	tkDot
	tkLBracket
	tkRBracket
	tkLBrace
	tkRBrace
	tkColon
	tkEq
	tkLt
	tkLte
	tkGt
	tkGte
	tkNeq
	tkPlus
	tkMinus
	tkStar
	tkSlash
	tkPercent
	tkPlusEq
	tkMinusEq
	tkWS      // hidden: only produced when the lexer keeps hidden tokens
	tkComment // hidden
)

// tokNames are the names ANTLR's error messages use for token types.
var tokNames = [...]string{
	tkEOF: "EOF", tkIllegal: "<illegal>", tkIdent: "IDENT", tkQuotedName: "QUOTED_NAME",
	tkEmptyQuotedName: "EMPTY_QUOTED_NAME", tkString: "STRING_LITERAL", tkInteger: "INTEGER",
	tkFloat: "FLOAT", tkBoolean: "BOOLEAN", tkDuration: "DURATION", tkUUID: "UUID",
	tkHex: "HEXNUMBER", tkNegNaN: "K_NEGATIVE_NAN", tkNegInfinity: "K_NEGATIVE_INFINITY",
	tkQMark: "QMARK", tkRange: "RANGE", tkSemi: "';'", tkLParen: "'('", tkRParen: "')'",
	tkComma: "','", tkDot: "'.'", tkLBracket: "'['", tkRBracket: "']'", tkLBrace: "'{'",
	tkRBrace: "'}'", tkColon: "':'", tkEq: "'='", tkLt: "'<'", tkLte: "'<='", tkGt: "'>'",
	tkGte: "'>='", tkNeq: "'!='", tkPlus: "'+'", tkMinus: "'-'", tkStar: "'*'", tkSlash: "'/'",
	tkPercent: "'%'", tkPlusEq: "'+='", tkMinusEq: "'-='", tkWS: "WS", tkComment: "COMMENT",
}

// token is one token of the query text.
type token struct {
	kind tokKind
	kw   keyword
	pos  ast.Pos
	end  int // byte offset just past the token
	// text is the token's value: an identifier or keyword lower-cased, the
	// unescaped content of a string or quoted name, a lexer error message,
	// otherwise the source text.
	text string
}

// keyword identifies a CQL keyword. Unquoted identifiers that spell one are
// lexed as tkIdent with kw set; whether the word may still serve as a name
// depends on its class and the grammar rule.
type keyword uint8

// kwClass says where a keyword may be used as an identifier (Parser.g:
// basic_unreserved_keyword, unreserved_function_keyword,
// unreserved_keyword; the rest are reserved).
type kwClass uint8

const (
	classReserved   kwClass = iota // never an unquoted identifier
	classBasic                     // basic_unreserved_keyword: any name
	classNativeType                // native_type: any name except a user type's
	classUnreserved                // the rest of unreserved_keyword: not a function or user type name
)

const (
	kwNone keyword = iota
	kwAccess
	kwAdd
	kwAggregate
	kwAggregates
	kwAll
	kwAllow
	kwAlter
	kwAnd
	kwAnn
	kwApply
	kwAs
	kwAsc
	kwASCII
	kwAuthorize
	kwBatch
	kwBegin
	kwBigint
	kwBlob
	kwBoolean
	kwBy
	kwCalled
	kwCast
	kwCidrs
	kwCluster
	kwClustering
	kwCompact
	kwContains
	kwCount
	kwCounter
	kwCreate
	kwCustom
	kwDatacenters
	kwDate
	kwDecimal
	kwDefault
	kwDelete
	kwDesc
	kwDescribe
	kwDistinct
	kwDouble
	kwDrop
	kwDuration
	kwEntries
	kwExecute
	kwExists
	kwFiltering
	kwFinalfunc
	kwFloat
	kwFrom
	kwFrozen
	kwFull
	kwFunction
	kwFunctions
	kwGrant
	kwGroup
	kwHashed
	kwIdentity
	kwIf
	kwIn
	kwIndex
	kwInet
	kwInfinity
	kwInitcond
	kwInput
	kwInsert
	kwInt
	kwInternals
	kwInto
	kwIs
	kwJSON
	kwKey
	kwKeys
	kwKeyspace
	kwKeyspaces
	kwLanguage
	kwLike
	kwLimit
	kwList
	kwLogin
	kwMap
	kwMasked
	kwMaterialized
	kwMaxwritetime
	kwMbean
	kwMbeans
	kwModify
	kwNaN
	kwNologin
	kwNorecursive
	kwNosuperuser
	kwNot
	kwNull
	kwOf
	kwOn
	kwOnly
	kwOptions
	kwOr
	kwOrder
	kwPartition
	kwPassword
	kwPer
	kwPermission
	kwPermissions
	kwPrimary
	kwRename
	kwReplace
	kwReturns
	kwRevoke
	kwRole
	kwRoles
	kwSchema
	kwSelect
	kwSelectMasked
	kwSet
	kwSfunc
	kwSmallint
	kwStatic
	kwStorage
	kwStype
	kwSuperuser
	kwTable
	kwTables
	kwText
	kwTime
	kwTimestamp
	kwTimeuuid
	kwTinyint
	kwTo
	kwToken
	kwTrigger
	kwTruncate
	kwTTL
	kwTuple
	kwType
	kwTypes
	kwUnlogged
	kwUnmask
	kwUnset
	kwUpdate
	kwUse
	kwUser
	kwUsers
	kwUsing
	kwUUID
	kwValues
	kwVarchar
	kwVarint
	kwVector
	kwView
	kwWhere
	kwWith
	kwWritetime
	numKeywords // keep last
)

type keywordInfo struct {
	name  string // lower-case spelling
	antlr string // ANTLR token name for "expecting ..." messages; "" = K_ + upper(name)
	class kwClass
}

// keywords lists Cassandra 5.0's keywords (src/antlr/Lexer.g) with their
// class (src/antlr/Parser.g; the reserved ones are
// src/resources/org/apache/cassandra/cql3/reserved_keywords.txt).
var keywords = [numKeywords]keywordInfo{
	kwAccess: {"access", "", classBasic}, kwAdd: {"add", "", classReserved},
	kwAggregate: {"aggregate", "", classBasic}, kwAggregates: {"aggregates", "", classBasic},
	kwAll: {"all", "", classBasic}, kwAllow: {"allow", "", classReserved},
	kwAlter: {"alter", "", classReserved}, kwAnd: {"and", "", classReserved},
	kwAnn: {"ann", "", classBasic}, kwApply: {"apply", "", classReserved},
	kwAs: {"as", "", classBasic}, kwAsc: {"asc", "", classReserved},
	kwASCII: {"ascii", "", classNativeType}, kwAuthorize: {"authorize", "", classReserved},
	kwBatch: {"batch", "", classReserved}, kwBegin: {"begin", "", classReserved},
	kwBigint: {"bigint", "", classNativeType}, kwBlob: {"blob", "", classNativeType},
	kwBoolean: {"boolean", "", classNativeType}, kwBy: {"by", "", classReserved},
	kwCalled: {"called", "", classBasic}, kwCast: {"cast", "", classUnreserved},
	kwCidrs: {"cidrs", "", classBasic}, kwCluster: {"cluster", "", classBasic},
	kwClustering: {"clustering", "", classBasic}, kwCompact: {"compact", "", classBasic},
	kwContains: {"contains", "", classBasic}, kwCount: {"count", "", classUnreserved},
	kwCounter: {"counter", "", classNativeType}, kwCreate: {"create", "", classReserved},
	kwCustom: {"custom", "", classBasic}, kwDatacenters: {"datacenters", "", classBasic},
	kwDate: {"date", "", classNativeType}, kwDecimal: {"decimal", "", classNativeType},
	kwDefault: {"default", "", classBasic}, kwDelete: {"delete", "", classReserved},
	kwDesc: {"desc", "", classReserved}, kwDescribe: {"describe", "", classReserved},
	kwDistinct: {"distinct", "", classUnreserved}, kwDouble: {"double", "", classNativeType},
	kwDrop: {"drop", "", classReserved}, kwDuration: {"duration", "", classNativeType},
	kwEntries: {"entries", "", classReserved}, kwExecute: {"execute", "", classReserved},
	kwExists: {"exists", "", classBasic}, kwFiltering: {"filtering", "", classBasic},
	kwFinalfunc: {"finalfunc", "", classBasic}, kwFloat: {"float", "", classNativeType},
	kwFrom: {"from", "", classReserved}, kwFrozen: {"frozen", "", classBasic},
	kwFull: {"full", "", classReserved}, kwFunction: {"function", "", classBasic},
	kwFunctions: {"functions", "", classBasic}, kwGrant: {"grant", "", classReserved},
	kwGroup: {"group", "", classBasic}, kwHashed: {"hashed", "", classBasic},
	kwIdentity: {"identity", "", classBasic}, kwIf: {"if", "", classReserved},
	kwIn: {"in", "", classReserved}, kwIndex: {"index", "", classReserved},
	kwInet: {"inet", "", classNativeType}, kwInfinity: {"infinity", "K_POSITIVE_INFINITY", classReserved},
	kwInitcond: {"initcond", "", classBasic}, kwInput: {"input", "", classBasic},
	kwInsert: {"insert", "", classReserved}, kwInt: {"int", "", classNativeType},
	kwInternals: {"internals", "", classBasic}, kwInto: {"into", "", classReserved},
	kwIs: {"is", "", classReserved}, kwJSON: {"json", "", classUnreserved},
	kwKey: {"key", "", classUnreserved}, kwKeys: {"keys", "", classBasic},
	kwKeyspace: {"keyspace", "", classReserved}, kwKeyspaces: {"keyspaces", "", classBasic},
	kwLanguage: {"language", "", classBasic}, kwLike: {"like", "", classBasic},
	kwLimit: {"limit", "", classReserved}, kwList: {"list", "", classBasic},
	kwLogin: {"login", "", classBasic}, kwMap: {"map", "", classBasic},
	kwMasked: {"masked", "", classBasic}, kwMaterialized: {"materialized", "", classReserved},
	kwMaxwritetime: {"maxwritetime", "", classUnreserved}, kwMbean: {"mbean", "", classBasic},
	kwMbeans: {"mbeans", "", classBasic}, kwModify: {"modify", "", classReserved},
	kwNaN: {"nan", "K_POSITIVE_NAN", classReserved}, kwNologin: {"nologin", "", classBasic},
	kwNorecursive: {"norecursive", "", classReserved}, kwNosuperuser: {"nosuperuser", "", classBasic},
	kwNot: {"not", "", classReserved}, kwNull: {"null", "", classReserved},
	kwOf: {"of", "", classReserved}, kwOn: {"on", "", classReserved},
	kwOnly: {"only", "", classBasic}, kwOptions: {"options", "", classBasic},
	kwOr: {"or", "", classReserved}, kwOrder: {"order", "", classReserved},
	kwPartition: {"partition", "", classBasic}, kwPassword: {"password", "", classBasic},
	kwPer: {"per", "", classBasic}, kwPermission: {"permission", "", classBasic},
	kwPermissions: {"permissions", "", classBasic}, kwPrimary: {"primary", "", classReserved},
	kwRename: {"rename", "", classReserved}, kwReplace: {"replace", "", classBasic},
	kwReturns: {"returns", "", classBasic}, kwRevoke: {"revoke", "", classReserved},
	kwRole: {"role", "", classBasic}, kwRoles: {"roles", "", classBasic},
	kwSchema: {"schema", "", classReserved}, kwSelect: {"select", "", classReserved},
	kwSelectMasked: {"select_masked", "", classBasic}, kwSet: {"set", "", classReserved},
	kwSfunc: {"sfunc", "", classBasic}, kwSmallint: {"smallint", "", classNativeType},
	kwStatic: {"static", "", classBasic}, kwStorage: {"storage", "", classBasic},
	kwStype: {"stype", "", classBasic}, kwSuperuser: {"superuser", "", classBasic},
	kwTable: {"table", "K_COLUMNFAMILY", classReserved}, kwTables: {"tables", "", classBasic},
	kwText: {"text", "", classNativeType}, kwTime: {"time", "", classNativeType},
	kwTimestamp: {"timestamp", "", classNativeType}, kwTimeuuid: {"timeuuid", "", classNativeType},
	kwTinyint: {"tinyint", "", classNativeType}, kwTo: {"to", "", classReserved},
	kwToken: {"token", "", classReserved}, kwTrigger: {"trigger", "", classBasic},
	kwTruncate: {"truncate", "", classReserved}, kwTTL: {"ttl", "", classUnreserved},
	kwTuple: {"tuple", "", classBasic}, kwType: {"type", "", classBasic},
	kwTypes: {"types", "", classBasic}, kwUnlogged: {"unlogged", "", classReserved},
	kwUnmask: {"unmask", "", classBasic}, kwUnset: {"unset", "", classBasic},
	kwUpdate: {"update", "", classReserved}, kwUse: {"use", "", classReserved},
	kwUser: {"user", "", classBasic}, kwUsers: {"users", "", classBasic},
	kwUsing: {"using", "", classReserved}, kwUUID: {"uuid", "", classNativeType},
	kwValues: {"values", "", classBasic}, kwVarchar: {"varchar", "", classNativeType},
	kwVarint: {"varint", "", classNativeType}, kwVector: {"vector", "", classBasic},
	kwView: {"view", "", classReserved}, kwWhere: {"where", "", classReserved},
	kwWith: {"with", "", classReserved}, kwWritetime: {"writetime", "", classUnreserved},
}

// keywordSynonyms are the second spellings Lexer.g gives two keywords.
var keywordSynonyms = map[string]keyword{
	"columnfamily":   kwTable,
	"columnfamilies": kwTables,
}

// keywordByName maps a lower-case spelling to its keyword; the key doubles
// as the token text, so lexing a keyword allocates nothing.
var keywordByName = func() map[string]keyword {
	m := make(map[string]keyword, len(keywords)+len(keywordSynonyms))
	for kw := kwNone + 1; kw < numKeywords; kw++ {
		m[keywords[kw].name] = kw
	}
	for name, kw := range keywordSynonyms {
		m[name] = kw
	}
	return m
}()

// antlrName is the keyword's token name in ANTLR messages, e.g. K_FROM.
func (kw keyword) antlrName() string {
	info := keywords[kw]
	if info.antlr != "" {
		return info.antlr
	}
	b := []byte("K_" + info.name)
	for i := 2; i < len(b); i++ {
		if b[i] >= 'a' && b[i] <= 'z' {
			b[i] -= 'a' - 'A'
		}
	}
	return string(b)
}

// isNativeType reports whether kw names a native type (Parser.g native_type).
func (kw keyword) isNativeType() bool { return keywords[kw].class == classNativeType }
