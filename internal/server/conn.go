package server

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/protocol"
)

const (
	readBufferSize  = 32 << 10
	writeBufferSize = 32 << 10
	// maxPendingEvents bounds the events queued for a client that does not
	// read; beyond it events are dropped (and logged) rather than held.
	maxPendingEvents = 1024
	// lingerTimeout and lingerBytes bound how long and how much a fatal
	// close reads and discards, so that the client's unread request bytes
	// do not make the kernel reset the connection before it has read the
	// error reply.
	lingerTimeout = 500 * time.Millisecond
	lingerBytes   = 1 << 20
)

// eventBit returns the registration bit of an event type.
func eventBit(t protocol.EventType) uint32 {
	switch t {
	case protocol.EventTopologyChange:
		return 1
	case protocol.EventStatusChange:
		return 2
	case protocol.EventSchemaChange:
		return 4
	}
	return 0
}

// conn is one client connection.
type conn struct {
	srv     *Server
	nc      net.Conn
	log     *slog.Logger
	sess    sessionAPI
	maxBody int
	// ip is the client's address, the key of its share of the request
	// budget (invariant 7).
	ip netip.Addr

	// ctx is every request's context; cancelled when the connection is
	// torn down.
	ctx    context.Context
	cancel context.CancelFunc

	// slots holds a token per executing request (invariant 1).
	slots    chan struct{}
	handlers sync.WaitGroup
	// work hands engine requests to idle workers; closed when the reader
	// ends, which lets the workers exit.
	work chan engineJob

	// out carries complete response frames to the writer; closed by serve
	// once the reader and all handlers are done.
	out chan *frameBuf
	// writerDone is closed when the writer has exited.
	writerDone chan struct{}

	// ready is set by a successful STARTUP, and throwOnOverload by a
	// STARTUP with THROW_ON_OVERLOAD=1; reader goroutine only (invariant 2).
	ready           bool
	throwOnOverload bool
	// authenticating is set between a STARTUP answered with AUTHENTICATE
	// and the AUTH_RESPONSE that logs in; reader goroutine only.
	authenticating bool
	// compressor is the frame compression STARTUP chose, nil for none.
	// Set by the reader before it queues STARTUP's reply, which is the
	// first frame compressed (as Cassandra, Envelope.Compressor): replies
	// are compressed when queued (send), so one queued before is not.
	// Events are compressed by the writer, with zbuf (writer only) as
	// scratch space.
	compressor atomic.Pointer[protocol.Compressor]
	zbuf       []byte
	// executing counts the request budget held by the requests handed to
	// workers and not finished yet (invariant 7).
	executing atomic.Int64
	// frameHeld is the budget taken for the frame being read, and
	// takeForFrame the method value ReadBody calls to take more (made once:
	// a closure per frame would cost an allocation); reader goroutine only.
	frameHeld    int64
	takeForFrame func(n int) error
	// events holds the eventBit of every REGISTERed event type.
	events atomic.Uint32
	// stopping asks the reader to stop (Shutdown).
	stopping atomic.Bool
	// inFrame is set while the reader is in the middle of a frame, under
	// FrameReadTimeout; reader goroutine only.
	inFrame bool
	// queuedReplies counts the bytes of replies queued and not yet written
	// (invariant 8); runningRequests the requests admitted to run whose
	// reply is not queued yet, and replyEstimate the expected size of one
	// such reply (queueReply). room wakes the reader and workers waiting
	// for them to fall (awaitReplyRoom); roomWaiting is room.waited
	// readable without the lock, so that a wake-up takes the lock only when
	// someone waits.
	queuedReplies   atomic.Int64
	runningRequests atomic.Int64
	replyEstimate   atomic.Int64
	room            struct {
		sync.Mutex
		changed chan struct{}
		waited  bool
	}
	roomWaiting atomic.Bool

	evMu struct {
		sync.Mutex
		pending [][]byte
	}
	// evSignal wakes the writer when events are pending.
	evSignal chan struct{}

	abortOnce sync.Once
}

