package server

import (
	"testing"

	"github.com/partita-db/partita/internal/protocol"
)

// BenchmarkRoundTrip measures one request at a time over TCP: the
// latency the server adds around the engine.
func BenchmarkRoundTrip(b *testing.B) {
	ts := startServer(b, Config{})
	c := ts.started(b)
	req := protocol.AppendRequest(nil, 3, query("rows"))
	b.ReportAllocs()
	for b.Loop() {
		c.write(req)
		if _, err := c.readFrame(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPipelined keeps 64 requests in flight on one connection, as a
// driver does under load: it measures the reader, the request goroutines
// and the coalescing writer together.
func BenchmarkPipelined(b *testing.B) {
	ts := startServer(b, Config{})
	c := ts.started(b)
	const depth = 64
	var batch []byte
	for i := range depth {
		batch = protocol.AppendRequest(batch, int16(i+1), query("rows"))
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(batch)))
	for b.Loop() {
		c.write(batch)
		for range depth {
			if _, err := c.readFrame(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*depth)/b.Elapsed().Seconds(), "req/s")
}
