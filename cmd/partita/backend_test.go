package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/spf13/cobra"

	"github.com/partita-db/partita/internal/config"
)

// TestServeBackendFlags: the backend flags reach the configuration and its
// validation before anything starts.
func TestServeBackendFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--backend", "cassandra"}, "backend_contact_points: the cassandra backend needs at least one host:port"},
		{[]string{"--backend", "cassandra", "--contact-points", "10.0.0.1"}, `backend_contact_points: "10.0.0.1" is not host:port`},
		{[]string{"--backend", "cassandra", "--contact-points", "10.0.0.1:9042", "--backend-consistency", "SERIAL"}, `backend_consistency: must be one of`},
		{[]string{"--backend", "rocksdb"}, `backend: must be "pebble" or "cassandra", not "rocksdb"`},
	} {
		cmd := newServeCmd()
		cmd.SetArgs(append([]string{"--http-addr", "", "--cql-addr", "127.0.0.1:0", "--data-dir", t.TempDir()}, tc.args...))
		cmd.SilenceUsage, cmd.SilenceErrors = true, true
		err := cmd.Execute()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want an error with %q", tc.args, err, tc.want)
		}
	}
}

// TestBackendFlagsApply: each backend flag sets its option over the file's
// (here the defaults), and a value the option cannot take is refused with
// the flag's or the option's name.
func TestBackendFlagsApply(t *testing.T) {
	gateway := []string{"--backend", "cassandra", "--contact-points", "10.0.0.1:9042"}
	for _, tc := range []struct {
		name  string
		args  []string
		check func(config.Config) bool
		err   string
	}{
		{name: "leases", args: []string{"--backend-state-lease", "2s", "--backend-state-drain", "2s", "--backend-lease", "1500ms"},
			check: func(c config.Config) bool {
				return c.BackendStateLease == 2*time.Second && c.BackendStateDrain == 2*time.Second && c.BackendLease == 1500*time.Millisecond
			}},
		{name: "leases default", args: nil,
			check: func(c config.Config) bool {
				return c.BackendStateLease == 0 && c.BackendStateDrain == 0 && c.BackendLease == 0
			}},
		{name: "replication", args: []string{"--backend-replication", "dc1:3,dc2:3"},
			check: func(c config.Config) bool {
				cql, err := c.BackendReplicationCQL()
				return err == nil && cql == "{'class': 'NetworkTopologyStrategy', 'dc1': 3, 'dc2': 3}"
			}},
		{name: "replication default", args: nil,
			check: func(c config.Config) bool { cql, err := c.BackendReplicationCQL(); return err == nil && cql == "" }},
		{name: "replication bad", args: []string{"--backend-replication", "{'class': 'SimpleStrategy', 'replication_factor': 0}"},
			err: "backend_replication: SimpleStrategy needs a replication_factor of at least 1"},
		{name: "tls files", args: []string{"--backend-tls-ca-file", "/etc/ca.pem", "--backend-tls-cert-file", "/etc/gw.pem",
			"--backend-tls-key-file", "/etc/gw-key.pem", "--backend-tls-server-name", "cassandra.internal"},
			check: func(c config.Config) bool {
				return c.BackendTLS == config.BackendTLS{CAFile: "/etc/ca.pem", CertFile: "/etc/gw.pem", KeyFile: "/etc/gw-key.pem",
					ServerName: "cassandra.internal", HostVerification: true} && c.BackendTLS.On()
			}},
		{name: "tls with the system's roots", args: []string{"--backend-tls"},
			check: func(c config.Config) bool {
				return c.BackendTLS.Enabled && c.BackendTLS.CAFile == "" && c.BackendTLS.On()
			}},
		{name: "tls chain only", args: []string{"--backend-tls-ca-file", "/etc/ca.pem", "--backend-tls-host-verification=false"},
			check: func(c config.Config) bool { return c.BackendTLS.On() && !c.BackendTLS.HostVerification }},
		{name: "tls off by default", args: nil,
			check: func(c config.Config) bool { return !c.BackendTLS.On() && c.BackendTLS.HostVerification }},
		{name: "tls certificate without its key", args: []string{"--backend-tls-cert-file", "/etc/gw.pem"},
			err: "backend_tls_key_file: the private key of backend_tls_cert_file is required with it"},
		{name: "tls server name without host verification", args: []string{"--backend-tls-server-name", "x", "--backend-tls-host-verification=false"},
			err: "backend_tls_server_name: the name is checked only with backend_tls_host_verification"},
		{name: "lease not a duration", args: []string{"--backend-state-lease", "2"}, err: `--backend-state-lease: invalid duration "2"`},
		{name: "lease Go syntax", args: []string{"--backend-lease", "1m30s"}, err: `--backend-lease: invalid duration "1m30s"`},
		{name: "lease too short", args: []string{"--backend-state-drain", "10ms"}, err: "backend_state_drain: 10ms is shorter than the 1s a lease may be"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := applyBackendFlags(append(append([]string(nil), gateway...), tc.args...))
			switch {
			case tc.err != "":
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, want an error with %q", err, tc.err)
				}
			case err != nil:
				t.Fatal(err)
			case !tc.check(cfg):
				t.Fatalf("%v: the configuration does not have them: %+v", tc.args, cfg)
			}
		})
	}
}

