package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/partita-db/partita/test/internal/seeds"
)

const consoleToken = "console-secret"

// consoleSplit is the part of GET /admin/splits the test reads.
type consoleSplit struct {
	Keyspace, Table, PartitionKey, State string
	Children                             []string
}

func consoleAdmin(t *testing.T, method, url string, v any) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+consoleToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: %s %s", method, url, resp.Status, body)
	}
	if v != nil {
		if err := json.Unmarshal(body, v); err != nil {
			t.Fatalf("%s: %v\n%s", url, err, body)
		}
	}
}

// chromiumPath finds Debian's chromium; without it the test fails in CI
// (scripts/test.sh installs it) and skips elsewhere.
func chromiumPath(t *testing.T) string {
	path, err := exec.LookPath("chromium")
	if err != nil {
		if ci := strings.ToLower(os.Getenv("CI")); ci != "" && ci != "false" && ci != "0" {
			t.Fatal("chromium is not installed: the console tests need it (apt-get install chromium; scripts/test.sh does)")
		}
		t.Skip("chromium is not installed (apt-get install chromium)")
	}
	return path
}

// consoleShots is where the screenshots go: $PARTITA_ARTIFACTS_DIR/console
// when set (CI keeps them), else a temporary directory.
func consoleShots(t *testing.T) string {
	dir := t.TempDir()
	if a := os.Getenv("PARTITA_ARTIFACTS_DIR"); a != "" {
		dir = filepath.Join(a, "console")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("console screenshots in %s", dir)
	return dir
}

// pageErrors collects what a page reported as broken: uncaught exceptions
// and error log entries, a Content-Security-Policy violation among them
// (not the network's: a refused /admin request is expected).
type pageErrors struct {
	mu   sync.Mutex
	list []string
}

func (p *pageErrors) add(s string) {
	p.mu.Lock()
	p.list = append(p.list, s)
	p.mu.Unlock()
}

func (p *pageErrors) check(t *testing.T) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range p.list {
		t.Errorf("the page reported: %s", e)
	}
}

func newBrowser(t *testing.T, chromium string) (context.Context, *pageErrors) {
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium),
		chromedp.NoSandbox, chromedp.WindowSize(1280, 800), chromedp.Flag("disable-dev-shm-usage", true))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	errs := &pageErrors{}
	ctx, cancelCtx := chromedp.NewContext(alloc, chromedp.WithLogf(t.Logf), chromedp.WithListener(func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			msg := e.ExceptionDetails.Text
			if e.ExceptionDetails.Exception != nil {
				msg += " " + e.ExceptionDetails.Exception.Description
			}
			errs.add(fmt.Sprintf("exception at %s:%d: %s", e.ExceptionDetails.URL, e.ExceptionDetails.LineNumber, msg))
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.EntryLevelError && e.Entry.Source != cdplog.EntrySourceNetwork {
				errs.add(fmt.Sprintf("%s error: %s", e.Entry.Source, e.Entry.Text))
			}
		}
	}))
	t.Cleanup(func() { cancelCtx(); cancelAlloc() })
	// The first Do starts the browser, which lives as long as ctx: no
	// timeout on it.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx, errs
}

func browserDo(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// waitJS polls a JavaScript condition in the page until it holds.
func waitJS(t *testing.T, ctx context.Context, what, cond string) {
	t.Helper()
	if !waitFor(60*time.Second, func() bool {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](cond))
		return err == nil && ok
	}) {
		t.Fatalf("%s: %s never held; the page reads:\n%s", what, cond, eval[string](t, ctx, `document.body.innerText`))
	}
}

