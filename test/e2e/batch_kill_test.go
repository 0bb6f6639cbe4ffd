package e2e_test

import (
	"errors"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/test/internal/seeds"
)

const (
	// batchKillTrials is the number of kill -9s of TestLoggedBatchKill9.
	batchKillTrials = 20
	// batchKillWriters write concurrently through one session.
	batchKillWriters = 4
	// batchKillMinAcked batches are acknowledged in each trial before the
	// random wait that precedes the kill, so that it lands among writes.
	batchKillMinAcked = 50
	// batchKillDevices is how many device partitions the events spread
	// over, so that a batch's two writes go to unrelated partitions.
	batchKillDevices = 8
)

// batchModel is what the writers know of their events: the payload of
// every event they sent, which batches the server acknowledged, which were
// in flight at a kill, and which a restart showed were never applied.
type batchModel struct {
	mu       sync.Mutex
	payload  map[gocql.UUID]string
	acked    map[gocql.UUID]bool
	inFlight map[gocql.UUID]bool
	absent   map[gocql.UUID]bool
	// next numbers the events, all writers and trials together; event n
	// happens at batchKillDay + n ms.
	next atomic.Int64
}

var batchKillDay = utc(2025, 3, 8, 0, 0, 0)

// writeEvents runs batchKillWriters writers of logged batches against s,
// each event into both tables, until stop closes or a write fails. A write
// that fails before killed is set is reported through failed.
func (m *batchModel) writeEvents(s *gocql.Session, stop <-chan struct{}, killed *atomic.Bool, ackedNow *atomic.Int64, failed chan<- error) *sync.WaitGroup {
	var wg sync.WaitGroup
	for w := range batchKillWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				n := m.next.Add(1)
				at := batchKillDay.Add(time.Duration(n) * time.Millisecond)
				id := gocql.UUIDFromTime(at)
				user, device := fmt.Sprintf("u-%d", w), fmt.Sprintf("d-%d", n%batchKillDevices)
				payload := fmt.Sprintf("event %d by writer %d", n, w)
				m.mu.Lock()
				m.payload[id] = payload
				m.inFlight[id] = true
				m.mu.Unlock()
				b := s.NewBatch(gocql.LoggedBatch)
				b.Query("INSERT INTO user_events_by_day (user_id, bucket_date, event_time, event_id, event_type, payload) "+
					"VALUES (?, ?, ?, ?, 'click', ?)", user, batchKillDay, at, id, payload)
				b.Query("INSERT INTO device_events_by_day (device_id, bucket_date, event_time, event_id, event_type, payload) "+
					"VALUES (?, ?, ?, ?, 'click', ?)", device, batchKillDay, at, id, payload)
				if err := s.ExecuteBatch(b); err != nil {
					if !killed.Load() {
						failed <- fmt.Errorf("writer %d, event %d, before the kill: %w", w, n, err)
					}
					return // the batch stays in flight: applied or not, unknown
				}
				m.mu.Lock()
				delete(m.inFlight, id)
				m.acked[id] = true
				m.mu.Unlock()
				ackedNow.Add(1)
			}
		}()
	}
	return &wg
}

// readBatchEvents returns event_id -> payload of every row of table.
func readBatchEvents(t *testing.T, s *gocql.Session, table string) map[gocql.UUID]string {
	t.Helper()
	out := map[gocql.UUID]string{}
	iter := s.Query("SELECT event_id, payload FROM " + table).PageSize(2000).Iter()
	var id gocql.UUID
	var payload string
	for iter.Scan(&id, &payload) {
		out[id] = payload
	}
	if err := iter.Close(); err != nil {
		t.Fatalf("read %s: %v", table, err)
	}
	return out
}

