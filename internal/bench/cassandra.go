package bench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cassandraNode is a throwaway single-node Apache Cassandra started with
// scripts/cassandra.sh on 127.0.0.1, its data in a temporary directory
// that remove deletes. The script is the one source of truth for how a
// node is installed and configured (test/internal/cassandra runs it the
// same way; code outside test/ cannot import that package).
type cassandraNode struct {
	script, sync, heap string
	dir                string
	// clusterName is unique to the node: the answer to
	// `SELECT cluster_name FROM system.local` proves that the process
	// answering on the native port is this node, not another one that
	// took the port first.
	clusterName                      string
	nativePort, storagePort, jmxPort int
	// conns is the connections of the sessions that time an answer, the
	// benchmark's (restartNode's for Partita).
	conns   int
	version string
	// firstStart is the first launch's time from exec to first answer,
	// on an empty data directory.
	firstStart time.Duration
	proc       *ownedProcess // nil before the first launch
}

const cassandraAddress = "127.0.0.1"

// cassandraStartTimeout bounds a start to its first answer: on 2 cores
// shared with other jobs a node took up to 116 s (test/internal/cassandra).
const cassandraStartTimeout = 5 * time.Minute

// errPortTaken reports that a port chosen for the node was taken before the
// node bound it.
var errPortTaken = errors.New("a port chosen for the node was taken before it bound it")

// cassandraScript finds scripts/cassandra.sh: given, else
// $PARTITA_CASSANDRA_SCRIPT, else in the module the working directory is
// in, else beside this source file (a binary built from this checkout).
func cassandraScript(given string) (string, error) {
	const rel = "scripts/cassandra.sh"
	candidates := []string{given, os.Getenv("PARTITA_CASSANDRA_SCRIPT")}
	if dir, err := os.Getwd(); err == nil {
		for ; ; dir = filepath.Dir(dir) {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				candidates = append(candidates, filepath.Join(dir, rel))
				break
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	if _, file, _, ok := runtime.Caller(0); ok {
		candidates = append(candidates, filepath.Join(filepath.Dir(file), "..", "..", rel))
	}
	for i, c := range candidates {
		if c == "" {
			continue
		}
		if st, err := os.Stat(c); err == nil && st.Mode().IsRegular() {
			return filepath.Abs(c)
		}
		if i < 2 { // named explicitly: no fallback
			return "", fmt.Errorf("no Cassandra script at %s", c)
		}
	}
	return "", errors.New("cannot find scripts/cassandra.sh (run from the repository, or pass --cassandra-script or set PARTITA_CASSANDRA_SCRIPT)")
}

// installCassandra runs `cassandra.sh install`: a no-op in well under a
// second once the jars are in the cache, else a Maven download.
func installCassandra(ctx context.Context, script string) error {
	out, err := exec.CommandContext(ctx, "bash", script, "install").CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s install: %w\n%s", script, err, tail(out, 2000))
	}
	return nil
}

// startCassandra starts a node with commitlog_sync sync and the given heap
// and waits for its first answer; ports taken between their choice and the
// node's bind are chosen again, up to three times.
func startCassandra(ctx context.Context, script, sync, heap string, conns int) (*cassandraNode, error) {
	dir, err := os.MkdirTemp("", "partita-bench-cassandra-")
	if err != nil {
		return nil, err
	}
	n := &cassandraNode{script: script, sync: sync, heap: heap, dir: dir, conns: conns,
		clusterName: "partita-bench-" + filepath.Base(dir)}
	for attempt := 1; ; attempt++ {
		if err = n.choosePorts(); err == nil {
			_, n.firstStart, err = n.launch(ctx, "", "")
		}
		if err == nil || !errors.Is(err, errPortTaken) || attempt == 3 {
			break
		}
		n.kill()
	}
	if err != nil {
		return nil, errors.Join(err, n.remove())
	}
	return n, nil
}

func (n *cassandraNode) addr() string {
	return net.JoinHostPort(cassandraAddress, strconv.Itoa(n.nativePort))
}

// pid is the JVM's process id (the script execs java), 0 when not running.
func (n *cassandraNode) pid() int {
	if n.proc == nil || n.proc.hasExited() {
		return 0
	}
	return n.proc.pid()
}

// choosePorts picks three distinct free ports below the kernel's ephemeral
// range: the node binds them many seconds after they are chosen, and any
// listener on port 0 (the in-process server, PostgreSQL) could be handed
// one from that range meanwhile.
func (n *cassandraNode) choosePorts() error {
	low, high := 20000, 30000
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if first, err := strconv.Atoi(f[0]); err == nil && first > 11000 {
				low, high = 10000, first
			}
		}
	}
	var held []net.Listener
	defer func() {
		for _, l := range held {
			l.Close()
		}
	}()
	var ports []int
	for tries := 0; len(ports) < 3; tries++ {
		if tries == 200 {
			return fmt.Errorf("no free port in %d-%d after 200 tries", low, high)
		}
		port := low + rand.IntN(high-low)
		if l, err := net.Listen("tcp4", net.JoinHostPort(cassandraAddress, strconv.Itoa(port))); err == nil {
			held = append(held, l)
			ports = append(ports, port)
		}
	}
	n.nativePort, n.storagePort, n.jmxPort = ports[0], ports[1], ports[2]
	return nil
}

