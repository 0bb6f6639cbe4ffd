package bench

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/catalog"
	"github.com/partita-db/partita/internal/engine"
	"github.com/partita-db/partita/internal/storage"
	"github.com/partita-db/partita/internal/token"
	"github.com/partita-db/partita/internal/types"
)

// The big data set: one time-series table holding a partition of BigRows
// rows, a partition of 1,000 rows, and filler partitions until the data
// directory passes BigMinBytes. It is bulk-loaded (storage.BulkLoader:
// sstables in the store's own key and row encoding, ingested), so that
// gigabytes take minutes, and then served by `partita serve` like any
// data: the step measures the restart to the first answer on it (after
// kill -9 and after a clean stop), and the latest-100 and 1-hour reads of
// the wide partition against the same reads of the 1,000-row one.
const (
	bigTable     = "big_series"
	bigKey       = "big-0"
	smallKey     = "small-0"
	smallRows    = 1_000
	fillerRows   = 100_000 // rows of each filler partition
	bigValueSize = 64      // random bytes, so that compression does not shrink the set
	// bigRowBytes is what a row takes in the sstables (measured: 4.81 GB
	// for 61.5M rows).
	bigRowBytes = 78.0
)

// Defaults of the big step.
const (
	DefaultBigRows     = 50_000_000
	DefaultBigMinBytes = 5_000_000_000
	defaultBigRestarts = 5
	defaultBigRounds   = 3
)

// BigOptions configure the big step.
type BigOptions struct {
	// Rows is the width of the wide partition (DefaultBigRows).
	Rows int
	// MinBytes is the on-disk size the data directory must reach; filler
	// partitions are loaded until it does (DefaultBigMinBytes).
	MinBytes int64
	// Dir is where the data directory (big-*) is made; empty: the
	// system's temporary directory. It is removed at the end unless Keep.
	Dir  string
	Keep bool
	// Overlap loads the filler in overlapping rounds of 1M rows, each
	// ingested on its own: the store then holds compaction debt (as after
	// a large load or restore), which the restarts meet.
	Overlap bool
	// ServerBin is the partita binary; empty builds cmd/partita.
	ServerBin string
	// Restarts is the number of kill -9 restarts (defaultBigRestarts).
	Restarts int
	// Duration is how long each read step is timed (fullDuration).
	Duration time.Duration
	// Concurrency is the requests in flight of a read step (4).
	Concurrency int
	// Connections is the driver's connections (2).
	Connections int
	// Rounds is how many times each read is timed on each partition, the
	// two partitions alternating which goes first, pooled (3): the ratio
	// then compares figures taken over the same stretch of the machine's
	// load.
	Rounds int
	// CPUProfileDir, when set, receives one CPU profile of the server per
	// read and partition (all its rounds), named big-<read>-<partition>.pprof.
	CPUProfileDir string
	// OutDir receives big.json; empty writes none.
	OutDir string
	Log    io.Writer
}

// BigReport is what the big step measured.
type BigReport struct {
	DataDir    string `json:"data_dir"`
	BigRows    int64  `json:"big_rows"`
	SmallRows  int64  `json:"small_rows"`
	FillerRows int64  `json:"filler_rows"`
	// LoadSeconds is the bulk load, schema to last ingest; LoadRowsPerSec
	// its rate.
	LoadSeconds    float64 `json:"load_seconds"`
	LoadRowsPerSec float64 `json:"load_rows_per_sec"`
	// DataBytes is the data directory's size once loaded; TableBytes the
	// live sstables' part of it.
	DataBytes  int64 `json:"data_bytes"`
	TableBytes int64 `json:"table_bytes"`
	// Restarts are in the order run: "first" (the first start on the
	// loaded data), "kill" (SIGKILL, then start), "clean" (SIGTERM).
	Restarts []BigRestart `json:"restarts"`
	// KillMedianMs and KillMaxMs summarise the kill restarts' exec to
	// first answer.
	KillMedianMs float64 `json:"kill_median_ms"`
	KillMaxMs    float64 `json:"kill_max_ms"`
	// Verified is the check that the loaded data reads back through CQL
	// (newest row's value, the 1,000-row partition's count).
	Verified string     `json:"verified"`
	Reads    []BigRead  `json:"reads"`
	Flatness []BigRatio `json:"flatness"`
	Targets  []Target   `json:"targets"`
}

