package e2e_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// certFiles is a certificate authority made at run time and what it
// signed, as PEM files: the node's key and certificate (for 127.0.0.1) in
// one file, as client_encryption_options' keystore takes them, a client's
// certificate and key, and a second CA that signed nothing.
type certFiles struct {
	CA, OtherCA           string
	NodeKeystore          string
	ClientCert, ClientKey string
}

func makeCertFiles(t *testing.T) certFiles {
	t.Helper()
	dir := t.TempDir()
	write := func(name string, blocks ...[]byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, bytes.Join(blocks, nil), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	ca, caKey, caPEM := issueCert(t, "test CA", nil, nil)
	_, _, otherPEM := issueCert(t, "other CA", nil, nil)
	_, nodeKey, nodePEM := issueCert(t, "node", ca, caKey)
	_, clientKey, clientPEM := issueCert(t, "client", ca, caKey)
	return certFiles{
		CA:           write("ca.pem", caPEM),
		OtherCA:      write("other-ca.pem", otherPEM),
		NodeKeystore: write("node.pem", privateKeyPEM(t, nodeKey), nodePEM),
		ClientCert:   write("client.pem", clientPEM),
		ClientKey:    write("client-key.pem", privateKeyPEM(t, clientKey)),
	}
}

// issueCert makes a P-256 certificate: a self-signed CA when parent is
// nil, else a leaf for 127.0.0.1 and localhost, for server and client use, that parent
// signs.
func issueCert(t *testing.T, name string, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*x509.Certificate, *ecdsa.PrivateKey, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
	}
	if parent == nil {
		tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
		tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature
		parent, parentKey = tmpl, key
	} else {
		tmpl.KeyUsage = x509.KeyUsageDigitalSignature
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}
		tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1)}
		// The Java driver checks the name its contact point resolves
		// back to (localhost), not the address.
		tmpl.DNSNames = []string{"localhost"}
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

func privateKeyPEM(t *testing.T, key *ecdsa.PrivateKey) []byte {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

// TestJavaAuthTLS runs the Java driver's AuthCheck and TlsCheck
// (test/drivers/java) in one Maven run, against two nodes:
//   - one with authenticator: PasswordAuthenticator, which AuthCheck logs
//     in to with PlainTextAuthProvider, and is refused with Cassandra's
//     message for a wrong password;
//   - the server binary with client_encryption_options enabled and
//     require_client_auth, over certificates made here; TlsCheck builds
//     its PKCS12 truststore and keystore from these PEM files at run time
//     and connects with the driver's DefaultSslEngineFactory, and is
//     refused without a client certificate, when it does not trust the
//     node's CA, and in plain text.
//
// The classes are not named *Test, so the plain-node run of TestJavaDriver
// leaves them out; -Dtest selects them here.
func TestJavaAuthTLS(t *testing.T) {
	if _, err := exec.LookPath("mvn"); err != nil {
		t.Fatal("mvn is not installed: the Java suite needs Java 17 and Maven")
	}
	root := repoRoot(t)
	readSuite(t, filepath.Join(root, "test", "drivers", "java", "src"))
	authSrv := authNode(t, "")

	certs := makeCertFiles(t)
	conf := filepath.Join(t.TempDir(), "partita.yaml")
	yaml := "client_encryption_options:\n  enabled: true\n  keystore: " + certs.NodeKeystore +
		"\n  require_client_auth: true\n  truststore: " + certs.CA + "\n"
	if err := os.WriteFile(conf, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	tlsNode := startPartita(t, t.TempDir(), "--config", conf)
	if !strings.Contains(tlsNode.logs.String(), "client_encryption=required") {
		t.Fatalf("the TLS node does not say client_encryption=required:\n%s", tlsNode.logs)
	}

	ctx, cancel := context.WithTimeout(context.Background(), suiteTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "mvn", "-B", "-ntp", "-f", "test/drivers/java/pom.xml", "test",
		"-Dtest=AuthCheck,TlsCheck", "-Dsurefire.failIfNoSpecifiedTests=false")
	cmd.Dir = root
	cmd.Env = append(os.Environ(),
		"PARTITA_HOST="+authSrv.Host, "PARTITA_PORT="+strconv.Itoa(authSrv.Port),
		"PARTITA_TLS_HOST="+tlsNode.host, "PARTITA_TLS_PORT="+strconv.Itoa(tlsNode.port),
		"PARTITA_TLS_CA="+certs.CA, "PARTITA_TLS_OTHER_CA="+certs.OtherCA,
		"PARTITA_TLS_CERT="+certs.ClientCert, "PARTITA_TLS_KEY="+certs.ClientKey)
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mvn test -Dtest=AuthCheck,TlsCheck: %v\n%s\nTLS node log:\n%s", err, out, tlsNode.logs)
	}
	// Surefire names each class it runs: a missing one is a selection
	// gone wrong, not a pass.
	for _, class := range []string{"partita.AuthCheck", "partita.TlsCheck"} {
		if !strings.Contains(string(out), "Running "+class) {
			t.Fatalf("%s did not run:\n%s", class, out)
		}
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "Tests run:") {
			t.Log(strings.TrimSpace(line))
		}
	}
}
