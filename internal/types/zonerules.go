package types

import (
	_ "embed"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Zone rules as java.time.zone.ZoneRules has them, read from
// zonerules.txt (generated from the JDK with zonenames.tsv; its header
// describes the format): a zone's historic transitions, and for the years
// after them, recurring ZoneOffsetTransitionRules. They are the JDK's
// rather than Go's time zone database because the two differ, before 1970
// mostly, for about a hundred of the zones the names stand for: the tz
// database merged zones whose histories the JDK keeps apart.

//go:embed zonerules.txt
var zoneRulesText string

// zoneRules is one zone's rules.
type zoneRules struct {
	initial     int64            // the offset before the first transition
	transitions []zoneTransition // ascending
	rules       []transitionRule
}

// zoneTransition is a change of offset at an epoch second.
type zoneTransition struct{ at, before, after int64 }

// transitionRule is a ZoneOffsetTransitionRule: the transition falls on a
// day of a month (the day-of-week on or after dom, or on or before the
// dom-th day from the end when dom is negative), at a second of that day
// (or the end of it) on the wall, standard or UTC clock.
type transitionRule struct {
	month, dom, dow    int64 // dow: 0 for none, 1 Monday .. 7 Sunday
	second             int64
	endOfDay           bool
	definition         byte // 'U', 'S' or 'W'
	std, before, after int64
}

var zoneRuleTable = sync.OnceValue(func() map[string]*zoneRules {
	table := map[string]*zoneRules{}
	for _, line := range strings.Split(zoneRulesText, "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			panic("types: malformed zonerules.txt line " + line)
		}
		z := parseZoneRules(f[1], f[2], f[3])
		for _, id := range strings.Fields(f[0]) {
			table[id] = z
		}
	}
	return table
})

func parseZoneRules(offsetsText, transitionsText, rulesText string) *zoneRules {
	var offsets []int64
	for _, o := range strings.Split(offsetsText, ",") {
		offsets = append(offsets, mustParseInt(o, 10))
	}
	z := &zoneRules{initial: offsets[0]}
	at, before := int64(0), offsets[0]
	for _, t := range splitNonEmpty(transitionsText, ",") {
		delta, index, _ := strings.Cut(t, ":")
		at += mustParseInt(delta, 36)
		after := offsets[mustParseInt(index, 10)]
		z.transitions = append(z.transitions, zoneTransition{at, before, after})
		before = after
	}
	for _, r := range splitNonEmpty(rulesText, ",") {
		v := strings.Fields(r)
		if len(v) != 9 {
			panic("types: malformed zonerules.txt rule " + r)
		}
		n := func(i int) int64 { return mustParseInt(v[i], 10) }
		z.rules = append(z.rules, transitionRule{
			month: n(0), dom: n(1), dow: n(2), second: n(3), endOfDay: v[4] == "1", definition: v[5][0],
			std: offsets[n(6)], before: offsets[n(7)], after: offsets[n(8)],
		})
	}
	return z
}

func splitNonEmpty(s, sep string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, sep)
}

func mustParseInt(s string, base int) int64 {
	n, err := strconv.ParseInt(s, base, 64)
	if err != nil {
		panic("types: malformed zonerules.txt number " + s)
	}
	return n
}

// zoneRulesOf returns the rules of a zone of zonenames.tsv (all have
// rules; TestZoneTablesAgree checks it).
func zoneRulesOf(id string) *zoneRules {
	if z, ok := zoneRuleTable()[id]; ok {
		return z
	}
	panic("types: no rules for zone " + id)
}

