package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgCluster is a throwaway PostgreSQL cluster: initdb into a temporary
// directory, postgres on a free loopback port, removed by stop.
type pgCluster struct {
	dir  string
	port int
	proc *ownedProcess // nil until the postmaster started
}

const pgUser = "bench"

// startPostgres creates and starts a cluster with durability comparable to
// Partita's synced WAL: fsync and synchronous_commit on (PostgreSQL's
// defaults, stated so that no configuration can weaken them).
func startPostgres(ctx context.Context, bin string, maxConns int) (c *pgCluster, err error) {
	dir, err := os.MkdirTemp("", "partita-bench-pg")
	if err != nil {
		return nil, err
	}
	c = &pgCluster{dir: dir}
	defer func() {
		if err != nil {
			c.stop()
		}
	}()
	cred, err := postgresCredential(dir)
	if err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	initdb := exec.CommandContext(ctx, filepath.Join(bin, "initdb"), "-D", data, "-U", pgUser,
		"-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync")
	initdb.Dir = dir
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %w\n%s", err, out)
	}
	if c.port, err = freePort(); err != nil {
		return nil, err
	}
	logPath := filepath.Join(dir, "postgres.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	cmd := exec.Command(filepath.Join(bin, "postgres"), "-D", data,
		"-p", strconv.Itoa(c.port),
		"-c", "listen_addresses=127.0.0.1",
		"-c", "unix_socket_directories=",
		"-c", "fsync=on",
		"-c", "synchronous_commit=on",
		"-c", "full_page_writes=on",
		"-c", "max_connections="+strconv.Itoa(max(100, maxConns+10)))
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	// The postmaster gets SIGQUIT (immediate shutdown) if the harness dies
	// without stopping it.
	if c.proc, err = startOwned(cmd, syscall.SIGQUIT); err != nil {
		return nil, err
	}
	if err := c.waitReady(ctx); err != nil {
		log, _ := os.ReadFile(logPath)
		return nil, fmt.Errorf("%w\npostgres log:\n%s", err, tail(log, 2000))
	}
	return c, nil
}

// postgresCredential is who initdb and postgres run as: the current user,
// or, since PostgreSQL refuses to run as root, the postgres account that
// Debian's package creates (it then owns dir).
func postgresCredential(dir string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root, PostgreSQL needs an unprivileged account: %w", err)
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err := errors.Join(err1, err2); err != nil {
		return nil, err
	}
	if err := os.Chown(dir, uid, gid); err != nil {
		return nil, err
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func (c *pgCluster) connString() string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/postgres?sslmode=disable", pgUser, c.port)
}

// waitReady polls until the server accepts a connection.
func (c *pgCluster) waitReady(ctx context.Context) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		conn, err := pgx.Connect(ctx, c.connString())
		if err == nil {
			return conn.Close(ctx)
		}
		select {
		case <-c.proc.exited:
			return fmt.Errorf("postgres exited while starting: %v", c.proc.waitErr)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres not ready after 60 s: %w", err)
		}
	}
}

// stop shuts the server down (fast shutdown: SIGINT) and removes the
// cluster.
func (c *pgCluster) stop() error {
	var err error
	if c.proc != nil {
		c.proc.signal(syscall.SIGINT)
		select {
		case <-c.proc.exited:
		case <-time.After(30 * time.Second):
			c.proc.kill()
			err = errors.New("postgres did not stop within 30 s; killed")
		}
	}
	return errors.Join(err, os.RemoveAll(c.dir))
}