// BigRestart is one restart: exec to CQL listening (OpenMs) and exec to the
// first answered SELECT through a new driver session (FirstQueryMs).
type BigRestart struct {
	Kind         string  `json:"kind"`
	StopMs       float64 `json:"stop_ms,omitempty"`
	OpenMs       float64 `json:"open_ms"`
	FirstQueryMs float64 `json:"first_query_ms"`
	DataBytes    int64   `json:"data_bytes"`
	// WALRows are the rows written just before a kill (replayed at start).
	WALRows int `json:"wal_rows,omitempty"`
}

// BigRead is one timed read on one partition.
type BigRead struct {
	Query     string  `json:"query"`
	Partition string  `json:"partition"`
	Width     int64   `json:"width"`
	Latency   Summary `json:"latency"`
	Errors    int64   `json:"errors"`
	// CPUMicrosPerRead is the server process's CPU time (user + system)
	// over the timed rounds divided by their reads; 0 when unread.
	CPUMicrosPerRead float64 `json:"cpu_us_per_read"`
}

// BigRatio is a read's p99 on the wide partition over its p99 on the
// 1,000-row one.
type BigRatio struct {
	Query    string  `json:"query"`
	P99Wide  float64 `json:"p99_wide_ms"`
	P99Small float64 `json:"p99_small_ms"`
	Ratio    float64 `json:"ratio"`
	// CPURatio is the server's CPU per read on the wide partition over
	// that on the 1,000-row one (0 when unread): the work per read,
	// apart from the machine's scheduling, which p99 also holds.
	CPURatio float64 `json:"cpu_ratio"`
}

// bigQuery is the first query after a start.
const bigQuery = "SELECT ts, v FROM " + bigTable + " WHERE k = '" + bigKey + "' ORDER BY ts DESC LIMIT 1"

// bigStart is the first row's timestamp; rows are wideSpacing apart (100
// an hour).
var bigStart = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

func bigTS(j int64) time.Time { return bigStart.Add(time.Duration(j) * wideSpacing) }

// bigValue fills v with the row's bytes: a function of the partition's
// seed and the row, so a read can check what it got.
func bigValue(v []byte, seed uint64, j int64) []byte {
	v = v[:0]
	x := seed ^ (uint64(j)+1)*0x9e3779b97f4a7c15
	for len(v) < bigValueSize {
		// splitmix64
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		v = binary.LittleEndian.AppendUint64(v, z^(z>>31))
	}
	return v
}

// keySeed is the seed of a partition's values (bigValue).
func keySeed(k string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(k))
	return h.Sum64()
}

