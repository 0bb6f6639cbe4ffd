package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gocql/gocql"
	"github.com/spf13/cobra"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/clusterstore"
	"github.com/partita-db/partita/internal/config"
	"github.com/partita-db/partita/internal/storage"
)

// backendPasswordEnv names the environment variable holding the password
// a gateway logs in to its Cassandra cluster with (kept out of ps).
const backendPasswordEnv = "PARTITA_BACKEND_PASSWORD"

// backendFlags are the flags choosing where a node keeps its data.
type backendFlags struct {
	backend       string
	contactPoints string
	keyspace      string
	consistency   string
	username      string
	single        bool
	// Durations as the configuration file writes them ("2s", "500ms").
	lease, stateLease, stateDrain string
	replication                   string
	tls                           config.BackendTLS
}

func (f *backendFlags) register(cmd *cobra.Command, def config.Config) {
	fl := cmd.Flags()
	fl.StringVar(&f.backend, "backend", def.Backend, "where data lives: pebble (the embedded store in --data-dir) or cassandra (a gateway over a Cassandra cluster)")
	fl.StringVar(&f.contactPoints, "contact-points", "", "with --backend cassandra: the cluster's host:port contact points, comma-separated")
	fl.StringVar(&f.keyspace, "backend-keyspace", def.BackendKeyspace, "with --backend cassandra: the cluster keyspace holding Partita's tables")
	fl.StringVar(&f.consistency, "backend-consistency", def.BackendConsistency, "with --backend cassandra: the consistency of the gateway's reads and writes")
	fl.BoolVar(&f.single, "backend-single-gateway", def.BackendSingleGateway, "with --backend cassandra: this is the only gateway over the keyspace (read-modify-writes take no cluster-wide lease; a second gateway would lose updates)")
	fl.StringVar(&f.username, "backend-username", "", "with --backend cassandra: the login, if the cluster asks for one (password in $"+backendPasswordEnv+")")
	fl.StringVar(&f.replication, "backend-replication", "", "with --backend cassandra: the replication of the keyspace when the gateway creates it: 3 (SimpleStrategy, 3 replicas), dc1:3,dc2:3 (NetworkTopologyStrategy), or a CQL map such as \"{'class': 'NetworkTopologyStrategy', 'dc1': 3}\" (default SimpleStrategy with 1 replica; an existing keyspace keeps its own)")
	fl.BoolVar(&f.tls.Enabled, "backend-tls", def.BackendTLS.Enabled, "with --backend cassandra: connect to the cluster over TLS (implied by any --backend-tls-* option)")
	fl.StringVar(&f.tls.CAFile, "backend-tls-ca-file", "", "with --backend cassandra: PEM file of the CA certificates the nodes' certificates must chain to (default the system's roots)")
	fl.StringVar(&f.tls.CertFile, "backend-tls-cert-file", "", "with --backend cassandra: PEM file of the gateway's client certificate, for a cluster that requires client authentication (with --backend-tls-key-file)")
	fl.StringVar(&f.tls.KeyFile, "backend-tls-key-file", "", "with --backend cassandra: PEM file of the private key of --backend-tls-cert-file")
	fl.StringVar(&f.tls.ServerName, "backend-tls-server-name", "", "with --backend cassandra: the name every node's certificate must carry (default the address dialled)")
	fl.BoolVar(&f.tls.HostVerification, "backend-tls-host-verification", def.BackendTLS.HostVerification, "with --backend cassandra: check that a node's certificate names it; false checks only that it chains to a trusted CA")
	fl.StringVar(&f.lease, "backend-lease", "", "with --backend cassandra: the tenure of a read-modify-write's cluster-wide lease, renewed while held (default 3s)")
	fl.StringVar(&f.stateLease, "backend-state-lease", "", "with --backend cassandra: how long a gateway routes by the split states it read before reading them again (default 10s)")
	fl.StringVar(&f.stateDrain, "backend-state-drain", "", "with --backend cassandra: how long a request routed under a state lease may run past its end; a split step waits lease + drain (default 10s)")
}

// apply sets the flags given on the command line over cfg.
func (f *backendFlags) apply(cmd *cobra.Command, cfg *config.Config) error {
	fl := cmd.Flags()
	if fl.Changed("backend") {
		cfg.Backend = f.backend
	}
	if fl.Changed("contact-points") {
		cfg.BackendContactPoints = nil
		for _, hp := range strings.Split(f.contactPoints, ",") {
			if hp = strings.TrimSpace(hp); hp != "" {
				cfg.BackendContactPoints = append(cfg.BackendContactPoints, hp)
			}
		}
	}
	if fl.Changed("backend-keyspace") {
		cfg.BackendKeyspace = f.keyspace
	}
	if fl.Changed("backend-consistency") {
		cfg.BackendConsistency = f.consistency
	}
	if fl.Changed("backend-username") {
		cfg.BackendUsername = f.username
	}
	if fl.Changed("backend-single-gateway") {
		cfg.BackendSingleGateway = f.single
	}
	if fl.Changed("backend-replication") {
		cfg.BackendReplication = f.replication
	}
	for _, o := range []struct {
		flag     string
		src, dst *string
	}{
		{"backend-tls-ca-file", &f.tls.CAFile, &cfg.BackendTLS.CAFile},
		{"backend-tls-cert-file", &f.tls.CertFile, &cfg.BackendTLS.CertFile},
		{"backend-tls-key-file", &f.tls.KeyFile, &cfg.BackendTLS.KeyFile},
		{"backend-tls-server-name", &f.tls.ServerName, &cfg.BackendTLS.ServerName},
	} {
		if fl.Changed(o.flag) {
			*o.dst = *o.src
		}
	}
	if fl.Changed("backend-tls") {
		cfg.BackendTLS.Enabled = f.tls.Enabled
	}
	if fl.Changed("backend-tls-host-verification") {
		cfg.BackendTLS.HostVerification = f.tls.HostVerification
	}
	for _, d := range []struct {
		flag string
		src  string
		dst  *time.Duration
	}{
		{"backend-lease", f.lease, &cfg.BackendLease},
		{"backend-state-lease", f.stateLease, &cfg.BackendStateLease},
		{"backend-state-drain", f.stateDrain, &cfg.BackendStateDrain},
	} {
		if !fl.Changed(d.flag) {
			continue
		}
		v, err := config.ParseDuration(d.src)
		if err != nil {
			return fmt.Errorf("--%s: %w", d.flag, err)
		}
		*d.dst = v
	}
	return nil
}

