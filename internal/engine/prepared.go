package engine

import (
	"container/list"
	"crypto/md5"
	"sync"

	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cql/ast"
	"github.com/partita-db/partita/internal/plan"
)

// prepared is a prepared statement: its text, the keyspace it was prepared
// in, and its plan for one schema version (invariant 2).
type prepared struct {
	id       []byte
	query    string
	keyspace string
	stmt     ast.Statement

	mu     sync.Mutex
	schema *catalog.Schema
	plan   plan.Statement
}

// statementID is the MD5 of keyspace and query (invariant 1).
func statementID(keyspace, query string) []byte {
	sum := md5.Sum([]byte(keyspace + query))
	return sum[:]
}

// preparedCache keeps the most recently used prepared statements.
type preparedCache struct {
	mu    sync.Mutex
	max   int
	byID  map[string]*list.Element
	order *list.List
}

func newPreparedCache(max int) *preparedCache {
	if max <= 0 {
		max = 10000
	}
	return &preparedCache{max: max, byID: map[string]*list.Element{}, order: list.New()}
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

func (c *preparedCache) put(p *prepared) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byID[string(p.id)]; ok {
		el.Value = p
		c.order.MoveToFront(el)
		return
	}
	c.byID[string(p.id)] = c.order.PushFront(p)
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.byID, string(last.Value.(*prepared).id))
	}
}
