package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/config"
	"github.com/partita-db/partita/internal/engine"
	"github.com/partita-db/partita/internal/metrics"
	"github.com/partita-db/partita/internal/server"
	"github.com/partita-db/partita/internal/split"
	"github.com/partita-db/partita/internal/storage"
)

// shutdownTimeout bounds how long in-flight requests may take to finish
// after SIGINT/SIGTERM before their connections are closed.
const shutdownTimeout = 30 * time.Second

// serveFlags are the flags of partita serve; a flag given on the command
// line overrides the file.
type serveFlags struct {
	configPath string
	cqlAddr    string
	dataDir    string
	httpAddr   string
	logLevel   string
	splitRows  int64
	splitBytes string
	backend    backendFlags
	// splitWindow and splitTick replace the split detector's timing
	// (hidden: for partita-bench's quick runs and tests).
	splitWindow, splitTick time.Duration
}

func newServeCmd() *cobra.Command {
	var f serveFlags
	def := config.Default()
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run a node: the CQL server on --cql-addr, /healthz and /metrics on --http-addr",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := f.load(cmd)
			if err != nil {
				return err
			}
			level, _ := config.ParseLogLevel(cfg.LogLevel) // validated by load
			logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runServe(ctx, cfg, logger, func(e *engine.Config) {
				if f.splitWindow > 0 {
					e.Split.Window = f.splitWindow
				}
				if f.splitTick > 0 {
					e.SplitTick = f.splitTick
				}
			})
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.configPath, "config", "", "YAML configuration file (option names follow cassandra.yaml)")
	fl.StringVar(&f.cqlAddr, "cql-addr", def.CQLAddress(), "host:port of the CQL native protocol server (port 0 picks a free one)")
	fl.StringVar(&f.dataDir, "data-dir", def.DataDir, "data directory")
	fl.StringVar(&f.httpAddr, "http-addr", def.HTTPAddress, "host:port serving /healthz and /metrics (empty disables)")
	fl.StringVar(&f.logLevel, "log-level", def.LogLevel, "debug, info, warn or error")
	fl.Int64Var(&f.splitRows, "split-max-partition-rows", def.SplitMaxPartitionRows, "split a physical partition above this many rows (0: no row limit)")
	fl.StringVar(&f.splitBytes, "split-max-partition-bytes", config.FormatSize(def.SplitMaxPartitionBytes), "split a physical partition above this size, e.g. 100MiB (0: no size limit)")
	f.backend.register(cmd, def)
	fl.DurationVar(&f.splitWindow, "split-window", 0, "how long a partition stays over a limit before it splits (0: the default)")
	fl.DurationVar(&f.splitTick, "split-tick", 0, "how often the split detector runs (0: the default)")
	_ = fl.MarkHidden("split-window")
	_ = fl.MarkHidden("split-tick")
	return cmd
}

// load reads the file, if any, and applies the flags given on the
// command line over it.
func (f *serveFlags) load(cmd *cobra.Command) (config.Config, error) {
	cfg := config.Default()
	if f.configPath != "" {
		var err error
		if cfg, err = config.Load(f.configPath); err != nil {
			return cfg, err
		}
	}
	fl := cmd.Flags()
	if fl.Changed("cql-addr") {
		if err := cfg.SetCQLAddress(f.cqlAddr); err != nil {
			return cfg, fmt.Errorf("--cql-addr: %w", err)
		}
	}
	if fl.Changed("data-dir") {
		cfg.DataDir = f.dataDir
	}
	if fl.Changed("http-addr") {
		cfg.HTTPAddress = f.httpAddr
	}
	if fl.Changed("log-level") {
		cfg.LogLevel = f.logLevel
	}
	if fl.Changed("split-max-partition-rows") {
		cfg.SplitMaxPartitionRows = f.splitRows
	}
	if fl.Changed("split-max-partition-bytes") {
		n, err := config.ParseSize(f.splitBytes)
		if err != nil {
			return cfg, fmt.Errorf("--split-max-partition-bytes: %w", err)
		}
		cfg.SplitMaxPartitionBytes = n
	}
	if err := f.backend.apply(cmd, &cfg); err != nil {
		return cfg, err
	}
	// The admin token from the environment, which keeps it out of ps.
	if token := os.Getenv(adminTokenEnv); token != "" {
		cfg.AdminToken = token
	}
	return cfg, cfg.Validate()
}

