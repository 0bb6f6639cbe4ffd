package differential_test

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/types"
	"github.com/partita-db/partita/test/internal/cassandra"
)

// TestTemporalOracle parses timestamp, date, time and duration strings
// with Partita and with Cassandra 5.0.6's own types (TimestampType,
// SimpleDateType, TimeType and DurationType.fromString, run in a JVM on
// the reference node's jars by testdata/TemporalOracle.java) and demands
// the same value or the same error: the message of a MarshalException or
// InvalidRequestException as an Invalid error, any other exception as the
// Server error Cassandra sends for it. The strings are the edge cases of
// literals_test.go and of internal/types' literal testdata, every
// combination of a few forms of each part of a date-time
// (timestampProduct), every zone name Partita knows (zoneCases), and
// random strings built from those parts (PARTITA_ORACLE_SEED repeats a
// run; PARTITA_ORACLE_CASES sets how many of each kind, default 2000;
// PARTITA_ORACLE_VERBOSE=1 logs every answer).
func TestTemporalOracle(t *testing.T) {
	cassandra.Require(t)
	if err := cassandra.Install(); err != nil {
		t.Fatal(err)
	}
	oracle := startTemporalOracle(t)
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("PARTITA_ORACLE_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	n := 2000
	if s := os.Getenv("PARTITA_ORACLE_CASES"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	t.Logf("seed %d (PARTITA_ORACLE_SEED=%d repeats this run)", seed, seed)
	r := rand.New(rand.NewPCG(seed, seed>>1))
	var cases []oracleCase
	addAll := func(kind string, literals []string) {
		for _, s := range literals {
			cases = append(cases, oracleCase{kind, s})
		}
	}
	addAll("ts", timestampEdgeCases)
	addAll("ts", timestampProduct())
	addAll("dt", dateEdgeCases)
	addAll("tm", timeEdgeCases)
	addAll("du", durationEdgeCases)
	for i := 0; i < n; i++ {
		cases = append(cases, oracleCase{"ts", randomTimestamp(r)}, oracleCase{"dt", randomDate(r)},
			oracleCase{"tm", randomTime(r)}, oracleCase{"du", randomDuration(r)})
	}
	cases = append(cases, zoneCases(t, r)...)
	cases = append(cases, literalTestdataCases(t)...)
	start := time.Now()
	answers := oracle.ask(t, cases)
	failures := 0
	verbose := os.Getenv("PARTITA_ORACLE_VERBOSE") != ""
	for i, c := range cases {
		want := answers[i]
		if verbose {
			t.Logf("%s %q -> %s", c.kind, c.text, want)
		}
		for _, got := range partitaAnswers(c) {
			if got.answer == want || strings.EqualFold(c.text, "now") && strings.HasPrefix(want, "value ") && strings.HasPrefix(got.answer, "value ") {
				continue
			}
			if failures++; failures <= 40 {
				t.Errorf("%s %q via %s:\n  Partita:   %s\n  Cassandra: %s", c.kind, c.text, got.path, got.answer, want)
			}
		}
	}
	t.Logf("%d strings compared in %v, %d differ", len(cases), time.Since(start).Round(time.Millisecond), failures)
}

type oracleCase struct{ kind, text string }

// literalTestdataCases is the timestamp, date, time and duration literals
// of internal/types/testdata/datadriven/literal, whose expected values say
// they were confirmed against the reference: this test is where they are.
// A quoted literal is its unquoted text; a duration only counts unquoted,
// as Cassandra takes no string literal for a duration.
func literalTestdataCases(t *testing.T) []oracleCase {
	data, err := os.ReadFile(filepath.Join("..", "..", "internal", "types", "testdata", "datadriven", "literal"))
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{"timestamp": "ts", "date": "dt", "time": "tm", "duration": "du"}
	var cases []oracleCase
	kind := ""
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "literal type="):
			kind = kinds[strings.TrimPrefix(line, "literal type=")]
		case line == "----":
			kind = ""
		case kind == "" || line == "":
		case len(line) >= 2 && line[0] == '\'' && line[len(line)-1] == '\'':
			if kind != "du" {
				cases = append(cases, oracleCase{kind, strings.ReplaceAll(line[1:len(line)-1], "''", "'")})
			}
		default:
			cases = append(cases, oracleCase{kind, line})
		}
	}
	if len(cases) < 100 {
		t.Fatalf("only %d temporal literals found in the literal testdata", len(cases))
	}
	return cases
}