// offsetAt is ZoneRules.getOffset(Instant): the offset after the last
// historic transition at or before sec, or past them all, the one the
// year's recurring transitions give (the year taken on the clock of the
// last historic offset, as ZoneRules.findYear does).
func (z *zoneRules) offsetAt(sec int64) int64 {
	n := len(z.transitions)
	if n == 0 {
		return z.initial
	}
	if last := z.transitions[n-1]; len(z.rules) > 0 && sec > last.at {
		year, _, _ := civilFromDays(floorDiv(sec+last.after, 86400))
		yearly := z.ruleTransitions(year)
		for _, t := range yearly {
			if sec < t.at {
				return t.before
			}
		}
		return yearly[len(yearly)-1].after
	}
	i := sort.Search(n, func(i int) bool { return z.transitions[i].at > sec })
	if i == 0 {
		return z.initial
	}
	return z.transitions[i-1].after
}

// ruleTransitions is ZoneRules.findTransitionArray: the transitions the
// recurring rules give in a year, in rule order.
func (z *zoneRules) ruleTransitions(year int64) []zoneTransition {
	out := make([]zoneTransition, len(z.rules))
	for i, r := range z.rules {
		out[i] = zoneTransition{r.at(year), r.before, r.after}
	}
	return out
}

// at is ZoneOffsetTransitionRule.createTransition(year).toEpochSecond().
func (r transitionRule) at(year int64) int64 {
	var day int64
	if r.dom < 0 {
		day = daysFromCivil(year, r.month, daysInMonth(year, r.month, false)+1+r.dom)
		if r.dow != 0 {
			day -= floorMod(isoDayOfWeek(day)-r.dow, 7) // previousOrSame
		}
	} else {
		day = daysFromCivil(year, r.month, r.dom)
		if r.dow != 0 {
			day += floorMod(r.dow-isoDayOfWeek(day), 7) // nextOrSame
		}
	}
	if r.endOfDay {
		day++
	}
	local := day*86400 + r.second
	switch r.definition {
	case 'U':
		local += r.before
	case 'S':
		local += r.before - r.std
	}
	return local - r.before
}

// isoDayOfWeek is the ISO day of week (1 Monday .. 7 Sunday) of a day
// since the epoch, a Thursday.
func isoDayOfWeek(day int64) int64 { return floorMod(day+3, 7) + 1 }

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

// transitionsBetween returns the transitions at or after from and before
// to, historic and recurring, in order.
func (z *zoneRules) transitionsBetween(from, to int64) []zoneTransition {
	n := len(z.transitions)
	i := sort.Search(n, func(i int) bool { return z.transitions[i].at >= from })
	var out []zoneTransition
	for ; i < n && z.transitions[i].at < to; i++ {
		out = append(out, z.transitions[i])
	}
	if len(z.rules) == 0 || n == 0 {
		return out
	}
	lastHistoric := z.transitions[n-1].at
	first, _, _ := civilFromDays(floorDiv(from, 86400))
	last, _, _ := civilFromDays(floorDiv(to, 86400))
	for year := first - 1; year <= last+1; year++ {
		for _, t := range z.ruleTransitions(year) {
			if t.at > lastHistoric && t.at >= from && t.at < to {
				out = append(out, t)
			}
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].at < out[b].at })
	return out
}

// localToInstant is ZonedDateTime.ofLocal without a preferred offset: a
// local time with one valid offset takes it; one in a gap moves forward
// by the length of the gap, and one in an overlap takes the earlier
// offset, both of which come to reading it with the offset in force
// before the transition.
func (z *zoneRules) localToInstant(local int64) int64 {
	if len(z.transitions) == 0 {
		return local - z.initial
	}
	// Offsets stay within ±18 hours, so only transitions within a window
	// of that size around the local time matter.
	const margin = maxOffsetSeconds + 86400
	from, to := local-margin, local+margin
	transitions := z.transitionsBetween(from, to)
	start, offset := from, z.offsetAt(from)
	for i := 0; i <= len(transitions); i++ {
		end := to
		if i < len(transitions) {
			end = transitions[i].at
		}
		if inst := local - offset; inst >= start && inst < end {
			return inst
		}
		if i < len(transitions) {
			start, offset = end, transitions[i].after
		}
	}
	for _, t := range transitions {
		if t.at+t.before <= local && local < t.at+t.after {
			return local - t.before // in the gap of t
		}
	}
	return local - offset
}
