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
		d, err := decodeDataKey(key)
		if err != nil {
			return nil, fmt.Errorf("merge on non-data key %x: %w", key, err)
		}
		switch d.kind {
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
		return nil, fmt.Errorf("merge on key kind %d", d.kind)
	},
}

// rowMerger keeps the first operand as bytes and decodes only when a second
// one arrives: most reads see a single operand.
type rowMerger struct {
	first   []byte
	row     backend.Row
	scratch []backend.Cell
	next    backend.Row
	n       int
}

func (m *rowMerger) add(value []byte) error {
	m.n++
	switch m.n {
	case 1:
		m.first = append([]byte(nil), value...)
		return nil
	case 2:
		if err := decodeRow(m.first, &m.row, false); err != nil {
			return err
		}
	}
	if err := decodeRow(value, &m.next, true); err != nil {
		return err
	}
	m.scratch = backend.MergeInto(&m.row, &m.next, m.scratch)
	return nil
}

func (m *rowMerger) MergeNewer(value []byte) error { return m.add(value) }
func (m *rowMerger) MergeOlder(value []byte) error { return m.add(value) }

func (m *rowMerger) Finish(includesBase bool) ([]byte, io.Closer, error) {
	if m.n == 1 {
		return m.first, nil, nil
	}
	return encodeRow(nil, &m.row), nil, nil
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
