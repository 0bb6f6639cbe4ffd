package clusterstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/internal/backend"
	"github.com/partita-db/partita/internal/cqlerr"
)

// Read-modify-write leases (docs/design/gateway.md, "Read-modify-writes
// over several gateways"). One row of the leases table per logical
// partition a gateway has read-modified-written:
//
//	leases (table_id bigint, k blob, owner uuid, expires bigint, ceiling bigint, wanted map<uuid, bigint>,
//	        PRIMARY KEY ((table_id, k)))
//
// owner is the holder's nonce for this tenure (null: free), expires the
// end of the tenure by the holder's clock (µs), ceiling the highest write
// timestamp the holder may use without announcing more. Every change is a
// conditional update on the whole row (the cluster's Paxos), so the row's
// history is linear. The rules that make it safe:
//
//  1. A gateway takes a lease only when it is free, or when its clock has
//     passed expires + skew; the taker's floor is the row's ceiling, and
//     it writes only timestamps above its floor.
//  2. A holder writes only timestamps up to the ceiling it announced; a
//     larger one is announced first (a conditional update IF owner = it).
//  3. A holder reports a write as done only when the lease was held after
//     the write was acknowledged: its clock is still before
//     expires - skew, or a conditional update IF owner = it applies after
//     the acknowledgement. Otherwise the client gets a write timeout.
//
// With clocks that differ by less than skew, 3 orders every acknowledged
// write before the next holder's lease (so its quorum read sees it), and
// 1 and 2 make a write that landed late (a holder that stalled past its
// lease) lose last-write-wins to everything the next holders write.

// leaseTimings are the lease's durations.
type leaseTimings struct {
	duration time.Duration // a tenure, renewed while held
	skew     time.Duration // the clock difference tolerated between gateways
	linger   time.Duration // an idle lease is kept this long for reuse
	tenure   time.Duration // a busy lease is handed over after this long
	handoff  time.Duration // after a hand-over, local users wait this long
	grant    time.Duration // a lease handed over expires this soon unless renewed
}

// leases is a store's read-modify-write leases.
type leases struct {
	s       *Store
	timings leaseTimings
	// renewalsPaused stops renewals (a test hook standing for a stalled
	// gateway); stall runs in Fence, after its checks, before the write.
	renewalsPaused atomic.Bool
	stall          atomic.Pointer[func()]

	mu struct {
		sync.Mutex
		byKey map[string]*lease
	}
	stop chan struct{}
	done chan struct{}
}

// lease is one partition's lease as this gateway knows it.
type lease struct {
	table backend.TableID
	key   []byte

	// mu is held across the lease's conditional updates; inUse says a
	// statement is between LeasePartitions and Release (the split layer's
	// in-process lock makes it at most one).
	mu       sync.Mutex
	dead     bool // forgotten: take the table's new lease instead
	inUse    bool
	held     bool
	owner    gocql.UUID
	expires  int64 // µs, as written in the row
	floor    int64 // the previous holders' ceiling
	ceiling  int64
	maxUsed  int64 // the highest timestamp handed out by Fence
	acquired time.Time
	lastUse  time.Time
	handoff  time.Time // local users wait until then after a hand-over
	stale    bool      // handed over: seen must be read again
	// wantNonce is the taking that asked for the lease (in the row's
	// wanted map, keyed by nonce, valued by when it began to wait);
	// wantedAt is when it last asked.
	wantNonce gocql.UUID
	waitSince time.Time
	wantedAt  time.Time
	serial    gocql.SerialConsistency
	// seen is the row as last observed: the condition of the next update.
	seen leaseRow
}

// leaseRow is the row's values; nil fields are null.
type leaseRow struct {
	owner            *gocql.UUID
	expires, ceiling *int64
}

func newLeases(s *Store, t leaseTimings) *leases {
	m := &leases{s: s, timings: t, stop: make(chan struct{}), done: make(chan struct{})}
	m.mu.byKey = map[string]*lease{}
	go m.run()
	return m
}

