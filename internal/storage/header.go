package storage

import (
	"encoding/binary"
	"sync"
	"time"

	"github.com/partita-db/partita/internal/backend"
)

// header is the value of a physical partition's kindHeader key. Every write
// to the partition merges one into it, so it always exists for a partition
// that was ever written.
type header struct {
	deletion backend.DeletionTime
	// maxTimestamp is the newest write timestamp the partition has seen; a
	// deletion newer than it can drop every row without looking at them.
	maxTimestamp int64
	// counters are summed by merging: rows, bytes and tombstones written.
	rowsWritten       int64
	bytesWritten      int64
	tombstonesWritten int64
}

const headerVersion = 1

func newHeader() header {
	return header{deletion: backend.LiveDeletion, maxTimestamp: backend.NoTimestamp}
}

func (h *header) encode(dst []byte) []byte {
	dst = append(dst, headerVersion)
	dst = binary.AppendVarint(dst, h.deletion.MarkedForDeleteAt)
	dst = binary.AppendVarint(dst, h.deletion.LocalDeletionTime)
	dst = binary.AppendVarint(dst, h.maxTimestamp)
	dst = binary.AppendVarint(dst, h.rowsWritten)
	dst = binary.AppendVarint(dst, h.bytesWritten)
	return binary.AppendVarint(dst, h.tombstonesWritten)
}

func decodeHeader(b []byte) (header, error) {
	d := rowDecoder{b: b}
	h := newHeader()
	if d.byte1() != headerVersion {
		return h, errBadRow
	}
	h.deletion.MarkedForDeleteAt = d.varint()
	h.deletion.LocalDeletionTime = d.varint()
	h.maxTimestamp = d.varint()
	h.rowsWritten = d.varint()
	h.bytesWritten = d.varint()
	h.tombstonesWritten = d.varint()
	return h, d.err
}

func (h *header) merge(o header) {
	h.deletion = h.deletion.Max(o.deletion)
	if o.maxTimestamp > h.maxTimestamp {
		h.maxTimestamp = o.maxTimestamp
	}
	h.rowsWritten += o.rowsWritten
	h.bytesWritten += o.bytesWritten
	h.tombstonesWritten += o.tombstonesWritten
}

// encodeDeletion is the value of a range tombstone key.
func encodeDeletion(dst []byte, d backend.DeletionTime) []byte {
	dst = binary.AppendVarint(dst, d.MarkedForDeleteAt)
	return binary.AppendVarint(dst, d.LocalDeletionTime)
}

func decodeDeletion(b []byte) (backend.DeletionTime, error) {
	d := rowDecoder{b: b}
	out := backend.DeletionTime{MarkedForDeleteAt: d.varint(), LocalDeletionTime: d.varint()}
	if d.err == nil && len(d.b) != 0 {
		d.err = errBadRow
	}
	return out, d.err
}

// headerSlack is how far past a write's timestamp the header's
// maxTimestamp is set, in microseconds: later writes up to that bound need
// no header operand of their own.
const headerSlack = int64(time.Second / time.Microsecond)

// headerBound says a committed header of a physical partition holds a
// maxTimestamp of at least bound.
type headerBound struct {
	prefix string
	bound  int64
}

// headerBounds remembers, per physical partition, the maxTimestamp its
// committed header holds at least. Losing an entry only costs a header
// operand; an entry is recorded only after its header committed.
type headerBounds struct {
	mu sync.Mutex
	m  map[string]int64
}

const maxHeaderBounds = 1 << 20

func (h *headerBounds) covers(prefix []byte, ts int64) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	b, ok := h.m[string(prefix)]
	return ok && ts <= b
}

func (h *headerBounds) record(b headerBound) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m == nil || len(h.m) >= maxHeaderBounds {
		h.m = make(map[string]int64)
	}
	if b.bound > h.m[b.prefix] {
		h.m[b.prefix] = b.bound
	}
}

// forget drops a partition's entry (its header was removed).
func (h *headerBounds) forget(prefix []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.m, string(prefix))
}
