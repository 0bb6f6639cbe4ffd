package main

import (
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"slices"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/partita-db/partita/internal/metrics"
	"github.com/partita-db/partita/internal/split"
)

// grafanaPanel is the part of a Grafana dashboard panel the test reads;
// rows hold their panels when collapsed.
type grafanaPanel struct {
	Type, Title string
	Datasource  struct{ UID string }
	Targets     []struct{ Expr string }
	Panels      []grafanaPanel
}

// templateVariable is a dashboard variable; Query is a string or, for a
// query variable, an object.
type templateVariable struct {
	Name, Type string
	Query      json.RawMessage
}

// exportedMetricNames lists every metric family the server registers,
// whether or not it has a sample yet (a vector without children, a split
// layer that never split): each collector's descriptions, and the
// histograms' _bucket, _sum and _count series.
func exportedMetricNames(t *testing.T) map[string]bool {
	m := metrics.New()
	var collectors []prometheus.Collector
	v := reflect.ValueOf(m).Elem()
	for i := range v.NumField() {
		if c, ok := v.Field(i).Interface().(prometheus.Collector); ok && v.Type().Field(i).Name != "Registry" {
			collectors = append(collectors, c)
		}
	}
	collectors = append(collectors, split.Collectors()...)
	collectors = append(collectors, newPartitionCollector(nil), newStatementCollector(nil), newStorageCollector(nil))

	fqName := regexp.MustCompile(`fqName: "([^"]+)"`)
	names := map[string]bool{}
	for _, c := range collectors {
		_, histogram := c.(prometheus.Observer)
		if _, ok := c.(*prometheus.HistogramVec); ok {
			histogram = true
		}
		ch := make(chan *prometheus.Desc, 64)
		go func() { c.Describe(ch); close(ch) }()
		for d := range ch {
			match := fqName.FindStringSubmatch(d.String())
			if match == nil {
				t.Fatalf("cannot read the name of %s", d)
			}
			names[match[1]] = true
			if histogram {
				for _, suffix := range []string{"_bucket", "_sum", "_count"} {
					names[match[1]+suffix] = true
				}
			}
		}
	}
	// The Go runtime and process collectors of metrics.New.
	families, err := m.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		names[f.GetName()] = true
	}
	return names
}

// The dashboard in docs/grafana queries only metrics the server exports,
// through its Prometheus data source variable, so it cannot drift from the
// code.
func TestGrafanaDashboardMetrics(t *testing.T) {
	raw, err := os.ReadFile("../../docs/grafana/partita-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Title         string
		SchemaVersion int
		Templating    struct {
			List []templateVariable
		}
		Panels []grafanaPanel
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatalf("the dashboard is not JSON: %v", err)
	}
	// Grafana 10 writes schema 37 and later.
	if dash.SchemaVersion < 37 {
		t.Errorf("schemaVersion %d is older than Grafana 10's", dash.SchemaVersion)
	}
	if !slices.ContainsFunc(dash.Templating.List, func(v templateVariable) bool {
		return v.Name == "datasource" && v.Type == "datasource" && string(v.Query) == `"prometheus"`
	}) {
		t.Errorf("no Prometheus data source variable named datasource: %+v", dash.Templating.List)
	}

	exported := exportedMetricNames(t)
	metricName := regexp.MustCompile(`\b(?:partita|process|go)_[a-zA-Z0-9_]+`)
	queried := map[string]bool{}
	var walk func([]grafanaPanel)
	walk = func(panels []grafanaPanel) {
		for _, p := range panels {
			walk(p.Panels)
			if p.Type == "row" {
				continue
			}
			if len(p.Targets) == 0 {
				t.Errorf("panel %q queries nothing", p.Title)
			}
			if p.Datasource.UID != "${datasource}" {
				t.Errorf("panel %q uses data source %q, not the dashboard's ${datasource}", p.Title, p.Datasource.UID)
			}
			for _, target := range p.Targets {
				names := metricName.FindAllString(target.Expr, -1)
				if len(names) == 0 {
					t.Errorf("panel %q: %q names no Partita metric", p.Title, target.Expr)
				}
				for _, n := range names {
					queried[n] = true
					if !exported[n] {
						t.Errorf("panel %q queries %s, which the server does not export", p.Title, n)
					}
				}
			}
		}
	}
	walk(dash.Panels)
	// The panels docs/grafana.md describes.
	for _, want := range []string{"partita_cql_requests_total", "partita_cql_request_duration_seconds_bucket",
		"partita_cql_errors_total", "partita_cql_connections_open", "partita_statement_requests_total",
		"partita_top_partition_bytes", "partita_split_bytes_moved_total", "partita_storage_block_cache_hits_total",
		"partita_storage_compactions_total", "partita_storage_l0_sublevels", "partita_storage_disk_bytes"} {
		if !queried[want] {
			t.Errorf("no panel queries %s", want)
		}
	}
	// The test's own check: a name the server does not export is caught.
	if exported["partita_cql_requests"] || !exported["partita_split_read_fanout_bucket"] || !exported["go_goroutines"] {
		t.Errorf("exportedMetricNames is wrong: %d names", len(exported))
	}
}