func (m *leases) close() {
	close(m.stop)
	<-m.done
}

func (m *leases) get(p backend.LogicalPartition) *lease {
	k := fmt.Sprintf("%d/%x", p.Table, p.Key)
	m.mu.Lock()
	defer m.mu.Unlock()
	l := m.mu.byKey[k]
	if l == nil {
		l = &lease{table: p.Table, key: append([]byte{}, p.Key...)}
		m.mu.byKey[k] = l
	}
	return l
}

func micros(t time.Time) int64 { return t.UnixMicro() }

// LeasePartitions implements backend.PartitionLocker.
func (s *Store) LeasePartitions(ctx context.Context, ps []backend.LogicalPartition, levels backend.RequestLevels) (backend.PartitionLease, error) {
	if s.leases == nil {
		return noLease{}, nil
	}
	held := &heldLeases{m: s.leases}
	for _, p := range ps {
		l, err := s.leases.take(ctx, p, serialLevel(levels))
		if err != nil {
			held.unlock()
			return nil, err
		}
		held.leases = append(held.leases, l)
	}
	return held, nil
}

// take makes p's lease held by this gateway and in use.
func (m *leases) take(ctx context.Context, p backend.LogicalPartition, serial gocql.SerialConsistency) (*lease, error) {
	backoff := time.Millisecond
	var nonce gocql.UUID
	l := m.get(p)
	for {
		l.mu.Lock()
		if l.dead {
			l.mu.Unlock()
			l = m.get(p)
			continue
		}
		now := time.Now()
		if l.held && micros(now) < l.expires-m.timings.skew.Microseconds() {
			l.inUse = true
			l.mu.Unlock()
			return l, nil
		}
		if l.held {
			// Held but near its end (renewals late): renew it rather
			// than wait for it to expire.
			ok, err := m.extend(ctx, l, 0)
			if ok {
				l.inUse = true
			}
			l.mu.Unlock()
			if err != nil {
				return nil, err
			}
			if ok {
				return l, nil
			}
			continue
		}
		if now.Before(l.handoff) {
			wait := l.handoff.Sub(now)
			l.mu.Unlock()
			if err := sleep(ctx, wait); err != nil {
				return nil, err
			}
			continue
		}
		if nonce == (gocql.UUID{}) {
			nonce = gocql.TimeUUID()
		}
		ok, err := m.tryTake(ctx, l, nonce, serial)
		if ok {
			l.inUse = true
			m.unwant(ctx, l, nonce)
		}
		l.mu.Unlock()
		if err != nil {
			return nil, err
		}
		if ok {
			return l, nil
		}
		if err := sleep(ctx, backoff/2+rand.N(backoff)); err != nil {
			return nil, err
		}
		backoff = min(2*backoff, 8*time.Millisecond)
	}
}

