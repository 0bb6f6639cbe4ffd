package server

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// EncryptionOptions is cassandra.yaml's client_encryption_options, with
// the key material in PEM files (Cassandra's PEMBasedSslContextFactory
// format): Keystore holds the server's private key and its certificate
// chain, Truststore the CA certificates a client certificate must chain
// to. The passwords are accepted for cassandra.yaml's sake; keys must not
// be encrypted.
type EncryptionOptions struct {
	// Enabled refuses clients that do not speak TLS, unless Optional.
	Enabled bool
	// Optional serves plain and TLS clients both (the first byte of a
	// connection decides), whatever Enabled says. cassandra.yaml's default,
	// when the option is absent, is true when a keystore is given and
	// Enabled is false; the configuration loader applies it.
	Optional           bool
	Keystore           string
	KeystorePassword   string
	Truststore         string
	TruststorePassword string
	// RequireClientAuth refuses a client without a certificate signed by a
	// CA of the truststore.
	RequireClientAuth bool
	// StoreType is PEM (or empty); Cassandra's JKS and PKCS12 are refused.
	StoreType string
	// Protocol is Cassandra's SSLContext protocol: TLS (or empty), or one
	// version (TLSv1.2, TLSv1.3) when AcceptedProtocols is empty.
	Protocol string
	// AcceptedProtocols lists the versions offered (default TLSv1.2 and
	// TLSv1.3; older versions are refused as insecure).
	AcceptedProtocols []string
	// CipherSuites lists the TLS 1.2 suites offered, by IANA name (as
	// Java names them); empty is Go's secure default. TLS 1.3's suites are
	// not configurable.
	CipherSuites []string
}

// TLSPolicy says which clients a listener serves.
type TLSPolicy int

// TLS policies (Cassandra's TlsEncryptionPolicy).
const (
	TLSUnencrypted TLSPolicy = iota
	TLSEncrypted
	TLSOptional
)

// Policy is the listener's policy: optional wins over enabled.
func (o *EncryptionOptions) Policy() TLSPolicy {
	switch {
	case o.Optional:
		return TLSOptional
	case o.Enabled:
		return TLSEncrypted
	}
	return TLSUnencrypted
}

// tlsVersions maps Java's protocol names to Go's versions.
var tlsVersions = map[string]uint16{"TLSv1.2": tls.VersionTLS12, "TLSv1.3": tls.VersionTLS13}

// Check validates the options without reading the files; the errors name
// the option at fault, under client_encryption_options.
func (o *EncryptionOptions) Check() error {
	var errs []error
	fail := func(option, format string, args ...any) {
		errs = append(errs, fmt.Errorf("client_encryption_options.%s: %s", option, fmt.Sprintf(format, args...)))
	}
	if o.Policy() != TLSUnencrypted && o.Keystore == "" {
		fail("keystore", "a PEM file with the private key and certificate chain is required when encryption is enabled or optional")
	}
	if o.RequireClientAuth && o.Policy() != TLSUnencrypted && o.Truststore == "" {
		fail("truststore", "a PEM file of CA certificates is required by require_client_auth")
	}
	if st := o.StoreType; st != "" && !strings.EqualFold(st, "PEM") {
		fail("store_type", "only PEM is supported, not %q (convert the keystore with keytool -importkeystore and openssl pkcs12 -nodes)", st)
	}
	if _, _, err := o.versions(); err != nil {
		fail("accepted_protocols", "%v", err)
	}
	if _, err := cipherSuites(o.CipherSuites); err != nil {
		fail("cipher_suites", "%v", err)
	}
	return errors.Join(errs...)
}

// versions is the range of TLS versions offered.
func (o *EncryptionOptions) versions() (lo, hi uint16, err error) {
	names := o.AcceptedProtocols
	if len(names) == 0 {
		switch p := o.Protocol; p {
		case "", "TLS":
			return tls.VersionTLS12, tls.VersionTLS13, nil
		default:
			if _, ok := tlsVersions[p]; !ok {
				return 0, 0, fmt.Errorf("protocol %q is not offered (want TLS, TLSv1.2 or TLSv1.3)", p)
			}
			names = []string{p}
		}
	}
	for _, n := range names {
		v, ok := tlsVersions[n]
		if !ok {
			return 0, 0, fmt.Errorf("%q is not offered (want TLSv1.2 or TLSv1.3)", n)
		}
		if lo == 0 || v < lo {
			lo = v
		}
		hi = max(hi, v)
	}
	return lo, hi, nil
}

