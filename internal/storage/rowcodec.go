package storage

import (
	"encoding/binary"
	"errors"

	"github.com/partita-db/partita/internal/backend"
)

// Row values (kindRow and kindStatic keys) are encoded as:
//
//	flags        byte: rowHasLiveness, rowExpiringLiveness, rowHasDeletion, rowHasComplex
//	base         varint: base timestamp; cell and liveness timestamps are deltas
//	[liveness]   varint ts delta, [uvarint ttl, varint expiresAt]
//	[deletion]   varint markedForDeleteAt, varint localDeletionTime
//	n            uvarint cell count, then n cells sorted by (column, path):
//	  column     uvarint
//	  cflags     byte: cellExpiring, cellTombstone, cellHasPath
//	  ts         varint delta from base
//	  [ttl, exp] uvarint, varint           (expiring)
//	  [ldt]      varint                    (tombstone)
//	  [path]     uvarint length + bytes    (hasPath)
//	  [value]    uvarint length + bytes    (not a tombstone)
//	[complex]    uvarint count, then (uvarint column, varint mfda, varint ldt)
const (
	rowHasLiveness      = 0x01
	rowExpiringLiveness = 0x02
	rowHasDeletion      = 0x04
	rowHasComplex       = 0x08

	cellExpiring  = 0x01
	cellTombstone = 0x02
	cellHasPath   = 0x04
)

var errBadRow = errors.New("storage: malformed row value")

func baseTimestamp(r *backend.Row) int64 {
	if !r.Liveness.IsEmpty() {
		return r.Liveness.Timestamp
	}
	if len(r.Cells) > 0 {
		return r.Cells[0].Timestamp
	}
	return 0
}

// encodeRow appends the encoding of r (its Clustering is not encoded).
func encodeRow(dst []byte, r *backend.Row) []byte {
	var flags byte
	if !r.Liveness.IsEmpty() {
		flags |= rowHasLiveness
		if r.Liveness.IsExpiring() {
			flags |= rowExpiringLiveness
		}
	}
	if !r.Deletion.IsLive() {
		flags |= rowHasDeletion
	}
	if len(r.ComplexDeletions) > 0 {
		flags |= rowHasComplex
	}
	base := baseTimestamp(r)
	dst = append(dst, flags)
	dst = binary.AppendVarint(dst, base)
	if flags&rowHasLiveness != 0 {
		dst = binary.AppendVarint(dst, r.Liveness.Timestamp-base)
		if flags&rowExpiringLiveness != 0 {
			dst = binary.AppendUvarint(dst, uint64(r.Liveness.TTL))
			dst = binary.AppendVarint(dst, r.Liveness.ExpiresAt)
		}
	}
	if flags&rowHasDeletion != 0 {
		dst = binary.AppendVarint(dst, r.Deletion.MarkedForDeleteAt)
		dst = binary.AppendVarint(dst, r.Deletion.LocalDeletionTime)
	}
	dst = binary.AppendUvarint(dst, uint64(len(r.Cells)))
	for i := range r.Cells {
		dst = encodeCell(dst, &r.Cells[i], base)
	}
	if flags&rowHasComplex != 0 {
		dst = binary.AppendUvarint(dst, uint64(len(r.ComplexDeletions)))
		for _, cd := range r.ComplexDeletions {
			dst = binary.AppendUvarint(dst, uint64(cd.Column))
			dst = binary.AppendVarint(dst, cd.Deletion.MarkedForDeleteAt)
			dst = binary.AppendVarint(dst, cd.Deletion.LocalDeletionTime)
		}
	}
	return dst
}

