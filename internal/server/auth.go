package server

import (
	"github.com/partita-db/partita/internal/protocol"
)

// Authenticator authenticates connections (cassandra.yaml authenticator
// other than AllowAllAuthenticator). *auth.Manager provides it.
type Authenticator interface {
	// AuthenticatorClass is the class AUTHENTICATE names.
	AuthenticatorClass() string
	// Authenticate checks one SASL PLAIN token and returns the role logged
	// in, or a BadCredentials error.
	Authenticate(token []byte) (role string, err error)
}

// loginSession is the part of an engine session that learns who logged in.
type loginSession interface{ Login(role string) }

// authResponse answers AUTH_RESPONSE as Cassandra's
// transport/messages/AuthResponse.execute does: AUTH_SUCCESS once the
// credentials are right, and the connection is ready; an error otherwise,
// after which the client may try again. The check (bcrypt, tens of
// milliseconds) runs on the reader: nothing else of this connection can run
// before it is logged in.
func (c *conn) authResponse(r *protocol.AuthResponse) protocol.Response {
	a := c.srv.cfg.Authenticator
	role, err := a.Authenticate(r.Token)
	if err != nil {
		c.log.Info("authentication failed", "err", err)
		return protocol.NewErrorMessage(err)
	}
	if s, ok := c.sess.(loginSession); ok {
		s.Login(role)
	}
	c.authenticating = false
	c.ready = true
	c.log.Debug("authenticated", "role", role)
	return &protocol.AuthSuccess{}
}