// tryTake makes one attempt to take l (rule 1); l.mu is held.
func (m *leases) tryTake(ctx context.Context, l *lease, nonce gocql.UUID, serial gocql.SerialConsistency) (bool, error) {
	l.held = false
	if l.stale {
		// Handed over: look at the row again rather than take it back
		// on what this gateway wrote.
		if err := m.observe(ctx, l, serial); err != nil {
			return false, err
		}
		l.stale = false
	}
	seen := l.seen
	if seen.owner != nil && *seen.owner != nonce {
		// Held by another tenure: free only once its expiry (and the
		// skew) has passed by this clock.
		if seen.expires != nil && time.Now().UnixMicro() <= *seen.expires+m.timings.skew.Microseconds() {
			if err := m.observe(ctx, l, serial); err != nil {
				return false, err
			}
			seen = l.seen
			if m.adopt(l, nonce, seen, serial) {
				return true, nil
			}
			if seen.owner != nil && (seen.expires == nil || time.Now().UnixMicro() <= *seen.expires+m.timings.skew.Microseconds()) {
				return false, m.want(ctx, l, nonce, serial)
			}
		}
	}
	floor := int64(0)
	if seen.ceiling != nil {
		floor = *seen.ceiling
	}
	expires := micros(time.Now().Add(m.timings.duration))
	ceiling := max(expires, floor+1)
	applied, cur, err := m.update(ctx, l, serial,
		`SET owner = ?, expires = ?, ceiling = ?`, []any{nonce, expires, ceiling}, seen)
	if err != nil {
		return false, err
	}
	if !applied && m.adopt(l, nonce, cur, serial) {
		return true, nil
	}
	if !applied {
		l.seen = cur
		return false, nil
	}
	l.held, l.owner, l.expires, l.floor, l.ceiling, l.maxUsed = true, nonce, expires, floor, ceiling, floor
	l.acquired, l.serial = time.Now(), serial
	l.seen = leaseRow{owner: &nonce, expires: &expires, ceiling: &ceiling}
	return true, nil
}

// adopt takes l when the row names this taking's nonce as owner: the
// holder handed it over (finishUse), or an earlier attempt applied and its
// answer was lost. The floor is then the row's ceiling, a bound on what
// every earlier holder may write, and the ceiling too, so the first write
// announces its own (Fence).
func (m *leases) adopt(l *lease, nonce gocql.UUID, row leaseRow, serial gocql.SerialConsistency) bool {
	if row.owner == nil || *row.owner != nonce || row.expires == nil || row.ceiling == nil {
		return false
	}
	l.held, l.owner, l.expires, l.floor, l.ceiling, l.maxUsed = true, nonce, *row.expires, *row.ceiling, *row.ceiling, *row.ceiling
	l.acquired, l.serial, l.seen = time.Now(), serial, row
	return true
}

// observe reads the lease row, at the quorum of the serial consistency
// but outside Paxos, so that a waiter's polling does not contend with the
// holder's rounds: what it returns is only the guess of the next
// conditional update, which the cluster checks.
func (m *leases) observe(ctx context.Context, l *lease, serial gocql.SerialConsistency) error {
	release, err := m.s.acquire(ctx)
	if err != nil {
		return err
	}
	defer release()
	var row leaseRow
	err = m.s.session.Query(fmt.Sprintf(`SELECT owner, expires, ceiling FROM %s.leases WHERE table_id = ? AND k = ?`, m.s.keyspace),
		int64(l.table), l.key).WithContext(ctx).Consistency(rmwLevel(backend.RequestLevels{Serial: backend.Consistency(serial)})).
		Scan(&row.owner, &row.expires, &row.ceiling)
	if err == gocql.ErrNotFound {
		l.seen = leaseRow{}
		return nil
	}
	if err != nil {
		return clusterError(err)
	}
	l.seen = row
	return nil
}

// update runs one conditional update of l's row, conditioned on the whole
// row being cond, and returns the row's values when it does not apply.
func (m *leases) update(ctx context.Context, l *lease, serial gocql.SerialConsistency, set string, values []any, cond leaseRow) (bool, leaseRow, error) {
	release, err := m.s.acquire(ctx)
	if err != nil {
		return false, leaseRow{}, err
	}
	defer release()
	q := fmt.Sprintf(`UPDATE %s.leases %s WHERE table_id = ? AND k = ? IF owner = ? AND expires = ? AND ceiling = ?`, m.s.keyspace, set)
	args := append(append([]any{}, values...), int64(l.table), l.key, cond.owner, cond.expires, cond.ceiling)
	var cur leaseRow
	applied, err := m.s.session.Query(q, args...).WithContext(ctx).
		Consistency(rmwLevel(backend.RequestLevels{Serial: backend.Consistency(serial)})).SerialConsistency(serial).
		ScanCAS(&cur.owner, &cur.expires, &cur.ceiling)
	if err != nil {
		return false, leaseRow{}, clusterError(err)
	}
	return applied, cur, nil
}