// freePort asks the kernel for a free loopback port.
func freePort() (int, error) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func tail(b []byte, n int) []byte {
	b = bytes.TrimSpace(b)
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// pgSystem drives PostgreSQL through a pool of pgx connections, one per
// request in flight (PostgreSQL runs one request per connection).
type pgSystem struct {
	all  []*pgx.Conn
	idle chan *pgx.Conn
	// pid returns the postmaster's process id: the CPU time of it and its
	// children (the backends, WAL writer, checkpointer) is the server's.
	pid func() int
}

func newPGSystem(ctx context.Context, connString string, size int) (*pgSystem, error) {
	p := &pgSystem{idle: make(chan *pgx.Conn, size)}
	for range size {
		c, err := pgx.Connect(ctx, connString)
		if err != nil {
			p.close()
			return nil, err
		}
		p.all = append(p.all, c)
		p.idle <- c
	}
	return p, nil
}

// with runs f on an idle connection.
func (p *pgSystem) with(ctx context.Context, f func(*pgx.Conn) error) error {
	var c *pgx.Conn
	select {
	case c = <-p.idle:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { p.idle <- c }()
	return f(c)
}

func (p *pgSystem) name() string { return SystemPostgres }

func (p *pgSystem) meter() *serverMeter {
	if p.pid == nil || p.pid() == 0 {
		return nil
	}
	return &serverMeter{pid: p.pid()}
}

func (p *pgSystem) createTables(ctx context.Context, tables []*table) error {
	return p.with(ctx, func(c *pgx.Conn) error {
		for _, t := range tables {
			if _, err := c.Exec(ctx, "DROP TABLE IF EXISTS "+t.name); err != nil {
				return fmt.Errorf("drop %s: %w", t.name, err)
			}
			for _, ddl := range t.createSQL() {
				if _, err := c.Exec(ctx, ddl); err != nil {
					return fmt.Errorf("%s: %w", ddl, err)
				}
			}
		}
		return nil
	})
}

func (p *pgSystem) analyze(ctx context.Context, tables []*table) error {
	return p.with(ctx, func(c *pgx.Conn) error {
		for _, t := range tables {
			if _, err := c.Exec(ctx, "ANALYZE "+t.name); err != nil {
				return fmt.Errorf("analyze %s: %w", t.name, err)
			}
		}
		return nil
	})
}

// prepareAll prepares sql on every connection, named by its text: pgx then
// executes it by name, so no timed request pays for PARSE.
func (p *pgSystem) prepareAll(ctx context.Context, sqls ...string) error {
	for _, c := range p.all {
		for _, sql := range sqls {
			if _, err := c.Prepare(ctx, sql, sql); err != nil {
				return fmt.Errorf("prepare %q: %w", sql, err)
			}
		}
	}
	return nil
}

func (p *pgSystem) prepare(ctx context.Context, st statement) (op, error) {
	sql := st.sqlText()
	if err := p.prepareAll(ctx, sql); err != nil {
		return nil, err
	}
	if st.kind == kindRead {
		return func(ctx context.Context, rows [][]any) (n int, err error) {
			err = p.with(ctx, func(c *pgx.Conn) error {
				res, err := c.Query(ctx, sql, rows[0]...)
				if err != nil {
					return err
				}
				defer res.Close()
				for res.Next() {
					if _, err := res.Values(); err != nil {
						return err
					}
					n++
				}
				return res.Err()
			})
			return n, err
		}, nil
	}
	return func(ctx context.Context, rows [][]any) (int, error) {
		return 0, p.with(ctx, func(c *pgx.Conn) error {
			if len(rows) == 1 {
				_, err := c.Exec(ctx, sql, rows[0]...)
				return err
			}
			// A batch outside a transaction runs as one implicit
			// transaction: atomic, one commit, like Partita's
			// single-partition batch.
			b := &pgx.Batch{}
			for _, r := range rows {
				b.Queue(sql, r...)
			}
			return c.SendBatch(ctx, b).Close()
		})
	}, nil
}

func (p *pgSystem) prepareCAS(ctx context.Context, update, read statement) (casOp, error) {
	upd, sel := update.sqlText(), read.sqlText()
	if err := p.prepareAll(ctx, upd, sel); err != nil {
		return nil, err
	}
	return func(ctx context.Context, args []any) (applied bool, cur int64, err error) {
		err = p.with(ctx, func(c *pgx.Conn) error {
			tag, err := c.Exec(ctx, upd, args...)
			if err != nil {
				return err
			}
			if applied = tag.RowsAffected() == 1; applied {
				return nil
			}
			// Cassandra returns the current value with a failed
			// condition; PostgreSQL needs a second round trip for it.
			return c.QueryRow(ctx, sel, args[2]).Scan(&cur)
		})
		return applied, cur, err
	}, nil
}

func (p *pgSystem) close() error {
	var errs []error
	for _, c := range p.all {
		errs = append(errs, c.Close(context.Background()))
	}
	return errors.Join(errs...)
}