func newConn(s *Server, nc net.Conn) *conn {
	c := &conn{
		srv:        s,
		nc:         nc,
		log:        s.log.With("remote", nc.RemoteAddr().String()),
		sess:       s.eng.NewSession(),
		maxBody:    s.cfg.MaxFrameSize - protocol.HeaderSize,
		ip:         remoteIP(nc),
		slots:      make(chan struct{}, s.cfg.MaxInFlightPerConn),
		work:       make(chan engineJob),
		out:        make(chan *frameBuf, s.cfg.MaxInFlightPerConn),
		writerDone: make(chan struct{}),
		evSignal:   make(chan struct{}, 1),
	}
	c.ctx, c.cancel = context.WithCancel(s.baseCtx)
	c.takeForFrame = c.takeFrameBytes
	c.room.changed = make(chan struct{})
	// Until replies are seen, each is assumed large: a connection's first
	// burst of requests may not fill the queue many times over before the
	// first large reply teaches the estimate. Small replies decay it to the
	// floor (expectedReplies) within about 25 replies.
	c.replyEstimate.Store(s.cfg.MaxQueuedReplyBytes / 8)
	return c
}

// serve runs the connection to its end: the writer in its own goroutine,
// the reader here, then the wait for in-flight requests and the close.
func (c *conn) serve() {
	defer c.srv.connDone(c)
	c.log.Debug("connection opened")
	go c.writeLoop()
	fatal := c.readLoop()
	close(c.work)
	if fatal != nil {
		c.send(fatal)
	}
	c.handlers.Wait()
	close(c.out)
	<-c.writerDone
	if fatal != nil {
		c.lingeringClose()
	}
	c.cancel()
	c.nc.Close()
	c.log.Debug("connection closed")
}

// stopReading makes the reader stop at the next frame boundary (or now,
// if it is waiting for one); requests already read still run.
func (c *conn) stopReading() {
	c.stopping.Store(true)
	c.nc.SetReadDeadline(time.Now())
}

// abort tears the connection down at once: requests are cancelled and the
// socket is closed, which ends the reader and the writer.
func (c *conn) abort() {
	c.abortOnce.Do(func() {
		c.cancel()
		c.nc.Close()
	})
}

// readLoop reads frames until the connection must stop. It returns a final
// reply to send before closing, or nil.
func (c *conn) readLoop() *frameBuf {
	br := bufio.NewReaderSize(c.nc, readBufferSize)
	for {
		if !c.awaitReplyRoom(c.roomToRead) {
			return nil
		}
		if ok, err := c.awaitFrame(br); !ok {
			if err != nil {
				return c.readFailed(err)
			}
			return nil
		}
		f, held, err := c.readRequest(br)
		if err != nil {
			if refused := overloadRefusal(err); refused != nil {
				c.inFrame = false
				// No room, and the client asked to be told (invariant 7);
				// its body was skipped, the connection goes on.
				c.log.Debug("request refused: overloaded", "length", f.Header.Length)
				c.srv.metrics.received(protocol.HeaderSize + int(f.Header.Length))
				c.send(c.errorFrame(f.Header.Stream, refused))
				continue
			}
			return c.readFailed(err) // inFrame still tells what timed out
		}
		c.inFrame = false
		c.srv.metrics.received(protocol.HeaderSize + len(f.Body))
		if f, held, err = c.decompress(f, held); err != nil {
			// A body that does not decompress, or no budget for what it
			// decompressed to: an error for its stream, and on.
			if e := overloadRefusal(err); e != nil {
				c.send(c.errorFrame(f.Header.Stream, e))
				continue
			}
			return c.readFailed(err)
		}
		if !c.dispatch(f, held) {
			return nil
		}
	}
}

