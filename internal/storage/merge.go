package storage

import (
	"fmt"
	"io"

	"github.com/cockroachdb/pebble/v2"

	"github.com/partita-db/partita/internal/backend"
)

// merger resolves concurrent blind writes to one key the way Cassandra
// reconciles them (backend invariants 1 and 2). Pebble calls it while
// reading and compacting; it dispatches on the key's kind.
var merger = &pebble.Merger{
	Name: "partita.lww.v1",
	Merge: func(key, value []byte) (pebble.ValueMerger, error) {
		kind, err := dataKeyKind(key)
		if err != nil {
			return nil, fmt.Errorf("merge on non-data key %x: %w", key, err)
		}
		switch kind {
		case kindHeader:
			m := &headerMerger{}
			return m, m.add(value)
		case kindRangeTS:
			m := &deletionMerger{}
			return m, m.add(value)
		case kindRow, kindStatic:
			m := &rowMerger{}
			return m, m.add(value)
		}
		return nil, fmt.Errorf("merge on key kind %d", kind)
	},
}

// rowMerger keeps the first operand as bytes and decodes only when a second
// one arrives: most reads see a single operand, so the common case costs
// one small allocation and one copy.
type rowMerger struct {
	first  []byte
	merged *rowMerge
}

// rowMerge is the decoded state once a row has two or more operands.
type rowMerge struct {
	row     backend.Row
	scratch []backend.Cell
	next    backend.Row
}

func (m *rowMerger) add(value []byte) error {
	if m.first == nil {
		m.first = append(make([]byte, 0, len(value)), value...)
		return nil
	}
	if m.merged == nil {
		m.merged = &rowMerge{}
		if err := decodeRow(m.first, &m.merged.row, false); err != nil {
			return err
		}
	}
	r := m.merged
	if err := decodeRow(value, &r.next, true); err != nil {
		return err
	}
	r.scratch = backend.MergeInto(&r.row, &r.next, r.scratch)
	return nil
}

func (m *rowMerger) MergeNewer(value []byte) error { return m.add(value) }
func (m *rowMerger) MergeOlder(value []byte) error { return m.add(value) }

func (m *rowMerger) Finish(includesBase bool) ([]byte, io.Closer, error) {
	if m.merged == nil {
		return m.first, nil, nil
	}
	return encodeRow(nil, &m.merged.row), nil, nil
}

type headerMerger struct {
	h   header
	set bool
}

func (m *headerMerger) add(value []byte) error {
	h, err := decodeHeader(value)
	if err != nil {
		return err
	}
	if !m.set {
		m.h, m.set = h, true
	} else {
		m.h.merge(h)
	}
	return nil
}

func (m *headerMerger) MergeNewer(value []byte) error { return m.add(value) }
func (m *headerMerger) MergeOlder(value []byte) error { return m.add(value) }
func (m *headerMerger) Finish(bool) ([]byte, io.Closer, error) {
	return m.h.encode(nil), nil, nil
}

type deletionMerger struct {
	d   backend.DeletionTime
	set bool
}

func (m *deletionMerger) add(value []byte) error {
	d, err := decodeDeletion(value)
	if err != nil {
		return err
	}
	if !m.set {
		m.d, m.set = d, true
	} else {
		m.d = m.d.Max(d)
	}
	return nil
}

func (m *deletionMerger) MergeNewer(value []byte) error { return m.add(value) }
func (m *deletionMerger) MergeOlder(value []byte) error { return m.add(value) }
func (m *deletionMerger) Finish(bool) ([]byte, io.Closer, error) {
	return encodeDeletion(nil, m.d), nil, nil
}
