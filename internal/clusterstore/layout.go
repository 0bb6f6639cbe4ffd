package clusterstore

import (
	"encoding/binary"
	"errors"
	"math"

	"github.com/partita-db/partita/internal/backend"
)

// Backing rows: the clustering of every backing table is
// (kind, c, col, path, gen). docs/design/gateway.md shows examples.
const (
	kindStatic int8 = 0 // the static row; c is empty
	kindRow    int8 = 1 // clustering rows; c is the encoded clustering key
	kindMarker int8 = 2 // deletion markers (invariant 3)
)

// livenessColumn is the col of a row's primary-key liveness (the INSERT
// marker); its v is empty.
const livenessColumn int64 = -1

// expiredLivenessTTL marks an expired row marker (Cassandra's
// LivenessInfo.EXPIRED_LIVENESS_TTL), which wins over a live marker of the
// same timestamp.
const expiredLivenessTTL = math.MaxInt32

// Marker columns: what a kindMarker row records.
const (
	markerPartition     int64 = 0 // c and path empty
	markerRange         int64 = 1 // c = start, path = encodeRangeEnd(end)
	markerRow           int64 = 2 // c = clustering
	markerCell          int64 = 3 // c = clustering, path = cellPosition
	markerStaticCell    int64 = 4 // c empty, path = cellPosition
	markerComplex       int64 = 5 // c = clustering, path = column
	markerStaticComplex int64 = 6 // c empty, path = column
)

// markerTimestamp is the write timestamp of every marker: above any
// deletion a client sends, so no deletion shadows a marker, and equal for
// all, so two markers of one position reconcile by value (the newer
// deletion, encoded first).
const markerTimestamp int64 = 1 << 62

// encodePath keeps nil (a simple column) apart from an empty element path.
func encodePath(p []byte) []byte {
	if p == nil {
		return []byte{}
	}
	return append([]byte{1}, p...)
}

func decodePath(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return append([]byte(nil), b[1:]...)
}

// encodeRangeEnd keeps an unbounded end (nil) apart from every bounded one.
func encodeRangeEnd(end []byte) []byte {
	if end == nil {
		return []byte{}
	}
	return append([]byte{1}, end...)
}

func decodeRangeEnd(b []byte) []byte { return decodePath(b) }

func cellPosition(col backend.ColumnID, path []byte) []byte {
	return append(encodeColumn(col), encodePath(path)...)
}

func encodeColumn(col backend.ColumnID) []byte {
	return binary.BigEndian.AppendUint32(nil, uint32(col))
}

func decodeColumn(b []byte) (backend.ColumnID, error) {
	if len(b) != 4 {
		return 0, errors.New("clusterstore: malformed column in a marker")
	}
	return backend.ColumnID(binary.BigEndian.Uint32(b)), nil
}

func decodeCellPosition(b []byte) (backend.ColumnID, []byte, error) {
	if len(b) < 4 {
		return 0, nil, errors.New("clusterstore: short cell position in a marker")
	}
	return backend.ColumnID(binary.BigEndian.Uint32(b)), decodePath(b[4:]), nil
}

// encodeDeletion orders deletions as DeletionTime.Supersedes does, under
// unsigned byte comparison (the cluster's tie-break for equal timestamps).
func encodeDeletion(d backend.DeletionTime) []byte {
	out := binary.BigEndian.AppendUint64(nil, uint64(d.MarkedForDeleteAt)^(1<<63))
	return binary.BigEndian.AppendUint64(out, uint64(d.LocalDeletionTime)^(1<<63))
}

func decodeDeletion(b []byte) (backend.DeletionTime, error) {
	if len(b) != 16 {
		return backend.LiveDeletion, errors.New("clusterstore: malformed deletion marker")
	}
	return backend.DeletionTime{
		MarkedForDeleteAt: int64(binary.BigEndian.Uint64(b) ^ (1 << 63)),
		LocalDeletionTime: int64(binary.BigEndian.Uint64(b[8:]) ^ (1 << 63)),
	}, nil
}
