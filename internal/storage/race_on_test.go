//go:build race

package storage

// raceEnabled reports whether the race detector is on: it multiplies heap
// use, so heap bounds are not measured under it.
const raceEnabled = true
