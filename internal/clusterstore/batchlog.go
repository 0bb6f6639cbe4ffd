package clusterstore

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/gocql/gocql"
)

// The cluster refuses a logged batch over batch_size_fail_threshold
// (50 KiB by default), so a commit larger than MaxBatchBytes that spans
// partitions goes through the store's own batch log instead: the whole
// commit is written first as one entry, then applied partition by
// partition, then the entry is deleted; Open replays every entry left by
// a gateway that stopped half-way. Replaying is idempotent because every
// statement carries its own timestamp (invariant 5 holds eventually, as
// for the cluster's logged batches: all or nothing, not isolated).

// loggedValue is one bound value of a logged statement.
type loggedValue struct {
	Kind  byte   `json:"k"`
	Bytes []byte `json:"b,omitempty"`
	Int   int64  `json:"i,omitempty"`
}

type loggedStatement struct {
	CQL    string        `json:"q"`
	Part   string        `json:"p"`
	Values []loggedValue `json:"v"`
}

func encodeLog(stmts []statement) ([]byte, error) {
	out := make([]loggedStatement, len(stmts))
	for i, st := range stmts {
		ls := loggedStatement{CQL: st.cql, Part: st.part, Values: make([]loggedValue, len(st.values))}
		for j, v := range st.values {
			switch v := v.(type) {
			case []byte:
				ls.Values[j] = loggedValue{Kind: 0, Bytes: v}
			case int64:
				ls.Values[j] = loggedValue{Kind: 1, Int: v}
			case int32:
				ls.Values[j] = loggedValue{Kind: 2, Int: int64(v)}
			case int8:
				ls.Values[j] = loggedValue{Kind: 3, Int: int64(v)}
			case int:
				ls.Values[j] = loggedValue{Kind: 4, Int: int64(v)}
			default:
				return nil, fmt.Errorf("clusterstore: cannot log a %T", v)
			}
		}
		out[i] = ls
	}
	return json.Marshal(out)
}

func decodeLog(b []byte) ([]statement, error) {
	var in []loggedStatement
	if err := json.Unmarshal(b, &in); err != nil {
		return nil, fmt.Errorf("clusterstore: batch log entry: %w", err)
	}
	out := make([]statement, len(in))
	for i, ls := range in {
		st := statement{cql: ls.CQL, part: ls.Part, values: make([]any, len(ls.Values))}
		for j, v := range ls.Values {
			switch v.Kind {
			case 0:
				b := v.Bytes
				if b == nil {
					b = []byte{}
				}
				st.values[j] = b
			case 1:
				st.values[j] = v.Int
			case 2:
				st.values[j] = int32(v.Int)
			case 3:
				st.values[j] = int8(v.Int)
			case 4:
				st.values[j] = int(v.Int)
			default:
				return nil, fmt.Errorf("clusterstore: batch log entry: value kind %d", v.Kind)
			}
		}
		out[i] = st
	}
	return out, nil
}

// commitAtomic commits stmts all or nothing: one logged batch when it is
// small enough for the cluster, else through the batch log.
func (s *Store) commitAtomic(ctx context.Context, stmts []statement) error {
	if batchBytes(stmts) <= s.opts.MaxBatchBytes {
		return s.runBatch(ctx, stmts, true)
	}
	entry, err := encodeLog(stmts)
	if err != nil {
		return err
	}
	id := gocql.TimeUUID()
	if err := s.exec(ctx, fmt.Sprintf(`INSERT INTO %s.batchlog (id, entry) VALUES (?, ?)`, s.keyspace), id, entry); err != nil {
		return err
	}
	if err := s.applyByPartition(ctx, stmts); err != nil {
		return err // the entry stays: the next Open finishes the commit
	}
	return s.exec(ctx, fmt.Sprintf(`DELETE FROM %s.batchlog WHERE id = ?`, s.keyspace), id)
}

// applyByPartition runs stmts as one unlogged batch per partition (the
// cluster applies each atomically and exempts it from the batch size
// threshold), in bounded pieces for a partition with very many.
func (s *Store) applyByPartition(ctx context.Context, stmts []statement) error {
	const maxPiece = 4 << 20
	var order []string
	groups := map[string][]statement{}
	for _, st := range stmts {
		if _, ok := groups[st.part]; !ok {
			order = append(order, st.part)
		}
		groups[st.part] = append(groups[st.part], st)
	}
	for _, part := range order {
		g := groups[part]
		for len(g) > 0 {
			n, size := 0, 0
			for n < len(g) && (n == 0 || size+g[n].bytes <= maxPiece) {
				size += g[n].bytes
				n++
			}
			if err := s.runBatch(ctx, g[:n], false); err != nil {
				return err
			}
			g = g[n:]
		}
	}
	return nil
}

// replayBatchLog finishes the commits a stopped gateway left in the log.
func (s *Store) replayBatchLog(ctx context.Context) error {
	it := s.session.Query(fmt.Sprintf(`SELECT id, entry FROM %s.batchlog`, s.keyspace)).WithContext(ctx).Iter()
	var id gocql.UUID
	var entry []byte
	type pending struct {
		id    gocql.UUID
		stmts []statement
	}
	var todo []pending
	for it.Scan(&id, &entry) {
		stmts, err := decodeLog(entry)
		if err != nil {
			_ = it.Close()
			return err
		}
		todo = append(todo, pending{id, stmts})
		entry = nil
	}
	if err := it.Close(); err != nil {
		return err
	}
	for _, p := range todo {
		if err := s.applyByPartition(ctx, p.stmts); err != nil {
			return err
		}
		if err := s.exec(ctx, fmt.Sprintf(`DELETE FROM %s.batchlog WHERE id = ?`, s.keyspace), p.id); err != nil {
			return err
		}
	}
	return nil
}