func (o BigOptions) resolve() BigOptions {
	if o.Rows <= 0 {
		o.Rows = DefaultBigRows
	}
	if o.MinBytes <= 0 {
		o.MinBytes = DefaultBigMinBytes
	}
	if o.Restarts <= 0 {
		o.Restarts = defaultBigRestarts
	}
	if o.Duration <= 0 {
		o.Duration = fullDuration
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 4
	}
	if o.Connections <= 0 {
		o.Connections = 2
	}
	if o.Rounds <= 0 {
		o.Rounds = defaultBigRounds
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	return o
}

// RunBig loads the big data set and measures on it; the report holds what
// was measured even when a later part fails.
func RunBig(ctx context.Context, o BigOptions) (rep *BigReport, err error) {
	o = o.resolve()
	rep = &BigReport{}
	bin := o.ServerBin
	if bin == "" {
		buildDir, err := os.MkdirTemp("", "partita-bench-bin")
		if err != nil {
			return rep, err
		}
		defer os.RemoveAll(buildDir)
		if bin, err = buildServer(ctx, buildDir, o.Log); err != nil {
			return rep, err
		}
	}
	parent, err := os.MkdirTemp(o.Dir, "big-")
	if err != nil {
		return rep, err
	}
	if !o.Keep {
		defer os.RemoveAll(parent)
	}
	dir := filepath.Join(parent, "data")
	rep.DataDir = dir
	defer func() {
		if o.OutDir != "" && rep != nil {
			err = errors.Join(err, rep.writeJSON(o.OutDir))
		}
	}()

	// The schema, through the server as any client makes it.
	n, err := startChildNode(ctx, bin, dir, splitTiming{}, nil)
	if err != nil {
		return rep, err
	}
	sys, err := newCQLSystem(ctx, SystemPartita, n.addr, o.Connections)
	if err == nil {
		err = sys.session.Query("CREATE TABLE " + bigTable + " (k text, ts timestamp, v blob, PRIMARY KEY (k, ts))").WithContext(ctx).Exec()
		sys.close()
	}
	if err = errors.Join(err, n.stop()); err != nil {
		return rep, fmt.Errorf("schema: %w", err)
	}

	t0 := time.Now()
	if err := loadBig(ctx, dir, o, rep); err != nil {
		return rep, fmt.Errorf("load: %w", err)
	}
	rep.LoadSeconds = time.Since(t0).Seconds()
	rep.LoadRowsPerSec = float64(rep.BigRows+rep.SmallRows+rep.FillerRows) / rep.LoadSeconds
	rep.DataBytes = dirSize(dir)
	fmt.Fprintf(o.Log, "big: loaded %d rows (%d in %s, %d in %s, %d filler) in %.1f s (%.0f rows/s); %s on disk\n",
		rep.BigRows+rep.SmallRows+rep.FillerRows, rep.BigRows, bigKey, rep.SmallRows, smallKey, rep.FillerRows,
		rep.LoadSeconds, rep.LoadRowsPerSec, FormatBytes(rep.DataBytes))
	fmt.Fprintf(o.Log, "big: %d bytes on disk (%d in live sstables)\n", rep.DataBytes, rep.TableBytes)

	n, r, err := startAndAnswer(ctx, bin, dir, o.Connections)
	r.Kind = "first"
	rep.Restarts = append(rep.Restarts, r)
	if err != nil {
		return rep, err
	}
	defer func() {
		if n != nil {
			n.proc.kill()
		}
	}()
	if rep.Verified, err = verifyBig(ctx, n.addr, o.Connections, int64(o.Rows)); err != nil {
		return rep, err
	}
	var kills []float64
	for i := 0; i < o.Restarts; i++ {
		wal, err := writeRecent(ctx, n.addr, o.Connections, i)
		if err != nil {
			return rep, err
		}
		n.proc.kill()
		<-n.logDone
		n = nil
		n, r, err = startAndAnswer(ctx, bin, dir, o.Connections)
		r.Kind, r.WALRows = "kill", wal
		rep.Restarts = append(rep.Restarts, r)
		if err != nil {
			return rep, err
		}
		kills = append(kills, r.FirstQueryMs)
		fmt.Fprintf(o.Log, "big: kill -9 restart %d: listening %s, first answer %s after the exec\n", i+1, FormatMillis(r.OpenMs), FormatMillis(r.FirstQueryMs))
	}
	slices.Sort(kills)
	rep.KillMedianMs, rep.KillMaxMs = kills[len(kills)/2], kills[len(kills)-1]
	if len(kills)%2 == 0 {
		rep.KillMedianMs = (kills[len(kills)/2-1] + kills[len(kills)/2]) / 2
	}
	t1 := time.Now()
	err = n.stop()
	stopMs := millisSince(t1)
	n = nil
	if err != nil {
		return rep, fmt.Errorf("clean stop: %w", err)
	}
	n, r, err = startAndAnswer(ctx, bin, dir, o.Connections)
	r.Kind, r.StopMs = "clean", stopMs
	rep.Restarts = append(rep.Restarts, r)
	if err != nil {
		return rep, err
	}
	fmt.Fprintf(o.Log, "big: clean restart: stop %s, listening %s, first answer %s after the exec\n", FormatMillis(stopMs), FormatMillis(r.OpenMs), FormatMillis(r.FirstQueryMs))

	if err := readBig(ctx, n, o, rep); err != nil {
		return rep, err
	}
	rep.judge()
	err = n.stop()
	n = nil
	return rep, err
}

// loadBig bulk-loads the data set into the store in dir (the server is
// stopped): the wide and the 1,000-row partitions, then filler partitions
// in rounds until the directory reaches o.MinBytes.
func loadBig(ctx context.Context, dir string, o BigOptions, rep *BigReport) error {
	st, err := storage.Open(storage.Options{Dir: dir})
	if err != nil {
		return err
	}
	defer func() {
		rep.TableBytes = st.Stats().TableBytes
		st.Close()
	}()
	schema, err := engine.StoredSchema(ctx, st)
	if err != nil {
		return err
	}
	t := schema.Table(Keyspace, bigTable)
	if t == nil {
		return fmt.Errorf("table %s.%s not in the stored schema", Keyspace, bigTable)
	}
	wts := time.Now().UnixMicro()
	// One load of every partition, sorted: its sstables do not overlap, so
	// nothing is compacted. The filler is sized from the bytes a row takes
	// on disk (bigRowBytes), with a margin; rounds top it up if short.
	parts := []bigPartition{{key: bigKey, rows: int64(o.Rows)}, {key: smallKey, rows: smallRows}}
	rep.BigRows, rep.SmallRows = int64(o.Rows), smallRows
	filler := int64(float64(o.MinBytes)*1.02/bigRowBytes) - rep.BigRows - rep.SmallRows
	next := 0
	addFiller := func(rows int64, to []bigPartition) []bigPartition {
		for rows > 0 {
			n := min(rows, fillerRows)
			to = append(to, bigPartition{key: fmt.Sprintf("filler-%d", next), rows: n})
			next++
			rows -= n
			rep.FillerRows += n
		}
		return to
	}
	if !o.Overlap {
		parts = addFiller(filler, parts)
	}
	if err := loadPartitions(ctx, st, t, wts, parts, o.Log); err != nil {
		return err
	}
	for o.Overlap && filler > 0 {
		n := min(filler, 10*fillerRows)
		if err := loadPartitions(ctx, st, t, wts, addFiller(n, nil), o.Log); err != nil {
			return err
		}
		filler -= n
	}
	for {
		live := st.Stats().TableBytes
		if live >= o.MinBytes {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		perRow := max(float64(live)/float64(rep.BigRows+rep.SmallRows+rep.FillerRows), 1)
		rows := min(int64(float64(o.MinBytes-live)*1.02/perRow)+1, 10*fillerRows)
		if err := loadPartitions(ctx, st, t, wts, addFiller(rows, nil), o.Log); err != nil {
			return err
		}
	}
}

type bigPartition struct {
	key  string
	rows int64
	lp   backend.LogicalPartition
}

// loadPartitions writes parts in one bulk load, in the store's key order.
func loadPartitions(ctx context.Context, st *storage.Store, t *catalog.Table, wts int64, parts []bigPartition, log io.Writer) error {
	tsCol, vCol := t.Column("ts"), t.Column("v")
	if tsCol == nil || vCol == nil || len(t.Clustering) != 1 {
		return fmt.Errorf("table %s is not the big step's", t.Name)
	}
	for i := range parts {
		key := token.SerializeKey([][]byte{[]byte(parts[i].key)})
		parts[i].lp = backend.LogicalPartition{Table: t.StorageID, Token: token.Of(key), Key: key}
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i].lp.Compare(parts[j].lp) < 0 })
	l, err := st.NewBulkLoader()
	if err != nil {
		return err
	}
	defer l.Abort()
	const chunk = 10_000
	rows := make([]backend.Row, chunk)
	values := make([][]byte, chunk)
	cells := make([]backend.Cell, chunk)
	var tsBuf [8]byte
	start, last := time.Now(), time.Now()
	for _, p := range parts {
		seed := keySeed(p.key)
		m := backend.NewMutation(p.lp.Physical(backend.HomeShard))
		for lo := int64(0); lo < p.rows; lo += chunk {
			if err := ctx.Err(); err != nil {
				return err
			}
			hi := min(lo+chunk, p.rows)
			m.Rows = rows[:0]
			for j := lo; j < hi; j++ {
				i := int(j - lo)
				binary.BigEndian.PutUint64(tsBuf[:], uint64(bigTS(j).UnixMilli()))
				ck := types.AppendKey(rows[i].Clustering[:0], tsCol.Type, tsBuf[:], tsCol.Desc)
				values[i] = bigValue(values[i], seed, j)
				// As an INSERT writes a row: its marker and its cells,
				// at the write's timestamp (exec.writeContext.fill).
				r := backend.NewRow(ck)
				r.Liveness = backend.Liveness{Timestamp: wts, ExpiresAt: backend.NoDeletionTime}
				cells[i] = backend.Cell{Column: vCol.ID, Value: values[i], Timestamp: wts, LocalDeletionTime: backend.NoDeletionTime}
				r.Cells = cells[i : i+1 : i+1]
				m.Rows = append(m.Rows, r)
				rows[i].Clustering = ck
			}
			if err := l.Add(&m); err != nil {
				return err
			}
			if time.Since(last) > 30*time.Second {
				last = time.Now()
				fmt.Fprintf(log, "big: loading: %d rows, %.0f rows/s\n", l.Rows(), float64(l.Rows())/time.Since(start).Seconds())
			}
		}
	}
	return l.Finish(ctx)
}

