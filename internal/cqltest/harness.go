package cqltest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/config"
	"github.com/partita-db/partita/internal/cql/parser"
	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/engine"
	"github.com/partita-db/partita/internal/storage"
	"github.com/partita-db/partita/internal/types"
)

// Harness is an engine on a temporary store with one session.
type Harness struct {
	t       testing.TB
	dir     string
	cfg     engine.Config
	store   backend.Backend
	Engine  *engine.Engine
	Session *engine.Session

	// openBackend opens the store; nil means a Pebble store in dir.
	openBackend func() (backend.Backend, error)
	// limits are the limit options the config command set, as YAML lines.
	limits []string
}

// setLimit sets a request-limit option (a guardrail, a timeout, the
// partition write-rate thresholds) by its cassandra.yaml name.
func (h *Harness) setLimit(name, value string) error {
	lines := append(append([]string(nil), h.limits...), name+": "+value)
	c, err := config.Parse([]byte(strings.Join(lines, "\n")))
	if err != nil {
		return err
	}
	h.limits = lines
	e := c.Engine()
	h.cfg.Timeouts, h.cfg.Guardrails = e.Timeouts, e.Guardrails
	h.cfg.PartitionWriteRateWarnThreshold = e.PartitionWriteRateWarnThreshold
	h.cfg.PartitionWriteRateFailThreshold = e.PartitionWriteRateFailThreshold
	return nil
}

// New opens a harness in a temporary directory. Splitting runs only when a
// test asks (no background work), so results do not depend on timing.
func New(t testing.TB) *Harness {
	cfg := engine.DefaultConfig()
	cfg.SplitTick, cfg.GCInterval = 0, 0
	return NewWithConfig(t, cfg)
}

// NewWithConfig opens a harness with an engine configuration.
func NewWithConfig(t testing.TB, cfg engine.Config) *Harness {
	h := &Harness{t: t, dir: t.TempDir(), cfg: cfg}
	h.open()
	t.Cleanup(h.close)
	return h
}

// NewWithBackend runs the engine over the store open returns (called
// again on Restart); the harness closes it.
func NewWithBackend(t testing.TB, cfg engine.Config, open func() (backend.Backend, error)) *Harness {
	h := &Harness{t: t, cfg: cfg, openBackend: open}
	h.open()
	t.Cleanup(h.close)
	return h
}

func (h *Harness) open() {
	var st backend.Backend
	var err error
	if h.openBackend != nil {
		st, err = h.openBackend()
	} else {
		st, err = storage.Open(storage.Options{Dir: h.dir, NoSync: true})
	}
	if err != nil {
		h.t.Fatal(err)
	}
	e, err := engine.Open(context.Background(), st, h.cfg)
	if err != nil {
		h.t.Fatal(err)
	}
	h.store, h.Engine, h.Session = st, e, e.NewSession()
}

// Close closes the harness's engine and store now (the test's cleanup
// closes it otherwise).
func (h *Harness) Close() { h.close() }

func (h *Harness) close() {
	if h.store != nil {
		_ = h.Engine.Close()
		_ = h.store.Close()
		h.store = nil
	}
}

// Restart closes and reopens the store and engine; the session starts over
// in the same keyspace.
func (h *Harness) Restart() {
	ks := h.Session.Keyspace()
	h.close()
	h.open()
	if ks != "" {
		if _, err := h.Session.Query(context.Background(), "USE "+types.QuoteIdent(ks), nil); err != nil {
			h.t.Fatal(err)
		}
	}
}

// RunFile runs a datadriven file against a fresh harness.
func RunFile(t *testing.T, path string) {
	h := New(t)
	datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
		return h.Run(d)
	})
}

