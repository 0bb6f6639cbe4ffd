package server

import (
	"fmt"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/metrics"
	"github.com/partita-db/partita/internal/protocol"
)

// opMetrics are one opcode's children of the labelled metrics, looked up
// once so that a request costs no label hashing.
type opMetrics struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

// serverMetrics records the server's metrics on a metrics.Metrics.
type serverMetrics struct {
	m *metrics.Metrics
	// byOpcode is indexed by opcode; unknown opcodes share "UNKNOWN", so
	// that a client cannot invent label values (metrics invariant 2).
	byOpcode [256]*opMetrics
}

func newServerMetrics(m *metrics.Metrics) *serverMetrics {
	s := &serverMetrics{m: m}
	unknown := &opMetrics{
		requests: m.Requests.WithLabelValues("UNKNOWN"),
		duration: m.RequestDuration.WithLabelValues("UNKNOWN"),
	}
	for i := range s.byOpcode {
		s.byOpcode[i] = unknown
	}
	for _, op := range []protocol.Opcode{
		protocol.OpStartup, protocol.OpOptions, protocol.OpQuery, protocol.OpPrepare,
		protocol.OpExecute, protocol.OpRegister, protocol.OpBatch, protocol.OpAuthResponse,
	} {
		s.byOpcode[op] = &opMetrics{
			requests: m.Requests.WithLabelValues(op.String()),
			duration: m.RequestDuration.WithLabelValues(op.String()),
		}
	}
	return s
}

func (s *serverMetrics) connOpened() {
	s.m.Connections.Inc()
	s.m.ConnectionsOpen.Inc()
}

func (s *serverMetrics) connClosed() { s.m.ConnectionsOpen.Dec() }

// connRefused counts a connection refused by limit (limitTotal,
// limitPerIP: a fixed set, so clients cannot invent label values).
func (s *serverMetrics) connRefused(limit string) {
	s.m.ConnectionsRefused.WithLabelValues(limit).Inc()
}

// request counts an answered request and observes its latency.
func (s *serverMetrics) request(op protocol.Opcode, start time.Time) {
	om := s.byOpcode[op]
	om.requests.Inc()
	om.duration.Observe(time.Since(start).Seconds())
}

func (s *serverMetrics) sentError(e *cqlerr.Error) {
	code := cqlerr.ServerError
	if e != nil {
		code = e.Code
	}
	name, _, _ := strings.Cut(code.String(), " ")
	s.m.Errors.WithLabelValues(fmt.Sprintf("0x%04X", int32(code)), name).Inc()
}

func (s *serverMetrics) inFlight(delta float64) { s.m.InFlight.Add(delta) }

func (s *serverMetrics) received(n int) { s.m.BytesReceived.Add(float64(n)) }

func (s *serverMetrics) sent(n int) {
	if n > 0 {
		s.m.BytesSent.Add(float64(n))
	}
}