// zoneCases is every zone name of Partita's table (in winter and summer),
// and every zone they name at random local times from 1850 to 2150, a
// third of them in the early hours of the days clocks are most often
// changed on, where gaps and overlaps are.
func zoneCases(t *testing.T, r *rand.Rand) []oracleCase {
	data, err := os.ReadFile(filepath.Join("..", "..", "internal", "types", "zonenames.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []oracleCase
	zones := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 3 || strings.HasPrefix(line, "#") {
			continue
		}
		cases = append(cases, oracleCase{"ts", "2026-01-20 06:00 " + f[0]}, oracleCase{"ts", "2026-07-20T06:00:00.5 " + f[0]})
		for _, z := range f[1:] {
			if z != "-" {
				zones[z] = true
			}
		}
	}
	for zone := range zones {
		for i := 0; i < 8; i++ {
			year, month, day := 1850+r.IntN(301), 1+r.IntN(12), 1+r.IntN(28)
			hour, minute := r.IntN(24), r.IntN(60)
			if i%3 == 0 {
				month, day, hour = pick2(r, 3, 4, 9, 10, 11), pick2(r, 1, 8, 25, 26, 27, 28, 29, 30), r.IntN(4)
			}
			cases = append(cases, oracleCase{"ts", fmt.Sprintf("%d-%02d-%02d %02d:%02d %s", year, month, day, hour, minute, zone)})
		}
	}
	return cases
}

// temporalOracle is a running TemporalOracle JVM.
type temporalOracle struct {
	in  io.WriteCloser
	out *bufio.Reader
}

func startTemporalOracle(t *testing.T) *temporalOracle {
	home := os.Getenv("PARTITA_CASSANDRA_HOME") // as scripts/cassandra.sh has it
	if home == "" {
		dir, err := os.UserHomeDir()
		if err != nil {
			t.Fatal(err)
		}
		home = filepath.Join(dir, ".cache", "partita", "cassandra-5.0.6")
	}
	jars, err := filepath.Glob(filepath.Join(home, "lib", "*.jar"))
	if err != nil || len(jars) == 0 {
		t.Fatalf("no Cassandra jars in %s/lib (%v)", home, err)
	}
	java := os.Getenv("JAVA")
	if java == "" {
		java = "java"
	}
	logback := filepath.Join(t.TempDir(), "logback.xml")
	if err := os.WriteFile(logback, []byte(`<configuration><root level="OFF"/></configuration>`), 0o644); err != nil {
		t.Fatal(err)
	}
	// Partita reads a date-time without a zone as UTC; the reference node
	// reads it in its JVM's zone, which test machines have as UTC.
	cmd := exec.Command(java, "-Duser.timezone=UTC", "-Dlogback.configurationFile="+logback,
		"-cp", strings.Join(jars, string(os.PathListSeparator)), filepath.Join("testdata", "TemporalOracle.java"))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	return &temporalOracle{in: in, out: bufio.NewReaderSize(out, 1<<16)}
}

// ask sends every case and returns the answers in order, as Partita would
// word them to a client (see partitaAnswers).
func (o *temporalOracle) ask(t *testing.T, cases []oracleCase) []string {
	go func() {
		w := bufio.NewWriterSize(o.in, 1<<16)
		for _, c := range cases {
			fmt.Fprintf(w, "%s\t%s\n", c.kind, hex.EncodeToString([]byte(c.text)))
		}
		w.Flush()
	}()
	answers := make([]string, len(cases))
	for i := range cases {
		line, err := o.out.ReadString('\n')
		if err != nil {
			t.Fatalf("oracle answer %d of %d: %v", i, len(cases), err)
		}
		f := strings.SplitN(strings.TrimSuffix(line, "\n"), "\t", 3)
		if len(f) == 3 {
			msg, err := hex.DecodeString(f[2])
			if err != nil {
				t.Fatalf("oracle answer %q: %v", line, err)
			}
			f[2] = string(msg)
		}
		switch {
		case f[0] == "ok":
			answers[i] = "value " + f[1]
		case f[1] == "org.apache.cassandra.serializers.MarshalException",
			f[1] == "org.apache.cassandra.exceptions.InvalidRequestException":
			answers[i] = "Invalid: " + f[2]
		default:
			answers[i] = "Server: " + f[1] + ": " + f[2]
		}
	}
	return answers
}

type pathAnswer struct{ path, answer string }

// partitaAnswers parses c as a string literal and as a JSON string (the two
// paths that reach fromString; a duration only the second, as Cassandra
// takes no string literal for a duration), and words each result as ask
// does.
func partitaAnswers(c oracleCase) []pathAnswer {
	typ := map[string]*types.Type{"ts": types.Timestamp, "dt": types.Date, "tm": types.Time, "du": types.Duration}[c.kind]
	var out []pathAnswer
	if c.kind != "du" {
		v, err := types.FromString(typ, c.text)
		out = append(out, pathAnswer{"a string literal", answerOf(c.kind, v, err)})
	}
	v, err := types.FromJSON(typ, c.text)
	return append(out, pathAnswer{"a JSON string", answerOf(c.kind, v, err)})
}

func answerOf(kind string, v []byte, err error) string {
	if err != nil {
		e := cqlerr.As(err)
		if e.Code == cqlerr.Invalid {
			return "Invalid: " + e.Message
		}
		return "Server: " + e.Message
	}
	if len(v) == 0 {
		return "value empty"
	}
	switch kind {
	case "ts", "tm":
		return fmt.Sprintf("value %d", int64(binary.BigEndian.Uint64(v)))
	case "dt":
		return fmt.Sprintf("value %d", binary.BigEndian.Uint32(v))
	}
	months, days, nanos, err := types.DecodeDuration(v)
	if err != nil {
		return "undecodable " + err.Error()
	}
	return fmt.Sprintf("value %d %d %d", months, days, nanos)
}

func pick(r *rand.Rand, options ...string) string { return options[r.IntN(len(options))] }

func digits(r *rand.Rand, min, max int) string {
	var b strings.Builder
	for n := min + r.IntN(max-min+1); n > 0; n-- {
		b.WriteByte(byte('0' + r.IntN(10)))
	}
	return b.String()
}

// number is a field value: usually in or near its range, with or without
// padding, sometimes signed, long or not a number.
func number(r *rand.Rand, max int) string {
	switch r.IntN(12) {
	case 0:
		return digits(r, 1, 21)
	case 1:
		return pick(r, "-", "+") + strconv.Itoa(r.IntN(max+2))
	case 2:
		return fmt.Sprintf("%02d", r.IntN(max+3))
	case 3:
		return fmt.Sprintf("%03d", r.IntN(max+1))
	case 4:
		return pick(r, "", "x", "٣", "０", " 1", "1 ")
	}
	return strconv.Itoa(r.IntN(max + 2))
}

func randomYear(r *rand.Rand) string {
	switch r.IntN(8) {
	case 0:
		return pick(r, "+", "-", "") + digits(r, 1, 12)
	case 1:
		return pick(r, "0000", "0001", "-0001", "-0000", "1582", "1900", "2000", "2024", "9999", "10000", "+10000",
			"292278994", "292278995", "-292275055", "+292278994", "999999999", "+999999999", "-999999999",
			"1000000000", "+5881580", "-5877641", "5881580")
	}
	return strconv.Itoa(1900 + r.IntN(250))
}

func randomZone(r *rand.Rand) string {
	sign := pick(r, "+", "-")
	hh := fmt.Sprintf("%02d", r.IntN(26))
	mm := fmt.Sprintf("%02d", pick2(r, r.IntN(61), 0, 30))
	ss := fmt.Sprintf("%02d", r.IntN(61))
	offsets := []string{sign + hh, sign + hh + mm, sign + hh + ":" + mm, sign + hh + ":" + mm + ":" + ss,
		sign + hh + mm + ss, sign + strconv.Itoa(r.IntN(24)), sign + hh + ":" + strconv.Itoa(r.IntN(60))}
	offset := offsets[r.IntN(len(offsets))]
	switch r.IntN(10) {
	case 0, 1:
		return offset
	case 2:
		return " " + offset
	case 3:
		return " " + pick(r, "UTC", "UT", "GMT", "") + offset
	case 4:
		return pick(r, "Z", "z", " Z", " z", "", " ", "Z[UTC]", "[UTC]")
	case 5:
		return offset + "[" + pick(r, "Europe/Paris", "UTC", "GMT0", "Z", "+01:00", "Etc/GMT+5", "Mars/X", "utc", "UTC+01:00") + "]"
	case 6:
		return pick(r, " UTC0", " GMT0", " GMT0x", " UTCZ", " UTC", " GMT", " UT", " U", " G", " Zulu", " ZZ", " CET",
			" EST", " SystemV/EST5EDT", " SystemV/PST8", " Etc/GMT-14", " Asia/Kolkata", " America/Sao_Paulo")
	}
	return " " + zoneNameSample[r.IntN(len(zoneNameSample))]
}

func pick2(r *rand.Rand, options ...int) int { return options[r.IntN(len(options))] }

// zoneNameSample is a spread of the JDK's zone names (zonenames.tsv) and
// some it does not know.
var zoneNameSample = []string{
	"Europe/Paris", "Europe/London", "Europe/Moscow", "America/New_York", "America/Los_Angeles",
	"America/St_Johns", "America/Havana", "America/Santiago", "America/Asuncion", "Asia/Tokyo",
	"Asia/Kathmandu", "Asia/Tehran", "Australia/Sydney", "Australia/Lord_Howe", "Pacific/Chatham",
	"Pacific/Apia", "Pacific/Kiritimati", "Africa/Casablanca", "Antarctica/Troll", "Atlantic/Azores",
	"PST", "PDT", "PT", "EST", "EDT", "CST", "CDT", "MST", "HST", "AKST", "AST", "NST", "BST", "IST",
	"CET", "CEST", "EET", "WET", "MET", "MSK", "JST", "KST", "AEST", "AEDT", "NZST", "NZDT", "SGT",
	"Pacific Standard Time", "Pacific Daylight Time", "Pacific Time", "Eastern Standard Time",
	"Central European Standard Time", "Central European Summer Time", "Central European Time",
	"Greenwich Mean Time", "Coordinated Universal Time", "India Standard Time", "Japan Standard Time",
	"Australian Eastern Standard Time", "Moscow Standard Time", "Chatham Standard Time",
	"SystemV/AST4ADT", "SystemV/YST9YDT", "SystemV/HST10", "EST5EDT", "CST6CDT", "Etc/UTC", "Etc/GMT",
	"UCT", "Universal", "Zulu", "Europe/Kyiv", "Europe/Kiev", "America/Ciudad_Juarez",
	"europe/paris", "Europe/paris", "PST8PDT", "Mars/Olympus", "CEST ", "Pacific standard time",
}

func randomTimestamp(r *rand.Rand) string {
	date := randomYear(r) + pick(r, "-", "-", "-", "/") + number(r, 12) + pick(r, "-", "-", "-", "") + number(r, 31)
	if r.IntN(4) == 0 {
		date = randomYear(r) + "-" + fmt.Sprintf("%02d-%02d", 1+r.IntN(12), 1+r.IntN(31))
	}
	var tm string
	if r.IntN(5) > 0 {
		tm = pick(r, " ", "T", " ", "T", "t", "  ") + number(r, 24) + ":" + number(r, 59)
		if r.IntN(3) > 0 {
			tm += ":" + number(r, 59)
		}
		if r.IntN(2) == 0 {
			tm += "." + digits(r, 0, 11)
		}
	}
	var zone string
	if r.IntN(3) > 0 {
		zone = randomZone(r)
	}
	s := date + tm + zone
	if r.IntN(20) == 0 {
		s = mutate(r, s)
	}
	return s
}

func randomDate(r *rand.Rand) string {
	switch r.IntN(6) {
	case 0:
		return pick(r, "", "-", "+") + digits(r, 1, 11)
	case 1:
		return mutate(r, randomYear(r)+"-01-01")
	}
	s := randomYear(r) + "-" + number(r, 12) + "-" + number(r, 31)
	if r.IntN(10) == 0 {
		s += pick(r, "Z", " ", "T00:00", "+01:00")
	}
	return s
}

func randomTime(r *rand.Rand) string {
	switch r.IntN(6) {
	case 0:
		return pick(r, "", "-", "+") + digits(r, 1, 20)
	case 1:
		return mutate(r, "12:34:56.789")
	}
	s := number(r, 24) + ":" + number(r, 60) + ":" + number(r, 60)
	if r.IntN(2) == 0 {
		s += "." + pick(r, digits(r, 0, 11), "+1", "-1", "1x", "٣", "1 ")
	}
	return pick(r, "", "", "", " ", "\t") + s + pick(r, "", "", "", " ", "\n")
}

func randomDuration(r *rand.Rand) string {
	units := []string{"y", "Y", "mo", "MO", "Mo", "w", "W", "d", "D", "h", "H", "m", "M", "s", "S", "ms", "MS",
		"us", "US", "µs", "µS", "μs", "ns", "NS", "x", ""}
	var b strings.Builder
	switch r.IntN(5) {
	case 0, 1:
		for n := 1 + r.IntN(4); n > 0; n-- {
			b.WriteString(pick(r, strconv.Itoa(r.IntN(100)), digits(r, 1, 20), "0"))
			b.WriteString(units[r.IntN(len(units))])
		}
	case 2:
		b.WriteString(pick(r, "P", "P", "p"))
		for _, d := range []string{"Y", "M", "D", "T", "H", "M", "S"} {
			if r.IntN(2) == 0 {
				if d != "T" {
					b.WriteString(pick(r, strconv.Itoa(r.IntN(100)), digits(r, 1, 20), "1.5"))
				}
				b.WriteString(d)
			}
		}
	case 3:
		b.WriteString("P" + digits(r, 1, 20) + pick(r, "W", "W", "w", "D"))
	default:
		b.WriteString(fmt.Sprintf("P%s-%s-%sT%s:%s:%s", digits(r, 3, 5), digits(r, 1, 2), digits(r, 2, 2),
			digits(r, 2, 2), digits(r, 2, 3), digits(r, 2, 2)))
	}
	s := pick(r, "", "", "", "-", "--", "+") + b.String()
	if r.IntN(15) == 0 {
		s = mutate(r, s)
	}
	return s
}

// mutate inserts, deletes or replaces one byte, keeping the string valid
// UTF-8 (as query text reaches both servers).
func mutate(r *rand.Rand, s string) string {
	return strings.ToValidUTF8(mutateBytes(r, s), "\uFFFD")
}

func mutateBytes(r *rand.Rand, s string) string {
	chars := "0123456789-+:. TZz[]/"
	c := string(chars[r.IntN(len(chars))])
	if s == "" {
		return c
	}
	i := r.IntN(len(s))
	switch r.IntN(3) {
	case 0:
		return s[:i] + c + s[i:]
	case 1:
		return s[:i] + s[i+1:]
	}
	return s[:i] + c + s[i+1:]
}
