package engine_test

// rqKnownDivergence is a divergence the test has found and that is being
// fixed elsewhere: while it stays in rqKnownDivergences the test logs it
// and does not fail. Each has its shrunk repro as a datadriven case in
// testdata/random_repros, which fails until the fix lands; remove the
// entry with the fix.
//
// A class is recognised by what the bug does, not by the query's looks
// alone (say, "the rows are the reference's answer to the query without
// its clustering relations"), so that another bug in the same kind of
// query still fails the test.
type rqKnownDivergence struct {
	name  string
	repro string // testdata/random_repros file
	match func(c *rqKnownCtx) bool
}

// rqKnownCtx is a divergence with what is needed to recognise it.
type rqKnownCtx struct {
	sc   *rqScenario
	m    *rqModel
	q    *rqQuery
	v    rqVerdict
	d    *rqDivergence
	out  rqOutcome
	page int
}

// rqKnownDivergences is empty while no divergence this test fails on is
// open; the ones it found are cases in testdata/random_repros.
var rqKnownDivergences = []rqKnownDivergence{}

func rqKnown(c *rqKnownCtx) *rqKnownDivergence {
	for i := range rqKnownDivergences {
		if k := &rqKnownDivergences[i]; k.match(c) {
			return k
		}
	}
	return nil
}

// answers reports whether got is the reference's answer to q2 (what an
// entry's match uses to say "the target answered another query").
func (c *rqKnownCtx) answers(q2 *rqQuery, got string) bool {
	v2 := rqCheck(q2, c.sc.indexed())
	if v2.unsure != "" || !v2.ok || rqUnsureData(c.m, q2, v2) != "" {
		return false
	}
	return rqRowsText(q2, rqEvaluate(c.m, q2, v2)) == got
}
