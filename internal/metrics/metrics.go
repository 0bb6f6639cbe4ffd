package metrics

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics is a registry with the CQL server's metrics on it.
type Metrics struct {
	// Registry holds every collector; other packages register theirs here.
	Registry *prometheus.Registry

	// ConnectionsOpen counts the client connections currently open.
	ConnectionsOpen prometheus.Gauge
	// Connections counts the connections ever accepted.
	Connections prometheus.Counter
	// ConnectionsRefused counts the connections closed unserved because
	// they were over a connection limit, by limit ("total", "per_ip").
	ConnectionsRefused *prometheus.CounterVec
	// Requests counts requests by opcode name ("QUERY", "EXECUTE", ...).
	Requests *prometheus.CounterVec
	// RequestDuration observes the seconds from a request's last byte read
	// to its response being queued, by opcode name.
	RequestDuration *prometheus.HistogramVec
	// Errors counts ERROR responses by code ("0x2200") and name ("Invalid").
	Errors *prometheus.CounterVec
	// BytesReceived and BytesSent count frame bytes, headers included.
	BytesReceived prometheus.Counter
	BytesSent     prometheus.Counter
	// InFlight is the number of requests being executed right now.
	InFlight prometheus.Gauge
}

// Label names.
const (
	LabelOpcode = "opcode"
	LabelCode   = "code"
	LabelName   = "name"
	LabelLimit  = "limit"
)

// New returns metrics on a fresh registry that also carries the Go
// runtime and process collectors.
func New() *Metrics {
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	m := &Metrics{
		Registry: reg,
		ConnectionsOpen: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "partita_cql_connections_open",
			Help: "Client connections currently open.",
		}),
		Connections: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "partita_cql_connections_total",
			Help: "Client connections accepted.",
		}),
		ConnectionsRefused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "partita_cql_connections_refused_total",
			Help: "Client connections closed unserved because they were over a connection limit, by limit.",
		}, []string{LabelLimit}),
		Requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "partita_cql_requests_total",
			Help: "Requests received, by opcode.",
		}, []string{LabelOpcode}),
		RequestDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "partita_cql_request_duration_seconds",
			Help: "Time from reading a request to queueing its response, by opcode.",
			// 50µs to about 6.5s.
			Buckets: prometheus.ExponentialBuckets(50e-6, 2, 18),
		}, []string{LabelOpcode}),
		Errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "partita_cql_errors_total",
			Help: "ERROR responses sent, by protocol error code.",
		}, []string{LabelCode, LabelName}),
		BytesReceived: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "partita_cql_received_bytes_total",
			Help: "Bytes of request frames read, headers included.",
		}),
		BytesSent: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "partita_cql_sent_bytes_total",
			Help: "Bytes of response frames written, headers included.",
		}),
		InFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "partita_cql_requests_in_flight",
			Help: "Requests being executed.",
		}),
	}
	reg.MustRegister(m.ConnectionsOpen, m.Connections, m.ConnectionsRefused, m.Requests, m.RequestDuration,
		m.Errors, m.BytesReceived, m.BytesSent, m.InFlight)
	return m
}

// Handler serves the registry in the Prometheus text format, for /metrics.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry})
}
