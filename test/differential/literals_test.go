package differential_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/partita-db/partita/internal/cqltest"
	"github.com/partita-db/partita/test/internal/cassandra"
)

// literalCase is one value written to one column: a CQL literal as it
// appears in an INSERT (quoted or not), or a JSON value for INSERT JSON or
// for fromJson().
type literalCase struct {
	column   string // ts, dt, tm or du
	text     string
	json     bool
	fromJSON bool
}

// TestTemporalLiterals writes timestamp, date, time and duration literals
// (string and number constants, duration constants, INSERT JSON and
// fromJson()) to Partita and to the reference node over the wire and
// compares, for each, the error or the stored value: what a client sees of
// the parsing TestTemporalOracle checks in bulk (which literals are
// assignable, the empty values, error codes and the wording INSERT JSON
// adds). Expected answers are whatever the reference returns.
func TestTemporalLiterals(t *testing.T) {
	addr := os.Getenv("PARTITA_REFERENCE_ADDR")
	if addr == "" {
		addr = cassandra.Shared(t).Addr()
	}
	ref, err := cqltest.DialWire(addr, time.Minute)
	if err != nil {
		t.Fatalf("connect to the reference node %s: %v", addr, err)
	}
	defer ref.Close()
	h := cqltest.New(t)
	ref.Exec("DROP KEYSPACE IF EXISTS lits", 0)
	setup := []string{
		"CREATE KEYSPACE lits WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"USE lits",
		"CREATE TABLE t (k int PRIMARY KEY, ts timestamp, dt date, tm time, du duration)",
	}
	for _, stmt := range setup {
		ours, theirs := h.Exec(stmt, 0), ref.Exec(stmt, 0)
		if ours != theirs {
			t.Fatalf("setup %q: Partita %q, Cassandra %q", stmt, ours, theirs)
		}
	}
	verbose := os.Getenv("PARTITA_LITERALS_VERBOSE") != ""
	cases := temporalLiteralCases()
	start := time.Now()
	failures := 0
	for i, c := range cases {
		stmt := c.insert(i)
		ours, theirs := h.Exec(stmt, 0), ref.Exec(stmt, 0)
		if verbose {
			t.Logf("%s\n  partita:   %s  cassandra: %s", stmt, ours, theirs)
		}
		if ours != theirs {
			failures++
			t.Errorf("%s\n  Partita:   %s  Cassandra: %s", stmt, ours, theirs)
			continue
		}
		if strings.HasPrefix(ours, "error") || strings.Contains(strings.ToLower(c.text), "now") {
			continue // now: both store their own clock's time
		}
		sel := fmt.Sprintf("SELECT %s FROM t WHERE k = %d", c.column, i)
		ours, theirs = h.Exec(sel, 0), ref.Exec(sel, 0)
		if verbose {
			t.Logf("  stored: partita %q cassandra %q", ours, theirs)
		}
		if ours != theirs {
			failures++
			t.Errorf("%s stores different values\n  Partita:   %s  Cassandra: %s", stmt, ours, theirs)
		}
	}
	t.Logf("%d literals compared in %v, %d differ", len(cases), time.Since(start).Round(time.Millisecond), failures)
	ref.Exec("DROP KEYSPACE lits", 0)
}

func (c literalCase) insert(k int) string {
	if c.fromJSON {
		return fmt.Sprintf("INSERT INTO t (k, %s) VALUES (%d, fromJson(%s))", c.column, k, quoted(c.text))
	}
	if c.json {
		return fmt.Sprintf("INSERT INTO t JSON '{\"k\": %d, \"%s\": %s}'", k, c.column, strings.ReplaceAll(c.text, "'", "''"))
	}
	return fmt.Sprintf("INSERT INTO t (k, %s) VALUES (%d, %s)", c.column, k, c.text)
}

