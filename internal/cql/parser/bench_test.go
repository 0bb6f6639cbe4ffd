package parser

import "testing"

// The statements a driver sends most: a prepared INSERT and a SELECT of a
// clustering slice.
const (
	benchInsert = "INSERT INTO ks.events_by_asset_day (asset_id, day, event_ts, event_id, kind, payload) VALUES (?, ?, ?, ?, ?, ?) USING TTL 86400"
	benchSelect = "SELECT event_ts, event_id, payload FROM ks.events_by_asset_day WHERE asset_id = ? AND day = '2026-01-20' AND event_ts > ? ORDER BY event_ts DESC LIMIT 100"
)

func benchmarkParse(b *testing.B, text string) {
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(text); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseInsert(b *testing.B) { benchmarkParse(b, benchInsert) }

func BenchmarkParseSelect(b *testing.B) { benchmarkParse(b, benchSelect) }

func BenchmarkLex(b *testing.B) {
	b.SetBytes(int64(len(benchSelect)))
	b.ReportAllocs()
	for b.Loop() {
		lexAll(benchSelect)
	}
}

func BenchmarkSyntaxError(b *testing.B) {
	const text = "SELECT event_ts, event_id FROM ks.events_by_asset_day WHERE asset_id = ? AND day = ? ORDER BY event_ts DESC LIMT 100"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(text); err == nil {
			b.Fatal("no error")
		}
	}
}