// launch runs the node in the foreground of the script, so that the JVM is
// this process's child, and waits until it answers query (in keyspace, when
// set; the node's version query otherwise) through a new driver session.
// It returns the time from the exec to the native port accepting
// connections and to that answer.
func (n *cassandraNode) launch(ctx context.Context, keyspace, query string) (opened, answered time.Duration, err error) {
	logs := filepath.Join(n.dir, "logs")
	if err := os.MkdirAll(logs, 0o755); err != nil {
		return 0, 0, err
	}
	out, err := os.OpenFile(filepath.Join(logs, "stdout.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return 0, 0, err
	}
	cmd := exec.Command("bash", n.script, "start-node", n.dir, "--foreground",
		"--address", cassandraAddress, "--cluster-name", n.clusterName,
		"--native-port", strconv.Itoa(n.nativePort), "--storage-port", strconv.Itoa(n.storagePort),
		"--jmx-port", strconv.Itoa(n.jmxPort), "--commitlog-sync", n.sync, "--xms", n.heap, "--xmx", n.heap)
	cmd.Stdout, cmd.Stderr = out, out
	began := time.Now()
	// The script execs java: the process started is the JVM, which gets
	// SIGKILL if the harness dies without stopping it.
	n.proc, err = startOwned(cmd, syscall.SIGKILL)
	out.Close() // the child holds its own descriptor
	if err != nil {
		return 0, 0, err
	}
	return n.awaitAnswer(ctx, began, keyspace, query)
}

// awaitAnswer polls every 250 ms until query answers, the process exits,
// ctx ends or cassandraStartTimeout passes, then checks that the node
// answering is this one.
func (n *cassandraNode) awaitAnswer(ctx context.Context, began time.Time, keyspace, query string) (opened, answered time.Duration, err error) {
	deadline := began.Add(cassandraStartTimeout)
	for {
		if n.proc.hasExited() {
			if n.logMentions("Address already in use") || n.logMentions("is in use already") {
				return 0, 0, fmt.Errorf("Cassandra on %s: %w\n%s", n.addr(), errPortTaken, n.logTail())
			}
			return 0, 0, fmt.Errorf("Cassandra on %s exited while starting (%v):\n%s", n.addr(), n.proc.waitErr, n.logTail())
		}
		if conn, err := net.DialTimeout("tcp", n.addr(), time.Second); err == nil {
			conn.Close()
			if opened == 0 {
				opened = time.Since(began)
			}
			if err := n.answer(ctx, keyspace, query); err == nil {
				answered = time.Since(began)
				return opened, answered, n.checkIdentity(ctx)
			}
		}
		if time.Now().After(deadline) {
			return 0, 0, fmt.Errorf("Cassandra on %s did not answer within %v:\n%s", n.addr(), cassandraStartTimeout, n.logTail())
		}
		select {
		case <-ctx.Done():
			return 0, 0, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// answer runs query through a new session, with the driver settings of
// the benchmark's sessions.
func (n *cassandraNode) answer(ctx context.Context, keyspace, query string) error {
	if query == "" {
		query = "SELECT release_version FROM system.local"
	}
	cluster, err := newCluster(n.addr(), n.conns)
	if err != nil {
		return err
	}
	cluster.Keyspace = keyspace
	s, err := cluster.CreateSession()
	if err != nil {
		return err
	}
	defer s.Close()
	iter := s.Query(query).WithContext(ctx).Iter()
	rd, err := iter.RowData()
	if err == nil {
		for iter.Scan(rd.Values...) {
		}
	}
	return errors.Join(err, iter.Close())
}

// checkIdentity reads the node's cluster name and version: another name
// means another node answered on the port this one failed to bind.
func (n *cassandraNode) checkIdentity(ctx context.Context) error {
	cluster, err := newCluster(n.addr(), 1)
	if err != nil {
		return err
	}
	s, err := cluster.CreateSession()
	if err != nil {
		return fmt.Errorf("Cassandra on %s: %w", n.addr(), err)
	}
	defer s.Close()
	var name string
	if err := s.Query("SELECT cluster_name, release_version FROM system.local").WithContext(ctx).Scan(&name, &n.version); err != nil {
		return fmt.Errorf("Cassandra on %s: %w", n.addr(), err)
	}
	if name != n.clusterName {
		return fmt.Errorf("Cassandra on %s: %w (cluster %q answered, not %q)", n.addr(), errPortTaken, name, n.clusterName)
	}
	return nil
}

// stop shuts the node down as an operator would (SIGTERM: Cassandra
// drains, flushing its memtables) and returns how long that took; a node
// still running after cassandraStopTimeout is killed.
func (n *cassandraNode) stop() (time.Duration, error) {
	if n.pid() == 0 {
		return 0, nil
	}
	began := time.Now()
	n.proc.signal(syscall.SIGTERM)
	select {
	case <-n.proc.exited:
		return time.Since(began), nil
	case <-time.After(cassandraStopTimeout):
		n.proc.kill()
		return time.Since(began), fmt.Errorf("Cassandra on %s did not stop within %v; killed", n.addr(), cassandraStopTimeout)
	}
}

const cassandraStopTimeout = 2 * time.Minute

// kill ends the node at once, for a node whose data is thrown away.
func (n *cassandraNode) kill() {
	if n.proc != nil {
		n.proc.kill()
	}
}

// remove kills the node and deletes its directory.
func (n *cassandraNode) remove() error {
	n.kill()
	return os.RemoveAll(n.dir)
}

// dataBytes is the size of what a restart reads: the sstables and the
// commit log.
func (n *cassandraNode) dataBytes() int64 {
	return dirSize(filepath.Join(n.dir, "data")) + dirSize(filepath.Join(n.dir, "commitlog"))
}

// logTail is the end of system.log, or of the script's output when the
// node wrote no log.
func (n *cassandraNode) logTail() string {
	for _, name := range []string{"system.log", "stdout.log"} {
		b, err := os.ReadFile(filepath.Join(n.dir, "logs", name))
		if err == nil && len(strings.TrimSpace(string(b))) > 0 {
			return name + ":\n" + string(tail(b, 3000))
		}
	}
	return "(no log output)"
}

func (n *cassandraNode) logMentions(text string) bool {
	for _, name := range []string{"system.log", "stdout.log"} {
		if b, err := os.ReadFile(filepath.Join(n.dir, "logs", name)); err == nil && strings.Contains(string(b), text) {
			return true
		}
	}
	return false
}