func encodeCell(dst []byte, c *backend.Cell, base int64) []byte {
	var flags byte
	switch {
	case c.TTL != 0:
		flags |= cellExpiring
	case c.LocalDeletionTime != backend.NoDeletionTime:
		flags |= cellTombstone
	}
	if c.Path != nil {
		flags |= cellHasPath
	}
	dst = binary.AppendUvarint(dst, uint64(c.Column))
	dst = append(dst, flags)
	dst = binary.AppendVarint(dst, c.Timestamp-base)
	switch {
	case flags&cellExpiring != 0:
		dst = binary.AppendUvarint(dst, uint64(c.TTL))
		dst = binary.AppendVarint(dst, c.LocalDeletionTime)
	case flags&cellTombstone != 0:
		dst = binary.AppendVarint(dst, c.LocalDeletionTime)
	}
	if flags&cellHasPath != 0 {
		dst = binary.AppendUvarint(dst, uint64(len(c.Path)))
		dst = append(dst, c.Path...)
	}
	if flags&cellTombstone == 0 {
		dst = binary.AppendUvarint(dst, uint64(len(c.Value)))
		dst = append(dst, c.Value...)
	}
	return dst
}

// rowDecoder reads values; it never panics on malformed input.
type rowDecoder struct {
	b   []byte
	err error
}

func (d *rowDecoder) byte1() byte {
	if d.err != nil || len(d.b) < 1 {
		d.err = errBadRow
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *rowDecoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = errBadRow
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *rowDecoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errBadRow
		return 0
	}
	d.b = d.b[n:]
	return v
}

// bytes returns a length-prefixed byte string. The result aliases the input
// unless copyOut is set.
func (d *rowDecoder) bytes(copyOut bool) []byte {
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.b)) {
		d.err = errBadRow
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	if copyOut {
		v = append(make([]byte, 0, n), v...)
	}
	return v
}

// decodeRow decodes a row value into r, reusing r's cell slice. With
// copyOut false the cells alias value.
func decodeRow(value []byte, r *backend.Row, copyOut bool) error {
	d := rowDecoder{b: value}
	flags := d.byte1()
	base := d.varint()
	r.Liveness = backend.NoLiveness
	r.Deletion = backend.LiveDeletion
	r.Cells = r.Cells[:0]
	r.ComplexDeletions = r.ComplexDeletions[:0]
	if flags&rowHasLiveness != 0 {
		r.Liveness.Timestamp = base + d.varint()
		if flags&rowExpiringLiveness != 0 {
			r.Liveness.TTL = int32(d.uvarint())
			r.Liveness.ExpiresAt = d.varint()
		}
	}
	if flags&rowHasDeletion != 0 {
		r.Deletion.MarkedForDeleteAt = d.varint()
		r.Deletion.LocalDeletionTime = d.varint()
	}
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		return errBadRow
	}
	for i := uint64(0); i < n && d.err == nil; i++ {
		r.Cells = append(r.Cells, decodeCell(&d, base, copyOut))
	}
	if flags&rowHasComplex != 0 {
		m := d.uvarint()
		if m > uint64(len(d.b)) {
			return errBadRow
		}
		for i := uint64(0); i < m && d.err == nil; i++ {
			col := backend.ColumnID(d.uvarint())
			del := backend.DeletionTime{MarkedForDeleteAt: d.varint(), LocalDeletionTime: d.varint()}
			r.ComplexDeletions = append(r.ComplexDeletions, backend.ComplexDeletion{Column: col, Deletion: del})
		}
	}
	if d.err == nil && len(d.b) != 0 {
		d.err = errBadRow
	}
	return d.err
}

func decodeCell(d *rowDecoder, base int64, copyOut bool) backend.Cell {
	c := backend.Cell{LocalDeletionTime: backend.NoDeletionTime}
	c.Column = backend.ColumnID(d.uvarint())
	flags := d.byte1()
	c.Timestamp = base + d.varint()
	switch {
	case flags&cellExpiring != 0:
		c.TTL = int32(d.uvarint())
		c.LocalDeletionTime = d.varint()
	case flags&cellTombstone != 0:
		c.LocalDeletionTime = d.varint()
	}
	if flags&cellHasPath != 0 {
		c.Path = d.bytes(copyOut)
		if c.Path == nil {
			c.Path = []byte{}
		}
	}
	if flags&cellTombstone == 0 {
		c.Value = d.bytes(copyOut)
		if c.Value == nil && d.err == nil {
			c.Value = []byte{}
		}
	}
	return c
}
