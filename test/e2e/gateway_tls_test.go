package e2e_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/internal/config"
	"github.com/partita-db/partita/internal/server"
	"github.com/partita-db/partita/test/internal/cassandra"
)

// TestBackendTLSHandshakes: the client side of a gateway's TLS
// (config.BackendTLS) against a TLS server that asks for a client
// certificate, dialled as the driver dials (gocql.WrapTLS), over
// certificates made here: what each option accepts and refuses.
func TestBackendTLSHandshakes(t *testing.T) {
	certs := makeCertFiles(t)
	srv := server.EncryptionOptions{Enabled: true, Keystore: certs.NodeKeystore, RequireClientAuth: true, Truststore: certs.CA}
	addr := serveTLS(t, &srv)
	for _, tc := range []struct {
		name string
		opts config.BackendTLS
		err  string // "" when the handshake must succeed
	}{
		{"mutual", config.BackendTLS{CAFile: certs.CA, CertFile: certs.ClientCert, KeyFile: certs.ClientKey, HostVerification: true}, ""},
		{"server name in the certificate", config.BackendTLS{CAFile: certs.CA, CertFile: certs.ClientCert, KeyFile: certs.ClientKey,
			ServerName: "localhost", HostVerification: true}, ""},
		{"server name not in the certificate", config.BackendTLS{CAFile: certs.CA, CertFile: certs.ClientCert, KeyFile: certs.ClientKey,
			ServerName: "cassandra.example", HostVerification: true}, "not cassandra.example"},
		{"untrusted CA", config.BackendTLS{CAFile: certs.OtherCA, CertFile: certs.ClientCert, KeyFile: certs.ClientKey, HostVerification: true},
			"certificate signed by unknown authority"},
		{"untrusted CA, no host verification", config.BackendTLS{CAFile: certs.OtherCA, CertFile: certs.ClientCert, KeyFile: certs.ClientKey},
			"certificate signed by unknown authority"},
		{"no client certificate", config.BackendTLS{CAFile: certs.CA, HostVerification: true}, "certificate required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := backendHandshake(t, tc.opts, addr)
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("handshake: %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("handshake: got %v, want an error with %q", err, tc.err)
			}
		})
	}

	// Host verification off checks the chain only: a certificate for
	// 127.0.0.1 and localhost, dialled as 127.0.0.2, passes.
	t.Run("no host verification, another name", func(t *testing.T) {
		addr2 := net.JoinHostPort("127.0.0.2", strconv.Itoa(addr.Port))
		if _, err := net.DialTimeout("tcp", addr2, time.Second); err != nil {
			t.Skipf("127.0.0.2 is not reachable here: %v", err)
		}
		opts := config.BackendTLS{CAFile: certs.CA, CertFile: certs.ClientCert, KeyFile: certs.ClientKey, HostVerification: true}
		if err := backendHandshakeTo(t, opts, addr2); err == nil || !strings.Contains(err.Error(), "not 127.0.0.2") {
			t.Fatalf("with host verification: got %v, want the name refused", err)
		}
		opts.HostVerification = false
		if err := backendHandshakeTo(t, opts, addr2); err != nil {
			t.Fatalf("without host verification: %v", err)
		}
	})
}

// serveTLS listens on 0.0.0.0 (so that 127.0.0.2 reaches it too) and, on
// each connection, completes the handshake and writes "ok".
func serveTLS(t *testing.T, opts *server.EncryptionOptions) *net.TCPAddr {
	t.Helper()
	cfg, err := opts.TLSConfig()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp4", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				c := tls.Server(conn, cfg)
				_ = c.SetDeadline(time.Now().Add(30 * time.Second))
				if c.Handshake() == nil {
					_, _ = c.Write([]byte("ok"))
				}
			}()
		}
	}()
	return ln.Addr().(*net.TCPAddr)
}

func backendHandshake(t *testing.T, opts config.BackendTLS, addr *net.TCPAddr) error {
	return backendHandshakeTo(t, opts, net.JoinHostPort("127.0.0.1", strconv.Itoa(addr.Port)))
}

// backendHandshakeTo dials addr with opts' configuration as gocql does,
// and reads the server's "ok": over TLS 1.3 a refused client certificate
// shows only on the first read.
func backendHandshakeTo(t *testing.T, opts config.BackendTLS, addr string) error {
	t.Helper()
	cfg, err := opts.TLSConfig()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	dialed, err := gocql.WrapTLS(ctx, conn, addr, cfg)
	if err != nil {
		return err
	}
	defer dialed.Conn.Close()
	_ = dialed.Conn.SetDeadline(time.Now().Add(30 * time.Second))
	buf := make([]byte, 2)
	if _, err := dialed.Conn.Read(buf); err != nil {
		return err
	}
	if string(buf) != "ok" {
		return errors.New("the server did not say ok: " + string(buf))
	}
	return nil
}

