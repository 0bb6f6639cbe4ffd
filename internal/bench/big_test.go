package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBigTiny runs the big step end to end at a tiny scale, against a
// `partita serve` child process built from this module: the bulk load
// reads back through CQL, every restart and read is measured, every
// target is judged, and big.json holds the report. It checks the report's
// completeness, not the figures.
func TestBigTiny(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server")
	}
	for _, overlap := range []bool{false, true} {
		t.Run(map[bool]string{false: "sorted", true: "overlap"}[overlap], func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			var log bytes.Buffer
			parent, out := t.TempDir(), t.TempDir()
			profiles := ""
			if !overlap {
				profiles = filepath.Join(out, "profiles")
			}
			rep, err := RunBig(ctx, BigOptions{Rows: 3_000, MinBytes: 1 << 20, Dir: parent, Overlap: overlap,
				Restarts: 2, Duration: 200 * time.Millisecond, Rounds: 2, CPUProfileDir: profiles, OutDir: out, Log: &log})
			if err != nil {
				t.Fatalf("%v\n%s", err, log.String())
			}
			checkBigReport(t, rep)
			var saved BigReport
			b, err := os.ReadFile(filepath.Join(out, "big.json"))
			if err == nil {
				err = json.Unmarshal(b, &saved)
			}
			if err != nil || len(saved.Restarts) != len(rep.Restarts) || len(saved.Targets) != len(rep.Targets) {
				t.Errorf("big.json: %v (%d restarts, %d targets)", err, len(saved.Restarts), len(saved.Targets))
			}
			var sum bytes.Buffer
			if err := rep.WriteSummary(&sum); err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"restart (kill)", "restart (clean)", "range-1h", "target big flatness latest-100-desc"} {
				if !strings.Contains(sum.String(), want) {
					t.Errorf("summary lacks %q:\n%s", want, sum.String())
				}
			}
			if profiles != "" {
				// 3 reads × 2 partitions × 2 rounds, each a server profile.
				files, _ := filepath.Glob(filepath.Join(profiles, "big-*-r*.pprof"))
				if len(files) != len(bigReads)*2*2 {
					t.Errorf("%d server profiles, want %d: %v", len(files), len(bigReads)*2*2, files)
				}
				for _, f := range files {
					if st, err := os.Stat(f); err != nil || st.Size() == 0 {
						t.Errorf("profile %s: empty or missing (%v)", f, err)
					}
				}
			}
			if left, _ := filepath.Glob(filepath.Join(parent, "big-*")); len(left) != 0 {
				t.Errorf("data directory left behind: %v", left)
			}
		})
	}
}

func checkBigReport(t *testing.T, rep *BigReport) {
	t.Helper()
	if rep.BigRows != 3_000 || rep.SmallRows != smallRows || rep.LoadSeconds <= 0 || rep.TableBytes < 1<<20 || rep.DataBytes < rep.TableBytes {
		t.Errorf("load: %+v", rep)
	}
	if rep.Verified == "" {
		t.Error("the loaded data was not read back")
	}
	kinds := ""
	for _, r := range rep.Restarts {
		kinds += r.Kind + " "
		if r.OpenMs <= 0 || r.FirstQueryMs < r.OpenMs || r.DataBytes <= 0 {
			t.Errorf("restart not measured: %+v", r)
		}
	}
	if kinds != "first kill kill clean " {
		t.Errorf("restarts %q, want first, 2 kills, clean", kinds)
	}
	if rep.KillMedianMs <= 0 || rep.KillMaxMs < rep.KillMedianMs {
		t.Errorf("kill restarts: median %v max %v", rep.KillMedianMs, rep.KillMaxMs)
	}
	if len(rep.Reads) != 2*len(bigReads) {
		t.Errorf("%d reads, want %d", len(rep.Reads), 2*len(bigReads))
	}
	for _, r := range rep.Reads {
		if r.Latency.Count == 0 || r.Latency.P99 <= 0 || r.Errors != 0 || r.CPUMicrosPerRead <= 0 {
			t.Errorf("read %s on %s: %+v", r.Query, r.Partition, r)
		}
	}
	if len(rep.Flatness) != len(bigReads) {
		t.Errorf("%d flatness ratios, want %d", len(rep.Flatness), len(bigReads))
	}
	for _, f := range rep.Flatness {
		if f.Ratio <= 0 || f.CPURatio <= 0 {
			t.Errorf("flatness %s: %+v", f.Query, f)
		}
	}
	if len(rep.Targets) != 1+len(bigReads) {
		t.Errorf("%d targets, want %d", len(rep.Targets), 1+len(bigReads))
	}
	for _, tg := range rep.Targets {
		if tg.Met == nil {
			t.Errorf("target %s not judged: %s", tg.Name, tg.Verdict)
		}
	}
}
