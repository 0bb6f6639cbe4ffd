package split

import (
	"bytes"
	"encoding/binary"
	"hash/fnv"
	"sort"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/token"
)

// MapKind is how a map assigns rows to shards.
type MapKind uint8

const (
	// RangeMap gives each piece of the clustering key space to one shard.
	RangeMap MapKind = iota
	// HashMap spreads rows over shards by a hash of their clustering key.
	HashMap
)

// Piece is a clustering key range [Start, next piece's Start) of a range
// map, held by one shard.
type Piece struct {
	Start []byte        `json:"start"`
	Shard backend.Shard `json:"shard"`
}

// Map says which physical shard holds each clustering key of a logical
// partition.
type Map struct {
	Kind MapKind `json:"kind"`
	// Pieces (RangeMap) are sorted by Start; the first starts at the empty
	// key, the smallest there is.
	Pieces []Piece `json:"pieces,omitempty"`
	// Shards (HashMap) are the hash segments.
	Shards []backend.Shard `json:"shards,omitempty"`
}

// Unsplit is the map of every partition that was never split.
func Unsplit() Map {
	return Map{Kind: RangeMap, Pieces: []Piece{{Start: []byte{}, Shard: backend.HomeShard}}}
}

// IsUnsplit reports whether m keeps everything in the home shard.
func (m Map) IsUnsplit() bool {
	return m.Kind == RangeMap && len(m.Pieces) == 1 && m.Pieces[0].Shard == backend.HomeShard
}

// hashOf is the stable segment hash of a clustering key.
func hashOf(clustering []byte) uint64 {
	h := fnv.New64a()
	h.Write(clustering)
	return h.Sum64()
}

// ShardOf returns the shard that holds clustering key ck.
func (m Map) ShardOf(ck []byte) backend.Shard {
	if m.Kind == HashMap {
		return m.Shards[hashOf(ck)%uint64(len(m.Shards))]
	}
	i := sort.Search(len(m.Pieces), func(i int) bool { return bytes.Compare(m.Pieces[i].Start, ck) > 0 }) - 1
	if i < 0 {
		i = 0
	}
	return m.Pieces[i].Shard
}

// AllShards lists every shard of m, in order of first appearance.
func (m Map) AllShards() []backend.Shard {
	if m.Kind == HashMap {
		return append([]backend.Shard(nil), m.Shards...)
	}
	var out []backend.Shard
	seen := map[backend.Shard]bool{}
	for _, p := range m.Pieces {
		if !seen[p.Shard] {
			seen[p.Shard] = true
			out = append(out, p.Shard)
		}
	}
	return out
}

// pieceRange is the key range of range piece i.
func (m Map) pieceRange(i int) backend.Slice {
	s := backend.Slice{Start: m.Pieces[i].Start}
	if i+1 < len(m.Pieces) {
		s.End = m.Pieces[i+1].Start
	}
	return s
}

// readPiece is a key range read from one shard, or k-way merged from
// several (hash segments).
type readPiece struct {
	Range  backend.Slice
	Shards []backend.Shard
}

// pieces returns m's read pieces clipped to r, in key order.
func (m Map) pieces(r backend.Slice) []readPiece {
	if m.Kind == HashMap {
		if r.IsEmpty() {
			return nil
		}
		return []readPiece{{Range: r, Shards: m.Shards}}
	}
	var out []readPiece
	for i := range m.Pieces {
		pr := m.pieceRange(i).Intersect(r)
		if !pr.IsEmpty() {
			out = append(out, readPiece{Range: pr, Shards: []backend.Shard{m.Pieces[i].Shard}})
		}
	}
	return out
}

