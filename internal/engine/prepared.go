package engine

import (
	"container/list"
	"crypto/md5"
	"sync"

	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cql/ast"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/plan"
)

// prepared is a prepared statement: its text, the keyspace it was prepared
// in, and its plan for one schema version (invariant 2).
type prepared struct {
	id       []byte
	query    string
	keyspace string
	stmt     ast.Statement
	// normalized is the statement statistics' key (stmtstats.go).
	normalized string

	mu     sync.Mutex
	schema *catalog.Schema
	plan   plan.Statement
}

// statementID is the MD5 of keyspace and query (invariant 1).
func statementID(keyspace, query string) []byte {
	sum := md5.Sum([]byte(keyspace + query))
	return sum[:]
}

// preparedCache keeps the most recently used prepared statements, at most
// maxCount of them and about maxBytes of memory (Cassandra's
// prepared_statements_cache_size: its cache is weighed by each statement's
// measured size, QueryProcessor.java). Past either bound the least recently
// used are evicted; their EXECUTE gets UNPREPARED, and drivers prepare again.
type preparedCache struct {
	mu       sync.Mutex
	maxCount int
	maxBytes int64
	bytes    int64
	byID     map[string]*list.Element
	order    *list.List
}

func newPreparedCache(maxCount int, maxBytes int64) *preparedCache {
	if maxCount <= 0 {
		maxCount = 10000
	}
	if maxBytes <= 0 {
		maxBytes = DefaultPreparedCacheBytes
	}
	return &preparedCache{maxCount: maxCount, maxBytes: maxBytes, byID: map[string]*list.Element{}, order: list.New()}
}

// preparedSize estimates the memory a prepared statement holds: its text,
// and its AST and plan, which keep every name and literal of the text
// again, with the nodes around them. Go has no deep measure like
// Cassandra's ObjectSizes.measureDeep; large statements were measured at
// about 2.2 bytes of heap per byte of text (700 distinct 1 MB statements
// held 1.5 GiB), and 3 leaves room for statements with more nodes per
// byte.
func preparedSize(query string) int64 {
	return 1<<10 + 3*int64(len(query))
}

// tooLarge is Cassandra's refusal of a statement larger than the whole
// cache (QueryProcessor.storePreparedStatement).
func (c *preparedCache) tooLarge(query string) error {
	size := preparedSize(query)
	if size <= c.maxBytes {
		return nil
	}
	head := query
	if len(head) > 200 {
		head = head[:200]
	}
	return cqlerr.Invalidf("Prepared statement of size %d bytes is larger than allowed maximum of %d MiB: %s...",
		size, c.maxBytes>>20, head)
}

func (c *preparedCache) get(id []byte) *prepared {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byID[string(id)]
	if !ok {
		return nil
	}
	c.order.MoveToFront(el)
	return el.Value.(*prepared)
}

// put adds p, or replaces the statement of its id, and evicts the least
// recently used statements past either bound. p must not be tooLarge.
func (c *preparedCache) put(p *prepared) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byID[string(p.id)]; ok {
		c.bytes -= preparedSize(el.Value.(*prepared).query)
		el.Value = p
		c.order.MoveToFront(el)
	} else {
		c.byID[string(p.id)] = c.order.PushFront(p)
	}
	c.bytes += preparedSize(p.query)
	for c.order.Len() > c.maxCount || (c.bytes > c.maxBytes && c.order.Len() > 1) {
		last := c.order.Back()
		c.order.Remove(last)
		evicted := last.Value.(*prepared)
		delete(c.byID, string(evicted.id))
		c.bytes -= preparedSize(evicted.query)
	}
}

// usage returns the statements held and their estimated bytes.
func (c *preparedCache) usage() (count int, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len(), c.bytes
}