// openBackend opens the store cfg names. pebble is non-nil for the
// embedded store (its statistics are exported).
func openBackend(ctx context.Context, cfg config.Config, log *slog.Logger) (b backend.Backend, pebble *storage.Store, err error) {
	if cfg.Backend != config.BackendCassandra {
		reserve := cfg.MinFreeSpacePerDrive
		if reserve == 0 {
			reserve = -1 // min_free_space_per_drive: 0 turns the reserve off
		}
		st, err := storage.Open(storage.Options{Dir: cfg.DataDir, MinFreeBytes: reserve})
		if err != nil {
			return nil, nil, err
		}
		return st, st, nil
	}
	opts, err := clusterOptions(cfg)
	if err != nil {
		return nil, nil, err
	}
	st, err := openRetrying(ctx, backendStartWait, log, func() (*clusterstore.Store, error) { return clusterstore.Open(ctx, opts) })
	if err != nil {
		return nil, nil, err
	}
	return st, nil, nil
}

// backendStartWait is how long a gateway keeps trying to open its cluster
// store while the cluster answers with timeouts or Unavailable (a loaded
// or restarting cluster: creating the gateway's tables waits for schema
// agreement), before it gives up and exits.
const backendStartWait = 2 * time.Minute

// openRetrying calls open until it succeeds, fails with an error that is
// not clusterstore.Transient, or wait has passed since the first call;
// each transient failure is logged and followed by a pause growing from
// one second to five.
func openRetrying[T any](ctx context.Context, wait time.Duration, log *slog.Logger, open func() (T, error)) (T, error) {
	deadline := time.Now().Add(wait)
	for attempt := 1; ; attempt++ {
		v, err := open()
		if err == nil || !clusterstore.Transient(err) || ctx.Err() != nil {
			return v, err
		}
		pause := min(time.Duration(attempt)*time.Second, 5*time.Second)
		if time.Now().Add(pause).After(deadline) {
			return v, fmt.Errorf("%w (still failing after %d attempts in %v)", err, attempt, wait)
		}
		log.Warn("opening the cluster store failed; trying again", "attempt", attempt, "in", pause, "err", err)
		select {
		case <-ctx.Done():
			return v, err
		case <-time.After(pause):
		}
	}
}

// clusterOptions maps a gateway's configuration onto the cluster store's,
// reading the TLS files.
func clusterOptions(cfg config.Config) (clusterstore.Options, error) {
	hosts := make([]string, 0, len(cfg.BackendContactPoints))
	port := 0
	for _, hp := range cfg.BackendContactPoints {
		host, p, err := net.SplitHostPort(hp)
		if err != nil {
			return clusterstore.Options{}, fmt.Errorf("backend_contact_points: %w", err)
		}
		n, err := strconv.Atoi(p)
		if err != nil {
			return clusterstore.Options{}, fmt.Errorf("backend_contact_points: %q: bad port", hp)
		}
		if port != 0 && n != port {
			// The driver dials every host it discovers on one port.
			return clusterstore.Options{}, fmt.Errorf("backend_contact_points: every contact point must use the same port (%d and %d)", port, n)
		}
		port = n
		hosts = append(hosts, host)
	}
	cluster := gocql.NewCluster(hosts...)
	cluster.Port = port
	if cfg.BackendUsername != "" {
		cluster.Authenticator = gocql.PasswordAuthenticator{Username: cfg.BackendUsername, Password: os.Getenv(backendPasswordEnv)}
	}
	tlsConfig, err := cfg.BackendTLS.TLSConfig()
	if err != nil {
		return clusterstore.Options{}, err
	}
	if tlsConfig != nil {
		// With a Config given, the driver verifies as it says (its
		// EnableHostVerification would only turn a skipped check on).
		cluster.SslOpts = &gocql.SslOptions{Config: tlsConfig, EnableHostVerification: !tlsConfig.InsecureSkipVerify}
	}
	consistency, err := gocql.ParseConsistencyWrapper(strings.ToUpper(cfg.BackendConsistency))
	if err != nil {
		return clusterstore.Options{}, fmt.Errorf("backend_consistency: %w", err)
	}
	replication, err := cfg.BackendReplicationCQL()
	if err != nil {
		return clusterstore.Options{}, err
	}
	return clusterstore.Options{Cluster: cluster, Keyspace: cfg.BackendKeyspace, Consistency: consistency, Replication: replication,
		SingleGateway: cfg.BackendSingleGateway, LeaseDuration: cfg.BackendLease,
		StateLease: cfg.BackendStateLease, StateDrain: cfg.BackendStateDrain}, nil
}
