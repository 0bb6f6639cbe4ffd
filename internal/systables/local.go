package systables

import (
	"net"
	"strconv"

	"github.com/partita-db/partita/internal/token"
)

// Values system.local reports when the Node leaves them empty.
const (
	// DefaultReleaseVersion is at least 4.0 so that drivers pick their
	// Cassandra 4 schema parsers and query system.peers_v2 and
	// system_virtual_schema.
	DefaultReleaseVersion = "4.0.11"
	// DefaultCQLVersion is the CQL version Cassandra 4.0 reports.
	DefaultCQLVersion = "3.4.5"
	// Murmur3Partitioner is the partitioner's Java class name.
	Murmur3Partitioner = "org.apache.cassandra.dht.Murmur3Partitioner"
	// DefaultClusterName is cassandra.yaml's default cluster_name.
	DefaultClusterName = "Test Cluster"
	DefaultDataCenter  = "datacenter1"
	DefaultRack        = "rack1"
	DefaultNativePort  = 9042
)

// nativeProtocolVersion is the highest protocol version the server speaks,
// as system.local.native_protocol_version reports it.
const nativeProtocolVersion = "4"

// Node is what system.local (and, for other nodes, system.peers) describe.
type Node struct {
	ClusterName, DataCenter, Rack, ReleaseVersion, CQLVersion string
	HostID                                                    [16]byte
	// RPCAddress is the address clients dial; it must be a real address,
	// never 0.0.0.0 (gocql rejects such a node). A nil ListenAddress is
	// taken to be RPCAddress, a nil BroadcastAddress to be ListenAddress.
	RPCAddress, ListenAddress, BroadcastAddress net.IP
	NativePort                                  int
	// Tokens are the node's ring tokens, shown as decimal strings. With
	// none, one token derived from HostID is shown, since drivers build
	// their token map from it.
	Tokens           []int64
	Partitioner      string
	GossipGeneration int32
	// SchemaVersion is a peer's schema version (system.local shows the
	// catalog's own).
	SchemaVersion [16]byte
}

// withDefaults fills in what the caller left empty.
func (n Node) withDefaults() Node {
	setDefault := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	setDefault(&n.ClusterName, DefaultClusterName)
	setDefault(&n.DataCenter, DefaultDataCenter)
	setDefault(&n.Rack, DefaultRack)
	setDefault(&n.ReleaseVersion, DefaultReleaseVersion)
	setDefault(&n.CQLVersion, DefaultCQLVersion)
	setDefault(&n.Partitioner, Murmur3Partitioner)
	if n.NativePort == 0 {
		n.NativePort = DefaultNativePort
	}
	if n.ListenAddress == nil {
		n.ListenAddress = n.RPCAddress
	}
	if n.BroadcastAddress == nil {
		n.BroadcastAddress = n.ListenAddress
	}
	if len(n.Tokens) == 0 {
		n.Tokens = []int64{int64(token.Of(n.HostID[:]))}
	}
	return n
}

// tokenStrings returns the tokens as system.local.tokens holds them.
func (n Node) tokenStrings() []string {
	out := make([]string, len(n.Tokens))
	for i, t := range n.Tokens {
		out[i] = strconv.FormatInt(t, 10)
	}
	return out
}

// localRows renders system.local's one row (SystemKeyspace.persistLocalMetadata
// and the columns the node updates at startup). broadcast_port and
// listen_port stay null: Partita has no inter-node port.
func localRows(env *Env, rs *rowSet) {
	n := env.Node.withDefaults()
	rs.newRow().
		put("key", textValue("local")).
		put("bootstrapped", textValue("COMPLETED")).
		put("broadcast_address", inetValue(n.BroadcastAddress)).
		put("cluster_name", textValue(n.ClusterName)).
		put("cql_version", textValue(n.CQLVersion)).
		put("data_center", textValue(n.DataCenter)).
		put("gossip_generation", intValue(n.GossipGeneration)).
		put("host_id", uuidValue(n.HostID)).
		put("listen_address", inetValue(n.ListenAddress)).
		put("native_protocol_version", textValue(nativeProtocolVersion)).
		put("partitioner", textValue(n.Partitioner)).
		put("rack", textValue(n.Rack)).
		put("release_version", textValue(n.ReleaseVersion)).
		put("rpc_address", inetValue(n.RPCAddress)).
		put("rpc_port", intValue(int32(n.NativePort))).
		put("schema_version", uuidValue(env.Schema.Version)).
		put("tokens", textSetValue(n.tokenStrings()))
}

// peersRows renders system.peers: a single node has no peers; a gateway
// lists the other live gateways over the same cluster keyspace
// (Env.Peers).
func peersRows(env *Env, rs *rowSet) {
	for _, p := range env.Peers {
		n := p.withDefaults()
		rs.newRow().
			put("peer", inetValue(n.BroadcastAddress)).
			put("data_center", textValue(n.DataCenter)).
			put("host_id", uuidValue(n.HostID)).
			put("rack", textValue(n.Rack)).
			put("release_version", textValue(n.ReleaseVersion)).
			put("rpc_address", inetValue(n.RPCAddress)).
			put("schema_version", uuidValue(n.SchemaVersion)).
			put("tokens", textSetValue(n.tokenStrings()))
	}
}

// peersV2Rows renders system.peers_v2, which adds the ports. peer_port is
// a key column and Partita has no inter-node port: it shows the native
// port, so two gateways on one address are two rows.
func peersV2Rows(env *Env, rs *rowSet) {
	for _, p := range env.Peers {
		n := p.withDefaults()
		rs.newRow().
			put("peer", inetValue(n.BroadcastAddress)).
			put("peer_port", intValue(int32(n.NativePort))).
			put("data_center", textValue(n.DataCenter)).
			put("host_id", uuidValue(n.HostID)).
			put("native_address", inetValue(n.RPCAddress)).
			put("native_port", intValue(int32(n.NativePort))).
			put("rack", textValue(n.Rack)).
			put("release_version", textValue(n.ReleaseVersion)).
			put("schema_version", uuidValue(n.SchemaVersion)).
			put("tokens", textSetValue(n.tokenStrings()))
	}
}