// applyBackendFlags parses args as partita serve's backend flags over the
// default configuration and validates the result.
func applyBackendFlags(args []string) (config.Config, error) {
	var f backendFlags
	cmd := &cobra.Command{Use: "serve"}
	cfg := config.Default()
	f.register(cmd, cfg)
	if err := cmd.ParseFlags(args); err != nil {
		return cfg, err
	}
	if err := f.apply(cmd, &cfg); err != nil {
		return cfg, err
	}
	return cfg, cfg.Validate()
}

// TestClusterOptions: the gateway flags reach the cluster store's options
// and the driver's configuration.
func TestClusterOptions(t *testing.T) {
	cfg, err := applyBackendFlags([]string{"--backend", "cassandra", "--contact-points", "10.0.0.1:9142,10.0.0.2:9142",
		"--backend-keyspace", "gw", "--backend-consistency", "quorum", "--backend-replication", "dc1:3",
		"--backend-lease", "4s", "--backend-state-lease", "2s", "--backend-state-drain", "3s", "--backend-tls"})
	if err != nil {
		t.Fatal(err)
	}
	opts, err := clusterOptions(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if opts.Keyspace != "gw" || opts.Consistency != gocql.Quorum || opts.Replication != "{'class': 'NetworkTopologyStrategy', 'dc1': 3}" ||
		opts.LeaseDuration != 4*time.Second || opts.StateLease != 2*time.Second || opts.StateDrain != 3*time.Second || opts.SingleGateway {
		t.Errorf("store options %+v", opts)
	}
	if c := opts.Cluster; c.Port != 9142 || strings.Join(c.Hosts, ",") != "10.0.0.1,10.0.0.2" {
		t.Errorf("driver hosts %v port %d", c.Hosts, c.Port)
	}
	// TLS with the system's roots, the node's name checked.
	ssl := opts.Cluster.SslOpts
	if ssl == nil || ssl.Config == nil || ssl.Config.InsecureSkipVerify || ssl.Config.RootCAs != nil || !ssl.EnableHostVerification {
		t.Errorf("TLS options %+v", ssl)
	}

	cfg.BackendTLS = config.BackendTLS{}
	if opts, err := clusterOptions(cfg); err != nil || opts.Cluster.SslOpts != nil {
		t.Errorf("without TLS: %v, %+v", err, opts.Cluster.SslOpts)
	}
	cfg.BackendTLS = config.BackendTLS{CAFile: filepath.Join(t.TempDir(), "missing.pem"), HostVerification: true}
	if _, err := clusterOptions(cfg); err == nil || !strings.Contains(err.Error(), "backend_tls_ca_file: open ") {
		t.Errorf("a missing CA file: got %v", err)
	}
	empty := filepath.Join(t.TempDir(), "empty.pem")
	if err := os.WriteFile(empty, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg.BackendTLS.CAFile = empty
	if _, err := clusterOptions(cfg); err == nil || !strings.Contains(err.Error(), "backend_tls_ca_file: "+empty+" holds no PEM certificate") {
		t.Errorf("a CA file without certificates: got %v", err)
	}
}

// TestOpenRetrying: a gateway keeps opening its cluster store through
// transient failures (timeouts under load), gives up at once on any other
// error, and gives up on transient ones once its wait has passed.
func TestOpenRetrying(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx := context.Background()
	calls := 0
	v, err := openRetrying(ctx, time.Minute, log, func() (int, error) {
		if calls++; calls < 3 {
			return 0, gocql.ErrTimeoutNoResponse
		}
		return 7, nil
	})
	if v != 7 || err != nil || calls != 3 {
		t.Errorf("after two timeouts: %d, %v after %d calls; want 7, nil after 3", v, err, calls)
	}
	calls = 0
	refused := errors.New("clusterstore: connect: x509: certificate signed by unknown authority")
	if _, err := openRetrying(ctx, time.Minute, log, func() (int, error) { calls++; return 0, refused }); !errors.Is(err, refused) || calls != 1 {
		t.Errorf("a refusal: %v after %d calls; want it after 1", err, calls)
	}
	calls = 0
	_, err = openRetrying(ctx, 1500*time.Millisecond, log, func() (int, error) { calls++; return 0, gocql.ErrTimeoutNoResponse })
	if !errors.Is(err, gocql.ErrTimeoutNoResponse) || calls != 2 || !strings.Contains(err.Error(), "still failing after 2 attempts") {
		t.Errorf("timeouts past the wait: %v after %d calls; want the timeout after 2", err, calls)
	}
}
