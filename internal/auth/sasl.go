package auth

import (
	"bytes"

	"github.com/partita-db/partita/internal/cqlerr"
)

// AuthenticatorClass is the class AUTHENTICATE names.
func (m *Manager) AuthenticatorClass() string { return PasswordAuthenticatorClass }

// Authenticate checks one SASL PLAIN token, authzid NUL authcid NUL
// password (RFC 4616), as PasswordAuthenticator's PlainTextSaslAuthenticator
// and ClientState.login do, and returns the role logged in. Failures are
// BadCredentials errors with Cassandra's messages.
func (m *Manager) Authenticate(token []byte) (string, error) {
	user, password, err := decodePlain(token)
	if err != nil {
		return "", err
	}
	r, ok := m.Role(user)
	if !ok || !checkPassword(password, r.SaltedHash) {
		return "", cqlerr.New(cqlerr.BadCredentials, "Provided username %s and/or password are incorrect", user)
	}
	if !r.Login {
		return "", cqlerr.New(cqlerr.BadCredentials, "%s is not permitted to log in", user)
	}
	return user, nil
}

// decodePlain splits a PLAIN token from its end, as Cassandra does: the
// last field is the password, the one before it the authentication id, and
// anything before that (the authorization id) is ignored.
func decodePlain(token []byte) (user, password string, err error) {
	var fields [][]byte
	end := len(token)
	for i := len(token) - 1; i >= 0; i-- {
		if token[i] != 0 {
			continue
		}
		if len(fields) == 2 {
			return "", "", cqlerr.New(cqlerr.BadCredentials, "Credential format error: username or password is empty or contains NUL(\\0) character")
		}
		fields = append(fields, bytes.Clone(token[i+1:end]))
		end = i
	}
	if len(fields) < 1 || len(fields[0]) == 0 {
		return "", "", cqlerr.New(cqlerr.BadCredentials, "Password must not be null")
	}
	if len(fields) < 2 || len(fields[1]) == 0 {
		return "", "", cqlerr.New(cqlerr.BadCredentials, "Authentication ID must not be null")
	}
	return string(fields[1]), string(fields[0]), nil
}