// readRequest reads one frame, taking the request budget for its body as
// the bytes arrive; it returns how much it took, which the request holds
// until it is answered. A *cqlerr.Error means the budget refused the body
// and it was skipped; f then holds the header.
func (c *conn) readRequest(br *bufio.Reader) (f protocol.Frame, held int64, err error) {
	if f.Header, err = protocol.ReadHeader(br, c.maxBody); err != nil {
		return f, 0, err
	}
	c.frameHeld = 0
	f.Body, err = protocol.ReadBody(br, f.Header, c.takeForFrame)
	if err != nil {
		c.srv.budget.release(c.ip, c.frameHeld)
		return f, 0, err
	}
	return f, c.frameHeld, nil
}

// decompress returns f with its body decompressed if it is compressed,
// taking request budget for the bytes decompression added (held is what
// the compressed body took, and what the frame holds on return). A body
// that cannot be decompressed is answered on its stream with the
// *cqlerr.Error this returns, and the connection goes on: the frame was
// read whole, so the byte stream is still in step.
func (c *conn) decompress(f protocol.Frame, held int64) (protocol.Frame, int64, error) {
	if f.Header.Flags&protocol.FlagCompression == 0 {
		return f, held, nil
	}
	var comp protocol.Compressor
	if p := c.compressor.Load(); p != nil {
		comp = *p
	}
	plain, err := protocol.DecompressFrame(f, comp, c.maxBody)
	if err != nil {
		c.log.Debug("cannot decompress a request", "stream", f.Header.Stream, "err", err)
		c.srv.budget.release(c.ip, held)
		return f, 0, err
	}
	if extra := int64(len(plain.Body) - len(f.Body)); extra > 0 {
		if _, err := c.takeRequestBytes(extra); err != nil {
			c.srv.budget.release(c.ip, held)
			return f, 0, err
		}
		held += extra
	}
	return plain, held, nil
}

// compressReply returns fb's frame compressed with the connection's
// compression, in a new buffer (fb is recycled), or fb itself when there
// is none. A frame that fails to compress goes out as it is: the flag
// tells the client either way.
func (c *conn) compressReply(fb *frameBuf) *frameBuf {
	p := c.compressor.Load()
	if p == nil {
		return fb
	}
	z := getFrameBuf()
	out, err := protocol.CompressFrame(z.b[:0], fb.b, *p)
	if err != nil {
		c.log.Warn("cannot compress a reply; sending it uncompressed", "err", err)
		putFrameBuf(z)
		return fb
	}
	z.b = out
	putFrameBuf(fb)
	return z
}

// compressFrame returns an event frame compressed with the connection's
// compression, or frame itself when there is none; writer goroutine only.
// A frame that fails to compress goes out as it is: the flag tells the
// client either way.
func (c *conn) compressFrame(frame []byte) []byte {
	p := c.compressor.Load()
	if p == nil {
		return frame
	}
	out, err := protocol.CompressFrame(c.zbuf[:0], frame, *p)
	if err != nil {
		c.log.Warn("cannot compress a reply; sending it uncompressed", "err", err)
		return frame
	}
	// Keep the scratch space for the next reply unless one huge reply
	// grew it.
	if cap(out) <= maxKeptCompressBuffer {
		c.zbuf = out
	}
	return out
}

// maxKeptCompressBuffer bounds the compression scratch space a writer
// keeps between replies.
const maxKeptCompressBuffer = 1 << 20

// overloadRefusal returns the Overloaded error of a body the budget
// refused, or nil for any other error of readRequest.
func overloadRefusal(err error) *cqlerr.Error {
	var refused *cqlerr.Error
	if errors.As(err, &refused) {
		return refused
	}
	return nil
}