// extend renews l, raising its ceiling to at least ceiling (rules 2 and
// 3); l.mu is held. It reports whether l was still held.
func (m *leases) extend(ctx context.Context, l *lease, ceiling int64) (bool, error) {
	if !l.held {
		return false, nil
	}
	expires := micros(time.Now().Add(m.timings.duration))
	ceiling = max(ceiling, l.ceiling, expires)
	applied, cur, err := m.update(ctx, l, l.serial, `SET expires = ?, ceiling = ?`, []any{expires, ceiling}, l.seen)
	if err != nil {
		return false, err
	}
	if !applied {
		l.held, l.seen = false, cur
		return false, nil
	}
	l.expires, l.ceiling = expires, ceiling
	l.seen.expires, l.seen.ceiling = &expires, &ceiling
	return true, nil
}

// give frees l, announcing as its ceiling the highest timestamp this
// tenure used, so that the next holder need not write in the future; l.mu
// is held and no statement of this gateway is using l.
func (m *leases) give(ctx context.Context, l *lease) error {
	if !l.held {
		return nil
	}
	l.held = false
	ceiling := max(l.floor, l.maxUsed)
	applied, cur, err := m.update(ctx, l, l.serial, `SET owner = null, expires = null, ceiling = ?`, []any{ceiling}, l.seen)
	if err != nil {
		return err
	}
	if !applied {
		l.seen = cur
		return nil
	}
	l.seen = leaseRow{ceiling: &ceiling}
	return nil
}

// run renews the leases in use or recently used and gives up idle ones.
func (m *leases) run() {
	defer close(m.done)
	tick := time.NewTicker(max(m.timings.linger/2, 5*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-m.stop:
			m.giveAll()
			return
		case <-tick.C:
		}
		for k, l := range m.snapshot() {
			if m.maintain(l) {
				m.forget(k, l)
			}
		}
	}
}

func (m *leases) snapshot() map[string]*lease {
	m.mu.Lock()
	defer m.mu.Unlock()
	all := make(map[string]*lease, len(m.mu.byKey))
	for k, l := range m.mu.byKey {
		all[k] = l
	}
	return all
}

// forget drops l from the table when it is still free and unused.
func (m *leases) forget(k string, l *lease) {
	m.mu.Lock()
	defer m.mu.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.held && !l.inUse && m.mu.byKey[k] == l {
		l.dead = true
		delete(m.mu.byKey, k)
	}
}

// maintain renews or gives up l; it reports whether l is free and has
// been unused for a while (then it can be forgotten).
func (m *leases) maintain(l *lease) bool {
	ctx, cancel := context.WithTimeout(context.Background(), m.timings.duration)
	defer cancel()
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if !l.held {
		return !l.inUse && now.Sub(l.lastUse) > m.timings.duration
	}
	switch {
	case !l.inUse && now.Sub(l.lastUse) > m.timings.linger:
		_ = m.give(ctx, l)
	case m.renewalsPaused.Load():
	case l.expires-micros(now) < (2 * m.timings.duration / 3).Microseconds():
		_, _ = m.extend(ctx, l, 0)
	}
	return false
}

func (m *leases) giveAll() {
	m.mu.Lock()
	all := make([]*lease, 0, len(m.mu.byKey))
	for _, l := range m.mu.byKey {
		all = append(all, l)
	}
	m.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, l := range all {
		l.mu.Lock()
		if !l.inUse {
			_ = m.give(ctx, l)
		}
		l.mu.Unlock()
	}
}

// heldLeases is one statement's use of its partitions' leases.
type heldLeases struct {
	m      *leases
	leases []*lease
	done   bool
}