// startAndAnswer starts the server on dir and times exec to listening and
// exec to the first answer of bigQuery through a new session.
func startAndAnswer(ctx context.Context, bin, dir string, conns int) (*childNode, BigRestart, error) {
	r := BigRestart{DataBytes: dirSize(dir)}
	t := time.Now()
	n, err := startChildNode(ctx, bin, dir, splitTiming{}, nil)
	if err != nil {
		return nil, r, err
	}
	r.OpenMs = millisSince(t)
	if err := firstQuery(ctx, n.addr, bigQuery, conns); err != nil {
		n.proc.kill()
		return nil, r, err
	}
	r.FirstQueryMs = millisSince(t)
	return n, r, nil
}

// verifyBig reads back the wide partition's newest row and counts the
// 1,000-row partition.
func verifyBig(ctx context.Context, addr string, conns int, width int64) (string, error) {
	s, err := bigSession(addr, conns)
	if err != nil {
		return "", err
	}
	defer s.Close()
	var ts time.Time
	var v []byte
	if err := s.Query(bigQuery).WithContext(ctx).Scan(&ts, &v); err != nil {
		return "", fmt.Errorf("verify: %w", err)
	}
	want := bigValue(nil, keySeed(bigKey), width-1)
	if !ts.Equal(bigTS(width-1)) || string(v) != string(want) {
		return "", fmt.Errorf("verify: newest row of %s is (%s, %x), want (%s, %x)", bigKey, ts, v, bigTS(width-1), want)
	}
	var count int64
	if err := s.Query("SELECT COUNT(*) FROM "+bigTable+" WHERE k = ?", smallKey).WithContext(ctx).Scan(&count); err != nil {
		return "", fmt.Errorf("verify: %w", err)
	}
	if count != smallRows {
		return "", fmt.Errorf("verify: %s holds %d rows, want %d", smallKey, count, smallRows)
	}
	return fmt.Sprintf("newest row of %s (%s) and its value read back; %s holds %d rows", bigKey, ts.UTC().Format(time.RFC3339), smallKey, count), nil
}

