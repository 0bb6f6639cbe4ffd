package config

import (
	"fmt"
	"reflect"

	"go.yaml.in/yaml/v3"

	"github.com/partita-db/partita/internal/server"
)

// encryptionFile is client_encryption_options as cassandra.yaml writes it.
// Every option Cassandra 5.0 has is read; those without a meaning here
// (algorithm, require_endpoint_verification, ssl_context_factory) are
// accepted and ignored, and an unknown one is an error.
type encryptionFile struct {
	Enabled                     *bool     `yaml:"enabled"`
	Optional                    *bool     `yaml:"optional"`
	Keystore                    *string   `yaml:"keystore"`
	KeystorePassword            *string   `yaml:"keystore_password"`
	Truststore                  *string   `yaml:"truststore"`
	TruststorePassword          *string   `yaml:"truststore_password"`
	RequireClientAuth           *bool     `yaml:"require_client_auth"`
	StoreType                   *string   `yaml:"store_type"`
	Protocol                    *string   `yaml:"protocol"`
	AcceptedProtocols           *[]string `yaml:"accepted_protocols"`
	CipherSuites                *[]string `yaml:"cipher_suites"`
	Algorithm                   *string   `yaml:"algorithm"`
	RequireEndpointVerification *bool     `yaml:"require_endpoint_verification"`
	SSLContextFactory           yaml.Node `yaml:"ssl_context_factory"`
}

var encryptionFields = func() map[string]int {
	fields := make(map[string]int)
	t := reflect.TypeFor[encryptionFile]()
	for i := range t.NumField() {
		fields[t.Field(i).Tag.Get("yaml")] = i
	}
	return fields
}()

// UnmarshalYAML decodes one option at a time, so that an error names the
// option and its line (invariant 1).
func (f *encryptionFile) UnmarshalYAML(node *yaml.Node) error {
	if node.Kind != yaml.MappingNode {
		return fmt.Errorf("must be a mapping of option names to values")
	}
	v := reflect.ValueOf(f).Elem()
	for i := 0; i+1 < len(node.Content); i += 2 {
		key, value := node.Content[i], node.Content[i+1]
		field, ok := encryptionFields[key.Value]
		if !ok {
			return fmt.Errorf("line %d: unknown option %q", key.Line, key.Value)
		}
		if err := value.Decode(v.Field(field).Addr().Interface()); err != nil {
			return fmt.Errorf("line %d: %s: %s", value.Line, key.Value, yamlErrorText(err))
		}
	}
	return nil
}

// options applies Cassandra's defaults (EncryptionOptions.applyConfig):
// optional, when absent, is true if a keystore is given and enabled is
// not.
func (f *encryptionFile) options() server.EncryptionOptions {
	var o server.EncryptionOptions
	get := func(dst *string, src *string) {
		if src != nil {
			*dst = *src
		}
	}
	if f.Enabled != nil {
		o.Enabled = *f.Enabled
	}
	get(&o.Keystore, f.Keystore)
	get(&o.KeystorePassword, f.KeystorePassword)
	get(&o.Truststore, f.Truststore)
	get(&o.TruststorePassword, f.TruststorePassword)
	get(&o.StoreType, f.StoreType)
	get(&o.Protocol, f.Protocol)
	if f.RequireClientAuth != nil {
		o.RequireClientAuth = *f.RequireClientAuth
	}
	if f.AcceptedProtocols != nil {
		o.AcceptedProtocols = append([]string(nil), (*f.AcceptedProtocols)...)
	}
	if f.CipherSuites != nil {
		o.CipherSuites = append([]string(nil), (*f.CipherSuites)...)
	}
	if f.Optional != nil {
		o.Optional = *f.Optional
	} else {
		o.Optional = o.Keystore != "" && !o.Enabled
	}
	return o
}