// quoted returns s as a CQL string literal.
func quoted(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// jsonString returns s as a JSON string (control characters escaped, so
// the test is about the value, not about JSON syntax errors, which the two
// word differently).
func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func temporalLiteralCases() []literalCase {
	var cases []literalCase
	add := func(column string, literals ...string) {
		for _, s := range literals {
			cases = append(cases, literalCase{column: column, text: quoted(s)})
		}
	}
	addJSON := func(column string, values ...string) {
		for _, s := range values {
			cases = append(cases, literalCase{column: column, text: s, json: true},
				literalCase{column: column, text: s, fromJSON: true})
		}
	}
	add("ts", timestampEdgeCases...)
	for _, s := range timestampEdgeCases {
		addJSON("ts", jsonString(s))
	}
	addJSON("ts", "1700000000000", "-1", "1.5", "true", "null", "2147483647", "9223372036854775807")
	add("dt", dateEdgeCases...)
	for _, s := range dateEdgeCases {
		addJSON("dt", jsonString(s))
	}
	addJSON("dt", "1", "null")
	add("tm", timeEdgeCases...)
	for _, s := range timeEdgeCases {
		addJSON("tm", jsonString(s))
	}
	addJSON("tm", "1", "null")
	for _, s := range durationEdgeCases {
		cases = append(cases, literalCase{column: "du", text: quoted(s)})
		addJSON("du", jsonString(s))
	}
	// Duration constants (the DURATION token), as the lexers of both
	// accept them.
	for _, s := range []string{"1h30m", "12mo3d", "1y2mo3w4d5h6m7s8ms9us10ns", "2µs", "-1d", "P1Y2M3DT4H5M6S",
		"P2W", "-P1W", "P0001-02-03T04:05:06", "P1Y2D", "PT1H", "P1DT2H", "1h1h", "1m1h", "1H30M", "1MO",
		"1Mo", "9223372036854775807ns", "9223372036854775808ns", "99999999999999999999ns", "2147483647mo",
		"178956971y", "2147483648d", "P178956971Y", "P99999999999999999999W", "P9999-99-99T99:99:99", "0h"} {
		cases = append(cases, literalCase{column: "du", text: s})
	}
	for _, lit := range []string{"1700000000000", "-1", "0", "9223372036854775807", "1.5", "true", "0x00"} {
		cases = append(cases, literalCase{column: "ts", text: lit})
	}
	for _, lit := range []string{"0", "2147483648", "4294967295", "4294967296", "-1"} {
		cases = append(cases, literalCase{column: "dt", text: lit})
	}
	for _, lit := range []string{"0", "86399999999999", "86400000000000", "-1"} {
		cases = append(cases, literalCase{column: "tm", text: lit})
	}
	return cases
}

var timestampEdgeCases = []string{
	"", "now", "NOW", " 2026-01-20", "2026-01-20 ", "2026-1-2", "12026-01-20", "+12026-01-20",
	"-2026-01-20", "0000-01-01", "0001-01-01", "-0001-01-01", "1582-10-10", "1582-10-04",
	"1500-02-29", "1900-02-29", "2024-02-29", "2026-02-29", "2026-02-30", "2026-02-31",
	"2026-04-31", "2026-02-32", "2026-13-01", "2026-00-01", "2026-01-00",
	"2026-01-20 24:00", "2026-01-20 24:00:00", "2026-01-20 24:00:00.000", "2026-01-20 24:01",
	"2026-01-20 23:60", "2026-01-20 23:59:60", "2026-01-20 25:00", "2026-01-20 6:00",
	"2026-01-20 6:0:0", "2026-01-20 06:00:00.", "2026-01-20 06:00.5", "2026-01-20 06:00:00.5",
	"2026-01-20 06:00:00.1234567890", "2026-01-20 06:00:00.999999999",
	"2026-01-20 0006:0000:0000", "02026-01-20 06:00", "12026-01-20 06:00", "+2026-01-20 06:00",
	"-2026-01-20 06:00", "0-01-01 00:00", "1-1-1 0:0", "2026-001-0020 06:00",
	"292278994-08-17 07:12:55.807Z", "292278994-08-17 07:12:55.808Z", "292278995-01-01 00:00",
	"-292275055-05-16 16:47:04.192Z", "999999999-12-31 23:59", "1000000000-01-01 00:00",
	"2026-01-20T", "2026-01-20t06:00", "2026-01-20  06:00", "2026-01-20\t06:00",
	"2026-01-20 06:00:00 Europe/Paris", "2026-07-20 06:00:00 Europe/Paris",
	"2026-03-29 02:30 Europe/Paris", "2026-10-25 02:30 Europe/Paris",
	"2026-01-20 06:00:00 America/New_York", "2026-07-20 06:00 America/Los_Angeles",
	"2026-01-20 06:00:00 europe/paris", "2026-01-20 06:00:00 Mars/Olympus",
	"2026-01-20 06:00 UTC", "2026-01-20 06:00 utc", "2026-01-20 06:00 GMT", "2026-01-20 06:00 UT",
	"2026-01-20 06:00 Z", "2026-01-20 06:00 z", "2026-01-20 06:00 Zulu", "2026-01-20 06:00 GMT0",
	"2026-01-20 06:00 UTC+01:00", "2026-01-20 06:00 UT+01:00", "2026-01-20 06:00 GMT+01:00",
	"2026-01-20 06:00 GMT+1", "2026-01-20 06:00 GMT+5:30", "2026-01-20 06:00 GMT+0100",
	"2026-01-20 06:00 GMT-08:00", "2026-01-20 06:00 GMT+01:00:30", "2026-01-20 06:00 UTC0",
	"2026-01-20 06:00 Etc/GMT+5", "2026-01-20 06:00 Etc/UTC", "2026-01-20 06:00 EST5EDT",
	"2026-07-20 06:00 EST", "2026-07-20 06:00 PST", "2026-01-20 06:00 PST", "2026-07-20 06:00 PDT",
	"2026-01-20 06:00 CET", "2026-07-20 06:00 CET", "2026-07-20 06:00 CEST", "2026-01-20 06:00 JST",
	"2026-01-20 06:00 IST", "2026-01-20 06:00 BST", "2026-01-20 06:00 MSK", "2026-01-20 06:00 AEST",
	"2026-01-20 06:00 HST", "2026-01-20 06:00 MST", "2026-01-20 06:00 CST", "2026-01-20 06:00 EET",
	"2026-01-20 06:00 WET", "2026-01-20 06:00 MET", "2026-01-20 06:00 SGT", "2026-01-20 06:00 NZST",
	"2026-01-20 06:00 Pacific Standard Time", "2026-07-20 06:00 Pacific Standard Time",
	"2026-01-20 06:00 Pacific Time", "2026-01-20 06:00 Central European Standard Time",
	"2026-01-20 06:00 Central European Time", "2026-01-20 06:00 Coordinated Universal Time",
	"2026-01-20 06:00 Greenwich Mean Time", "2026-01-20 06:00 Japan Standard Time",
	"2026-01-20 06:00 +01", "2026-01-20 06:00 +0100", "2026-01-20 06:00 +01:00",
	"2026-01-20 06:00 +01:00:30", "2026-01-20 06:00 +1", "2026-01-20 06:00 +24:00",
	"2026-01-20 06:00 +23:59", "2026-01-20 06:00 +18:00", "2026-01-20 06:00 +19:00",
	"2026-01-20 06:00+01", "2026-01-20 06:00+0100", "2026-01-20 06:00+01:00", "2026-01-20 06:00+1",
	"2026-01-20 06:00+01:00:30", "2026-01-20 06:00+010030", "2026-01-20 06:00-0130",
	"2026-01-20 06:00Z", "2026-01-20 06:00z", "2026-01-20 06:00UTC", "2026-01-20 06:00 -00",
	"2026-01-20 06:00-00", "2026-01-20 06:00:00.123+0100", "2026-01-20 06:00:00.123 +0100",
	"2026-01-20Z", "2026-01-20z", "2026-01-20+01", "2026-01-20+0100", "2026-01-20+01:00",
	"2026-01-20+01:00:30", "2026-01-20 +0100", "2026-01-20 +01", "2026-01-20 +01:00",
	"2026-01-20 UTC", "2026-01-20 Europe/Paris", "2026-01-20 Pacific Standard Time",
	"2026-01-20+01:00[Europe/Paris]", "2026-01-20Z[UTC]", "2026-01-20[Europe/Paris]",
	"-2026-01-20Z", "-2026-01-20 UTC", "+12026-01-20 UTC", "+12026-01-20Z", "12026-01-20Z",
	"+2026-01-20 UTC", "2026-1-20 UTC", "0000-01-01 UTC", "0000-01-01Z", "2026-02-30 UTC",
	"2026-02-30Z", "2026-01-20T06:00:00.5", "2026-01-20T06:00:00.1234", "2026-01-20T06:00",
	"2026-01-20T6:0", "2026-01-20T06:00:00.123456789Z", "1700000000000", "-1700000000000",
	"99999999999999999999", "-0", "+1", "1e3", "0x10", "2026", "2026-01", "06:00",
	"2026-01-20 06", "2026-01-20 06:", "2026-01-20 06:00:", "2026-01-20 06:00:00:00",
	"2026-01-20 ０６:00", "２０２６-01-20 06:00", "2026-01-20 06:00 +０1",
	"2026-01-20T24:00:00.0001", "2026-01-20T24:00:00.001", "2026-12-31 24:00", "2024-02-29 24:00",
	"999999999-12-31 24:00", "999999999-12-31 23:59:59.999-18:00", "+999999999-12-31-18:00",
	"+999999999-12-31+18:00", "-999999999-01-01Z", "-999999999-01-01+18:00", "-292275055-05-17Z",
	"-292275055-05-16Z", "-292275055-05-16+18:00", "2026-01-20 06:00:00.000000000Z",
	"2026-01-20T06:00 Europe/Paris", "2026-01-20T06:00:00.123 Pacific Standard Time",
	"2026-01-20 06:00+18:00", "2026-01-20 06:00-18:00", "2026-01-20 06:00+18:01", "2026-01-20 06:00+1800",
	"2026-01-20 06:00 +18:00:00", "2026-01-20 06:00 +18:00:01", "2026-01-20+18:00", "2026-01-20-18:00:00",
	"2026-01-20+18:00:01", "2026-01-20 -1800", "2026-01-20 06:00 UTC+18:00", "2026-01-20 06:00 UTC-18:00:01",
	"2026-01-20 06:00 UT-00:00", "2026-01-20 06:00 GMT-00:30:15", "2026-01-20 06:00 UTC+1:00",
	"2026-01-20 06:00 GMT+01:0", "2026-01-20 06:00 GMT+01:00:0", "2026-01-20 06:00 GMT+0", "2026-01-20 06:00 GMTZ",
	"2026-01-20 06:00 UTCZ", "2026-01-20 06:00 UTC0", "2026-01-20 06:00 GMT00", "2026-01-20 06:00 UTC+",
	"2026-01-20 06:00 GMT-", "2026-01-20 06:00 +", "2026-01-20 06:00+", "2026-01-20 06:00 ZZ",
	"2026-01-20 06:00 Zulu", "2026-01-20 06:00 UCT", "2026-01-20 06:00 Universal", "2026-01-20 06:00 U",
	"2026-01-20 06:00 SystemV/EST5EDT", "1974-01-06 02:30 SystemV/EST5EDT", "1974-11-24 01:30 SystemV/EST5EDT",
	"2026-03-08 02:30 America/New_York", "2026-11-01 01:30 America/New_York", "1918-03-31 02:30 EST5EDT",
	"1930-06-30 01:00 CST6CDT", "1900-01-01 00:00 Europe/Amsterdam", "1850-01-01 00:00 Asia/Kolkata",
	"2026-01-20 06:00:00.5 CET", "2026-01-20 06:00:00.5 Europe/Paris", "2026-01-20 06:00:00 Europe/Paris ",
}

// timestampProduct is every combination of a few forms of each part of
// a date-time literal.
func timestampProduct() []string {
	dates := []string{"2026-01-20", "2026-1-2", "-2026-01-20", "12026-01-20", "+2026-01-20", "1500-02-29", "2026-02-29"}
	seps := []string{" ", "T"}
	times := []string{"06:00", "6:5", "06:00:30", "24:00", "06:00:5"}
	fractions := []string{"", ".", ".5", ".1234", ".123456789", ".1234567891"}
	zones := []string{"", "Z", " Z", "+01", "+0130", "+01:30", " +01", " +0130", " +01:30", " +01:30:15",
		" UTC", " GMT+02:00", " Europe/Paris", " CET", " Central European Standard Time", "X"}
	var out []string
	for _, d := range dates {
		for _, s := range seps {
			for _, tm := range times {
				for _, f := range fractions {
					for _, z := range zones {
						out = append(out, d+s+tm+f+z)
					}
				}
			}
		}
		for _, z := range zones {
			out = append(out, d+z)
		}
	}
	return out
}

var dateEdgeCases = []string{
	"", "2026-01-20", "1970-01-01", "-0001-12-31", "+10000-01-01", "10000-01-01", "+2026-01-20",
	"2026-1-20", "2026-02-29", "2024-02-29", "2026-02-30", "2026-04-31", "0000-01-01", "1582-10-10",
	"1500-02-29", "-5877641-06-23", "-5877641-06-22", "5881580-07-11", "5881580-07-12",
	"+5881580-07-11", "+5881580-07-12", "-9999999-01-01", "+99999999-01-01", "+1000000000-01-01",
	" 2026-01-20", "2026-01-20 ", "2026-01-20Z", "2026-01-20 00:00", "2026-01-20T00:00",
	"0", "2147483648", "4294967295", "4294967296", "-5", "-0", "+5", "99999999999999999999",
	"２０２６-01-20", "now", "-0000-01-01", "+0000-01-01", "+00000-01-01", "-999999999-01-01",
	"+999999999-12-31", "-1000000000-01-01", "+1000000000-01-01", "-292275055-05-16", "-292275055-05-17",
	"+292278994-08-17", "+292278994-08-18", "-5877641-06-23", "+10000-02-29", "+10000-02-30", "2026-02-00",
	"2026-00-01", "2026-13-01", "2026-01-32", "2026-01-1", "2026-1-01", "02026-01-01", "2026-01-20\n",
}

var timeEdgeCases = []string{
	"", "06:00:00", "06:00:00.123", "06:00:00.123456789", "23:59:59.999999999", " 6:7:8 ",
	"24:00:00", "06:60:00", "06:00:60", "06:00:00.1234567890", "06:00:00.", "06:00", "6:7:8",
	"+6:7:8", "-0:0:0", "06:+5:00", "06:00:+5", "06:00:00.+5", "06:00:00.5", "06:00:00.5a",
	"06:00:00.-5", "０６:00:00", "06:00:00.０", "06:00:00 Z", "06:00:00Z", "06:00:00.1.2",
	"0", "86399999999999", "86400000000000", "-1", "-0", "99999999999999999999", "now",
	"\t06:00:00\n", "06 :00:00",
}

var durationEdgeCases = []string{
	"", "1h30m", "12mo3d", "1y2mo3w4d5h6m7s8ms9us10ns", "2µs", "2μs", "-1d", "P1Y2M3DT4H5M6S",
	"P2W", "-P1W", "P0001-02-03T04:05:06", "P1Y2D", "PT", "P", "P1W1D", "PT0.5S", "P1DT2H",
	"P0000-00-00T00:00:00", "P2026-13-45T99:99:99", "P1-2-3T4:5:6", "1h1h", "1m1h", "1h30", "3",
	"1H30M", "1MO", "1Mo", "1mO", "1MS", "1Ms", "1US", "1NS", "1µS", "1d1h1m", "1h1d",
	"9223372036854775807ns", "9223372036854775808ns", "99999999999999999999ns",
	"99999999999999999999h1x", "2147483647mo", "178956971y", "2147483648d", "P178956971Y",
	"P178956971YX", "P99999999999999999999Y", "P99999999999999999999W", "P1Y1Y", "P1M1Y",
	"PT1H1H", "PT1S1M", "p1y", "P1y", "pt1h", "P1.5Y", "- 1h", "--1h", "-", "+1h", "1h ", " 1h",
	"1 h", "1h-1m", "0h", "0s0ms", "1w2w", "1d1w",
}
