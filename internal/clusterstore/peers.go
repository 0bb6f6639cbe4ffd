package clusterstore

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/internal/backend"
)

// Live gateways: each gateway writes its row of the gateways table with a
// TTL a few times per TTL, so a row disappears a TTL after its gateway
// stopped; system.peers lists the rows of the others.
//
//	gateways (host_id uuid PRIMARY KEY, address inet, port int, data_center text,
//	          rack text, release_version text, schema_version uuid, tokens list<bigint>)

// Heartbeat implements backend.Membership.
func (s *Store) Heartbeat(ctx context.Context, self backend.Peer, ttl time.Duration) ([]backend.Peer, error) {
	release, err := s.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	err = s.session.Query(fmt.Sprintf(`INSERT INTO %s.gateways (host_id, address, port, data_center, rack, release_version, schema_version, tokens)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) USING TTL ?`, s.keyspace),
		gocql.UUID(self.HostID), self.Address, self.Port, self.DataCenter, self.Rack, self.ReleaseVersion,
		gocql.UUID(self.SchemaVersion), self.Tokens, max(1, int(ttl/time.Second))).WithContext(ctx).Exec()
	if err != nil {
		return nil, clusterError(err)
	}
	it := s.session.Query(fmt.Sprintf(`SELECT host_id, address, port, data_center, rack, release_version, schema_version, tokens FROM %s.gateways`,
		s.keyspace)).WithContext(ctx).Iter()
	var out []backend.Peer
	var (
		id, schema    gocql.UUID
		addr          net.IP
		port          int
		dc, rack, rel string
		tokens        []int64
	)
	for it.Scan(&id, &addr, &port, &dc, &rack, &rel, &schema, &tokens) {
		if [16]byte(id) == self.HostID {
			continue
		}
		out = append(out, backend.Peer{HostID: id, Address: append(net.IP{}, addr...), Port: port, DataCenter: dc, Rack: rack,
			ReleaseVersion: rel, SchemaVersion: schema, Tokens: append([]int64{}, tokens...)})
	}
	return out, clusterError(it.Close())
}

var _ backend.Membership = (*Store)(nil)
