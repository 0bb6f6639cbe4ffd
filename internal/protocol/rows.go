package protocol

import "slices"

// maxEmptyRows bounds the rows a decoder accepts when there are no columns:
// such rows take no bytes, so the body cannot bound their number.
const maxEmptyRows = 1 << 16

// RowsResult is the Rows RESULT (§4.2.5.2). Rows[i][j] is the serialized
// value of column j in row i, nil for null. Encode writes exactly
// columns_count cells per row: missing cells as null, extra cells dropped
// (doc.go invariant 4).
type RowsResult struct {
	Meta RowsMetadata
	Rows [][][]byte
}

func (*RowsResult) Opcode() Opcode { return OpResult }
func (*RowsResult) isResponse()    {}

// Encode appends the result. The cells go into dst after one size pass, so
// that writing allocates at most once for the whole result, never per cell.
func (m *RowsResult) Encode(dst []byte) []byte {
	dst = appendInt(dst, int32(ResultRows))
	dst = appendRowsMetadata(dst, &m.Meta)
	n := m.Meta.columnCount()
	dst = slices.Grow(dst, m.cellsSize(n))
	dst = appendInt(dst, int32(len(m.Rows)))
	for _, row := range m.Rows {
		cells := row[:min(len(row), n)]
		for _, cell := range cells {
			dst = appendBytes(dst, cell)
		}
		for range n - len(cells) {
			dst = appendInt(dst, -1)
		}
	}
	return dst
}

// cellsSize returns the bytes of rows_count and the cells.
func (m *RowsResult) cellsSize(n int) int {
	size := 4 + 4*n*len(m.Rows)
	for _, row := range m.Rows {
		for _, cell := range row[:min(len(row), n)] {
			size += len(cell)
		}
	}
	return size
}

func (m *RowsResult) Decode(body []byte) error {
	r := newReader(body)
	r.readResultKind(ResultRows)
	r.readRowsMetadata(&m.Meta)
	count := r.readInt("rows count")
	if r.failed() {
		return r.err()
	}
	n := m.Meta.columnCount()
	switch {
	case count < 0:
		r.fail("Invalid rows count %d", count)
	case n == 0 && count > maxEmptyRows:
		r.fail("Rows count %d too large for a result without columns", count)
	case n > 0 && int64(count) > int64(r.remaining()/4/n):
		// Every cell takes at least its 4-byte length.
		r.fail("Not enough bytes to read %d rows of %d columns (have %d)", count, n, r.remaining())
	}
	if r.failed() {
		return r.err()
	}
	cells := make([][]byte, int(count)*n)
	m.Rows = make([][][]byte, count)
	for i := range m.Rows {
		row := cells[i*n : (i+1)*n : (i+1)*n]
		for j := range row {
			row[j] = r.readBytes("cell")
		}
		m.Rows[i] = row
	}
	return r.err()
}
