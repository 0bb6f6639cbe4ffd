package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/partita-db/partita/internal/cqltest"
	"github.com/partita-db/partita/internal/protocol"
)

// TestServeTLS: `partita serve` with client_encryption_options in its
// configuration file speaks TLS on the CQL port, with the keystore given
// as one PEM file holding the key and the certificate (made here, at run
// time), and closes a plain client.
func TestServeTLS(t *testing.T) {
	dir := t.TempDir()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "node"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	keystore := filepath.Join(dir, "node.pem")
	pemData := append(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})...)
	if err := os.WriteFile(keystore, pemData, 0o600); err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	conf := filepath.Join(dir, "partita.yaml")
	yaml := "client_encryption_options:\n  enabled: true\n  keystore: " + keystore + "\n  store_type: PEM\n"
	if err := os.WriteFile(conf, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	_, cqlAddr, _, logs := startServe(t, "--config", conf)
	if !strings.Contains(logs.String(), "client_encryption=required") {
		t.Errorf("the listening line does not say client_encryption=required:\n%s", logs)
	}

	nc, err := tls.DialWithDialer(&net.Dialer{Timeout: 10 * time.Second}, "tcp", cqlAddr, &tls.Config{RootCAs: pool})
	if err != nil {
		t.Fatal(err)
	}
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := nc.Write(protocol.AppendRequest(nil, 1, &protocol.Options{})); err != nil {
		t.Fatal(err)
	}
	var header [protocol.HeaderSize]byte
	if _, err := nc.Read(header[:]); err != nil || protocol.Opcode(header[4]) != protocol.OpSupported {
		t.Fatalf("over TLS: %x, %v", header, err)
	}
	nc.Close()

	// cqlsh --ssl, checking the node's certificate against the CA file
	// (its own, self-signed) and the address it names.
	caFile := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(cqlAddr)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sh := exec.CommandContext(ctx, cqltest.CqlshPath(t), host, port, "--ssl", "-e", "SELECT key FROM system.local")
	sh.Dir = t.TempDir()
	sh.Env = append(os.Environ(), "HOME="+sh.Dir, "PYTHONDONTWRITEBYTECODE=1", "SSL_CERTFILE="+caFile, "SSL_VALIDATE=true")
	if out, err := sh.CombinedOutput(); err != nil || !strings.Contains(string(out), "local") {
		t.Fatalf("cqlsh --ssl: %v\n%s", err, out)
	}

	plain, err := net.DialTimeout("tcp", cqlAddr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	plain.SetDeadline(time.Now().Add(15 * time.Second))
	plain.Write(protocol.AppendRequest(nil, 1, &protocol.Options{}))
	if n, err := plain.Read(header[:]); err == nil && n > 0 && header[0] == 0x84 {
		t.Fatalf("a plain client got a CQL answer: %x", header[:n])
	}
}

// TestServeTLSBadKeystore: a keystore that cannot be read stops serve
// before it listens, naming the option.
func TestServeTLSBadKeystore(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "partita.yaml")
	missing := filepath.Join(dir, "missing.pem")
	if err := os.WriteFile(conf, []byte("client_encryption_options:\n  enabled: true\n  keystore: "+missing+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(buildPartita(t), "serve", "--config", conf, "--cql-addr", "127.0.0.1:0",
		"--http-addr", "127.0.0.1:0", "--data-dir", filepath.Join(dir, "data"))
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("serve started with a missing keystore:\n%s", out)
	}
	if want := "client_encryption_options.keystore: open " + missing + ": no such file or directory"; !strings.Contains(string(out), want) {
		t.Fatalf("output lacks %q:\n%s", want, out)
	}
}
