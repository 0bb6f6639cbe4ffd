package server

import (
	"context"
	"net"
	"net/netip"

	"github.com/partita-db/partita/internal/engine"
	"github.com/partita-db/partita/internal/protocol"
)

// tracingRequested returns the tracing request of a frame with the tracing
// flag (native_protocol_v4.spec §2.2, flag 0x02), nil for any other frame.
// The client address is the session's client column.
func tracingRequested(f protocol.Frame, client netip.Addr) *engine.TraceRequest {
	if f.Header.Flags&protocol.FlagTracing == 0 {
		return nil
	}
	tr := &engine.TraceRequest{}
	if client.IsValid() {
		tr.Client = net.IP(client.AsSlice())
	}
	return tr
}

// withTracing returns ctx carrying tr, or ctx itself when untraced.
func withTracing(ctx context.Context, tr *engine.TraceRequest) context.Context {
	if tr == nil {
		return ctx
	}
	return engine.WithTraceRequest(ctx, tr)
}

// tracingID is the session id the response carries: nil when the request
// was not traced (the response then has no tracing flag, §2.2).
func tracingID(tr *engine.TraceRequest) []byte {
	if tr == nil {
		return nil
	}
	return tr.SessionID
}
