package server

import (
	"context"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/partita-db/partita/internal/cqlerr"
	"github.com/partita-db/partita/internal/engine"
	"github.com/partita-db/partita/internal/protocol"
)

// isEngineRequest reports whether op is run by the engine, on a worker;
// every other message is answered by the reader.
func isEngineRequest(op protocol.Opcode) bool {
	switch op {
	case protocol.OpQuery, protocol.OpPrepare, protocol.OpExecute, protocol.OpBatch:
		return true
	}
	return false
}

// dispatch answers one frame: engine requests of a started connection on
// a worker once a slot is free (invariant 1), everything else here. held is
// the request budget the frame took, given back once it is answered
// (invariant 7). It returns false when the connection is being torn down.
func (c *conn) dispatch(f protocol.Frame, held int64) bool {
	start := time.Now()
	if !c.ready || !isEngineRequest(f.Header.Opcode) {
		c.handle(f, start, nil, c.connectionRequest)
		c.srv.budget.release(c.ip, held)
		return true
	}
	select {
	case c.slots <- struct{}{}:
	case <-c.ctx.Done():
		c.srv.budget.release(c.ip, held)
		return false
	}
	c.handlers.Add(1)
	c.srv.metrics.inFlight(1)
	c.executing.Add(held)
	j := engineJob{f: f, start: start, held: held}
	select {
	case c.work <- j: // an idle worker takes it
	default:
		go c.worker(j)
	}
	return true
}

// engineJob is one engine request waiting for a worker.
type engineJob struct {
	f     protocol.Frame
	start time.Time
	held  int64 // request budget
}

// worker runs engine requests: the one it was started for, then the next
// ones while the connection lives. Workers are kept rather than started
// per request so that a stack, once grown by the engine's call depth,
// serves later requests without growing again. There are never more
// workers than slots: a new one starts only when every worker is busy.
func (c *conn) worker(j engineJob) {
	for {
		c.runJob(j)
		var ok bool
		if j, ok = <-c.work; !ok {
			return // the reader is done
		}
	}
}

func (c *conn) runJob(j engineJob) {
	defer func() {
		c.finished(j.held)
		<-c.slots
		c.srv.metrics.inFlight(-1)
		c.handlers.Done()
	}()
	if !c.awaitReplyRoom(c.admitRun) {
		return // torn down: no reply could be written
	}
	defer c.replyQueued()
	tr := tracingRequested(j.f, c.ip)
	c.handle(j.f, j.start, tr, func(req protocol.Request) (protocol.Response, []string) {
		return c.engineRequest(withTracing(c.ctx, tr), req)
	})
}

// handle decodes f, runs it and queues the reply on f's stream. A
// malformed frame gets a Protocol error; a panic in run is logged with its
// stack and answered with a Server error (invariant 4). tr is the
// request's tracing, nil when untraced; its session id, once the engine
// set it, goes back in the response.
func (c *conn) handle(f protocol.Frame, start time.Time, tr *engine.TraceRequest, run func(protocol.Request) (protocol.Response, []string)) {
	stream, op := f.Header.Stream, f.Header.Opcode
	var (
		resp     protocol.Response
		warnings []string
	)
	func() {
		defer func() {
			if r := recover(); r != nil {
				resp, warnings = c.recovered(op, r), nil
			}
		}()
		req, err := protocol.DecodeRequest(f)
		if err != nil {
			resp = protocol.NewErrorMessage(err)
			return
		}
		resp, warnings = run(req)
	}()
	c.reply(stream, op, resp, protocol.ResponseEnvelope{Warnings: warnings, TracingID: tracingID(tr)}, start)
}

// recovered logs a handler's panic and returns the Server error that
// answers it. The text names the panic as Cassandra names an unexpected
// exception (its toString), so the client has something to report.
func (c *conn) recovered(op protocol.Opcode, r any) protocol.Response {
	c.log.Error("panic while handling a request", "opcode", op.String(), "panic", fmt.Sprint(r),
		"stack", string(debug.Stack()))
	return protocol.NewErrorMessage(cqlerr.Serverf("Unexpected error while handling %s: %v", op, r))
}

// reply encodes resp on stream, with the envelope's warnings and tracing
// id, and queues it.
func (c *conn) reply(stream int16, op protocol.Opcode, resp protocol.Response, env protocol.ResponseEnvelope, start time.Time) {
	fb := getFrameBuf()
	fb.b, resp = c.encode(fb.b, stream, op, resp, env)
	if e, ok := resp.(*protocol.ErrorMessage); ok {
		c.srv.metrics.sentError(e.Err)
		if e.Err != nil && e.Err.Code == cqlerr.ServerError {
			c.log.Warn("request failed with a server error", "opcode", op.String(), "err", e.Err.Message)
		} else {
			c.log.Debug("request failed", "opcode", op.String(), "err", e.Err)
		}
	}
	c.srv.metrics.request(op, start)
	c.send(fb)
}

// encode appends the response frame. Encoders do not panic on any value
// the engine can build, but should one, the client still gets an answer.
func (c *conn) encode(dst []byte, stream int16, op protocol.Opcode, resp protocol.Response, env protocol.ResponseEnvelope) (out []byte, sent protocol.Response) {
	start := len(dst)
	defer func() {
		if r := recover(); r != nil {
			sent = c.recovered(op, r)
			out = protocol.AppendResponse(dst[:start], stream, sent, protocol.ResponseEnvelope{TracingID: env.TracingID})
		}
	}()
	return protocol.AppendResponse(dst, stream, resp, env), resp
}

