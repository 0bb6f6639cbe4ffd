package server

import (
	"crypto/tls"
	"time"

	"github.com/partita-db/partita/internal/metrics"
	"github.com/partita-db/partita/internal/protocol"
)

// Config tunes the server. Zero fields take the defaults of DefaultConfig.
type Config struct {
	// MaxFrameSize bounds a request frame, header included, in bytes
	// (cassandra.yaml native_transport_max_frame_size, default 16 MiB). A
	// larger frame is answered with a Protocol error and the connection is
	// closed, as Cassandra does.
	MaxFrameSize int
	// MaxRequestDataInFlight bounds the bytes of request bodies the server
	// holds, from their first byte read until they are answered, over all
	// connections (cassandra.yaml native_transport_max_request_data_in_flight,
	// default 128 MiB); MaxRequestDataInFlightPerIP bounds those of the
	// connections of one client address (..._per_ip, default 32 MiB). Past
	// either, as in Cassandra, a connection is not read until there is room
	// or its own requests have finished, so TCP flow control slows its
	// client; one with no request executing reads its next frame regardless;
	// a connection that sent THROW_ON_OVERLOAD=1 in STARTUP gets an
	// Overloaded error for the request instead.
	MaxRequestDataInFlight      int64
	MaxRequestDataInFlightPerIP int64
	// MaxConcurrentConnections and MaxConcurrentConnectionsPerIP bound the
	// connections served at once, in all and from one client address
	// (cassandra.yaml native_transport_max_concurrent_connections and
	// ..._per_ip; zero or less, the default, is no limit). A connection
	// over either is closed as soon as it is accepted, as in Cassandra
	// (limits.go).
	MaxConcurrentConnections      int
	MaxConcurrentConnectionsPerIP int
	// MaxInFlightPerConn bounds the requests one connection may have
	// executing at once (default 128); beyond it the server stops reading
	// from that connection until a request finishes.
	MaxInFlightPerConn int
	// IdleTimeout, when positive, closes a connection that sends nothing
	// between frames for that long (cassandra.yaml
	// native_transport_idle_timeout; 0, the default as in Cassandra,
	// disables it). Drivers send OPTIONS as a heartbeat every 30 s or less,
	// so a value above a minute only closes dead peers.
	IdleTimeout time.Duration
	// FrameReadTimeout bounds the time from the first byte of a request
	// frame to its last (default 60 s), so that a client that sends part of
	// a frame, or one byte a second, does not hold its connection and its
	// request memory forever; past it the connection is closed. Time spent
	// waiting for request-budget room (invariant 7) is not counted.
	FrameReadTimeout time.Duration
	// WriteTimeout closes a connection whose client takes none of the
	// bytes of its replies for that long (default 30 s): the deadline is
	// renewed for every writeChunk bytes written.
	WriteTimeout time.Duration
	// MaxQueuedReplyBytes bounds the bytes of encoded replies waiting for a
	// connection's writer (default 8 MiB): while more are queued the
	// connection is not read (invariant 8).
	MaxQueuedReplyBytes int64
	// Authenticator, when set, makes every connection log in after STARTUP
	// (SASL PLAIN over AUTHENTICATE / AUTH_RESPONSE / AUTH_SUCCESS); nil is
	// Cassandra's AllowAllAuthenticator. New sets it from the engine's role
	// manager when password authentication is on.
	Authenticator Authenticator
	// TLS, when set, makes connections speak TLS (client_encryption_options,
	// built by EncryptionOptions.TLSConfig); with TLSOptional a client
	// whose first byte is not a TLS record is served in plain text.
	TLS         *tls.Config
	TLSOptional bool
	// Metrics receives the server's metrics; nil keeps them on a private
	// registry that nobody scrapes.
	Metrics *metrics.Metrics
}

// Defaults.
const (
	DefaultMaxFrameSize                = protocol.MaxFrameSize
	DefaultMaxInFlightPerConn          = 128
	DefaultMaxRequestDataInFlight      = 128 << 20
	DefaultMaxRequestDataInFlightPerIP = 32 << 20
	DefaultFrameReadTimeout            = 60 * time.Second
	DefaultWriteTimeout                = 30 * time.Second
	DefaultMaxQueuedReplyBytes         = 8 << 20
)

// DefaultConfig returns the default configuration.
func DefaultConfig() Config {
	return Config{MaxFrameSize: DefaultMaxFrameSize, MaxInFlightPerConn: DefaultMaxInFlightPerConn,
		MaxRequestDataInFlight: DefaultMaxRequestDataInFlight, MaxRequestDataInFlightPerIP: DefaultMaxRequestDataInFlightPerIP,
		FrameReadTimeout: DefaultFrameReadTimeout, WriteTimeout: DefaultWriteTimeout, MaxQueuedReplyBytes: DefaultMaxQueuedReplyBytes}
}

// withDefaults fills the zero fields. A frame limit below the header size
// could never accept anything, so it is raised to allow an empty body.
func (c Config) withDefaults() Config {
	if c.MaxFrameSize <= 0 {
		c.MaxFrameSize = DefaultMaxFrameSize
	}
	c.MaxFrameSize = max(c.MaxFrameSize, protocol.HeaderSize)
	if c.MaxInFlightPerConn <= 0 {
		c.MaxInFlightPerConn = DefaultMaxInFlightPerConn
	}
	if c.MaxRequestDataInFlight <= 0 {
		c.MaxRequestDataInFlight = DefaultMaxRequestDataInFlight
	}
	if c.MaxRequestDataInFlightPerIP <= 0 {
		c.MaxRequestDataInFlightPerIP = DefaultMaxRequestDataInFlightPerIP
	}
	if c.FrameReadTimeout <= 0 {
		c.FrameReadTimeout = DefaultFrameReadTimeout
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = DefaultWriteTimeout
	}
	if c.MaxQueuedReplyBytes <= 0 {
		c.MaxQueuedReplyBytes = DefaultMaxQueuedReplyBytes
	}
	if c.Metrics == nil {
		c.Metrics = metrics.New()
	}
	return c
}
