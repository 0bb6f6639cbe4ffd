package cassandra

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gocql/gocql"
)

// Options configure one node. The zero value is a node on 127.0.0.1 with
// free ports, in a new temporary directory that Stop and Kill remove.
type Options struct {
	// Dir holds the node's configuration, data and logs; empty means a new
	// temporary directory, removed when the node stops. A Dir given here
	// is kept, so a later Launch on it restarts the node with its data.
	Dir string
	// Address is the listen and native address (default 127.0.0.1).
	Address string
	// NativePort, StoragePort and JMXPort default to free ports.
	NativePort, StoragePort, JMXPort int
	// Seeds are host:port seeds; empty means the node itself.
	Seeds []string
	// ClusterName must be the same on every node of a cluster (default
	// partita-reference).
	ClusterName string
	// CommitlogSync is "batch" (the default: a write is acknowledged once
	// synced, as Partita's are) or "periodic".
	CommitlogSync string
	// Xms and Xmx bound the heap; empty means the script's defaults.
	Xms, Xmx string
	// StartTimeout bounds the wait for the first answer (default 5 min: on
	// 2 cores shared with other suites a node took up to 116 s).
	StartTimeout time.Duration
	// Yaml holds top-level cassandra.yaml options, KEY=VALUE each; a
	// nested option is a flow mapping, as in
	// client_encryption_options={enabled: true, keystore: /x/node.pem}.
	Yaml []string
	// ClientTLS, for a node whose client_encryption_options require TLS,
	// is how this package's own connections (the start-up query and
	// NewCluster's sessions) encrypt theirs.
	ClientTLS *tls.Config
	// Logf receives progress lines (the start time); nil discards them.
	Logf func(format string, args ...any)

	// discardDir makes Stop and Kill remove a given Dir too: LaunchCluster
	// sets it for nodes inside its temporary directory.
	discardDir bool
}

// Node is a running Cassandra process started by this package.
type Node struct {
	// Address, NativePort, StoragePort and JMXPort are where it listens.
	Address                          string
	NativePort, StoragePort, JMXPort int
	// Dir is the node's directory: conf/, data/, logs/system.log.
	Dir string
	// ReleaseVersion is system.local's release_version, e.g. "5.0.6".
	ReleaseVersion string
	// StartupTime is how long the node took from exec to answering its
	// first query.
	StartupTime time.Duration

	clientTLS *tls.Config
	cmd       *exec.Cmd
	exited    chan struct{} // closed once cmd.Wait returned
	removeDir bool
	stopOnce  sync.Once
	stopErr   error
	stopped   bool // Stop or Kill ran: Restart refuses

	// args and startTimeout start the process again (Restart); logf
	// receives its progress line.
	args         []string
	startTimeout time.Duration
	logf         func(format string, args ...any)
}

// Addr is the node's native protocol address, host:port.
func (n *Node) Addr() string {
	return net.JoinHostPort(n.Address, strconv.Itoa(n.NativePort))
}

// NewCluster is gocql's default configuration pinned to this node: the
// driver neither looks up nor uses other hosts, so this node coordinates
// every request.
func (n *Node) NewCluster() *gocql.ClusterConfig {
	c := gocql.NewCluster(n.Address)
	c.Port = n.NativePort
	c.DisableInitialHostLookup = true
	ip := net.ParseIP(n.Address)
	c.HostFilter = gocql.HostFilterFunc(func(h *gocql.HostInfo) bool {
		return h.ConnectAddress().Equal(ip)
	})
	if n.clientTLS != nil {
		c.SslOpts = &gocql.SslOptions{Config: n.clientTLS}
	}
	return c
}

// Pid is the java process's id (0 if it never started).
func (n *Node) Pid() int {
	if n.cmd == nil || n.cmd.Process == nil {
		return 0
	}
	return n.cmd.Process.Pid
}

// Exited reports whether the process has exited.
func (n *Node) Exited() bool {
	select {
	case <-n.exited:
		return true
	default:
		return false
	}
}

// Launch starts a node and waits until it answers CQL (invariant 1). It
// installs Cassandra first if the cache lacks it. When Options leave ports
// zero and one chosen port was taken before the node bound it, Launch
// tries again with new ports, up to three times.
func Launch(opts Options) (*Node, error) {
	if err := Install(); err != nil {
		return nil, err
	}
	autoPorts := opts.NativePort == 0 || opts.StoragePort == 0 || opts.JMXPort == 0
	for attempt := 1; ; attempt++ {
		n, err := launchOnce(opts)
		if err == nil || !autoPorts || attempt == 3 || !errors.Is(err, errBindConflict) {
			return n, err
		}
		if opts.Logf != nil {
			opts.Logf("cassandra: %v; retrying with other ports", err)
		}
	}
}

var errBindConflict = errors.New("a chosen port was taken before the node bound it")