// TestGatewayBackendTLS runs `partita serve --backend cassandra` over a
// Cassandra 5.0 node whose client_encryption_options require TLS and a
// client certificate (PEM files, PEMBasedSslContextFactory): with the
// --backend-tls-* flags the gateway starts, creates its keyspace with the
// backend_replication of its file, and serves reads and writes; without a
// client certificate, with a CA that did not sign the node's certificate,
// with a server name the certificate lacks, or in plain text, it refuses
// to start and says why.
func TestGatewayBackendTLS(t *testing.T) {
	certs := makeCertFiles(t)
	clientTLS := &tls.Config{RootCAs: x509.NewCertPool()}
	caPEM, err := os.ReadFile(certs.CA)
	if err != nil {
		t.Fatal(err)
	}
	clientTLS.RootCAs.AppendCertsFromPEM(caPEM)
	clientCert, err := tls.LoadX509KeyPair(certs.ClientCert, certs.ClientKey)
	if err != nil {
		t.Fatal(err)
	}
	clientTLS.Certificates = []tls.Certificate{clientCert}
	node := cassandra.StartNode(t, cassandra.Options{
		Yaml: []string{"client_encryption_options={enabled: true, optional: false, keystore: " + certs.NodeKeystore +
			", truststore: " + certs.CA + ", require_client_auth: true," +
			" ssl_context_factory: {class_name: org.apache.cassandra.security.PEMBasedSslContextFactory}}"},
		ClientTLS: clientTLS,
	})
	gateway := func(keyspace string, flags ...string) []string {
		return append([]string{"--backend", "cassandra", "--contact-points", node.Addr(), "--backend-keyspace", keyspace,
			"--backend-consistency", "ONE"}, flags...)
	}

	t.Run("refused", func(t *testing.T) {
		for _, tc := range []struct {
			name  string
			flags []string
			want  string
		}{
			{"plain text", nil, "clusterstore: connect"},
			{"no client certificate", []string{"--backend-tls-ca-file", certs.CA}, "certificate required"},
			{"untrusted CA", []string{"--backend-tls-ca-file", certs.OtherCA, "--backend-tls-cert-file", certs.ClientCert,
				"--backend-tls-key-file", certs.ClientKey}, "certificate signed by unknown authority"},
			{"server name", []string{"--backend-tls-ca-file", certs.CA, "--backend-tls-cert-file", certs.ClientCert,
				"--backend-tls-key-file", certs.ClientKey, "--backend-tls-server-name", "cassandra.example"}, "not cassandra.example"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				out, err := runPartitaToExit(t, append([]string{"serve", "--data-dir", t.TempDir(), "--cql-addr", "127.0.0.1:0",
					"--http-addr", ""}, gateway("tls_refused", tc.flags...)...)...)
				var exit *exec.ExitError
				t.Logf("partita serve: %v: %s", err, strings.TrimSpace(out))
				if !errors.As(err, &exit) || !strings.Contains(out, tc.want) {
					t.Fatalf("partita serve: %v, want it to exit saying %q:\n%s", err, tc.want, out)
				}
			})
		}
	})

	t.Run("mutual TLS", func(t *testing.T) {
		const keyspace = "tls_gateway"
		// The file gives the replication as a mapping, and request
		// timeouts long enough for a first write, which creates the
		// backing tables in the cluster (seconds on a loaded machine): the
		// test checks answers, not speed.
		conf := filepath.Join(t.TempDir(), "gateway.yaml")
		yaml := "backend_replication:\n  class: NetworkTopologyStrategy\n  datacenter1: 1\n" +
			"read_request_timeout: 30s\nrange_request_timeout: 30s\nwrite_request_timeout: 30s\n"
		if err := os.WriteFile(conf, []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		p := startPartita(t, t.TempDir(), gateway(keyspace, "--config", conf, "--backend-tls-ca-file", certs.CA,
			"--backend-tls-cert-file", certs.ClientCert, "--backend-tls-key-file", certs.ClientKey)...)
		c := newCluster(p.host, p.port)
		c.Timeout = time.Minute
		s, err := c.CreateSession()
		if err != nil {
			t.Fatalf("connect to the gateway: %v\n%s", err, p.logs)
		}
		defer s.Close()
		for _, q := range []string{
			"CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
			"CREATE TABLE app.kv (k int PRIMARY KEY, v text)",
			"INSERT INTO app.kv (k, v) VALUES (1, 'over tls')",
		} {
			if err := s.Query(q).Exec(); err != nil {
				t.Fatalf("%s: %v\n%s", q, err, p.logs)
			}
		}
		var v string
		if err := s.Query("SELECT v FROM app.kv WHERE k = 1").Scan(&v); err != nil || v != "over tls" {
			t.Fatalf("read back: %q, %v", v, err)
		}

		// The keyspace the gateway created in the cluster has the
		// replication of --backend-replication.
		direct, err := node.NewCluster().CreateSession()
		if err != nil {
			t.Fatal(err)
		}
		defer direct.Close()
		var replication map[string]string
		if err := direct.Query("SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = ?", keyspace).
			Scan(&replication); err != nil {
			t.Fatal(err)
		}
		if replication["class"] != "org.apache.cassandra.locator.NetworkTopologyStrategy" || replication["datacenter1"] != "1" ||
			len(replication) != 2 {
			t.Fatalf("the gateway's keyspace has replication %v, want NetworkTopologyStrategy with datacenter1: 1", replication)
		}
	})
}

// runPartitaToExit runs the binary with args until it exits (at most two
// minutes) and returns its output.
func runPartitaToExit(t *testing.T, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, partitaBinary(t), args...).CombinedOutput()
	return string(out), err
}
