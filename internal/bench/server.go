package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"path/filepath"
	"time"

	"github.com/partita-db/partita/internal/engine"
	"github.com/partita-db/partita/internal/server"
	"github.com/partita-db/partita/internal/storage"
)

// node is a Partita node running in this process on a free loopback port,
// wired as `partita serve` wires one (storage, engine, CQL server), with a
// synced WAL.
type node struct {
	dir string
	// split replaces the split detector's timing where set (quick runs).
	split    splitTiming
	addr     string
	store    *storage.Store
	eng      *engine.Engine
	cql      *server.Server
	serveErr chan error
}

// startNode opens the store in dir and serves CQL on 127.0.0.1, on port
// (0 picks a free one), with the split detector's timing where st sets it.
func startNode(ctx context.Context, dir string, port int, st splitTiming) (n *node, err error) {
	n = &node{dir: dir, split: st, serveErr: make(chan error, 1)}
	defer func() {
		if err != nil {
			err = errors.Join(err, n.stop())
		}
	}()
	if n.store, err = storage.Open(storage.Options{Dir: dir}); err != nil {
		return n, err
	}
	ln, err := net.Listen("tcp4", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return n, fmt.Errorf("CQL listener: %w", err)
	}
	tcp := ln.Addr().(*net.TCPAddr)
	ecfg := engine.DefaultConfig()
	ecfg.RPCAddress, ecfg.ListenAddress, ecfg.NativePort = tcp.IP, tcp.IP, tcp.Port
	if st.window > 0 {
		ecfg.Split.Window = st.window
	}
	if st.tick > 0 {
		ecfg.SplitTick = st.tick
	}
	if n.eng, err = engine.Open(ctx, n.store, ecfg); err != nil {
		ln.Close()
		return n, fmt.Errorf("open engine: %w", err)
	}
	n.cql = server.New(server.DefaultConfig(), n.eng, slog.New(slog.NewTextHandler(io.Discard, nil)))
	go func() { n.serveErr <- n.cql.Serve(ln) }()
	n.addr = tcp.String()
	return n, nil
}

// stop shuts the node down as `partita serve` does on SIGTERM.
func (n *node) stop() error {
	var errs []error
	if n.cql != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		errs = append(errs, n.cql.Shutdown(ctx))
		cancel()
		n.cql = nil
	}
	if n.eng != nil {
		errs = append(errs, n.eng.Close())
		n.eng = nil
	}
	if n.store != nil {
		errs = append(errs, n.store.Close())
		n.store = nil
	}
	return errors.Join(errs...)
}

// dirSize is the bytes of the files under dir.
func dirSize(dir string) int64 {
	var total int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				total += info.Size()
			}
		}
		return nil
	})
	return total
}

// Restart is the time a node takes to come back on its data.
type Restart struct {
	DataBytes int64 `json:"data_bytes"`
	// StopMs is the graceful shutdown.
	StopMs float64 `json:"stop_ms"`
	// OpenMs is from reopening to serving: storage, engine, listener.
	OpenMs float64 `json:"open_ms"`
	// FirstQueryMs is from reopening to the first answered SELECT through
	// a new driver session (which itself queries system tables first).
	FirstQueryMs float64 `json:"first_query_ms"`
	Query        string  `json:"query"`
}

// restartNode stops n, reopens it on the same directory, and times
// how long until query answers through a fresh driver session.
func restartNode(ctx context.Context, n *node, query string, conns int) (*node, Restart, error) {
	r := Restart{Query: query}
	t0 := time.Now()
	if err := n.stop(); err != nil {
		return nil, r, fmt.Errorf("stop: %w", err)
	}
	r.StopMs = millisSince(t0)
	r.DataBytes = dirSize(n.dir)
	t1 := time.Now()
	n2, err := startNode(ctx, n.dir, 0, n.split)
	if err != nil {
		return nil, r, fmt.Errorf("reopen: %w", err)
	}
	r.OpenMs = millisSince(t1)
	if err := firstQuery(ctx, n2.addr, query, conns); err != nil {
		return n2, r, err
	}
	r.FirstQueryMs = millisSince(t1)
	return n2, r, nil
}

// firstQuery runs query, reading every row, through a new driver session
// to addr.
func firstQuery(ctx context.Context, addr, query string, conns int) error {
	cluster, err := newCluster(addr, conns)
	if err != nil {
		return err
	}
	cluster.Keyspace = Keyspace
	s, err := cluster.CreateSession()
	if err != nil {
		return fmt.Errorf("connect after restart: %w", err)
	}
	defer s.Close()
	iter := s.Query(query).WithContext(ctx).Iter()
	rd, err := iter.RowData()
	if err == nil {
		for iter.Scan(rd.Values...) {
		}
	}
	if err := errors.Join(err, iter.Close()); err != nil {
		return fmt.Errorf("first query after restart: %w", err)
	}
	return nil
}

func millisSince(t time.Time) float64 { return float64(time.Since(t).Microseconds()) / 1000 }