func bigSession(addr string, conns int) (*gocql.Session, error) {
	cluster, err := newCluster(addr, conns)
	if err != nil {
		return nil, err
	}
	cluster.Keyspace = Keyspace
	return cluster.CreateSession()
}

// recentRows are written before each kill, so the start replays a WAL.
const recentRows = 1_000

// writeRecent writes recentRows rows to a partition of their own, each an
// acknowledged (synced) write.
func writeRecent(ctx context.Context, addr string, conns, round int) (int, error) {
	s, err := bigSession(addr, conns)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	key := fmt.Sprintf("recent-%d", round)
	v := bigValue(nil, keySeed(key), 0)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for j := w; j < recentRows; j += 8 {
				if err := s.Query("INSERT INTO "+bigTable+" (k, ts, v) VALUES (?, ?, ?)", key, bigTS(int64(j)), v).WithContext(ctx).Exec(); err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return 0, fmt.Errorf("writes before the kill: %w", err)
	}
	return recentRows, nil
}

// bigReads are the reads timed on both partitions, as the wide workload
// times them.
var bigReads = []struct {
	name string
	cql  string
	args func(key string, width int64, i int) []any
}{
	{"latest-100-asc", "SELECT ts, v FROM " + bigTable + " WHERE k = ? AND ts >= ? ORDER BY ts ASC LIMIT 100",
		func(key string, width int64, _ int) []any { return []any{key, bigTS(width - 100)} }},
	{"latest-100-desc", "SELECT ts, v FROM " + bigTable + " WHERE k = ? ORDER BY ts DESC LIMIT 100",
		func(key string, _ int64, _ int) []any { return []any{key} }},
	{"range-1h", "SELECT ts, v FROM " + bigTable + " WHERE k = ? AND ts >= ? AND ts < ?",
		func(key string, width int64, i int) []any {
			from := bigTS(int64(pick(uint64(i), int(width-100+1))))
			return []any{key, from, from.Add(time.Hour)}
		}},
}