// node is a running Partita node; every field is nil until started.
type node struct {
	cfg     config.Config
	log     *slog.Logger
	metrics *metrics.Metrics
	serving atomic.Bool

	httpServer *http.Server
	store      backend.Backend
	pebble     *storage.Store // the embedded store, when it is the backend
	cqlLn      net.Listener
	eng        *engine.Engine
	cql        *server.Server
	serveErr   chan error
	// tune adjusts the engine's configuration before it opens (hidden
	// flags); nil leaves it.
	tune     func(*engine.Config)
	profiler cpuProfiler
}

// runServe runs a node until ctx ends (SIGINT/SIGTERM), then shuts it down
// gracefully and returns nil; it returns an error only if the node could
// not start or stopped on its own.
func runServe(ctx context.Context, cfg config.Config, logger *slog.Logger, tune func(*engine.Config)) error {
	n := &node{cfg: cfg, log: logger, metrics: metrics.New(), serveErr: make(chan error, 1), tune: tune}
	startErr := n.start(ctx)
	if startErr != nil && ctx.Err() != nil {
		logger.Info("interrupted while starting", "err", startErr)
		startErr = nil
	}
	if startErr == nil {
		select {
		case <-ctx.Done():
			logger.Info("shutting down", "cause", context.Cause(ctx))
		case err := <-n.serveErr:
			startErr = fmt.Errorf("CQL server stopped: %w", err)
		}
	}
	return errors.Join(startErr, n.stop())
}

// superuserPasswordEnv names the environment variable that gives the
// default superuser (cassandra) another password than cassandra when an
// empty node starts with authenticator: PasswordAuthenticator.
const superuserPasswordEnv = "PARTITA_SUPERUSER_PASSWORD"

// start brings the node up: HTTP (so that /healthz answers 503 while
// starting), storage, the CQL listener, the engine and the CQL server.
// The listener is bound before the engine opens, because system.local
// must carry the address and port clients actually dial.
func (n *node) start(ctx context.Context) error {
	// The keystore is read first: a bad one fails before anything opens.
	clientTLS, err := n.cfg.ClientEncryption.TLSConfig()
	if err != nil {
		return err
	}
	if err := n.startHTTP(); err != nil {
		return err
	}
	store, pebble, err := openBackend(ctx, n.cfg, n.log)
	if err != nil {
		return err
	}
	n.store, n.pebble = store, pebble
	if n.cqlLn, err = net.Listen(listenNetwork(n.cfg.RPCAddress), n.cfg.CQLAddress()); err != nil {
		return fmt.Errorf("CQL listener: %w", err)
	}
	addr := n.cqlLn.Addr().(*net.TCPAddr)
	ecfg := n.cfg.Engine()
	ecfg.RPCAddress = advertisedIP(addr.IP)
	ecfg.ListenAddress = ecfg.RPCAddress
	ecfg.NativePort = addr.Port
	// The default superuser's first password, for a new node with
	// authentication on; an environment variable keeps it out of ps.
	ecfg.Auth.SuperuserPassword = os.Getenv(superuserPasswordEnv)
	ecfg.Auth.Logger = n.log
	if n.tune != nil {
		n.tune(&ecfg)
	}
	if n.eng, err = engine.Open(ctx, store, ecfg); err != nil {
		return engineOpenError(n.cfg.DataDir, pebble != nil, err)
	}
	for _, c := range split.Collectors() {
		_ = n.metrics.Registry.Register(c) // already registered by an earlier node of this process: fine
	}
	_ = n.metrics.Registry.Register(newPartitionCollector(n.eng.LargePartitions))
	_ = n.metrics.Registry.Register(newStatementCollector(n.eng.Statements))
	if pebble != nil {
		_ = n.metrics.Registry.Register(newStorageCollector(pebble.Stats))
	}
	scfg := n.cfg.Server()
	scfg.Metrics = n.metrics
	scfg.TLS = clientTLS
	n.cql = server.New(scfg, n.eng, n.log)
	ln := n.cqlLn
	go func() { n.serveErr <- n.cql.Serve(ln) }()
	n.serving.Store(true)
	n.log.Info("CQL listening on "+addr.String(), "rpc_address", ecfg.RPCAddress.String(),
		"backend", n.cfg.Backend, "data_dir", n.cfg.DataDir, "client_encryption", tlsPolicyName(scfg), "version", version)
	return nil
}

