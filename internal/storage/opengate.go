package storage

import (
	"sync"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

// openGate is Pebble's compaction scheduler for the store: it grants as
// many compactions as Pebble allows itself (as Pebble's default scheduler
// does), but none until the store has opened.
//
// Pebble's Open flushes the memtable it replayed from the WAL, which lets
// compactions start, and then, before returning, waits for every running
// compaction to end (scanObsoleteFiles). After a crash with compaction
// debt — a kill -9 while ingesting or compacting — that wait is a whole
// compaction of hundreds of megabytes: seconds before the node serves. With
// the gate the debt is paid once the store is open, in the background, as
// it is at any other time.
type openGate struct {
	db pebble.DBForCompaction
	mu struct {
		sync.Mutex
		open, unregistered, granting bool
		running                      int
	}
	cond     *sync.Cond
	poke     chan struct{}
	stop     chan struct{}
	stopOnce sync.Once
	stopped  chan struct{}
	// registered is closed by Register.
	registered chan struct{}
}

var _ pebble.CompactionScheduler = (*openGate)(nil)

// openGateTick is how often the gate offers Pebble a compaction it waits
// for (Pebble's default scheduler samples at the same rate).
const openGateTick = 100 * time.Millisecond

func newOpenGate() *openGate {
	g := &openGate{poke: make(chan struct{}, 1), stop: make(chan struct{}), stopped: make(chan struct{}), registered: make(chan struct{})}
	g.cond = sync.NewCond(&g.mu.Mutex)
	return g
}

// Register implements pebble.CompactionScheduler.
func (g *openGate) Register(_ int, db pebble.DBForCompaction) {
	g.db = db
	close(g.registered)
	go g.granter()
}

// Unregister implements pebble.CompactionScheduler.
func (g *openGate) Unregister() {
	g.end()
	g.mu.Lock()
	defer g.mu.Unlock()
	g.mu.unregistered = true
	for g.mu.granting {
		g.cond.Wait()
	}
}

// TrySchedule implements pebble.CompactionScheduler.
func (g *openGate) TrySchedule() (bool, pebble.CompactionGrantHandle) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.mu.open || g.mu.unregistered || g.db.GetAllowedWithoutPermission() <= g.mu.running {
		return false, nil
	}
	g.mu.running++
	return true, g
}

// UpdateGetAllowedWithoutPermission implements pebble.CompactionScheduler.
func (g *openGate) UpdateGetAllowedWithoutPermission() { g.wake() }

// Started, MeasureCPU and CumulativeStats implement
// pebble.CompactionGrantHandle; Done ends a granted compaction.
func (g *openGate) Started()                                          {}
func (g *openGate) MeasureCPU(pebble.CompactionGoroutineKind)         {}
func (g *openGate) CumulativeStats(pebble.CompactionGrantHandleStats) {}

func (g *openGate) Done() {
	g.mu.Lock()
	g.mu.running--
	g.mu.Unlock()
	g.wake()
}

// end stops the granter, if Register started it: Unregister, or a failed
// Open (which may return without unregistering).
func (g *openGate) end() {
	select {
	case <-g.registered:
	default:
		return
	}
	g.stopOnce.Do(func() { close(g.stop) })
	<-g.stopped
}

// opened lets compactions run.
func (g *openGate) opened() {
	g.mu.Lock()
	g.mu.open = true
	g.mu.Unlock()
	g.wake()
}

func (g *openGate) wake() {
	select {
	case g.poke <- struct{}{}:
	default:
	}
}

// granter offers Pebble the compactions it waits for, on every wake and
// every tick.
func (g *openGate) granter() {
	defer close(g.stopped)
	t := time.NewTicker(openGateTick)
	defer t.Stop()
	for {
		select {
		case <-g.stop:
			return
		case <-t.C:
		case <-g.poke:
		}
		g.grant()
	}
}

func (g *openGate) grant() {
	g.mu.Lock()
	if !g.mu.open || g.mu.unregistered || g.mu.granting {
		g.mu.Unlock()
		return
	}
	free := g.db.GetAllowedWithoutPermission() - g.mu.running
	if free <= 0 {
		g.mu.Unlock()
		return
	}
	g.mu.granting = true
	g.mu.Unlock()
	for ; free > 0; free-- {
		if waiting, _ := g.db.GetWaitingCompaction(); !waiting {
			break
		}
		g.mu.Lock()
		g.mu.running++ // before Schedule: the compaction may end at once
		g.mu.Unlock()
		if !g.db.Schedule(g) {
			g.mu.Lock()
			g.mu.running--
			g.mu.Unlock()
			break
		}
	}
	g.mu.Lock()
	g.mu.granting = false
	g.cond.Broadcast()
	g.mu.Unlock()
}
