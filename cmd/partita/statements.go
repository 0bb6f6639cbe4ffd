package main

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/partita-db/partita/internal/systables"
)

// topStatements bounds the statements exported on /metrics (the most run),
// so the label sets stay small whatever the workload; every statement is in
// system_partita.statements.
const topStatements = 20

// statementCollector exports the statistics of the most run statements
// (system_partita.statements).
type statementCollector struct {
	source                                 func() []systables.StatementInfo
	count, errors, latency, read, returned *prometheus.Desc
}

func newStatementCollector(source func() []systables.StatementInfo) *statementCollector {
	labels := []string{"keyspace", "statement", "kind"}
	d := func(name, help string, extra ...string) *prometheus.Desc {
		return prometheus.NewDesc("partita_statement_"+name, help, append(append([]string(nil), labels...), extra...), nil)
	}
	return &statementCollector{
		source:   source,
		count:    d("requests_total", "Runs of the statement (normalized: values are ?) since start."),
		errors:   d("errors_total", "Runs of the statement that failed."),
		latency:  d("latency_seconds", "Latency quantiles of the statement since start.", "quantile"),
		read:     d("rows_read_total", "Rows the statement's reads read."),
		returned: d("rows_returned_total", "Rows the statement returned."),
	}
}

func (c *statementCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.count, c.errors, c.latency, c.read, c.returned} {
		ch <- d
	}
}

func (c *statementCollector) Collect(ch chan<- prometheus.Metric) {
	stmts := c.source() // most run first
	for _, s := range stmts[:min(len(stmts), topStatements)] {
		statement := s.Statement
		if len(statement) > 200 {
			statement = statement[:200] + "..."
		}
		l := []string{s.Keyspace, statement, s.Kind}
		ch <- prometheus.MustNewConstMetric(c.count, prometheus.CounterValue, float64(s.Count), l...)
		ch <- prometheus.MustNewConstMetric(c.errors, prometheus.CounterValue, float64(s.Errors), l...)
		ch <- prometheus.MustNewConstMetric(c.read, prometheus.CounterValue, float64(s.RowsRead), l...)
		ch <- prometheus.MustNewConstMetric(c.returned, prometheus.CounterValue, float64(s.RowsReturned), l...)
		for _, q := range []struct {
			name string
			us   int64
		}{{"0.5", s.P50Micros}, {"0.99", s.P99Micros}, {"1", s.MaxMicros}} {
			ch <- prometheus.MustNewConstMetric(c.latency, prometheus.GaugeValue, float64(q.us)/1e6, append(l, q.name)...)
		}
	}
}
