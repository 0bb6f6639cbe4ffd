package server

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/internal/engine"
	"github.com/partita-db/partita/internal/protocol"
	"github.com/partita-db/partita/internal/storage"
)

// testPKI is a CA made at run time, with the node's certificate (for
// 127.0.0.1) and a client's, written as PEM files.
type testPKI struct {
	dir                    string
	caFile                 string // the CA certificate: the truststore
	keystore               string // the node's key and certificate
	clientCert, clientKey  string
	caPool                 *x509.CertPool
	client                 tls.Certificate
	strangerCert, stranger tls.Certificate // signed by another CA
}

func newTestPKI(t *testing.T) *testPKI {
	t.Helper()
	p := &testPKI{dir: t.TempDir()}
	ca, caKey, caPEM := makeCert(t, "test CA", nil, nil, true)
	p.caPool = x509.NewCertPool()
	p.caPool.AddCert(ca)
	p.caFile = p.write(t, "ca.pem", caPEM)
	_, nodeKey, nodePEM := makeCert(t, "node", ca, caKey, false)
	p.keystore = p.write(t, "node.pem", append(keyPEM(t, nodeKey), nodePEM...))
	_, clientKey, clientPEM := makeCert(t, "client", ca, caKey, false)
	p.clientCert = p.write(t, "client.pem", clientPEM)
	p.clientKey = p.write(t, "client-key.pem", keyPEM(t, clientKey))
	var err error
	if p.client, err = tls.X509KeyPair(clientPEM, keyPEM(t, clientKey)); err != nil {
		t.Fatal(err)
	}
	other, otherKey, _ := makeCert(t, "other CA", nil, nil, true)
	_, strangerKey, strangerPEM := makeCert(t, "stranger", other, otherKey, false)
	if p.stranger, err = tls.X509KeyPair(strangerPEM, keyPEM(t, strangerKey)); err != nil {
		t.Fatal(err)
	}
	return p
}

