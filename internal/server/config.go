package server

import (
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
	// MaxInFlightPerConn bounds the requests one connection may have
	// executing at once (default 128); beyond it the server stops reading
	// from that connection until a request finishes.
	MaxInFlightPerConn int
	// IdleTimeout, when positive, closes a connection that sends nothing
	// for that long, or does not take a reply for that long. Drivers send
	// OPTIONS as a heartbeat every 30 s or less, so a value above a minute
	// only closes dead peers.
	IdleTimeout time.Duration
	// Metrics receives the server's metrics; nil keeps them on a private
	// registry that nobody scrapes.
	Metrics *metrics.Metrics
}

// Defaults.
const (
	DefaultMaxFrameSize       = protocol.MaxFrameSize
	DefaultMaxInFlightPerConn = 128
)

// DefaultConfig returns the default configuration.
func DefaultConfig() Config {
	return Config{MaxFrameSize: DefaultMaxFrameSize, MaxInFlightPerConn: DefaultMaxInFlightPerConn}
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
	if c.Metrics == nil {
		c.Metrics = metrics.New()
	}
	return c
}