// Run executes one datadriven command.
func (h *Harness) Run(d *datadriven.TestData) string {
	switch d.Cmd {
	case "exec", "query":
		pageSize := 0
		for _, arg := range d.CmdArgs {
			if arg.Key == "page-size" {
				pageSize, _ = strconv.Atoi(arg.Vals[0])
			}
		}
		var out strings.Builder
		for _, stmt := range SplitStatements(d.Input) {
			out.WriteString(h.Exec(stmt, pageSize))
		}
		return out.String()
	case "bind":
		var out strings.Builder
		for _, b := range ParseBind(d.Input) {
			out.WriteString(h.Bind(b))
		}
		return out.String()
	case "restart":
		h.Restart()
		return "ok\n"
	case "auth":
		// auth [authorizer]: restart with authenticator:
		// PasswordAuthenticator (a node without roles then creates
		// cassandra/cassandra) and, with authorizer, CassandraAuthorizer;
		// the session is anonymous until login.
		h.cfg.Auth.PasswordAuthentication = true
		h.cfg.Auth.Authorization = d.HasArg("authorizer")
		h.Restart()
		return "ok\n"
	case "login":
		// login role=R password=P: a new session logged in through SASL
		// PLAIN, as the server logs a connection in; logout: anonymous.
		var role, password string
		for _, arg := range d.CmdArgs {
			switch arg.Key {
			case "role":
				role = arg.Vals[0]
			case "password":
				password = arg.Vals[0]
			}
		}
		token := append(append(append([]byte{0}, role...), 0), password...)
		name, err := h.Engine.Auth().Authenticate(token)
		if err != nil {
			e := cqlerr.As(err)
			return fmt.Sprintf("error (%s): %s\n", e.Code, e.Message)
		}
		h.Session = h.Engine.NewSession()
		h.Session.Login(name)
		return "ok\n"
	case "logout":
		h.Session = h.Engine.NewSession()
		return "ok\n"
	case "sleep":
		// sleep 1100ms: lets TTLs expire in real time.
		d, err := time.ParseDuration(d.CmdArgs[0].Key)
		if err != nil {
			return fmt.Sprintf("error: %v\n", err)
		}
		time.Sleep(d)
		return "ok\n"
	case "split":
		var op, table, key, strategy string
		for _, arg := range d.CmdArgs {
			switch arg.Key {
			case "op":
				op = arg.Vals[0]
			case "table":
				table = arg.Vals[0]
			case "strategy":
				strategy = arg.Vals[0]
			}
		}
		key = strings.TrimSpace(d.Input)
		ks, tbl, _ := strings.Cut(table, ".")
		if err := h.Engine.SplitOperation(context.Background(), op, ks, tbl, key, strategy); err != nil {
			return fmt.Sprintf("error: %v\n", err)
		}
		return "ok\n"
	case "config":
		// config materialized_views_enabled=true: reopen the engine with
		// a cassandra.yaml option (data and schema survive).
		for _, arg := range d.CmdArgs {
			on := len(arg.Vals) > 0 && arg.Vals[0] == "true"
			switch arg.Key {
			case "materialized_views_enabled":
				h.cfg.MaterializedViewsEnabled = on
			case "user_defined_functions_enabled":
				h.cfg.UserDefinedFunctionsEnabled = on
			default:
				// Any other option (guardrails, timeouts) is read as
				// cassandra.yaml would give it, over those set before.
				if err := h.setLimit(arg.Key, strings.Join(arg.Vals, ",")); err != nil {
					return fmt.Sprintf("error: %v\n", err)
				}
			}
		}
		h.Restart()
		return "ok\n"
	case "split-finish":
		if err := h.Engine.StepSplits(context.Background(), 2); err != nil {
			return fmt.Sprintf("error: %v\n", err)
		}
		return "ok\n"
	}
	d.Fatalf(h.t, "unknown command %s", d.Cmd)
	return ""
}

// SplitStatements splits a script into statements the way the parser
// does (';' outside strings, comments and BATCH bodies). Text that does not
// split is returned whole so that its error is printed.
func SplitStatements(input string) []string {
	stmts, err := parser.Split(input)
	if err != nil {
		// A statement that does not lex: fall back to ';' at line ends so
		// the others still run and the bad one prints its error.
		stmts = nil
		var cur strings.Builder
		for _, line := range strings.Split(input, "\n") {
			cur.WriteString(line + "\n")
			if strings.HasSuffix(strings.TrimSpace(line), ";") {
				stmts = append(stmts, cur.String())
				cur.Reset()
			}
		}
		stmts = append(stmts, cur.String())
	}
	var out []string
	for _, s := range stmts {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Exec runs one statement (fetching every page of a SELECT) and formats
// the outcome.
func (h *Harness) Exec(stmt string, pageSize int) string {
	ctx := context.Background()
	var out strings.Builder
	opts := &engine.Options{PageSize: int32(pageSize)}
	for page := 0; ; page++ {
		res, err := h.Session.Query(ctx, stmt, opts)
		if err != nil {
			e := cqlerr.As(err)
			return fmt.Sprintf("error (%s): %s\n", e.Code, e.Message)
		}
		for _, w := range res.Warnings {
			fmt.Fprintf(&out, "warning: %s\n", w)
		}
		switch res.Kind {
		case engine.ResultRows:
			if pageSize > 0 {
				fmt.Fprintf(&out, "-- page %d\n", page+1)
			}
			FormatRows(&out, res)
		case engine.ResultSchemaChange:
			c := res.Change
			fmt.Fprintf(&out, "%s %s %s\n", strings.ToLower(c.Type), strings.ToLower(c.Target), strings.TrimSuffix(c.Keyspace+"."+c.Name, "."))
		case engine.ResultSetKeyspace:
			fmt.Fprintf(&out, "use %s\n", res.Keyspace)
		default:
			out.WriteString("ok\n")
		}
		if res.PagingState == nil {
			return out.String()
		}
		opts.PagingState = res.PagingState
	}
}

// FormatRows prints a result like cqlsh: a header, then one line per row.
func FormatRows(out *strings.Builder, res *engine.Result) {
	names := make([]string, len(res.Columns))
	typs := make([]*types.Type, len(res.Columns))
	for i, c := range res.Columns {
		names[i], typs[i] = c.Name, c.Type
	}
	formatTable(out, names, typs, res.Rows)
}

// formatTable prints the column names, then each row's values as CQL
// literals, then the row count.
func formatTable(out *strings.Builder, names []string, typs []*types.Type, rows [][][]byte) {
	out.WriteString(strings.Join(names, " | "))
	out.WriteByte('\n')
	for _, row := range rows {
		cells := make([]string, len(row))
		for i, v := range row {
			cells[i] = types.Format(typs[i], v)
		}
		out.WriteString(strings.Join(cells, " | "))
		out.WriteByte('\n')
	}
	fmt.Fprintf(out, "(%d rows)\n", len(rows))
}