// Migration moves a logical partition from its current map to Target:
// every clustering key below Cursor already follows Target, the rest still
// follows the current map (SPLITTING.md invariant 1: each cell lives in
// exactly one shard at any time).
type Migration struct {
	Target Map    `json:"target"`
	Cursor []byte `json:"cursor"`
	// Complete: every key follows Target (the cursor passed the end); only
	// the verification and the switch remain.
	Complete bool `json:"complete,omitempty"`
	// Reverting moves the cursor back down, returning data to the current
	// map (a revert); otherwise it moves up.
	Reverting bool `json:"reverting,omitempty"`
	// Purpose is "split" or "merge" (un-split).
	Purpose string `json:"purpose"`
	// Strategy is "range", "rollover" or "hash".
	Strategy   string `json:"strategy"`
	Reason     string `json:"reason,omitempty"`
	StartedAt  int64  `json:"started_at"`
	RowsMoved  int64  `json:"rows_moved"`
	BytesMoved int64  `json:"bytes_moved"`
	// RowsBefore and ChecksumBefore describe the logical partition when
	// the migration started (for the audit); verification compares the two
	// views at the switch.
	RowsBefore     int64  `json:"rows_before"`
	ChecksumBefore uint64 `json:"checksum_before"`
	// Shared states only (several gateways, shared.go). Owner is the
	// gateway driving the migration. Pending is the key range the next step
	// moves: announced by a state of its own, moved only once every lease
	// on the states before it can have expired; reads and writes of it wait
	// meanwhile. PendingBack: it moves back to the current map (a revert).
	Owner       string         `json:"owner,omitempty"`
	Pending     *backend.Slice `json:"pending,omitempty"`
	PendingBack bool           `json:"pending_back,omitempty"`
}

// State is a logical partition's split state: its map, the migration under
// way if any, and an epoch that increases with every change of map.
type State struct {
	Partition backend.LogicalPartition `json:"-"`
	Epoch     uint64                   `json:"epoch"`
	Current   Map                      `json:"current"`
	Migration *Migration               `json:"migration,omitempty"`
	// NextShard is the next unused shard number.
	NextShard backend.Shard `json:"next_shard"`
	// rowEpoch is the epoch of the shared state row s was read from (0:
	// none, or the store keeps states as metadata).
	rowEpoch uint64
}

// route returns the shard that holds ck now.
func (s *State) route(ck []byte) backend.Shard {
	if s.Migration != nil && (s.Migration.Complete || bytes.Compare(ck, s.Migration.Cursor) < 0) {
		return s.Migration.Target.ShardOf(ck)
	}
	return s.Current.ShardOf(ck)
}

// shards lists every shard that may hold data of the partition: both maps
// of a migration and the home shard.
func (s *State) shards() []backend.Shard {
	seen := map[backend.Shard]bool{backend.HomeShard: true}
	out := []backend.Shard{backend.HomeShard}
	add := func(m Map) {
		for _, sh := range m.AllShards() {
			if !seen[sh] {
				seen[sh] = true
				out = append(out, sh)
			}
		}
	}
	add(s.Current)
	if s.Migration != nil {
		add(s.Migration.Target)
	}
	return out
}

// readPieces returns what to read, in key order, for the key range r.
func (s *State) readPieces(r backend.Slice) []readPiece {
	if s.Migration == nil {
		return s.Current.pieces(r)
	}
	if s.Migration.Complete {
		return s.Migration.Target.pieces(r)
	}
	moved := backend.Slice{End: s.Migration.Cursor}
	rest := backend.Slice{Start: s.Migration.Cursor}
	out := s.Migration.Target.pieces(r.Intersect(moved))
	return append(out, s.Current.pieces(r.Intersect(rest))...)
}

// stateKey is the metadata key of a logical partition's state.
func stateKey(p backend.LogicalPartition) []byte {
	k := []byte(metaPrefix)
	k = binary.BigEndian.AppendUint64(k, uint64(p.Table))
	k = binary.BigEndian.AppendUint64(k, uint64(p.Token))
	return append(k, p.Key...)
}

const metaPrefix = "split/"

func partitionOfStateKey(k []byte) (backend.LogicalPartition, bool) {
	if len(k) < len(metaPrefix)+16 {
		return backend.LogicalPartition{}, false
	}
	k = k[len(metaPrefix):]
	return backend.LogicalPartition{
		Table: backend.TableID(binary.BigEndian.Uint64(k)),
		Token: token.Token(int64(binary.BigEndian.Uint64(k[8:]))),
		Key:   append([]byte(nil), k[16:]...),
	}, true
}