// verify compares both tables with the model after a restart: no event is
// in one table without the other, every acknowledged batch is in both, no
// batch known to be absent came back, and every row is one the writers
// sent. Each in-flight batch then becomes known: applied (and so from now
// on required) or absent.
func (m *batchModel) verify(t *testing.T, s *gocql.Session, trial int) {
	t.Helper()
	users, devices := readBatchEvents(t, s, "user_events_by_day"), readBatchEvents(t, s, "device_events_by_day")
	m.mu.Lock()
	defer m.mu.Unlock()
	errs := 0
	report := func(format string, args ...any) {
		if errs++; errs <= 10 {
			t.Errorf("after restart %d: "+format, append([]any{trial}, args...)...)
		}
	}
	for _, side := range []struct {
		name        string
		rows, other map[gocql.UUID]string
	}{{"user_events_by_day", users, devices}, {"device_events_by_day", devices, users}} {
		for id, payload := range side.rows {
			want, sent := m.payload[id]
			switch {
			case !sent:
				report("%s has event %v (%q) that no writer sent", side.name, id, payload)
			case payload != want:
				report("%s has event %v with payload %q, want %q", side.name, id, payload, want)
			case m.absent[id]:
				report("%s has event %v (%q), absent after an earlier restart", side.name, id, payload)
			}
			if _, ok := side.other[id]; !ok {
				report("event %v (%q) is in %s only: a logged batch applied in part", id, payload, side.name)
			}
		}
	}
	for id := range m.acked {
		_, inUsers := users[id]
		_, inDevices := devices[id]
		if !inUsers || !inDevices {
			report("acknowledged batch %v (%q) lost: in user_events_by_day %v, in device_events_by_day %v",
				id, m.payload[id], inUsers, inDevices)
		}
	}
	if errs > 0 {
		t.Fatalf("after restart %d: %d inconsistencies (%d rows in user_events_by_day, %d in device_events_by_day, %d batches acknowledged)",
			trial, errs, len(users), len(devices), len(m.acked))
	}
	applied, absent := 0, 0
	for id := range m.inFlight {
		if _, ok := users[id]; ok {
			m.acked[id] = true
			applied++
		} else {
			m.absent[id] = true
			absent++
		}
		delete(m.inFlight, id)
	}
	t.Logf("restart %d: %d events in both tables; of the batches in flight at the kill, %d applied, %d not",
		trial, len(users), applied, absent)
}

// createBatchKillSchema creates keyspace batchkill and in it seed 004's
// two query tables of one event (§5.2), as written there.
func createBatchKillSchema(t *testing.T, cluster *gocql.ClusterConfig) {
	t.Helper()
	s, err := cluster.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mustExec(t, s, "CREATE KEYSPACE batchkill WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	ks := *cluster
	ks.Keyspace = "batchkill"
	s2, err := ks.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	for _, stmt := range seeds.Seed004Tables[:2] {
		mustExec(t, s2, stmt)
	}
}

// TestLoggedBatchKill9 kills the server with SIGKILL 20 times at random
// moments while writers run logged batches that write each event into
// seed 004's two query tables, restarting on the same directory each time
// and writing on. After every restart each event is in both tables or in
// neither, and every acknowledged batch is in both.
func TestLoggedBatchKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("20 kill -9 trials")
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	dir := t.TempDir()
	m := &batchModel{
		payload:  map[gocql.UUID]string{},
		acked:    map[gocql.UUID]bool{},
		inFlight: map[gocql.UUID]bool{},
		absent:   map[gocql.UUID]bool{},
	}
	start := time.Now()
	for trial := 0; trial <= batchKillTrials; trial++ {
		p := startPartita(t, dir)
		cluster := newCluster(p.host, p.port)
		cluster.Timeout = 10 * time.Second
		// The session's attempts to reconnect to the killed node are
		// expected; they would only bury the test's own log.
		cluster.Logger = log.New(io.Discard, "", 0)
		if trial == 0 {
			createBatchKillSchema(t, cluster)
		}
		cluster.Keyspace = "batchkill"
		s, err := cluster.CreateSession()
		if err != nil {
			t.Fatalf("trial %d: connect: %v\n%s", trial, err, p.logs)
		}
		if trial > 0 {
			m.verify(t, s, trial)
		}
		if trial == batchKillTrials {
			s.Close()
			break
		}

		stop := make(chan struct{})
		failed := make(chan error, batchKillWriters)
		var killed atomic.Bool
		var ackedNow atomic.Int64
		wg := m.writeEvents(s, stop, &killed, &ackedNow, failed)
		if !waitProgress(batchKillMinAcked, ackedNow.Load) {
			t.Fatalf("trial %d: %d batches acknowledged, none in the last %v", trial, ackedNow.Load(), stallTimeout)
		}
		time.Sleep(time.Duration(rng.IntN(500)) * time.Millisecond)
		killed.Store(true)
		var exitErr *exec.ExitError
		if err := p.kill(t, syscall.SIGKILL); !errors.As(err, &exitErr) {
			t.Fatalf("trial %d: after SIGKILL: %v", trial, err)
		}
		close(stop)
		wg.Wait()
		s.Close()
		close(failed)
		for err := range failed {
			t.Errorf("trial %d: %v", trial, err)
		}
		if t.Failed() {
			t.FailNow()
		}
	}
	t.Logf("%d kills in %v; %d batches acknowledged, %d not applied", batchKillTrials,
		time.Since(start).Round(time.Millisecond), len(m.acked), len(m.absent))
}