func cipherSuites(names []string) ([]uint16, error) {
	if len(names) == 0 {
		return nil, nil
	}
	known := make(map[string]uint16)
	for _, s := range tls.CipherSuites() {
		known[s.Name] = s.ID
	}
	ids := make([]uint16, 0, len(names))
	for _, n := range names {
		id, ok := known[n]
		if !ok {
			return nil, fmt.Errorf("unknown or insecure cipher suite %q", n)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// TLSConfig reads the PEM files and returns the server's TLS
// configuration; nil when the policy is TLSUnencrypted.
func (o *EncryptionOptions) TLSConfig() (*tls.Config, error) {
	if o.Policy() == TLSUnencrypted {
		return nil, nil
	}
	if err := o.Check(); err != nil {
		return nil, err
	}
	pemBytes, err := os.ReadFile(o.Keystore)
	if err != nil {
		return nil, fmt.Errorf("client_encryption_options.keystore: %w", err)
	}
	for rest := pemBytes; ; {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			break
		}
		if b.Type == "ENCRYPTED PRIVATE KEY" || b.Headers["Proc-Type"] != "" {
			return nil, fmt.Errorf("client_encryption_options.keystore: %s: encrypted private keys are not supported; decrypt it (openssl pkcs8 -topk8 -nocrypt)", o.Keystore)
		}
	}
	// The same bytes give both: X509KeyPair takes the CERTIFICATE blocks
	// from the first and the key block from the second.
	cert, err := tls.X509KeyPair(pemBytes, pemBytes)
	if err != nil {
		return nil, fmt.Errorf("client_encryption_options.keystore: %s: %w", o.Keystore, err)
	}
	lo, hi, _ := o.versions()
	suites, _ := cipherSuites(o.CipherSuites)
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: lo, MaxVersion: hi, CipherSuites: suites}
	// As in Cassandra, the truststore serves require_client_auth only:
	// without it no client certificate is asked for.
	if o.RequireClientAuth {
		caPEM, err := os.ReadFile(o.Truststore)
		if err != nil {
			return nil, fmt.Errorf("client_encryption_options.truststore: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(caPEM) {
			return nil, fmt.Errorf("client_encryption_options.truststore: %s holds no PEM certificate", o.Truststore)
		}
		cfg.ClientCAs = pool
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	}
	return cfg, nil
}

// tlsHandshakeTimeout bounds a TLS handshake, as Netty's SslHandler does
// (10 s), so that a client that connects and sends nothing, or half a
// ClientHello, is closed.
const tlsHandshakeTimeout = 10 * time.Second

// tlsRecordHandshake is the first byte of a TLS handshake record (RFC 8446
// §5.1, ContentType handshake); a CQL frame starts with its version byte
// (0x01-0x05, or 0x8x for a response), never 0x16.
const tlsRecordHandshake = 0x16

// secure wraps an accepted connection as the policy says. The handshake,
// and in optional mode the look at the first byte, happen on the
// connection's first Read, in its own goroutine, never in the accept loop.
func (s *Server) secure(nc net.Conn) net.Conn {
	if s.cfg.TLS == nil {
		return nc
	}
	return &tlsConn{raw: nc, cfg: s.cfg.TLS, optional: s.cfg.TLSOptional}
}

// tlsConn is a connection whose first Read performs the TLS handshake
// (after, when optional, a first byte that is a TLS record); it then
// reads and writes through TLS or, for a plain client in optional mode,
// the raw connection.
type tlsConn struct {
	raw      net.Conn
	cfg      *tls.Config
	optional bool

	// once decides how the connection is spoken; conn is the result (nil
	// before, or after a failure, which err holds).
	once sync.Once
	conn atomic.Pointer[net.Conn]
	err  error

	// dmu guards readDeadline, the deadline the server last set, restored
	// after the handshake's own. A lock apart from once, so that the
	// server's deadline of now (stopReading) ends a handshake under way.
	dmu          sync.Mutex
	readDeadline time.Time
}

// establish decides, once, how the connection is spoken.
func (c *tlsConn) establish() (net.Conn, error) {
	c.once.Do(func() {
		conn, err := c.handshake()
		if err != nil {
			c.err = err
			return
		}
		c.conn.Store(&conn)
	})
	if p := c.conn.Load(); p != nil {
		return *p, nil
	}
	return nil, c.err
}

func (c *tlsConn) handshake() (net.Conn, error) {
	conn := c.raw
	if c.optional {
		// The first byte waits under the server's own deadline: a plain
		// client is not held to the handshake's.
		var first [1]byte
		if _, err := io.ReadFull(c.raw, first[:]); err != nil {
			return nil, err
		}
		conn = &prefixConn{Conn: c.raw, prefix: first[:]}
		if first[0] != tlsRecordHandshake {
			return conn, nil
		}
	}
	deadline := time.Now().Add(tlsHandshakeTimeout)
	c.dmu.Lock()
	if d := c.readDeadline; !d.IsZero() && d.Before(deadline) {
		deadline = d
	}
	err := c.raw.SetDeadline(deadline)
	c.dmu.Unlock()
	if err != nil {
		return nil, err
	}
	tc := tls.Server(conn, c.cfg)
	if err := tc.Handshake(); err != nil {
		// A plain client (its first record no TLS one) sees the connection
		// reset, as Cassandra's refuses it; other failures keep the alert
		// Go sent, which a reset could discard.
		var notTLS tls.RecordHeaderError
		if tcp, ok := c.raw.(*net.TCPConn); ok && errors.As(err, &notTLS) {
			tcp.SetLinger(0)
		}
		return nil, fmt.Errorf("TLS handshake: %w", err)
	}
	return tc, c.restoreDeadlines()
}

// restoreDeadlines puts back the read deadline the server set (the write
// deadline is set before every write).
func (c *tlsConn) restoreDeadlines() error {
	c.dmu.Lock()
	defer c.dmu.Unlock()
	if err := c.raw.SetWriteDeadline(time.Time{}); err != nil {
		return err
	}
	return c.raw.SetReadDeadline(c.readDeadline)
}

func (c *tlsConn) Read(p []byte) (int, error) {
	conn, err := c.establish()
	if err != nil {
		return 0, err
	}
	return conn.Read(p)
}

// Write is only called after a request was read, so after establish; a
// write before it fails rather than speak plain text to a TLS client.
func (c *tlsConn) Write(p []byte) (int, error) {
	conn := c.conn.Load()
	if conn == nil {
		return 0, errors.New("server: write before the TLS handshake")
	}
	return (*conn).Write(p)
}

// CloseWrite half-closes, for lingeringClose: over TLS a close_notify
// first, then the socket's write side.
func (c *tlsConn) CloseWrite() error {
	if p := c.conn.Load(); p != nil {
		if tc, ok := (*p).(*tls.Conn); ok {
			tc.CloseWrite()
		}
	}
	if cw, ok := c.raw.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

func (c *tlsConn) Close() error         { return c.raw.Close() }
func (c *tlsConn) LocalAddr() net.Addr  { return c.raw.LocalAddr() }
func (c *tlsConn) RemoteAddr() net.Addr { return c.raw.RemoteAddr() }

func (c *tlsConn) SetDeadline(t time.Time) error {
	c.dmu.Lock()
	defer c.dmu.Unlock()
	c.readDeadline = t
	return c.raw.SetDeadline(t)
}

// SetReadDeadline records t for after the handshake and applies it now:
// stopReading's deadline of now also ends a handshake under way.
func (c *tlsConn) SetReadDeadline(t time.Time) error {
	c.dmu.Lock()
	defer c.dmu.Unlock()
	c.readDeadline = t
	return c.raw.SetReadDeadline(t)
}

func (c *tlsConn) SetWriteDeadline(t time.Time) error { return c.raw.SetWriteDeadline(t) }

// prefixConn gives back the byte read to choose between TLS and plain.
type prefixConn struct {
	net.Conn
	prefix []byte
}

func (c *prefixConn) Read(p []byte) (int, error) {
	if len(c.prefix) > 0 {
		n := copy(p, c.prefix)
		c.prefix = c.prefix[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}
