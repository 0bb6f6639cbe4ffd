package engine

import (
	"context"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/systables"
)

// Gateways over one cluster keyspace (backend.Membership) share the
// keyspace's metadata, so the host id kept there would be the same for
// all; each gateway instead derives its own from its host name and the
// address clients dial, stable across its restarts, and announces itself with heartbeats so
// that system.peers lists the others.

// peerTTL is how long a gateway stays listed after its last heartbeat;
// it heartbeats three times per TTL.
const peerTTL = 10 * time.Second

// gatewayIdentity is the host id and tokens of a gateway dialled at the
// configured address and port on this host: a name-based (version 5)
// UUID, and the configured tokens or one derived from the id.
func gatewayIdentity(cfg Config) ([16]byte, []int64) {
	host, _ := os.Hostname()
	sum := sha1.Sum([]byte(fmt.Sprintf("partita-gateway/%s/%s/%d", host, cfg.RPCAddress, cfg.NativePort)))
	var id [16]byte
	copy(id[:], sum[:16])
	id[6] = id[6]&0x0f | 0x50
	id[8] = id[8]&0x3f | 0x80
	tokens := cfg.Tokens
	if len(tokens) == 0 {
		tokens = []int64{int64(binary.BigEndian.Uint64(id[:8]))}
	}
	return id, tokens
}

// announce heartbeats until ctx ends, keeping the live peers for
// system.peers.
func (e *Engine) announce(ctx context.Context, m backend.Membership) {
	tick := time.NewTicker(peerTTL / 3)
	defer tick.Stop()
	for {
		self := backend.Peer{HostID: e.node.HostID, Address: e.node.RPCAddress, Port: e.node.NativePort,
			DataCenter: e.node.DataCenter, Rack: e.node.Rack, ReleaseVersion: e.node.ReleaseVersion,
			SchemaVersion: e.catalog.Current().Version, Tokens: e.node.Tokens}
		beat, cancel := context.WithTimeout(ctx, peerTTL/3)
		peers, err := m.Heartbeat(beat, self, peerTTL)
		cancel()
		if err != nil && ctx.Err() == nil {
			log.Printf("gateway heartbeat: %v", err)
		}
		if err == nil {
			nodes := make([]systables.Node, 0, len(peers))
			for _, p := range peers {
				nodes = append(nodes, systables.Node{ClusterName: e.node.ClusterName, DataCenter: p.DataCenter, Rack: p.Rack,
					ReleaseVersion: p.ReleaseVersion, CQLVersion: e.node.CQLVersion, HostID: p.HostID, RPCAddress: p.Address,
					NativePort: p.Port, Tokens: p.Tokens, Partitioner: e.node.Partitioner, SchemaVersion: p.SchemaVersion})
			}
			e.peers.Store(&nodes)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// peerNodes are the live peers last heard of.
func (e *Engine) peerNodes() []systables.Node {
	if p := e.peers.Load(); p != nil {
		return *p
	}
	return nil
}