// Fence implements backend.PartitionLease (rules 1 and 2).
func (h *heldLeases) Fence(ctx context.Context, ts int64) (int64, error) {
	for _, l := range h.leases {
		l.mu.Lock()
		ts = max(ts, l.floor+1)
		l.mu.Unlock()
	}
	for _, l := range h.leases {
		l.mu.Lock()
		ok := l.held
		if ok && (ts > l.ceiling || micros(time.Now()) >= l.expires-h.m.timings.skew.Microseconds()) {
			var err error
			if ok, err = h.m.extend(ctx, l, ts); err != nil {
				l.mu.Unlock()
				return 0, err
			}
		}
		if ok {
			l.maxUsed = max(l.maxUsed, ts)
		}
		l.mu.Unlock()
		if !ok {
			return 0, leaseLost()
		}
	}
	if f := h.m.stall.Load(); f != nil {
		(*f)()
	}
	return ts, nil
}

// Release implements backend.PartitionLease (rule 3).
func (h *heldLeases) Release(ctx context.Context, wrote bool) error {
	if h.done {
		return nil
	}
	var lost bool
	var firstErr error
	for _, l := range h.leases {
		l.mu.Lock()
		if wrote {
			ok := l.held && micros(time.Now()) < l.expires-h.m.timings.skew.Microseconds()
			if !ok && l.held {
				var err error
				ok, err = h.m.extend(ctx, l, 0)
				if err != nil && firstErr == nil {
					firstErr = err
				}
			}
			lost = lost || !ok
		}
		h.m.finishUse(ctx, l)
		l.mu.Unlock()
	}
	h.done = true
	if firstErr != nil {
		return firstErr
	}
	if lost {
		return leaseLost()
	}
	return nil
}

// finishUse ends a statement's use of l; a lease held past its tenure is
// handed over (l.mu is held).
func (m *leases) finishUse(ctx context.Context, l *lease) {
	l.inUse = false
	now := time.Now()
	l.lastUse = now
	if !l.held || now.Sub(l.acquired) <= m.timings.tenure {
		return
	}
	next := m.wanted(ctx, l)
	if next == nil {
		l.acquired = now // nobody waits: a new tenure
		return
	}
	_ = m.handTo(ctx, l, *next)
	l.handoff, l.stale = now.Add(m.timings.handoff), true
}

// handTo gives l to the waiter whose nonce is next, for a short grant that
// the waiter renews once it sees the row (or that expires if it has gone);
// the ceiling is the highest timestamp this tenure used.
func (m *leases) handTo(ctx context.Context, l *lease, next gocql.UUID) error {
	l.held = false
	ceiling := max(l.floor, l.maxUsed)
	expires := micros(time.Now().Add(m.timings.grant))
	applied, cur, err := m.update(ctx, l, l.serial, `SET owner = ?, expires = ?, ceiling = ?`, []any{next, expires, ceiling}, l.seen)
	if err != nil {
		return err
	}
	if !applied {
		l.seen = cur
		return nil
	}
	l.seen = leaseRow{owner: &next, expires: &expires, ceiling: &ceiling}
	return nil
}

// want tells the holder of l that another gateway waits for it: a plain
// write of the waiter's nonce in the row's wanted cell, which no condition
// reads, expiring after a second; at most one per tenure of the poll.
func (m *leases) want(ctx context.Context, l *lease, nonce gocql.UUID, serial gocql.SerialConsistency) error {
	if l.wantNonce != nonce {
		l.wantNonce, l.waitSince, l.wantedAt = nonce, time.Now(), time.Time{}
	}
	if time.Since(l.wantedAt) < m.timings.tenure/2 {
		return nil
	}
	l.wantedAt = time.Now()
	release, err := m.s.acquire(ctx)
	if err != nil {
		return err
	}
	defer release()
	return clusterError(m.s.session.Query(fmt.Sprintf(`UPDATE %s.leases USING TTL 1 SET wanted[?] = ? WHERE table_id = ? AND k = ?`, m.s.keyspace),
		nonce, micros(l.waitSince), int64(l.table), l.key).WithContext(ctx).Consistency(rmwLevel(backend.RequestLevels{Serial: backend.Consistency(serial)})).Exec())
}

