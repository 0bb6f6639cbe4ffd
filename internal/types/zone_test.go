package types

import (
	"testing"
	"time"
)

// TestZoneTablesAgree: every zone zonenames.tsv names has rules in
// zonerules.txt (zoneRulesOf panics otherwise), and the rules give a
// sensible offset at every instant tried, with localToInstant finding an
// instant that shows the same local time (in an overlap, the earlier of
// two).
func TestZoneTablesAgree(t *testing.T) {
	names := zoneNames()
	if len(names.short) < 500 || len(names.long) < 500 {
		t.Fatalf("zonenames.tsv has %d short and %d long names", len(names.short), len(names.long))
	}
	zones := map[string]bool{}
	for _, m := range []map[string]string{names.short, names.long} {
		for _, id := range m {
			zones[id] = true
		}
	}
	for id := range zones {
		z := zoneRulesOf(id)
		for sec := int64(-5e9); sec < 5e9; sec += 86400*97 + 3671 {
			off := z.offsetAt(sec)
			if off < -maxOffsetSeconds || off > maxOffsetSeconds {
				t.Fatalf("%s: offset %d at %d", id, off, sec)
			}
			local := sec + off
			if back := z.localToInstant(local); back+z.offsetAt(back) != local || back > sec {
				t.Fatalf("%s: %d reads as local %d, which reads back as %d", id, sec, local, back)
			}
		}
	}
}

// TestZoneRules checks transitions of the JDK's rules that are known:
// the EU and US rules of 2026 (recurring rules past the historic list),
// and a historic one.
func TestZoneRules(t *testing.T) {
	tests := []struct {
		zone, utc string
		offset    int64
	}{
		{"Europe/Paris", "2026-03-29T00:59:59Z", 3600},
		{"Europe/Paris", "2026-03-29T01:00:00Z", 7200},
		{"Europe/Paris", "2026-10-25T00:59:59Z", 7200},
		{"Europe/Paris", "2026-10-25T01:00:00Z", 3600},
		{"America/New_York", "2026-03-08T06:59:59Z", -18000},
		{"America/New_York", "2026-03-08T07:00:00Z", -14400},
		{"America/New_York", "2026-11-01T05:59:59Z", -14400},
		{"America/New_York", "2026-11-01T06:00:00Z", -18000},
		{"America/New_York", "2207-07-01T00:00:00Z", -14400},
		{"Europe/London", "1971-01-01T00:00:00Z", 3600}, // British Standard Time
		{"Asia/Kolkata", "2026-01-01T00:00:00Z", 19800},
	}
	for _, tt := range tests {
		at, err := time.Parse(time.RFC3339, tt.utc)
		if err != nil {
			t.Fatal(err)
		}
		if got := zoneRulesOf(tt.zone).offsetAt(at.Unix()); got != tt.offset {
			t.Errorf("%s at %s: offset %d, want %d", tt.zone, tt.utc, got, tt.offset)
		}
	}
}