// tlsPolicyName names the CQL port's client encryption for the log.
func tlsPolicyName(c server.Config) string {
	switch {
	case c.TLS == nil:
		return "off"
	case c.TLSOptional:
		return "optional"
	}
	return "required"
}

// The HTTP port's bounds on a client: to send its request line and
// headers, its whole request (admin requests have no body), and to keep an
// idle keep-alive connection; and the header bytes read.
const (
	httpReadHeaderTimeout = 10 * time.Second
	httpReadTimeout       = 30 * time.Second
	httpIdleTimeout       = 2 * time.Minute
	httpMaxHeaderBytes    = 64 << 10
)

// startHTTP serves /healthz and /metrics, unless no address is set.
func (n *node) startHTTP() error {
	if n.cfg.HTTPAddress == "" {
		return nil
	}
	ln, err := net.Listen("tcp", n.cfg.HTTPAddress)
	if err != nil {
		return fmt.Errorf("HTTP listener: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", n.metrics.Handler())
	mux.HandleFunc("/healthz", n.healthz)
	n.adminRoutes(mux)
	n.profileRoutes(mux)
	n.httpServer = &http.Server{Handler: mux, ReadHeaderTimeout: httpReadHeaderTimeout,
		ReadTimeout: httpReadTimeout, IdleTimeout: httpIdleTimeout, MaxHeaderBytes: httpMaxHeaderBytes}
	go func() {
		if err := n.httpServer.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			n.log.Error("HTTP server stopped", "err", err)
		}
	}()
	admin := "loopback clients only (no admin_token)"
	if n.cfg.AdminToken != "" {
		admin = "bearer token"
	}
	n.log.Info("HTTP listening on "+ln.Addr().String(), "paths", "/healthz /metrics /admin/splits /admin/split /admin/cpuprofile", "admin", admin)
	return nil
}

// healthz answers 200 "ok" while the CQL server is serving, 503 otherwise
// (starting or shutting down).
func (n *node) healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if !n.serving.Load() {
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprint(w, "not serving")
		return
	}
	fmt.Fprint(w, "ok")
}

// stop closes whatever start opened: the CQL server (letting in-flight
// requests finish), the engine, the storage, then the HTTP server.
func (n *node) stop() error {
	n.serving.Store(false)
	var errs []error
	if n.cql != nil {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
		errs = append(errs, n.cql.Shutdown(ctx))
		cancel()
	} else if n.cqlLn != nil {
		n.cqlLn.Close()
	}
	if n.eng != nil {
		errs = append(errs, n.eng.Close())
	}
	if n.store != nil {
		errs = append(errs, n.store.Close())
	}
	if n.httpServer != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		errs = append(errs, n.httpServer.Shutdown(ctx))
		cancel()
	}
	err := errors.Join(errs...)
	if err != nil {
		n.log.Error("shutdown", "err", err)
	} else {
		n.log.Info("stopped")
	}
	return err
}

// listenNetwork keeps an IPv4 rpc_address IPv4-only, as in Cassandra: Go
// would otherwise turn 0.0.0.0 into a dual-stack [::] listener.
func listenNetwork(rpcAddress string) string {
	if ip := net.ParseIP(rpcAddress); ip != nil && ip.To4() != nil {
		return "tcp4"
	}
	return "tcp"
}

// advertisedIP is the address clients dial, for system.local.rpc_address:
// the listen IP, or for a wildcard listener the first non-loopback address
// of the host (drivers reject 0.0.0.0; reference §3.1), else loopback.
func advertisedIP(listen net.IP) net.IP {
	if !listen.IsUnspecified() {
		return listen
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return net.IPv4(127, 0, 0, 1)
	}
	return firstNonLoopback(addrs, listen.To4() != nil)
}

// firstNonLoopback returns the first usable unicast address, preferring
// IPv4 when wantV4 is set (a 0.0.0.0 listener serves only IPv4).
func firstNonLoopback(addrs []net.Addr, wantV4 bool) net.IP {
	var fallback net.IP
	for _, a := range addrs {
		ipNet, ok := a.(*net.IPNet)
		if !ok || ipNet.IP.IsLoopback() || ipNet.IP.IsLinkLocalUnicast() || ipNet.IP.IsUnspecified() {
			continue
		}
		if ip4 := ipNet.IP.To4(); ip4 != nil {
			return ip4
		}
		if fallback == nil && !wantV4 {
			fallback = ipNet.IP
		}
	}
	if fallback != nil {
		return fallback
	}
	return net.IPv4(127, 0, 0, 1)
}
