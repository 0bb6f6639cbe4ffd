package storage

import "github.com/partita-db/partita/internal/backend"

// TableDiskUsage estimates the bytes a table's data takes on disk (its
// sstables' share of the key range, memtables not counted), as Pebble's
// EstimateDiskUsage does.
func (s *Store) TableDiskUsage(t backend.TableID) (int64, error) {
	n, err := s.db.EstimateDiskUsage(appendTablePrefix(nil, t), appendTablePrefix(nil, t+1))
	return int64(n), err
}
