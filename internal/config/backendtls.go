package config

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
)

// BackendTLS is how a gateway encrypts its connections to the Cassandra
// cluster (the backend_tls options), with PEM files as Go reads them. The
// nodes' certificates are checked against CAFile (or the system's roots)
// always; HostVerification also checks that a certificate names the node
// dialled (its address, or ServerName when given).
type BackendTLS struct {
	// Enabled (backend_tls) turns TLS on; giving any file or ServerName
	// turns it on too.
	Enabled bool
	// CAFile (backend_tls_ca_file) holds the CA certificates the nodes'
	// certificates must chain to; empty: the system's roots.
	CAFile string
	// CertFile and KeyFile (backend_tls_cert_file, backend_tls_key_file)
	// are the gateway's own certificate and private key, for a cluster
	// with require_client_auth; both or neither.
	CertFile, KeyFile string
	// ServerName (backend_tls_server_name) is the name every node's
	// certificate must carry, for clusters whose certificates name a
	// service rather than each node; empty: the address dialled.
	ServerName string
	// HostVerification (backend_tls_host_verification, default true)
	// checks a node's name in its certificate; false checks only that the
	// certificate chains to a trusted CA, as for certificates that name
	// neither the nodes' addresses nor one shared name.
	HostVerification bool
}

// On reports whether the gateway's connections use TLS.
func (t *BackendTLS) On() bool {
	return t.Enabled || t.CAFile != "" || t.CertFile != "" || t.KeyFile != "" || t.ServerName != ""
}

// Check validates the options without reading the files; the errors name
// the option at fault.
func (t *BackendTLS) Check() error {
	var errs []error
	if t.CertFile != "" && t.KeyFile == "" {
		errs = append(errs, errors.New("backend_tls_key_file: the private key of backend_tls_cert_file is required with it"))
	}
	if t.KeyFile != "" && t.CertFile == "" {
		errs = append(errs, errors.New("backend_tls_cert_file: the certificate of backend_tls_key_file is required with it"))
	}
	if !t.HostVerification && t.ServerName != "" {
		errs = append(errs, errors.New("backend_tls_server_name: the name is checked only with backend_tls_host_verification"))
	}
	return errors.Join(errs...)
}

// TLSConfig reads the files and returns the client configuration of the
// gateway's connections; nil when TLS is off. With HostVerification the
// name checked is ServerName, or, when that is empty, the driver fills in
// each node's address.
func (t *BackendTLS) TLSConfig() (*tls.Config, error) {
	if !t.On() {
		return nil, nil
	}
	if err := t.Check(); err != nil {
		return nil, err
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: t.ServerName}
	if t.CAFile != "" {
		caPEM, err := os.ReadFile(t.CAFile)
		if err != nil {
			return nil, fmt.Errorf("backend_tls_ca_file: %w", err)
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(caPEM) {
			return nil, fmt.Errorf("backend_tls_ca_file: %s holds no PEM certificate", t.CAFile)
		}
	}
	if t.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("backend_tls_cert_file, backend_tls_key_file: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	if !t.HostVerification {
		// Go checks the chain and the name together, or neither: skip
		// both, then check the chain here.
		cfg.InsecureSkipVerify = true
		cfg.VerifyConnection = verifyChainOnly(cfg.RootCAs)
	}
	return cfg, nil
}

// verifyChainOnly checks that the peer's certificate chains to roots (nil:
// the system's), for server use, whatever names it carries.
func verifyChainOnly(roots *x509.CertPool) func(tls.ConnectionState) error {
	return func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return errors.New("the node sent no certificate")
		}
		opts := x509.VerifyOptions{Roots: roots, Intermediates: x509.NewCertPool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
		for _, c := range cs.PeerCertificates[1:] {
			opts.Intermediates.AddCert(c)
		}
		_, err := cs.PeerCertificates[0].Verify(opts)
		return err
	}
}