func launchOnce(opts Options) (_ *Node, err error) {
	n, args, err := prepare(opts)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			n.Kill()
		}
	}()
	n.args, n.startTimeout, n.logf = args, opts.StartTimeout, opts.Logf
	if n.startTimeout == 0 {
		n.startTimeout = 5 * time.Minute
	}
	if err := n.startAndAwait("start"); err != nil {
		return nil, err
	}
	return n, nil
}

// startAndAwait runs the process and waits for its first answer, setting
// ReleaseVersion and StartupTime.
func (n *Node) startAndAwait(what string) (err error) {
	if err := n.start(n.args); err != nil {
		return err
	}
	began := time.Now()
	if n.ReleaseVersion, err = n.awaitFirstAnswer(began.Add(n.startTimeout)); err != nil {
		return err
	}
	n.StartupTime = time.Since(began)
	if n.logf != nil {
		n.logf("cassandra: node %s (Cassandra %s) answered its first query %.1fs after %s",
			n.Addr(), n.ReleaseVersion, n.StartupTime.Seconds(), what)
	}
	return nil
}

// prepare fills in defaults and chooses ports, returning the node (not yet
// started) and the script's arguments.
func prepare(opts Options) (*Node, []string, error) {
	n := &Node{
		Address: opts.Address, NativePort: opts.NativePort, StoragePort: opts.StoragePort,
		JMXPort: opts.JMXPort, Dir: opts.Dir, exited: make(chan struct{}), removeDir: opts.discardDir,
		clientTLS: opts.ClientTLS,
	}
	if n.Address == "" {
		n.Address = "127.0.0.1"
	}
	if err := n.choosePorts(); err != nil {
		return nil, nil, err
	}
	if n.Dir == "" {
		dir, err := os.MkdirTemp("", "partita-cassandra-")
		if err != nil {
			return nil, nil, err
		}
		n.Dir, n.removeDir = dir, true
	}
	args := []string{"start-node", n.Dir, "--foreground",
		"--address", n.Address,
		"--native-port", strconv.Itoa(n.NativePort),
		"--storage-port", strconv.Itoa(n.StoragePort),
		"--jmx-port", strconv.Itoa(n.JMXPort)}
	if len(opts.Seeds) > 0 {
		args = append(args, "--seeds", strings.Join(opts.Seeds, ","))
	}
	for _, o := range []struct{ flag, value string }{
		{"--cluster-name", opts.ClusterName}, {"--commitlog-sync", opts.CommitlogSync},
		{"--xms", opts.Xms}, {"--xmx", opts.Xmx},
	} {
		if o.value != "" {
			args = append(args, o.flag, o.value)
		}
	}
	for _, kv := range opts.Yaml {
		args = append(args, "--yaml", kv)
	}
	return n, args, nil
}

// choosePorts fills the ports left zero, with ports distinct from each
// other. The JMX port is bound on 127.0.0.1 whatever the node's address, so
// all are chosen free on both.
func (n *Node) choosePorts() error {
	ports, err := freePorts(3, n.Address, "127.0.0.1")
	if err != nil {
		return err
	}
	for i, port := range []*int{&n.NativePort, &n.StoragePort, &n.JMXPort} {
		if *port == 0 {
			*port = ports[i]
		}
	}
	return nil
}

