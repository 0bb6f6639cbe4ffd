package e2e_test

import (
	"bytes"
	"math/rand/v2"
	"sync"
	"testing"
)

// TestLargeFrames sends 10 MiB values through gocql: the server reads such
// a body in chunks as it arrives (protocol.ReadBody) and assembles it whole.
// Six at once from one client hold 60 MiB, more than the default budget of
// 32 MiB per client address, so some wait for room (server invariant 7);
// every one must still be written and read back intact.
func TestLargeFrames(t *testing.T) {
	s := newKeyspace(t, "largeframes")
	mustExec(t, s, "CREATE TABLE blobs (k int PRIMARY KEY, v blob)")
	value := func(k int) []byte {
		v := make([]byte, 10<<20)
		rng := rand.New(rand.NewPCG(uint64(k), 1))
		for i := 0; i < len(v); i += 8 {
			x := rng.Uint64()
			for j := 0; j < 8; j++ {
				v[i+j] = byte(x >> (8 * j))
			}
		}
		return v
	}
	mustExec(t, s, "INSERT INTO blobs (k, v) VALUES (?, ?)", 0, value(0))
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for k := 1; k <= 6; k++ {
		wg.Go(func() {
			errs <- s.Query("INSERT INTO blobs (k, v) VALUES (?, ?)", k, value(k)).Exec()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("concurrent 10 MiB INSERT: %v", err)
		}
	}
	for k := 0; k <= 6; k++ {
		var got []byte
		if err := s.Query("SELECT v FROM blobs WHERE k = ?", k).Scan(&got); err != nil {
			t.Fatalf("SELECT k = %d: %v", k, err)
		}
		if !bytes.Equal(got, value(k)) {
			t.Fatalf("k = %d: read back %d bytes that differ from the %d written", k, len(got), 10<<20)
		}
	}
}