func shoot(t *testing.T, ctx context.Context, dir, name, sel string) {
	t.Helper()
	browserDo(t, ctx, "scroll to "+sel, chromedp.ScrollIntoView(chromedp.CSS(sel)))
	png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "console-"+name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	// PARTITA_CONSOLE_DOC_IMAGES=1 refreshes the screenshots in docs/images.
	if os.Getenv("PARTITA_CONSOLE_DOC_IMAGES") == "1" {
		if err := os.WriteFile(filepath.Join(repoRoot(t), "docs", "images", "console-"+name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The web console in headless Chromium against the server process: with
// the admin token it shows the tables and their histograms, the hot
// partition, the split's children, the split history, the statements, the
// advisor's findings and live charts, and merges a split partition; a
// browser without the token gets no data and no buttons.
func TestConsole(t *testing.T) {
	chromium := chromiumPath(t)
	t.Setenv("PARTITA_ADMIN_TOKEN", consoleToken)
	// 4,000 rows a partition: the hot one (3,000) neither splits by itself
	// nor merges back once split (below a quarter of that).
	p, httpAddr := startWithHTTP(t, t.TempDir(), "--split-max-partition-rows", "4000")
	base := "http://" + httpAddr
	s, err := newCluster(p.host, p.port).CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	// Seed 003's table with one hot asset (50x the others), and a
	// filtering read for the statements and the advisor.
	mustExec(t, s, "CREATE KEYSPACE console_ops WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, strings.Replace(seeds.Seed003Tables[0], "events_by_asset_day", "console_ops.events_by_asset_day", 1))
	writeConcurrently(t, s, 39*60+3000, func(i int) (string, []any) {
		asset, n := "asset-7", i-39*60
		if i < 39*60 {
			asset, n = fmt.Sprintf("asset-%d", 8+i%39), i/39
		}
		return "INSERT INTO console_ops.events_by_asset_day (asset_id, day, event_ts, payload) VALUES (?, '2026-01-20', ?, 'e')",
			[]any{asset, utc(2026, 1, 20, 0, 0, 0).Add(time.Duration(n) * time.Second)}
	})
	if n := s.Query("SELECT * FROM console_ops.events_by_asset_day WHERE payload = 'x' ALLOW FILTERING").Iter().NumRows(); n != 0 {
		t.Fatalf("filtering read returned %d rows", n)
	}
	const hotKey = "'asset-7', '2026-01-20'"
	consoleAdmin(t, "POST", base+"/admin/split?"+url.Values{"op": {"split"}, "keyspace": {"console_ops"},
		"table": {"events_by_asset_day"}, "key": {hotKey}, "strategy": {"range"}}.Encode(), nil)
	var split consoleSplit
	if !waitFor(60*time.Second, func() bool {
		var splits []consoleSplit
		consoleAdmin(t, "GET", base+"/admin/splits", &splits)
		for _, sp := range splits {
			if sp.PartitionKey == hotKey && sp.State == "active" {
				split = sp
				return true
			}
		}
		return false
	}) {
		t.Fatal("the forced split never became active")
	}
	if len(split.Children) < 2 {
		t.Fatalf("split has %d children: %v", len(split.Children), split.Children)
	}

	// Reads at a steady rate, for the live charts.
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; !stop.Load(); i++ {
			var n int
			_ = s.Query("SELECT count(*) FROM console_ops.events_by_asset_day WHERE asset_id = ? AND day = '2026-01-20'",
				fmt.Sprintf("asset-%d", 8+i%39)).Scan(&n)
			time.Sleep(20 * time.Millisecond)
		}
	}()
	defer func() { stop.Store(true); <-done }()

	shots := consoleShots(t)

	// Without the token: /admin refuses the page, so no data and no buttons;
	// the live charts (from /metrics) still draw.
	anon, anonErrors := newBrowser(t, chromium)
	browserDo(t, anon, "open the console", chromedp.Navigate(base+"/"))
	waitJS(t, anon, "refused notice", `document.getElementById("notice").textContent.includes("admin token")`)
	waitJS(t, anon, "anonymous live chart", `Number(document.getElementById("chart-rate").dataset.points) >= 2`)
	anonText := eval[string](t, anon, `document.body.innerText`)
	anonButtons := eval[int](t, anon, `document.querySelectorAll("button.op").length`)
	if anonButtons != 0 || strings.Contains(anonText, "asset-7") || !strings.Contains(anonText, "read-only") {
		t.Errorf("without the token the page shows %d split buttons or data:\n%s", anonButtons, anonText)
	}
	shoot(t, anon, shots, "readonly", "body")
	anonErrors.check(t)

	// With the token, entered in the page.
	adminCtx, adminErrors := newBrowser(t, chromium)
	browserDo(t, adminCtx, "open the console and enter the token", chromedp.Navigate(base+"/console"),
		chromedp.WaitVisible(chromedp.ID("token")),
		chromedp.SendKeys(chromedp.ID("token"), consoleToken),
		chromedp.Click(chromedp.ID("token-use")))
	waitJS(t, adminCtx, "split drawn", `document.querySelectorAll("#splits-body .split").length === 1`)
	waitJS(t, adminCtx, "advisor findings", `document.querySelectorAll("#advisor-body .finding").length > 0`)
	// Six points (12 s of reads), so that the screenshot shows a line.
	waitJS(t, adminCtx, "live chart points", `document.querySelectorAll("#chart-rate circle.pt").length >= 6`)
	text := eval[string](t, adminCtx, `document.body.innerText`)
	histBars := eval[int](t, adminCtx, `document.querySelectorAll('.table-card[data-table="console_ops.events_by_asset_day"] rect.bar').length`)
	children := eval[int](t, adminCtx, `document.querySelectorAll("#splits-body svg.children rect.child").length`)
	historyEvents := eval[int](t, adminCtx, `document.querySelectorAll("#history-body svg.timeline g.event").length`)
	splitButtons := eval[int](t, adminCtx, `document.querySelectorAll("#splits-body button.op").length`)
	ratePoints := eval[int](t, adminCtx, `Number(document.getElementById("chart-rate").dataset.points)`)
	maxRate := eval[float64](t, adminCtx, `Math.max(...[...document.querySelectorAll("#chart-rate circle.pt")].map(c => 180 - Number(c.getAttribute("cy"))))`)
	largest := eval[string](t, adminCtx, `document.querySelector("#partitions-body tr.partition").dataset.key`)
	t.Logf("console page text:\n%s", text)
	if largest != hotKey {
		t.Errorf("the largest partition listed is %s, want %s", largest, hotKey)
	}
	for _, want := range []string{
		"console_ops.events_by_asset_day", // tables
		hotKey,                            // the largest partition, and the split one
		fmt.Sprintf("%d children", len(split.Children)),                                   // the split
		"SELECT * FROM console_ops.events_by_asset_day WHERE payload = ? ALLOW FILTERING", // statements
		"WARNING console_ops.events_by_asset_day: filtering",                              // an advisor finding's title
		"admin: split, merge and revert enabled",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the console lacks %q", want)
		}
	}
	// Partition size percentiles 50%, 75%, 95%, 98%, 99% and Max.
	if histBars != 6 {
		t.Errorf("the table's histogram has %d bars, want 6", histBars)
	}
	if children != len(split.Children) {
		t.Errorf("the split is drawn with %d children, /admin/splits has %d", children, len(split.Children))
	}
	// The split's start and finish, with the partition named by its key.
	if historyEvents < 2 {
		t.Errorf("split history timeline has %d events", historyEvents)
	}
	if history := eval[string](t, adminCtx, `document.getElementById("history-body").innerText`); !strings.Contains(history, hotKey) || !strings.Contains(history, "finish") {
		t.Errorf("split history lacks the split of %s:\n%s", hotKey, history)
	}
	if splitButtons != 2 {
		t.Errorf("the split partition offers %d buttons, want merge and revert", splitButtons)
	}
	// Some point of the throughput chart is above its axis: the reads above.
	if ratePoints < 6 || maxRate <= 0 {
		t.Errorf("throughput chart: %d points, highest %.0f px above the axis", ratePoints, maxRate)
	}
	for name, sel := range map[string]string{"live": "#live", "tables": "#tables", "partitions": "#partitions",
		"splits": "#splits", "history": "#history", "statements": "#statements", "advisor": "#advisor"} {
		shoot(t, adminCtx, shots, name, sel)
	}

	// Merge the split partition from the page.
	browserDo(t, adminCtx, "click merge", chromedp.Click(chromedp.CSS(`#splits-body button[data-op="merge"]`)))
	waitJS(t, adminCtx, "merge notice", `document.getElementById("notice").textContent.includes("merge of console_ops.events_by_asset_day")`)
	if !waitFor(60*time.Second, func() bool {
		var splits []consoleSplit
		consoleAdmin(t, "GET", base+"/admin/splits", &splits)
		for _, sp := range splits {
			if sp.PartitionKey == hotKey && (sp.State != "active" || len(sp.Children) > 1) {
				return false
			}
		}
		return true
	}) {
		t.Fatal("the partition is still split after clicking merge")
	}
	waitJS(t, adminCtx, "merge in the history", `[...document.querySelectorAll("#history-body td")].some(td => td.textContent === "merge")`)
	var rows int
	if err := s.Query("SELECT count(*) FROM console_ops.events_by_asset_day WHERE asset_id = 'asset-7' AND day = '2026-01-20'").Scan(&rows); err != nil || rows != 3000 {
		t.Errorf("after the merge the partition has %d rows (%v), want 3000", rows, err)
	}
	adminErrors.check(t)
}

// Without an admin token on the server, /admin answers loopback clients:
// the console shows the data but, with no token entered, offers no split,
// merge or revert button. Its answers carry the strict headers.
func TestConsoleReadOnly(t *testing.T) {
	chromium := chromiumPath(t)
	t.Setenv("PARTITA_ADMIN_TOKEN", "")
	p, httpAddr := startWithHTTP(t, t.TempDir())
	base := "http://" + httpAddr

	// / redirects to the page, which comes with its headers.
	resp, err := http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.Request.URL.Path != "/console" || resp.StatusCode != http.StatusOK || !strings.Contains(string(page), "Partita console") {
		t.Fatalf("GET / ended at %s with %s", resp.Request.URL, resp.Status)
	}
	for header, want := range map[string]string{"X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff"} {
		if got := resp.Header.Get(header); got != want {
			t.Errorf("%s: %q, want %q", header, got, want)
		}
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") || strings.Contains(csp, "unsafe") {
		t.Errorf("Content-Security-Policy: %q", csp)
	}
	resp, err = http.Get(base + "/console/app.js")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || !strings.HasPrefix(ct, "text/javascript") {
		t.Errorf("app.js: %s, %q", resp.Status, ct)
	}

	s, err := newCluster(p.host, p.port).CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mustExec(t, s, "CREATE KEYSPACE console_ro WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE console_ro.readings (sensor text, at int, v double, PRIMARY KEY (sensor, at))")
	for i := range 50 {
		mustExec(t, s, "INSERT INTO console_ro.readings (sensor, at, v) VALUES (?, ?, 1.5)", fmt.Sprintf("s-%d", i%5), i)
	}

	b, pageErrs := newBrowser(t, chromium)
	browserDo(t, b, "open the console", chromedp.Navigate(base+"/console"))
	waitJS(t, b, "partitions listed", `document.querySelectorAll("#partitions-body tr.partition").length === 5`)
	waitJS(t, b, "statements listed", `document.getElementById("statements-body").innerText.includes("INSERT INTO console_ro.readings")`)
	text := eval[string](t, b, `document.body.innerText`)
	if buttons := eval[int](t, b, `document.querySelectorAll("button.op").length`); buttons != 0 {
		t.Errorf("without a token the console offers %d split buttons", buttons)
	}
	for _, want := range []string{"console_ro.readings", "'s-3'", "read-only", "No split partitions."} {
		if !strings.Contains(text, want) {
			t.Errorf("the read-only console lacks %q:\n%s", want, text)
		}
	}
	pageErrs.check(t)
}
