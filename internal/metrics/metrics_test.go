package metrics

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

func TestHandlerServesServerMetrics(t *testing.T) {
	m := New()
	m.ConnectionsOpen.Inc()
	m.Requests.WithLabelValues("QUERY").Add(3)
	m.RequestDuration.WithLabelValues("QUERY").Observe(0.001)
	m.Errors.WithLabelValues("0x2200", "Invalid").Inc()
	m.BytesReceived.Add(9)
	m.BytesSent.Add(13)
	m.InFlight.Set(2)

	// Another package's collector on the same registry shows up too.
	extra := prometheus.NewCounter(prometheus.CounterOpts{Name: "partita_test_extra_total", Help: "x"})
	m.Registry.MustRegister(extra)
	extra.Inc()

	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	text := string(body)
	for _, want := range []string{
		"partita_cql_connections_open 1",
		`partita_cql_requests_total{opcode="QUERY"} 3`,
		`partita_cql_request_duration_seconds_count{opcode="QUERY"} 1`,
		`partita_cql_errors_total{code="0x2200",name="Invalid"} 1`,
		"partita_cql_received_bytes_total 9",
		"partita_cql_sent_bytes_total 13",
		"partita_cql_requests_in_flight 2",
		"partita_test_extra_total 1",
		"go_goroutines",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

func TestNewRegistriesAreIndependent(t *testing.T) {
	a, b := New(), New()
	a.Connections.Inc()
	if got := gathered(t, b.Registry, "partita_cql_connections_total"); got != 0 {
		t.Fatalf("second registry sees %v connections", got)
	}
	if got := gathered(t, a.Registry, "partita_cql_connections_total"); got != 1 {
		t.Fatalf("first registry sees %v connections", got)
	}
}

// gathered returns the value of an unlabelled counter or gauge.
func gathered(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		m := f.GetMetric()[0]
		if c := m.GetCounter(); c != nil {
			return c.GetValue()
		}
		return m.GetGauge().GetValue()
	}
	t.Fatalf("no metric %s", name)
	return 0
}