// start runs the script in the foreground, so that the java process it
// execs is this process's child. The goroutine that starts it stays locked
// to its OS thread until the process exits: Pdeathsig fires when the
// starting thread dies, and the Go runtime ends a thread when a goroutine
// locked to it exits.
func (n *Node) start(args []string) error {
	script, err := ScriptPath()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(n.Dir, "logs"), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(filepath.Join(n.Dir, "logs", "stdout.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command("bash", append([]string{script}, args...)...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = procAttr()
	// A restarted node gets a new channel; the goroutine closes its own.
	exited := make(chan struct{})
	n.cmd, n.exited = cmd, exited
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		defer out.Close()
		if err := cmd.Start(); err != nil {
			started <- err
			close(exited)
			return
		}
		started <- nil
		cmd.Wait()
		close(exited)
	}()
	if err := <-started; err != nil {
		n.cmd = nil
		return fmt.Errorf("start %s: %w", script, err)
	}
	return nil
}

// awaitFirstAnswer polls until the node answers a real query, the process
// exits, or deadline passes.
func (n *Node) awaitFirstAnswer(deadline time.Time) (string, error) {
	for {
		if n.Exited() {
			// Cassandra's BindException, or the script's own check.
			if logMentions(n.Dir, "Address already in use") || logMentions(n.Dir, "is in use already") {
				return "", fmt.Errorf("node %s: %w\n%s", n.Addr(), errBindConflict, n.LogTail(20))
			}
			kept := ""
			if !n.removeDir {
				kept = "; its logs stay in " + filepath.Join(n.Dir, "logs")
			}
			return "", fmt.Errorf("node %s exited during start-up (%v)%s:\n%s",
				n.Addr(), n.cmd.ProcessState, kept, n.LogTail(30))
		}
		if version, err := n.queryReleaseVersion(); err == nil {
			// Something else may have bound the port after it was chosen,
			// and answered instead of the node (which then fails to bind).
			owned, err := ownsListener(n.Pid(), net.ParseIP(n.Address), n.NativePort)
			if err != nil {
				return "", fmt.Errorf("node %s: who listens on its port: %w", n.Addr(), err)
			}
			if !owned {
				return "", fmt.Errorf("node %s: %w (another process answers there)", n.Addr(), errBindConflict)
			}
			return version, nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("node %s did not answer CQL by the deadline; last log lines:\n%s", n.Addr(), n.LogTail(30))
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// quietLogger keeps gocql from logging every refused connection while the
// node starts.
var quietLogger = log.New(io.Discard, "", 0)

func (n *Node) queryReleaseVersion() (string, error) {
	conn, err := net.DialTimeout("tcp", n.Addr(), time.Second)
	if err != nil {
		return "", err
	}
	conn.Close()
	c := n.NewCluster()
	c.Logger = quietLogger
	c.ConnectTimeout = 5 * time.Second
	c.Timeout = 10 * time.Second
	s, err := c.CreateSession()
	if err != nil {
		return "", err
	}
	defer s.Close()
	var version string
	err = s.Query("SELECT release_version FROM system.local").Scan(&version)
	return version, err
}

// Stop shuts the node down cleanly (SIGTERM: Cassandra drains, which took
// about 5 s here), killing it if it has not exited after 30 s, and removes
// a temporary directory.
func (n *Node) Stop() error { return n.stop(false) }

// Kill stops the node at once (SIGKILL), for nodes whose data is thrown
// away, and removes a temporary directory.
func (n *Node) Kill() error { return n.stop(true) }

func (n *Node) stop(kill bool) error {
	n.stopOnce.Do(func() {
		n.stopped = true
		if n.cmd != nil && !n.Exited() {
			sig := syscall.SIGTERM
			if kill {
				sig = syscall.SIGKILL
			}
			// The process is still our unreaped child, so its pid is its own.
			n.cmd.Process.Signal(sig)
			select {
			case <-n.exited:
			case <-time.After(30 * time.Second):
				n.cmd.Process.Kill()
				<-n.exited
			}
		}
		if n.removeDir {
			n.stopErr = os.RemoveAll(n.Dir)
		}
	})
	return n.stopErr
}

// Crash kills the process with SIGKILL, as a power cut or the kernel's
// OOM killer would, and returns once it has exited. Unlike Kill it keeps
// the node's directory, data and commit log as the process left them, so
// Restart can start the node again on them. It signals only this package's
// own child (invariant 2).
func (n *Node) Crash() error {
	if n.cmd == nil || n.stopped {
		return fmt.Errorf("node %s: not running", n.Addr())
	}
	if n.Exited() {
		return nil
	}
	n.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-n.exited:
		return nil
	case <-time.After(30 * time.Second):
		return fmt.Errorf("node %s (pid %d) still running 30 s after SIGKILL", n.Addr(), n.Pid())
	}
}

// Restart starts a node whose process has exited (Crash) again, with the
// same directory, addresses, ports and options, and waits until it
// answers CQL (invariant 1). Cassandra replays its commit log on the way
// up; the other nodes of its cluster mark it up once gossip reaches them,
// a moment later. Stop and Kill still end it, and a node stopped by them
// is not restarted.
func (n *Node) Restart() error {
	if n.stopped {
		return fmt.Errorf("node %s: stopped for good, not restarted", n.Addr())
	}
	if n.cmd != nil && !n.Exited() {
		return fmt.Errorf("node %s (pid %d) is still running", n.Addr(), n.Pid())
	}
	if err := n.startAndAwait("restart"); err != nil {
		if n.cmd != nil && !n.Exited() {
			n.cmd.Process.Kill()
			<-n.exited
		}
		return err
	}
	return nil
}

// LogTail returns the last lines of the node's system.log, or of its
// stdout.log when system.log is missing or empty.
func (n *Node) LogTail(lines int) string {
	for _, name := range []string{"system.log", "stdout.log"} {
		data, err := os.ReadFile(filepath.Join(n.Dir, "logs", name))
		if err != nil || len(bytes.TrimSpace(data)) == 0 {
			continue
		}
		all := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		if len(all) > lines {
			all = all[len(all)-lines:]
		}
		return name + ":\n" + strings.Join(all, "\n")
	}
	return "(no log output)"
}

func logMentions(dir, text string) bool {
	for _, name := range []string{"system.log", "stdout.log"} {
		data, err := os.ReadFile(filepath.Join(dir, "logs", name))
		if err == nil && bytes.Contains(data, []byte(text)) {
			return true
		}
	}
	return false
}