// takeFrameBytes is ReadBody's take for the frame being read.
func (c *conn) takeFrameBytes(n int) error {
	waited, err := c.takeRequestBytes(int64(n))
	if err != nil {
		return err
	}
	// Waiting for budget room is the server's doing, not the client's: the
	// frame's read timeout starts again.
	if waited && !c.armFrameDeadline() {
		c.srv.budget.release(c.ip, int64(n))
		return errStopping
	}
	c.frameHeld += int64(n)
	return nil
}

// errStopping ends a frame's read when Shutdown asked the reader to stop.
var errStopping = errors.New("server: connection stopping")

// takeRequestBytes takes n bytes of the request budget for the frame being
// read, as Cassandra's pre-v5 pipeline does (transport/PreV5Handlers.java
// LegacyDispatchHandler): past a limit, a connection that asked for
// THROW_ON_OVERLOAD gets an Overloaded error for this request; any other is
// not read further until there is room or its own requests have finished;
// and a connection with no request executing takes the bytes regardless,
// so that every client makes progress however the budget is shared. It
// reports whether it had to wait.
func (c *conn) takeRequestBytes(n int64) (waited bool, err error) {
	b := c.srv.budget
	for paused := false; ; paused = true {
		ok, freed := b.tryReserve(c.ip, n)
		switch {
		case ok:
			return paused, nil
		case c.throwOnOverload:
			return paused, b.overloaded(c.ip)
		case c.executing.Load() == 0:
			b.force(c.ip, n)
			return paused, nil
		}
		if !paused {
			c.log.Debug("request data in flight at its limit; not reading until requests finish")
		}
		select {
		case <-freed:
		case <-c.ctx.Done():
			return paused, c.ctx.Err()
		}
	}
}

// finished gives back the budget an executing request held. executing
// drops first: a reader woken by the release must see it.
func (c *conn) finished(held int64) {
	c.executing.Add(-held)
	c.srv.budget.release(c.ip, held)
}

// remoteIP is the client's address, or the zero address for connections
// that are not TCP (tests' pipes).
func remoteIP(nc net.Conn) netip.Addr {
	if a, ok := nc.RemoteAddr().(*net.TCPAddr); ok {
		return a.AddrPort().Addr().Unmap()
	}
	return netip.Addr{}
}

// readFailed decides what a ReadFrame error means for the connection and
// returns the reply to send before closing, if any.
func (c *conn) readFailed(err error) *frameBuf {
	var (
		version *protocol.UnsupportedVersionError
		size    *protocol.FrameSizeError
		ne      net.Error
	)
	switch {
	case errors.As(err, &version):
		c.log.Debug("unsupported protocol version", "version", version.Version)
		c.srv.metrics.sentError(version.Err())
		fb := getFrameBuf()
		fb.b = version.AppendReply(fb.b)
		return fb
	case errors.As(err, &size):
		c.log.Warn("request frame too large; closing", "length", size.Length, "max_body", size.MaxBody)
		return c.errorFrame(size.Stream, size.Err())
	case err == io.EOF:
		c.log.Debug("client closed the connection")
	case errors.Is(err, protocol.ErrTruncatedFrame):
		c.log.Debug("client went away in the middle of a frame")
	case c.stopping.Load():
	case errors.As(err, &ne) && ne.Timeout() && c.inFrame:
		c.log.Info("closing connection: request frame not received in time",
			"frame_read_timeout", c.srv.cfg.FrameReadTimeout)
	case errors.As(err, &ne) && ne.Timeout():
		c.log.Info("closing idle connection", "idle_timeout", c.srv.cfg.IdleTimeout)
	default:
		c.log.Debug("read failed", "err", err)
	}
	return nil
}

// send queues a frame for the writer. If the writer has gone (the socket
// failed), the frame is dropped.
func (c *conn) send(fb *frameBuf) {
	fb = c.compressReply(fb)
	c.queueReply(fb)
	select {
	case c.out <- fb:
	case <-c.writerDone:
		c.replyWritten(len(fb.b))
		putFrameBuf(fb)
	}
}

