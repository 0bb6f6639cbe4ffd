package engine

import (
	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/plan"
)

// checkLevels refuses a client's consistency level where Cassandra 5.0
// does (db/ConsistencyLevel.java's validateForRead, validateForWrite,
// validateCounterForWrite, validateForCas and validateForCasCommit, called
// by SelectStatement, ModificationStatement and, for conditional batches,
// StorageProxy.cas). Checked against Cassandra 5.0.6, which also accepts
// SERIAL reads of several partitions or of a range, and takes a batch
// without conditions at any level (test/e2e consistency_test.go).
func checkLevels(schema *catalog.Schema, p plan.Statement, cl, serial Consistency) error {
	switch p := p.(type) {
	case *plan.Select:
		if cl == Any {
			return cqlerr.Invalidf("ANY ConsistencyLevel is only supported for writes")
		}
	case *plan.Modify:
		if p.IsConditional() {
			return checkCASLevels(schema, p.Table.Keyspace, cl, serial)
		}
		switch {
		case p.Table.IsCounter && cl == Any:
			return cqlerr.Invalidf("Consistency level ANY is not yet supported for counter table %s", p.Table.Name)
		case p.Table.IsCounter && isSerial(cl):
			return cqlerr.Invalidf("Counter operations are inherently non-serializable")
		case isSerial(cl):
			return cqlerr.Invalidf("You must use conditional updates for serializable writes")
		}
	case *plan.Batch:
		for _, m := range p.Statements {
			if m.IsConditional() {
				return checkCASLevels(schema, m.Table.Keyspace, cl, serial)
			}
		}
	}
	return nil
}

// checkCASLevels checks a conditional update's serial consistency (the
// Paxos round's; absent means SERIAL) and its commit consistency.
func checkCASLevels(schema *catalog.Schema, keyspace string, cl, serial Consistency) error {
	if serial != Any && !isSerial(serial) {
		return cqlerr.Invalidf("Invalid consistency for conditional update. Must be one of SERIAL or LOCAL_SERIAL")
	}
	switch {
	case isSerial(cl):
		return cqlerr.Invalidf("%s is not supported as conditional update commit consistency. Use ANY if you mean \"make sure it is accepted but I don't care how many replicas commit it for non-SERIAL reads\"", cl)
	case cl == EachQuorum:
		if ks := schema.Keyspace(keyspace); ks != nil && ks.Replication["class"] != networkTopologyStrategy {
			return cqlerr.Invalidf("consistency level EACH_QUORUM not compatible with replication strategy (%s)", ks.Replication["class"])
		}
	}
	return nil
}

const networkTopologyStrategy = "org.apache.cassandra.locator.NetworkTopologyStrategy"

func isSerial(c Consistency) bool { return c == Serial || c == LocalSerial }
