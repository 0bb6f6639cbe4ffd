package server

import (
	"bufio"
	"encoding/binary"
	"net"
	"time"

	"github.com/partita-db/partita/internal/protocol"
)

// writeChunk is how many bytes a write may take before its deadline is
// renewed: WriteTimeout bounds a stall, not the time a large reply takes.
const writeChunk = 64 << 10

// deadlineWriter writes to a connection with a write deadline of timeout
// renewed for every writeChunk bytes, so a client that stops taking bytes
// fails the write within timeout however large the reply.
type deadlineWriter struct {
	nc      net.Conn
	timeout time.Duration
}

func (w deadlineWriter) Write(p []byte) (n int, err error) {
	for len(p) > 0 {
		chunk := p[:min(len(p), writeChunk)]
		w.nc.SetWriteDeadline(time.Now().Add(w.timeout))
		m, err := w.nc.Write(chunk)
		n += m
		if err != nil {
			return n, err
		}
		p = p[m:]
	}
	return n, nil
}

// awaitFrame waits for the first byte of the next frame under the idle
// timeout (none when it is zero), then gives the frame FrameReadTimeout to
// arrive whole. It returns false, with the read error or nil, when the
// reader must stop instead.
func (c *conn) awaitFrame(br *bufio.Reader) (bool, error) {
	if frameBuffered(br) {
		// Nothing will be read from the socket for this frame, so no
		// deadline can matter (pipelined requests mostly arrive so).
		c.inFrame = true
		return !c.stopping.Load(), nil
	}
	var idle time.Time
	if t := c.srv.cfg.IdleTimeout; t > 0 {
		idle = time.Now().Add(t)
	}
	c.nc.SetReadDeadline(idle)
	// After the deadline is set, so that stopReading's deadline is never
	// overwritten unnoticed.
	if c.stopping.Load() {
		return false, nil
	}
	if _, err := br.Peek(1); err != nil {
		return false, err
	}
	c.inFrame = true
	return c.armFrameDeadline(), nil
}

// frameBuffered reports whether br holds the whole next frame.
func frameBuffered(br *bufio.Reader) bool {
	if br.Buffered() < protocol.HeaderSize {
		return false
	}
	h, err := br.Peek(protocol.HeaderSize)
	if err != nil {
		return false
	}
	length := int64(binary.BigEndian.Uint32(h[5:9]))
	return int64(br.Buffered()) >= protocol.HeaderSize+length
}

// armFrameDeadline (re)starts the frame's read timeout; false if the
// reader must stop (Shutdown).
func (c *conn) armFrameDeadline() bool {
	c.nc.SetReadDeadline(time.Now().Add(c.srv.cfg.FrameReadTimeout))
	if c.stopping.Load() {
		// stopReading's deadline may have been overwritten above: restore
		// it, so that skipping the rest of the body does not wait.
		c.nc.SetReadDeadline(time.Now())
		return false
	}
	return true
}

// queueReply counts fb against the connection's queued reply bytes; the
// writer gives them back (replyWritten) once it has written fb. The
// estimate of a reply to come follows the largest recent reply: it takes a
// larger one at once and decays by an eighth per smaller one (a heuristic:
// concurrent updates may lose one step).
func (c *conn) queueReply(fb *frameBuf) {
	n := int64(len(fb.b))
	est := c.replyEstimate.Load()
	c.replyEstimate.Store(max(n, est-est/8))
	c.queuedReplies.Add(n)
}

// replyWritten gives back n queued reply bytes and wakes whoever waits for
// the queue to drain.
func (c *conn) replyWritten(n int) {
	c.queuedReplies.Add(-int64(n))
	c.wakeReplyWaiters()
}

// wakeReplyWaiters wakes the reader and the workers waiting in
// awaitReplyRoom, so that they look again. Callers change the counters
// first.
func (c *conn) wakeReplyWaiters() {
	if !c.roomWaiting.Load() {
		return // nobody waits (see awaitReplyRoom)
	}
	c.room.Lock()
	defer c.room.Unlock()
	if c.room.waited {
		close(c.room.changed)
		c.room.changed, c.room.waited = make(chan struct{}), false
		c.roomWaiting.Store(false)
	}
}

// awaitReplyRoom waits until ok() holds (invariant 8). It returns false
// when the connection is torn down meanwhile (the writer failed, or its
// write deadline passed).
func (c *conn) awaitReplyRoom(ok func() bool) bool {
	if ok() {
		return true
	}
	for {
		c.room.Lock()
		// Set before ok() reads the counters, and every change of a
		// counter comes before its wakeReplyWaiters reads this (atomics
		// are sequentially consistent), so either ok() sees the change or
		// the change's wake-up sees a waiter and closes changed.
		c.roomWaiting.Store(true)
		if ok() {
			c.room.Unlock()
			return true
		}
		c.room.waited = true
		changed := c.room.changed
		c.room.Unlock()
		select {
		case <-changed:
		case <-c.writerDone:
			return false
		case <-c.ctx.Done():
			return false
		}
	}
}

// expectedReplies is the queued reply bytes plus the estimate for the
// replies of n running requests.
func (c *conn) expectedReplies(n int64) int64 {
	floor := c.srv.cfg.MaxQueuedReplyBytes / int64(c.srv.cfg.MaxInFlightPerConn)
	return c.queuedReplies.Load() + n*max(c.replyEstimate.Load(), floor)
}

// roomToRead reports whether the reader may read another frame: the
// replies queued and those the running requests are expected to add stay
// within MaxQueuedReplyBytes, or nothing runs and the queue is within it.
func (c *conn) roomToRead() bool {
	limit := c.srv.cfg.MaxQueuedReplyBytes
	if running := c.runningRequests.Load(); running > 0 {
		return c.expectedReplies(running) <= limit
	}
	return c.queuedReplies.Load() <= limit
}

// admitRun reports whether a worker may run its request, and if so counts
// it as running until replyQueued: while the queue is within
// MaxQueuedReplyBytes, the first request may, and another if its expected
// reply, with those queued and running, stays within it too. Requests read
// before the queue grew wait here rather than add their replies to it.
func (c *conn) admitRun() bool {
	limit := c.srv.cfg.MaxQueuedReplyBytes
	for {
		running := c.runningRequests.Load()
		if c.queuedReplies.Load() > limit || (running > 0 && c.expectedReplies(running+1) > limit) {
			return false
		}
		if c.runningRequests.CompareAndSwap(running, running+1) {
			return true
		}
	}
}

// replyQueued ends what admitRun began, once the request's reply is
// queued (or dropped).
func (c *conn) replyQueued() {
	c.runningRequests.Add(-1)
	c.wakeReplyWaiters()
}