// writeLoop is the only writer of the socket (invariant 3). It writes
// whatever is queued and flushes once the queue is empty, so replies that
// are ready together leave in one write.
func (c *conn) writeLoop() {
	defer close(c.writerDone)
	bw := bufio.NewWriterSize(deadlineWriter{nc: c.nc, timeout: c.srv.cfg.WriteTimeout}, writeBufferSize)
	for {
		open := true
		select {
		case fb, ok := <-c.out:
			open = ok && c.write(bw, fb)
		case <-c.evSignal:
			open = c.writeEvents(bw)
		}
		open = open && c.writeQueued(bw)
		if open && len(c.slots) > 1 {
			// Other requests are executing and often finish together
			// (one WAL sync answers many writes): let them queue their
			// replies so one write carries them all.
			runtime.Gosched()
			open = c.writeQueued(bw)
		}
		if err := bw.Flush(); err != nil {
			c.writeFailed(err)
			return
		}
		if !open {
			return
		}
	}
}

// writeQueued writes the replies already queued into bw; false when the
// socket failed or the queue was closed.
func (c *conn) writeQueued(bw *bufio.Writer) bool {
	for len(c.out) > 0 {
		fb, ok := <-c.out
		if !ok || !c.write(bw, fb) {
			return false
		}
	}
	return true
}

// write writes one frame into bw and recycles its buffer; false when the
// socket failed.
func (c *conn) write(bw *bufio.Writer, fb *frameBuf) bool {
	n, err := bw.Write(fb.b)
	c.srv.metrics.sent(n)
	c.replyWritten(len(fb.b))
	putFrameBuf(fb)
	if err != nil {
		c.writeFailed(err)
		return false
	}
	return true
}

// writeEvents writes the pending events; false when the socket failed.
func (c *conn) writeEvents(bw *bufio.Writer) bool {
	c.evMu.Lock()
	events := c.evMu.pending
	c.evMu.pending = nil
	c.evMu.Unlock()
	for _, ev := range events {
		n, err := bw.Write(c.compressFrame(ev))
		c.srv.metrics.sent(n)
		if err != nil {
			c.writeFailed(err)
			return false
		}
	}
	return true
}

// writeFailed ends a connection whose client no longer takes replies.
func (c *conn) writeFailed(err error) {
	c.log.Debug("write failed; closing", "err", err)
	c.abort()
}

// registered reports whether the client REGISTERed for events of type t.
func (c *conn) registered(t protocol.EventType) bool {
	return c.events.Load()&eventBit(t) != 0
}

// pushEvent queues an event frame (shared, never modified) for the writer
// without blocking.
func (c *conn) pushEvent(frame []byte) {
	c.evMu.Lock()
	full := len(c.evMu.pending) >= maxPendingEvents
	if !full {
		c.evMu.pending = append(c.evMu.pending, frame)
	}
	c.evMu.Unlock()
	if full {
		c.log.Warn("client does not read its events; dropping one")
		return
	}
	select {
	case c.evSignal <- struct{}{}:
	default:
	}
}

// lingeringClose half-closes the socket after a fatal reply and discards
// what the client still sends for a moment, so that its unread bytes do
// not turn the close into a reset that destroys the reply (the version
// negotiation of every driver depends on reading it).
func (c *conn) lingeringClose() {
	if cw, ok := c.nc.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
	c.nc.SetReadDeadline(time.Now().Add(lingerTimeout))
	io.Copy(io.Discard, io.LimitReader(c.nc, lingerBytes))
}

// errorFrame encodes an ERROR reply on stream and counts it.
func (c *conn) errorFrame(stream int16, e *cqlerr.Error) *frameBuf {
	c.srv.metrics.sentError(e)
	fb := getFrameBuf()
	fb.b = protocol.AppendResponse(fb.b, stream, &protocol.ErrorMessage{Err: e}, protocol.ResponseEnvelope{})
	return fb
}