// readBig times every read on the wide partition and on the 1,000-row one,
// in o.Rounds rounds that alternate which partition goes first, each
// timing after a warm-up of a second; a partition's rounds are pooled.
func readBig(ctx context.Context, n *childNode, o BigOptions, rep *BigReport) error {
	s, err := bigSession(n.addr, o.Connections)
	if err != nil {
		return err
	}
	defer s.Close()
	parts := []struct {
		key   string
		width int64
	}{{bigKey, int64(o.Rows)}, {smallKey, smallRows}}
	for _, q := range bigReads {
		var recs [2]*recorder
		var errs [2]int64
		var cpu [2]time.Duration
		cpuRead := true
		for i := range recs {
			recs[i] = newRecorder()
		}
		for round := 0; round < o.Rounds; round++ {
			for j := range parts {
				i := (j + round) % len(parts) // alternate which partition goes first
				part := parts[i]
				if _, _, err := timeReads(ctx, s, q.cql, part.key, part.width, q.args, o.Concurrency, min(time.Second, o.Duration)); err != nil {
					return err
				}
				stop, err := startBigProfile(ctx, n, o, q.name, part.key, round)
				if err != nil {
					return err
				}
				before, ok1 := procCPU(n.pid())
				rec, e, err := timeReads(ctx, s, q.cql, part.key, part.width, q.args, o.Concurrency, o.Duration)
				after, ok2 := procCPU(n.pid())
				cpu[i] += after - before
				cpuRead = cpuRead && ok1 && ok2
				if perr := stop(); err == nil {
					err = perr
				}
				if err != nil {
					return err
				}
				recs[i].merge(rec)
				errs[i] += e
			}
		}
		var p99, perRead [2]float64
		for i, part := range parts {
			sum := recs[i].summary()
			if cpuRead && sum.Count > 0 {
				perRead[i] = float64(cpu[i].Microseconds()) / float64(sum.Count)
			}
			rep.Reads = append(rep.Reads, BigRead{Query: q.name, Partition: part.key, Width: part.width, Latency: sum, Errors: errs[i],
				CPUMicrosPerRead: perRead[i]})
			p99[i] = sum.P99
			fmt.Fprintf(o.Log, "big: %s on %s (%s rows): p50 %s p99 %s, server CPU %.0f µs/read (%d reads, %d rounds)\n", q.name, part.key,
				widthLabel(int(part.width)), FormatMillis(sum.P50), FormatMillis(sum.P99), perRead[i], sum.Count, o.Rounds)
		}
		f := BigRatio{Query: q.name, P99Wide: p99[0], P99Small: p99[1]}
		if p99[1] > 0 {
			f.Ratio = p99[0] / p99[1]
		}
		if perRead[1] > 0 {
			f.CPURatio = perRead[0] / perRead[1]
		}
		rep.Flatness = append(rep.Flatness, f)
	}
	return nil
}

// startBigProfile starts the server's CPU profile of one timed read when
// o.CPUProfileDir is set: one file per read, partition and round (pprof
// adds up the files given together).
func startBigProfile(ctx context.Context, n *childNode, o BigOptions, read, part string, round int) (func() error, error) {
	if o.CPUProfileDir == "" || n.httpAddr == "" {
		return func() error { return nil }, nil
	}
	if err := os.MkdirAll(o.CPUProfileDir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(o.CPUProfileDir, fmt.Sprintf("big-%s-%s-r%d.pprof", read, part, round+1))
	return startAdminProfile(ctx, &http.Client{Timeout: 2 * time.Minute}, n.httpAddr, path)
}

// timeReads runs one read with conc requests in flight for dur; every
// answer must hold 100 rows.
func timeReads(ctx context.Context, s *gocql.Session, cql, key string, width int64, args func(string, int64, int) []any, conc int, dur time.Duration) (*recorder, int64, error) {
	deadline := time.Now().Add(dur)
	recs := make([]*recorder, conc)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	var errCount int64
	for w := 0; w < conc; w++ {
		recs[w] = newRecorder()
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; time.Now().Before(deadline) && ctx.Err() == nil; i += conc {
				t := time.Now()
				iter := s.Query(cql, args(key, width, i)...).WithContext(ctx).Iter()
				n := iter.NumRows()
				err := iter.Close()
				recs[w].record(time.Since(t))
				if err == nil && n != 100 {
					err = fmt.Errorf("%s on %s: %d rows, want 100", cql, key, n)
				}
				if err != nil {
					mu.Lock()
					errCount++
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					return
				}
			}
		}(w)
	}
	wg.Wait()
	for _, r := range recs[1:] {
		recs[0].merge(r)
	}
	if firstErr != nil {
		return recs[0], errCount, firstErr
	}
	return recs[0], errCount, ctx.Err()
}