// connectionRequest answers the messages that concern the connection
// itself, and refuses anything but OPTIONS and STARTUP before STARTUP
// (Cassandra's transport/ServerConnection.validateNewMessage).
func (c *conn) connectionRequest(req protocol.Request) (protocol.Response, []string) {
	op := req.Opcode()
	if c.authenticating && op != protocol.OpAuthResponse {
		return protocolError("Unexpected message %s, expecting SASL_RESPONSE", op), nil
	}
	if !c.ready && !c.authenticating && op != protocol.OpStartup && op != protocol.OpOptions {
		return protocolError("Unexpected message %s, expecting STARTUP or OPTIONS", op), nil
	}
	switch r := req.(type) {
	case *protocol.Options:
		return c.srv.supported, nil
	case *protocol.Startup:
		return c.startup(r), nil
	case *protocol.Register:
		for _, t := range r.EventTypes {
			c.events.Or(eventBit(t))
		}
		return &protocol.Ready{}, nil
	case *protocol.AuthResponse:
		if c.srv.cfg.Authenticator == nil {
			// AllowAllAuthenticator's negotiator completes at once, for
			// any token, with the anonymous user.
			return &protocol.AuthSuccess{}, nil
		}
		return c.authResponse(r), nil
	}
	return protocol.NewErrorMessage(cqlerr.Serverf("Unexpected message %s", op)), nil
}

// startup checks STARTUP's options as Cassandra's
// transport/messages/StartupMessage.execute does and starts the session.
func (c *conn) startup(r *protocol.Startup) protocol.Response {
	if c.ready {
		return protocolError("Unexpected message STARTUP, the connection is already initialized")
	}
	version, ok := r.Options[protocol.StartupCQLVersion]
	if !ok {
		return protocolError("Missing value CQL_VERSION in STARTUP message")
	}
	if err := checkCQLVersion(version); err != nil {
		return protocol.NewErrorMessage(err)
	}
	if name, ok := r.Options[protocol.StartupCompression]; ok {
		comp, known := protocol.NewCompressor(name)
		if !known {
			// Cassandra's text, with the name lowercased as it compares it
			// (transport/messages/StartupMessage.java).
			return protocolError("Unknown compression algorithm: %s", strings.ToLower(name))
		}
		// The reply to this STARTUP is the first frame compressed.
		c.compressor.Store(&comp)
	}
	// Cassandra compares with "1" (transport/messages/StartupMessage.java).
	c.throwOnOverload = r.Options[protocol.StartupThrowOnOverload] == "1"
	c.log.Debug("connection started", "cql_version", version,
		"driver_name", r.Options["DRIVER_NAME"], "driver_version", r.Options["DRIVER_VERSION"])
	if a := c.srv.cfg.Authenticator; a != nil {
		c.authenticating = true
		return &protocol.Authenticate{Authenticator: a.AuthenticatorClass()}
	}
	c.ready = true
	return &protocol.Ready{}
}

// checkCQLVersion accepts a CQL version of 3.0.0 or later, as Cassandra
// does (it compares with 2.99.0; no 2.99 was ever released). Drivers send
// "3.0.0" or the "3.4.5" that SUPPORTED lists.
func checkCQLVersion(v string) *cqlerr.Error {
	majorText, _, _ := strings.Cut(v, ".")
	major, err := strconv.Atoi(majorText)
	if err != nil || major < 0 || !strings.Contains(v, ".") {
		// Cassandra's text (utils/CassandraVersion).
		return cqlerr.Protocolf("Invalid version value: %s", v)
	}
	if major < 3 {
		return cqlerr.Protocolf("CQL version %s is not supported by the binary protocol (supported version are >= 3.0.0)", v)
	}
	return nil
}

func protocolError(format string, args ...any) *protocol.ErrorMessage {
	return &protocol.ErrorMessage{Err: cqlerr.Protocolf(format, args...)}
}

// engineRequest runs QUERY, PREPARE, EXECUTE or BATCH on the session.
func (c *conn) engineRequest(ctx context.Context, req protocol.Request) (protocol.Response, []string) {
	var (
		res  *engine.Result
		err  error
		skip bool
	)
	switch r := req.(type) {
	case *protocol.Query:
		opts := engineOptions(&r.Params)
		skip = opts.SkipMetadata
		res, err = c.sess.Query(ctx, r.Query, &opts)
	case *protocol.Prepare:
		res, err = c.sess.Prepare(ctx, r.Query)
	case *protocol.Execute:
		opts := engineOptions(&r.Params)
		skip = opts.SkipMetadata
		res, err = c.sess.Execute(ctx, r.ID, &opts)
	case *protocol.Batch:
		res, err = c.sess.Batch(ctx, engineBatch(r))
	default:
		return c.connectionRequest(req)
	}
	if err != nil {
		return protocol.NewErrorMessage(err), nil
	}
	resp, err := toResponse(res, skip)
	if err != nil {
		return protocol.NewErrorMessage(err), nil
	}
	return resp, res.Warnings
}
