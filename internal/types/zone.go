package types

import (
	_ "embed"
	"strings"
	"sync"
)

// The zone part of a timestamp literal, as java.time parses it for
// Cassandra 5.0's TimestampSerializer (datetime.go lists the patterns):
// offsets (patterns X and XXX, and ISO_DATE's offset id), and zone names
// and ids (patterns z and zzzz), which
// DateTimeFormatterBuilder.ZoneIdPrinterParser.parse reads: a leading sign
// is an offset; UT, UTC and GMT, optionally followed by an offset, are
// fixed zones; GMT0 is GMT; anything else is looked up, case-sensitively,
// among the names the JDK knows (zonenames.tsv, generated from the JDK the
// reference node runs on); and a lone Z is UTC. A region's offsets are the
// JDK's too (zonerules.go), so a name means here what it means there.

// parsedZone is a fixed offset, or a region whose rules give the offset.
type parsedZone struct {
	region string // a zone region id, "" for a fixed offset
	offset int64  // seconds east of UTC when region == ""
}

var utcZone = parsedZone{}

// maxOffsetSeconds is ZoneOffset's limit, ±18:00.
const maxOffsetSeconds = 18 * 3600

//go:embed zonenames.tsv
var zoneNamesTSV string

// zoneNameTable is zonenames.tsv: for each name, the zone it stands for
// after pattern z (short names) and after pattern zzzz (long names).
type zoneNameTable struct {
	short, long map[string]string
}

var zoneNames = sync.OnceValue(func() *zoneNameTable {
	t := &zoneNameTable{short: map[string]string{}, long: map[string]string{}}
	for _, line := range strings.Split(zoneNamesTSV, "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			panic("types: malformed zonenames.tsv line " + line)
		}
		if f[1] != "-" {
			t.short[f[0]] = f[1]
		}
		if f[2] != "-" {
			t.long[f[0]] = f[2]
		}
	}
	return t
})

// zoneTextLookup is the name lookup of patterns z and zzzz; Cassandra
// tries the z formatter first, so a name both know means its short-name
// zone.
func zoneTextLookup(name string) (string, bool) {
	t := zoneNames()
	if id, ok := t.short[name]; ok {
		return id, true
	}
	id, ok := t.long[name]
	return id, ok
}

// parseZoneText parses all of text as the zone text of patterns z and zzzz
// (ZoneTextPrinterParser, whose parse is ZoneIdPrinterParser.parse).
func parseZoneText(text string) (parsedZone, bool) {
	switch {
	case text == "":
		return parsedZone{}, false
	case text[0] == '+' || text[0] == '-':
		off, ok := parseOffset(text, offsetHHMMss, "Z", false)
		return parsedZone{offset: off}, ok
	case strings.HasPrefix(text, "UTC"):
		return prefixedOffset(text[3:])
	case strings.HasPrefix(text, "UT"):
		return prefixedOffset(text[2:])
	case strings.HasPrefix(text, "GMT0"):
		return utcZone, text == "GMT0"
	case strings.HasPrefix(text, "GMT"):
		return prefixedOffset(text[3:])
	}
	if id, ok := zoneTextLookup(text); ok {
		return parsedZone{region: id}, true
	}
	return utcZone, text == "Z"
}

// prefixedOffset is what may follow UT, UTC or GMT (parseOffsetBased):
// nothing, or an offset +HH:MM[:ss] (the zone is then that offset).
func prefixedOffset(rest string) (parsedZone, bool) {
	if rest == "" {
		return utcZone, true
	}
	if rest[0] == '0' || rest[0] == 'Z' {
		// The bare prefix is the zone, and the 0 or Z is left unparsed.
		return parsedZone{}, false
	}
	off, ok := parseOffset(rest, offsetHHMMss, "0", false)
	return parsedZone{offset: off}, ok
}

// offsetPattern is one of OffsetIdPrinterParser's patterns.
type offsetPattern int

const (
	offsetHHmm   offsetPattern = iota // +HH, +HHmm (pattern X)
	offsetHHMM                        // +HH:MM (pattern XXX)
	offsetHHMMss                      // +HH:MM, +HH:MM:ss (offset ids)
)

// parseOffset parses all of text as OffsetIdPrinterParser.parse does in
// strict mode: noOffset (Z or 0; case-insensitively when asked) is zero,
// otherwise a sign and two-digit hours, minutes and seconds as the
// pattern has them, each at most 23, 59 and 59, and the total within
// ZoneOffset's ±18:00.
func parseOffset(text string, pattern offsetPattern, noOffset string, caseInsensitive bool) (int64, bool) {
	if text == noOffset || caseInsensitive && strings.EqualFold(text, noOffset) {
		return 0, true
	}
	if text == "" || text[0] != '+' && text[0] != '-' {
		return 0, false
	}
	p := dtScanner{s: text, pos: 1}
	h, ok := p.fixedDigits(2)
	if !ok {
		return 0, false
	}
	var m, s int64
	switch pattern {
	case offsetHHmm:
		if !p.done() {
			if m, ok = p.fixedDigits(2); !ok {
				return 0, false
			}
		}
	case offsetHHMM, offsetHHMMss:
		if !p.accept(':') {
			return 0, false
		}
		if m, ok = p.fixedDigits(2); !ok {
			return 0, false
		}
		if pattern == offsetHHMMss && p.accept(':') {
			if s, ok = p.fixedDigits(2); !ok {
				return 0, false
			}
		}
	}
	if !p.done() || h > 23 || m > 59 || s > 59 {
		return 0, false
	}
	off := h*3600 + m*60 + s
	if off > maxOffsetSeconds {
		return 0, false
	}
	if text[0] == '-' {
		off = -off
	}
	return off, true
}

// instant returns the epoch second of a local date-time (seconds since
// 1970-01-01T00:00 on the local clock) in z.
func (z parsedZone) instant(local int64) int64 {
	if z.region == "" {
		return local - z.offset
	}
	return zoneRulesOf(z.region).localToInstant(local)
}
