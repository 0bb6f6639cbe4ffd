package clusterstore

import (
	"context"
	"testing"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/internal/backend"
)

func TestLevels(t *testing.T) {
	s := &Store{opts: Options{Consistency: gocql.LocalQuorum}}
	for _, tc := range []struct {
		name   string
		levels *backend.RequestLevels
		want   gocql.Consistency
	}{
		{"no client level: the store's", nil, gocql.LocalQuorum},
		{"client ONE", &backend.RequestLevels{Consistency: 1}, gocql.One},
		{"client SERIAL read", &backend.RequestLevels{Consistency: backend.ConsistencySerial}, gocql.Consistency(gocql.Serial)},
		{"RMW at ONE, SERIAL: QUORUM", &backend.RequestLevels{Consistency: 1, ReadModifyWrite: true}, gocql.Quorum},
		{"RMW at ONE, LOCAL_SERIAL: LOCAL_QUORUM", &backend.RequestLevels{Consistency: 1, Serial: backend.ConsistencyLocalSerial, ReadModifyWrite: true}, gocql.LocalQuorum},
		{"RMW at LOCAL_QUORUM, SERIAL: QUORUM", &backend.RequestLevels{Consistency: backend.ConsistencyLocalQuorum, ReadModifyWrite: true}, gocql.Quorum},
		{"RMW at LOCAL_QUORUM, LOCAL_SERIAL: kept", &backend.RequestLevels{Consistency: backend.ConsistencyLocalQuorum, Serial: backend.ConsistencyLocalSerial, ReadModifyWrite: true}, gocql.LocalQuorum},
		{"RMW at ALL: kept", &backend.RequestLevels{Consistency: backend.ConsistencyAll, ReadModifyWrite: true}, gocql.All},
		{"RMW at EACH_QUORUM: kept", &backend.RequestLevels{Consistency: backend.ConsistencyEachQuorum, ReadModifyWrite: true}, gocql.EachQuorum},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			if tc.levels != nil {
				ctx = backend.WithLevels(ctx, *tc.levels)
			}
			if got := s.level(ctx); got != tc.want {
				t.Errorf("level = %v, want %v", got, tc.want)
			}
		})
	}
	if got := serialLevel(backend.RequestLevels{}); got != gocql.Serial {
		t.Errorf("default serial = %v, want SERIAL", got)
	}
	if got := serialLevel(backend.RequestLevels{Serial: backend.ConsistencyLocalSerial}); got != gocql.LocalSerial {
		t.Errorf("serial = %v, want LOCAL_SERIAL", got)
	}
}