// wanted returns the nonce of the gateway that has waited longest for l
// among those that asked in the last second, or nil.
func (m *leases) wanted(ctx context.Context, l *lease) *gocql.UUID {
	release, err := m.s.acquire(ctx)
	if err != nil {
		return nil
	}
	defer release()
	var waiters map[gocql.UUID]int64
	err = m.s.session.Query(fmt.Sprintf(`SELECT wanted FROM %s.leases WHERE table_id = ? AND k = ?`, m.s.keyspace),
		int64(l.table), l.key).WithContext(ctx).Consistency(rmwLevel(backend.RequestLevels{Serial: backend.Consistency(l.serial)})).Scan(&waiters)
	if err != nil {
		return nil
	}
	var next *gocql.UUID
	var since int64
	for who, t := range waiters {
		if who != l.owner && (next == nil || t < since) {
			w := who
			next, since = &w, t
		}
	}
	return next
}

// unwant removes this gateway's request for l once it holds it.
func (m *leases) unwant(ctx context.Context, l *lease, nonce gocql.UUID) {
	if l.wantNonce != nonce {
		return
	}
	l.wantNonce = gocql.UUID{}
	release, err := m.s.acquire(ctx)
	if err != nil {
		return
	}
	defer release()
	_ = m.s.session.Query(fmt.Sprintf(`DELETE wanted[?] FROM %s.leases WHERE table_id = ? AND k = ?`, m.s.keyspace),
		nonce, int64(l.table), l.key).WithContext(ctx).Consistency(rmwLevel(backend.RequestLevels{Serial: backend.Consistency(l.serial)})).Exec()
}

func (h *heldLeases) unlock() {
	for _, l := range h.leases {
		l.mu.Lock()
		l.inUse = false
		l.lastUse = time.Now()
		l.mu.Unlock()
	}
	h.done = true
}

// leaseLost is the error of a statement whose lease ended before its write
// was known to be in place: the write may or may not have been applied,
// which Cassandra reports as a write timeout of a CAS
// (WriteTimeoutException, RequestTimeoutException's message).
func leaseLost() error {
	e := &cqlerr.Error{Code: cqlerr.WriteTimeout, Message: "Operation timed out - received only 0 responses."}
	e.Consistency, e.Received, e.BlockFor, e.WriteType = uint16(gocql.Serial), 0, 1, "CAS"
	return e
}

// noLease is the lease of a store told that it is the only gateway.
type noLease struct{}

func (noLease) Fence(_ context.Context, ts int64) (int64, error) { return ts, nil }
func (noLease) Release(context.Context, bool) error              { return nil }

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// PauseLeaseRenewals stops (or restarts) the renewal of this store's
// leases, and makes stall run in every Fence after its checks: a test
// hook standing for a gateway that stalls between its read and its write.
func (s *Store) PauseLeaseRenewals(paused bool, stall func()) {
	if s.leases == nil {
		return
	}
	s.leases.renewalsPaused.Store(paused)
	if stall == nil {
		s.leases.stall.Store(nil)
	} else {
		s.leases.stall.Store(&stall)
	}
}

var _ backend.PartitionLocker = (*Store)(nil)

func leaseTimingsOf(opts Options) leaseTimings {
	t := leaseTimings{duration: opts.LeaseDuration, skew: opts.LeaseSkew}
	if t.duration <= 0 {
		t.duration = 3 * time.Second
	}
	if t.skew <= 0 {
		t.skew = 250 * time.Millisecond
	}
	t.skew = min(t.skew, t.duration/4)
	t.linger, t.tenure, t.handoff, t.grant = 50*time.Millisecond, 150*time.Millisecond, 30*time.Millisecond, min(t.duration, 500*time.Millisecond)
	return t
}