// Targets of the big step.
const (
	bigRestartGoalMs = 1000
	bigFlatnessGoal  = 1.5
)

func (rep *BigReport) judge() {
	rep.Targets = nil
	worst := 0.0
	for _, r := range rep.Restarts {
		worst = max(worst, r.FirstQueryMs)
	}
	rep.Targets = append(rep.Targets, judge("big restart to first answer",
		fmt.Sprintf("< %d ms with %s on disk, every restart (server in its own process)", bigRestartGoalMs, FormatBytes(rep.DataBytes)),
		worst, bigRestartGoalMs, LowerIsBetter,
		fmt.Sprintf("worst %s (kill -9: median %s, max %s)", FormatMillis(worst), FormatMillis(rep.KillMedianMs), FormatMillis(rep.KillMaxMs))))
	for _, f := range rep.Flatness {
		t := judge("big flatness "+f.Query, fmt.Sprintf("p99 at %s rows ≤ %.1f× p99 at 1k rows", widthLabel(int(rep.BigRows)), bigFlatnessGoal),
			f.Ratio, bigFlatnessGoal, LowerIsBetter, fmt.Sprintf("%s vs %s: %.2f×", FormatMillis(f.P99Wide), FormatMillis(f.P99Small), f.Ratio))
		if f.P99Small <= 0 {
			t = unmeasured(t.Name, t.Goal, "no p99 at 1k rows")
		}
		rep.Targets = append(rep.Targets, t)
	}
}

func (rep *BigReport) writeJSON(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "big.json"), append(b, '\n'), 0o644)
}

// WriteSummary prints the report.
func (rep *BigReport) WriteSummary(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "big data set: %s rows in %s, %d in %s, %d filler rows; loaded in %.1f s (%.0f rows/s); %s on disk (%d bytes; %d in live sstables)\n",
		widthLabel(int(rep.BigRows)), bigKey, rep.SmallRows, smallKey, rep.FillerRows, rep.LoadSeconds, rep.LoadRowsPerSec, FormatBytes(rep.DataBytes), rep.DataBytes, rep.TableBytes)
	if rep.Verified != "" {
		fmt.Fprintf(&b, "verified: %s\n", rep.Verified)
	}
	for _, r := range rep.Restarts {
		fmt.Fprintf(&b, "restart (%s): listening %s, first answer %s after the exec (%s on disk", r.Kind, FormatMillis(r.OpenMs), FormatMillis(r.FirstQueryMs), FormatBytes(r.DataBytes))
		if r.WALRows > 0 {
			fmt.Fprintf(&b, "; %d rows written before the kill", r.WALRows)
		}
		if r.StopMs > 0 {
			fmt.Fprintf(&b, "; stop %s", FormatMillis(r.StopMs))
		}
		b.WriteString(")\n")
	}
	for _, r := range rep.Reads {
		fmt.Fprintf(&b, "%-16s %-8s %6s rows: p50 %s p99 %s max %s (%d reads); server CPU %.0f µs/read\n", r.Query, r.Partition, widthLabel(int(r.Width)),
			FormatMillis(r.Latency.P50), FormatMillis(r.Latency.P99), FormatMillis(r.Latency.Max), r.Latency.Count, r.CPUMicrosPerRead)
	}
	for _, f := range rep.Flatness {
		fmt.Fprintf(&b, "flatness %-16s p99 %.2f×, server CPU per read %.2f× (%s rows ÷ 1k rows)\n", f.Query, f.Ratio, f.CPURatio, widthLabel(int(rep.BigRows)))
	}
	for _, t := range rep.Targets {
		fmt.Fprintf(&b, "target %s (%s): %s — %s\n", t.Name, t.Goal, t.Measured, t.Verdict)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
