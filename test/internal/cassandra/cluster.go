package cassandra

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Cluster is a set of nodes started by LaunchCluster.
type Cluster struct {
	// Nodes are in start order; Nodes[0] is the seed.
	Nodes []*Node
	// NativePort is the native port every node listens on.
	NativePort int

	baseDir   string
	removeDir bool
}

// Hosts are the nodes' addresses, for gocql.NewCluster.
func (c *Cluster) Hosts() []string {
	hosts := make([]string, len(c.Nodes))
	for i, n := range c.Nodes {
		hosts[i] = n.Address
	}
	return hosts
}

// LaunchCluster starts size nodes on 127.0.0.1, 127.0.0.2, ..., with
// 127.0.0.1 as the only seed, one after another: a node is started once
// the previous one answered, as Cassandra refuses concurrent bootstraps. It
// returns once every node's system.peers lists all the others as ring
// members (invariant 1). opts applies to every node, except that Address, Seeds and Dir are
// per node (Dir, when given, is the parent of the nodes' directories) and
// the ports are chosen once for all nodes (invariant 4).
func LaunchCluster(size int, opts Options) (_ *Cluster, err error) {
	if size < 1 || size > 254 {
		return nil, fmt.Errorf("cluster size %d: want 1..254", size)
	}
	if err := Install(); err != nil {
		return nil, err
	}
	c := &Cluster{baseDir: opts.Dir}
	if c.baseDir == "" {
		if c.baseDir, err = os.MkdirTemp("", "partita-cassandra-cluster-"); err != nil {
			return nil, err
		}
		c.removeDir = true
	}
	defer func() {
		if err != nil {
			c.Kill()
		}
	}()
	addrs := make([]string, size)
	for i := range addrs {
		addrs[i] = "127.0.0." + strconv.Itoa(i+1)
	}
	ports, err := freePorts(2, addrs...)
	if err != nil {
		return nil, err
	}
	c.NativePort = ports[0]
	jmxPorts, err := freePorts(size, "127.0.0.1")
	if err != nil {
		return nil, err
	}
	if opts.ClusterName == "" {
		opts.ClusterName = "partita-reference-cluster"
	}
	seed := net.JoinHostPort(addrs[0], strconv.Itoa(ports[1]))
	for i, addr := range addrs {
		nodeOpts := opts
		nodeOpts.Address, nodeOpts.Seeds = addr, []string{seed}
		nodeOpts.NativePort, nodeOpts.StoragePort, nodeOpts.JMXPort = ports[0], ports[1], jmxPorts[i]
		nodeOpts.discardDir = c.removeDir
		// A joining node that loses the race with gossip exits during
		// start-up ("Unable to contact any seeds", "Other bootstrapping/
		// leaving/moving nodes detected", seen on a loaded machine); it is
		// started again, afresh, a few times.
		var n *Node
		for attempt := 1; ; attempt++ {
			nodeOpts.Dir = filepath.Join(c.baseDir, "node"+strconv.Itoa(i+1))
			if attempt > 1 {
				nodeOpts.Dir += "-attempt" + strconv.Itoa(attempt)
			}
			n, err = Launch(nodeOpts)
			if err == nil || i == 0 || attempt == 3 {
				break
			}
		}
		if err != nil {
			return nil, fmt.Errorf("node %d of %d: %w", i+1, size, err)
		}
		c.Nodes = append(c.Nodes, n)
		// The next node may bootstrap only once the seed's gossip shows
		// this one NORMAL: a node that sees another one still
		// bootstrapping refuses to start ("Other bootstrapping/leaving/
		// moving nodes detected", StorageService, with
		// cassandra.consistent.rangemovement true, the default). That this
		// node answers CQL is not enough: it is NORMAL locally, and the
		// seed learns so by gossip a moment later.
		timeout := opts.StartTimeout
		if timeout == 0 {
			timeout = 2 * time.Minute
		}
		if err := awaitPeers(c.Nodes, time.Now().Add(timeout)); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Peers returns the addresses that n's system.peers lists with tokens,
// sorted. A node records a peer's tokens there when it handles the peer's
// NORMAL state (StorageService.handleStateNormal), so these are the peers
// it sees as members of the ring.
func (n *Node) Peers() ([]string, error) {
	c := n.NewCluster()
	c.Logger = quietLogger
	s, err := c.CreateSession()
	if err != nil {
		return nil, err
	}
	defer s.Close()
	iter := s.Query("SELECT peer, tokens FROM system.peers").Iter()
	var peers []string
	var peer net.IP
	var tokens []string
	for iter.Scan(&peer, &tokens) {
		if len(tokens) > 0 {
			peers = append(peers, peer.String())
		}
	}
	if err := iter.Close(); err != nil {
		return nil, err
	}
	sort.Strings(peers)
	return peers, nil
}

// awaitPeers polls until each of nodes lists exactly the others in
// system.peers (Peers).
func awaitPeers(nodes []*Node, deadline time.Time) error {
	for _, n := range nodes {
		var want []string
		for _, other := range nodes {
			if other != n {
				want = append(want, other.Address)
			}
		}
		sort.Strings(want)
		for {
			got, err := n.Peers()
			if err == nil && strings.Join(got, ",") == strings.Join(want, ",") {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("system.peers on %s is %v (error %v), want %v", n.Address, got, err, want)
			}
			time.Sleep(250 * time.Millisecond)
		}
	}
	return nil
}

// Stop stops every node cleanly (Node.Stop), all at once.
func (c *Cluster) Stop() error { return c.stopAll((*Node).Stop) }

// Kill kills every node at once (Node.Kill).
func (c *Cluster) Kill() error { return c.stopAll((*Node).Kill) }

func (c *Cluster) stopAll(stop func(*Node) error) error {
	errs := make(chan error, len(c.Nodes))
	for _, n := range c.Nodes {
		go func() { errs <- stop(n) }()
	}
	var all []error
	for range c.Nodes {
		all = append(all, <-errs)
	}
	if c.removeDir {
		all = append(all, os.RemoveAll(c.baseDir))
	}
	return errors.Join(all...)
}

// LogTails writes the last lines of every node's log to w.
func (c *Cluster) LogTails(w io.Writer, lines int) {
	for _, n := range c.Nodes {
		fmt.Fprintf(w, "--- node %s (%s)\n%s\n", n.Address, n.Dir, n.LogTail(lines))
	}
}