func (p *testPKI) write(t *testing.T, name string, data []byte) string {
	path := filepath.Join(p.dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// makeCert makes a certificate signed by parent (self-signed when nil),
// valid for 127.0.0.1 and for client and server use.
func makeCert(t *testing.T, name string, parent *x509.Certificate, parentKey *ecdsa.PrivateKey, isCA bool) (*x509.Certificate, *ecdsa.PrivateKey, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	if isCA {
		tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
		tmpl.KeyUsage |= x509.KeyUsageCertSign
		tmpl.ExtKeyUsage, tmpl.IPAddresses = nil, nil
	}
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func keyPEM(t *testing.T, key *ecdsa.PrivateKey) []byte {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

// startTLSNode serves a real engine with the given encryption options and
// returns its address.
func startTLSNode(t *testing.T, o EncryptionOptions) (host string, port int) {
	t.Helper()
	host, port, _ = startTLSServer(t, o)
	return host, port
}

func startTLSServer(t *testing.T, o EncryptionOptions) (host string, port int, srv *Server) {
	t.Helper()
	tlsCfg, err := o.TLSConfig()
	if err != nil {
		t.Fatal(err)
	}
	store, err := storage.Open(storage.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().(*net.TCPAddr)
	ecfg := engine.DefaultConfig()
	ecfg.RPCAddress, ecfg.ListenAddress, ecfg.NativePort = addr.IP, addr.IP, addr.Port
	eng, err := engine.Open(context.Background(), store, ecfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.TLS, cfg.TLSOptional = tlsCfg, o.Policy() == TLSOptional
	srv = New(cfg, eng, nil)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Error(err)
		}
		if err := <-served; !errors.Is(err, ErrServerClosed) {
			t.Error(err)
		}
		eng.Close()
		store.Close()
	})
	return addr.IP.String(), addr.Port, srv
}

func gocqlCluster(host string, port int, tlsCfg *tls.Config) *gocql.ClusterConfig {
	c := gocql.NewCluster(host)
	c.Port = port
	c.ProtoVersion = 4
	c.Timeout, c.ConnectTimeout = 10*time.Second, 10*time.Second
	c.DisableInitialHostLookup = true
	if tlsCfg != nil {
		c.SslOpts = &gocql.SslOptions{Config: tlsCfg, EnableHostVerification: true}
	}
	return c
}

// connectGocql connects and reads system.local, or returns the error.
func connectGocql(host string, port int, tlsCfg *tls.Config) error {
	s, err := gocqlCluster(host, port, tlsCfg).CreateSession()
	if err != nil {
		return err
	}
	defer s.Close()
	var version string
	if err := s.Query("SELECT release_version FROM system.local").Scan(&version); err != nil {
		return err
	}
	if version == "" {
		return errors.New("no release_version")
	}
	return nil
}

// plainOptions sends an OPTIONS frame in plain text and returns the
// header of the answer, or the error that ended the read.
func plainOptions(t *testing.T, host string, port int) ([protocol.HeaderSize]byte, error) {
	t.Helper()
	var header [protocol.HeaderSize]byte
	nc, err := net.Dial("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(15 * time.Second))
	if _, err := nc.Write(protocol.AppendRequest(nil, 0, &protocol.Options{})); err != nil {
		return header, err
	}
	_, err = io.ReadFull(nc, header[:])
	return header, err
}

// TestTLSRequired: with enabled (not optional) and require_client_auth,
// gocql connects with a client certificate signed by the truststore's CA,
// and is refused without one, with one of another CA, and in plain text;
// a plain CQL frame gets no answer.
func TestTLSRequired(t *testing.T) {
	pki := newTestPKI(t)
	host, port := startTLSNode(t, EncryptionOptions{Enabled: true, Keystore: pki.keystore,
		RequireClientAuth: true, Truststore: pki.caFile})
	withCert := &tls.Config{RootCAs: pki.caPool, Certificates: []tls.Certificate{pki.client}}
	if err := connectGocql(host, port, withCert); err != nil {
		t.Fatalf("with a client certificate: %v", err)
	}
	for name, cfg := range map[string]*tls.Config{
		"no client certificate":     {RootCAs: pki.caPool},
		"certificate of a stranger": {RootCAs: pki.caPool, Certificates: []tls.Certificate{pki.stranger}},
		"plain text":                nil,
	} {
		if err := connectGocql(host, port, cfg); err == nil {
			t.Errorf("%s: connected", name)
		}
	}
	// The client checks the node's certificate too.
	if err := connectGocql(host, port, &tls.Config{Certificates: []tls.Certificate{pki.client}}); err == nil {
		t.Error("a client that does not trust the node's CA connected")
	}
	// Cassandra resets the connection of a plain client.
	if header, err := plainOptions(t, host, port); !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("a plain OPTIONS got %x, %v; want the connection reset", header, err)
	}
}

// TestTLSOptional: optional serves TLS and plain clients on one port, the
// first byte deciding.
func TestTLSOptional(t *testing.T) {
	pki := newTestPKI(t)
	host, port := startTLSNode(t, EncryptionOptions{Optional: true, Keystore: pki.keystore})
	if err := connectGocql(host, port, &tls.Config{RootCAs: pki.caPool}); err != nil {
		t.Fatalf("TLS: %v", err)
	}
	if err := connectGocql(host, port, nil); err != nil {
		t.Fatalf("plain: %v", err)
	}
	// Without require_client_auth no certificate is asked for, so one of
	// an unknown CA is not looked at (Cassandra's ClientAuth.NONE).
	if err := connectGocql(host, port, &tls.Config{RootCAs: pki.caPool, Certificates: []tls.Certificate{pki.stranger}}); err != nil {
		t.Fatalf("TLS with a stranger's certificate: %v", err)
	}
	if header, err := plainOptions(t, host, port); err != nil || protocol.Opcode(header[4]) != protocol.OpSupported {
		t.Errorf("a plain OPTIONS got %x, %v; want SUPPORTED", header, err)
	}
}

// TestTLSVersions: TLS 1.2 and 1.3 by default, 1.1 refused; accepted
// protocols narrow the range.
func TestTLSVersions(t *testing.T) {
	pki := newTestPKI(t)
	for _, tc := range []struct {
		accepted []string
		version  uint16
		ok       bool
	}{
		{nil, tls.VersionTLS13, true},
		{nil, tls.VersionTLS12, true},
		{nil, tls.VersionTLS11, false},
		{[]string{"TLSv1.3"}, tls.VersionTLS12, false},
		{[]string{"TLSv1.3"}, tls.VersionTLS13, true},
	} {
		host, port := startTLSNode(t, EncryptionOptions{Enabled: true, Keystore: pki.keystore, AcceptedProtocols: tc.accepted})
		nc, err := tls.DialWithDialer(&net.Dialer{Timeout: 10 * time.Second}, "tcp", net.JoinHostPort(host, strconv.Itoa(port)),
			&tls.Config{RootCAs: pki.caPool, MinVersion: tc.version, MaxVersion: tc.version})
		if (err == nil) != tc.ok {
			t.Errorf("accepted %v, version %x: handshake error %v, want ok=%v", tc.accepted, tc.version, err, tc.ok)
		}
		if err == nil {
			nc.Close()
		}
	}
}

// TestTLSPythonDriver runs test/drivers/python/tls_check.py: the Python
// driver's ssl_context with and without a client certificate, and plain.
func TestTLSPythonDriver(t *testing.T) {
	const python = "/usr/bin/python3"
	if out, err := exec.Command(python, "-c", "import cassandra").CombinedOutput(); err != nil {
		t.Fatalf("the Python driver is missing (%v: %s); install it with\n"+
			"    apt-get install -y python3-cassandra\nor run scripts/test.sh, which does", err, bytes.TrimSpace(out))
	}
	script, err := filepath.Abs("../../test/drivers/python/tls_check.py")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.ReadFile(script); err != nil { // go test's cache sees the script
		t.Fatal(err)
	}
	pki := newTestPKI(t)
	host, port := startTLSNode(t, EncryptionOptions{Enabled: true, Keystore: pki.keystore,
		RequireClientAuth: true, Truststore: pki.caFile})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, script)
	cmd.Env = append(os.Environ(), "PARTITA_HOST="+host, "PARTITA_PORT="+strconv.Itoa(port),
		"PARTITA_TLS_CA="+pki.caFile, "PARTITA_TLS_CERT="+pki.clientCert, "PARTITA_TLS_KEY="+pki.clientKey,
		"PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	t.Logf("%s", out)
}

// TestTLSConfigFiles: the keystore's errors name the option and the file.
func TestTLSConfigFiles(t *testing.T) {
	pki := newTestPKI(t)
	certOnly := pki.write(t, "cert-only.pem", mustRead(t, pki.clientCert))
	encrypted := pki.write(t, "encrypted.pem", []byte("-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n"))
	for _, tc := range []struct {
		o    EncryptionOptions
		want string
	}{
		{EncryptionOptions{Enabled: true, Keystore: filepath.Join(pki.dir, "missing.pem")},
			"client_encryption_options.keystore: open " + filepath.Join(pki.dir, "missing.pem") + ": no such file or directory"},
		{EncryptionOptions{Enabled: true, Keystore: certOnly},
			"client_encryption_options.keystore: " + certOnly + ": tls: found a certificate rather than a key in the PEM for the private key"},
		{EncryptionOptions{Enabled: true, Keystore: encrypted},
			"client_encryption_options.keystore: " + encrypted + ": encrypted private keys are not supported; decrypt it (openssl pkcs8 -topk8 -nocrypt)"},
		{EncryptionOptions{Enabled: true, Keystore: pki.keystore, RequireClientAuth: true, Truststore: pki.keystore + ".none"},
			"client_encryption_options.truststore: open " + pki.keystore + ".none: no such file or directory"},
		{EncryptionOptions{Enabled: true, Keystore: pki.keystore, RequireClientAuth: true, Truststore: pki.clientKey},
			"client_encryption_options.truststore: " + pki.clientKey + " holds no PEM certificate"},
	} {
		_, err := tc.o.TLSConfig()
		if err == nil || err.Error() != tc.want {
			t.Errorf("%+v: %v, want %s", tc.o, err, tc.want)
		}
	}
	if cfg, err := (&EncryptionOptions{}).TLSConfig(); cfg != nil || err != nil {
		t.Errorf("disabled: %v, %v", cfg, err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTLSHandshakePending: a client that connects and sends half a
// ClientHello, or nothing, does not hold Shutdown: stopping the reads
// ends a handshake under way.
func TestTLSHandshakePending(t *testing.T) {
	pki := newTestPKI(t)
	for _, optional := range []bool{false, true} {
		host, port, srv := startTLSServer(t, EncryptionOptions{Enabled: true, Optional: optional, Keystore: pki.keystore})
		addr := net.JoinHostPort(host, strconv.Itoa(port))
		silent, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer silent.Close()
		half, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer half.Close()
		half.Write([]byte{tlsRecordHandshake, 0x03, 0x01, 0x02})
		waitFor(t, "both connections served", func() bool {
			srv.mu.Lock()
			defer srv.mu.Unlock()
			return len(srv.mu.conns) == 2
		})
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = srv.Shutdown(ctx)
		cancel()
		if err != nil || time.Since(start) > 2*time.Second {
			t.Errorf("optional=%v: Shutdown took %v: %v", optional, time.Since(start), err)
		}
	}
}

// TestTLSVersionNegotiation: a driver's first try at protocol v5 gets
// Cassandra's Protocol error over TLS, then a clean end (close_notify and
// a half-close, not a reset that could destroy the reply).
func TestTLSVersionNegotiation(t *testing.T) {
	pki := newTestPKI(t)
	host, port := startTLSNode(t, EncryptionOptions{Enabled: true, Keystore: pki.keystore})
	nc, err := tls.DialWithDialer(&net.Dialer{Timeout: 10 * time.Second}, "tcp", net.JoinHostPort(host, strconv.Itoa(port)),
		&tls.Config{RootCAs: pki.caPool})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	req := protocol.AppendRequest(nil, 0, &protocol.Options{})
	req[0] = 0x05
	if _, err := nc.Write(req); err != nil {
		t.Fatal(err)
	}
	reply, err := io.ReadAll(nc)
	if err != nil {
		t.Fatalf("after %q: %v", reply, err)
	}
	if !bytes.Contains(reply, []byte("Invalid or unsupported protocol version (5)")) {
		t.Fatalf("reply %q", reply)
	}
}
