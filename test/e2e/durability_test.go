package e2e_test

import (
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

const (
	durabilityWriters = 8
	// durabilityMinAcked rows are acknowledged before the kill, so that it
	// lands in the middle of a steady stream of writes.
	durabilityMinAcked = 2000
)

// ackLog records, per writer, the sequence numbers the server acknowledged
// and the one each writer had in flight when its writes started failing.
type ackLog struct {
	mu      sync.Mutex
	acked   map[int][]int
	pending map[int]int
	total   atomic.Int64
}

// writeUntilStopped runs durabilityWriters writers against s. Writer w
// alternates a single-row INSERT into durable.rows and a logged batch that
// writes (w, seq) into both durable.rows and durable.mirror. Each stops at
// its first error or when stop closes.
func writeUntilStopped(s *gocql.Session, stop <-chan struct{}, log *ackLog) *sync.WaitGroup {
	var wg sync.WaitGroup
	for w := range durabilityWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seq := 0; ; seq++ {
				select {
				case <-stop:
					return
				default:
				}
				var err error
				payload := fmt.Sprintf("w%d-s%d", w, seq)
				if seq%2 == 0 {
					err = s.Query("INSERT INTO durable.rows (writer, seq, payload) VALUES (?, ?, ?)", w, seq, payload).Exec()
				} else {
					b := s.NewBatch(gocql.LoggedBatch)
					b.Query("INSERT INTO durable.rows (writer, seq, payload) VALUES (?, ?, ?)", w, seq, payload)
					b.Query("INSERT INTO durable.mirror (writer, seq, payload) VALUES (?, ?, ?)", w, seq, payload)
					err = s.ExecuteBatch(b)
				}
				log.mu.Lock()
				if err != nil {
					log.pending[w] = seq
					log.mu.Unlock()
					return
				}
				log.acked[w] = append(log.acked[w], seq)
				log.mu.Unlock()
				log.total.Add(1)
			}
		}()
	}
	return &wg
}

func createDurableSchema(t *testing.T, s *gocql.Session) {
	t.Helper()
	mustExec(t, s, "CREATE KEYSPACE durable WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE durable.rows (writer int, seq int, payload text, PRIMARY KEY (writer, seq))")
	mustExec(t, s, "CREATE TABLE durable.mirror (writer int, seq int, payload text, PRIMARY KEY (writer, seq))")
}

// readDurable returns the seqs of each writer present in table.
func readDurable(t *testing.T, s *gocql.Session, table string) map[int]map[int]string {
	t.Helper()
	out := map[int]map[int]string{}
	iter := s.Query("SELECT writer, seq, payload FROM durable." + table).PageSize(500).Iter()
	var w, seq int
	var payload string
	for iter.Scan(&w, &seq, &payload) {
		if out[w] == nil {
			out[w] = map[int]string{}
		}
		out[w][seq] = payload
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

// verifyDurable checks every acknowledged write is in both tables as it
// applies, and that each in-flight batch is all there or not at all.
func verifyDurable(t *testing.T, s *gocql.Session, log *ackLog) {
	t.Helper()
	rows, mirror := readDurable(t, s, "rows"), readDurable(t, s, "mirror")
	lost := 0
	for w, seqs := range log.acked {
		for _, seq := range seqs {
			want := fmt.Sprintf("w%d-s%d", w, seq)
			if rows[w][seq] != want {
				lost++
				t.Errorf("acknowledged row (%d, %d) lost: got %q", w, seq, rows[w][seq])
			}
			if seq%2 == 1 && mirror[w][seq] != want {
				lost++
				t.Errorf("acknowledged batch (%d, %d) lost its mirror row: got %q", w, seq, mirror[w][seq])
			}
		}
	}
	for w, seq := range log.pending {
		if seq%2 == 1 {
			_, inRows := rows[w][seq]
			_, inMirror := mirror[w][seq]
			if inRows != inMirror {
				t.Errorf("in-flight batch (%d, %d) applied in part: rows %v, mirror %v", w, seq, inRows, inMirror)
			}
		}
	}
	if lost > 0 {
		t.Fatalf("%d acknowledged writes lost of %d", lost, log.total.Load())
	}
}

// TestDurabilityKill9 kills the server with SIGKILL in the middle of
// acknowledged writes from several goroutines, restarts it on the same
// directory and expects every acknowledged row, and the schema, back.
func TestDurabilityKill9(t *testing.T) {
	dir := t.TempDir()
	p := startPartita(t, dir)
	s, err := newCluster(p.host, p.port).CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	createDurableSchema(t, s)
	log := &ackLog{acked: map[int][]int{}, pending: map[int]int{}}
	stop := make(chan struct{})
	wg := writeUntilStopped(s, stop, log)
	progressed := waitProgress(durabilityMinAcked, log.total.Load)
	// A table created just before the kill must survive too.
	mustExec(t, s, "CREATE TABLE durable.late (k int PRIMARY KEY, v text)")
	mustExec(t, s, "INSERT INTO durable.late (k, v) VALUES (1, 'late')")
	var exitErr *exec.ExitError
	if err := p.kill(t, syscall.SIGKILL); !errors.As(err, &exitErr) {
		t.Fatalf("after SIGKILL: %v", err)
	}
	close(stop)
	wg.Wait()
	s.Close()
	if !progressed {
		t.Fatalf("only %d writes acknowledged, none in the last %v (pending: %v)", log.total.Load(), stallTimeout, log.pending)
	}
	t.Logf("%d writes acknowledged before SIGKILL", log.total.Load())

	p2 := startPartita(t, dir)
	s2, err := newCluster(p2.host, p2.port).CreateSession()
	if err != nil {
		t.Fatalf("reconnect after restart: %v\n%s", err, p2.logs)
	}
	defer s2.Close()
	ks, err := s2.KeyspaceMetadata("durable")
	if err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"rows", "mirror", "late"} {
		if ks.Tables[table] == nil {
			t.Fatalf("table durable.%s lost", table)
		}
	}
	var v string
	if err := s2.Query("SELECT v FROM durable.late WHERE k = 1").Scan(&v); err != nil || v != "late" {
		t.Fatalf("durable.late: %q, %v", v, err)
	}
	verifyDurable(t, s2, log)
	// The restarted node takes writes again.
	mustExec(t, s2, "INSERT INTO durable.rows (writer, seq, payload) VALUES (99, 0, 'after')")
}

// TestCleanRestart stops the server with SIGTERM, which must exit 0, and
// finds everything written before on restart.
func TestCleanRestart(t *testing.T) {
	dir := t.TempDir()
	p := startPartita(t, dir)
	s, err := newCluster(p.host, p.port).CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	createDurableSchema(t, s)
	log := &ackLog{acked: map[int][]int{}, pending: map[int]int{}}
	stop := make(chan struct{})
	wg := writeUntilStopped(s, stop, log)
	for log.total.Load() < 100 {
		time.Sleep(10 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	if len(log.pending) > 0 {
		t.Fatalf("writes failed before shutdown: %v", log.pending)
	}
	s.Close()
	if err := p.kill(t, syscall.SIGTERM); err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", err, p.logs)
	}

	p2 := startPartita(t, dir)
	s2, err := newCluster(p2.host, p2.port).CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	verifyDurable(t, s2, log)
	rows := readDurable(t, s2, "rows")
	n := 0
	for _, seqs := range rows {
		n += len(seqs)
	}
	if want := int(log.total.Load()); n != want {
		t.Fatalf("%d rows after a clean restart, want exactly the %d written", n, want)
	}
}
