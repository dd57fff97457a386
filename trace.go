package chnative

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/chnative/chnative/nativeproto"
)

// Trace context propagation (OpenTelemetry, W3C Trace Context).
//
// A query carries the caller's span to the server in its ClientInfo (protocol revision 54442
// and newer; older servers, such as 18.16, have no field for it and get none). The server makes
// its query span a child of it and logs the traceparent it received (executeQuery, trace
// level). chnative does not import OpenTelemetry: the span comes either from the query's
// context, set by WithTraceContext (clickhouse-go's WithSpan), or from the function given to
// SetTraceContextFunc, which reads it from the context as the application's tracing library
// stores it. With OpenTelemetry that function is four lines (README, "OpenTelemetry"):
//
//	chnative.SetTraceContextFunc(func(ctx context.Context) (chnative.TraceContext, bool) {
//		sc := trace.SpanContextFromContext(ctx)
//		return chnative.TraceContext{TraceID: sc.TraceID(), SpanID: sc.SpanID(),
//			Flags: byte(sc.TraceFlags()), State: sc.TraceState().String()}, sc.IsValid()
//	})
//
// so that every query run under an otelsql (or any otel) span carries it.

// TraceContext is a W3C trace context: the ids of the caller's trace and span, the trace flags
// (bit 0: sampled) and the tracestate header.
type TraceContext struct {
	TraceID [16]byte
	SpanID  [8]byte
	Flags   byte
	State   string
}

// IsValid reports whether both ids are non-zero, as W3C requires.
func (tc TraceContext) IsValid() bool {
	return tc.TraceID != [16]byte{} && tc.SpanID != [8]byte{}
}

// Traceparent returns the W3C traceparent header of tc: "00-<trace id>-<span id>-<flags>".
func (tc TraceContext) Traceparent() string {
	return fmt.Sprintf("00-%x-%x-%02x", tc.TraceID[:], tc.SpanID[:], tc.Flags)
}

// ParseTraceparent reads a W3C traceparent header ("00-4bf92f3577b34da6a3ce929d0e0e4736-
// 00f067aa0ba902b7-01") and a tracestate header ("" for none) into a TraceContext. Versions
// other than 00 are read as 00 when they have its layout, as W3C asks of parsers; the all-zero
// ids and version ff are refused.
func ParseTraceparent(traceparent, tracestate string) (TraceContext, error) {
	var tc TraceContext
	s := strings.TrimSpace(traceparent)
	parts := strings.Split(s, "-")
	if len(parts) < 4 || len(parts[0]) != 2 || len(parts[1]) != 32 || len(parts[2]) != 16 || len(parts[3]) != 2 {
		return tc, fmt.Errorf("chnative: traceparent %q: want 00-<32 hex digits>-<16 hex digits>-<2 hex digits>", traceparent)
	}
	if parts[0] == "00" && len(parts) != 4 {
		return tc, fmt.Errorf("chnative: traceparent %q: version 00 has four fields", traceparent)
	}
	var ver [1]byte
	if _, err := hex.Decode(ver[:], []byte(parts[0])); err != nil || ver[0] == 0xff || strings.ToLower(s) != s {
		return tc, fmt.Errorf("chnative: traceparent %q: bad version or upper-case hex", traceparent)
	}
	var flags [1]byte
	if _, err := hex.Decode(tc.TraceID[:], []byte(parts[1])); err != nil {
		return tc, fmt.Errorf("chnative: traceparent %q: trace id: %w", traceparent, err)
	}
	if _, err := hex.Decode(tc.SpanID[:], []byte(parts[2])); err != nil {
		return tc, fmt.Errorf("chnative: traceparent %q: span id: %w", traceparent, err)
	}
	if _, err := hex.Decode(flags[:], []byte(parts[3])); err != nil {
		return tc, fmt.Errorf("chnative: traceparent %q: flags: %w", traceparent, err)
	}
	tc.Flags = flags[0]
	if !tc.IsValid() {
		return TraceContext{}, errors.New("chnative: traceparent " + traceparent + ": all-zero trace or span id")
	}
	tc.State = tracestate
	return tc, nil
}

type traceKey struct{}

// WithTraceContext returns a context whose queries carry tc to the server as their parent span
// (clickhouse-go's WithSpan). It takes precedence over SetTraceContextFunc; an invalid tc (zero
// ids) sends none, so WithTraceContext(ctx, TraceContext{}) turns propagation off for ctx.
func WithTraceContext(ctx context.Context, tc TraceContext) context.Context {
	return context.WithValue(ctx, traceKey{}, tc)
}

var traceFunc atomic.Pointer[func(context.Context) (TraceContext, bool)]

// SetTraceContextFunc sets the function that finds the caller's span in a query's context when
// WithTraceContext did not set one (nil removes it). It is global, like the tracing library's
// own provider: set it once at start-up (see the package's trace notes for OpenTelemetry). It
// is called once per query, on the caller's goroutine, and must be cheap.
func SetTraceContextFunc(fn func(context.Context) (TraceContext, bool)) {
	if fn == nil {
		traceFunc.Store(nil)
		return
	}
	traceFunc.Store(&fn)
}

// traceFrom returns the trace context a query run with ctx sends, nil for none.
func traceFrom(ctx context.Context) *nativeproto.Trace {
	tc, ok := ctx.Value(traceKey{}).(TraceContext)
	if !ok {
		fn := traceFunc.Load()
		if fn == nil {
			return nil
		}
		if tc, ok = (*fn)(ctx); !ok {
			return nil
		}
	}
	if !tc.IsValid() {
		return nil
	}
	return &nativeproto.Trace{TraceID: tc.TraceID, SpanID: tc.SpanID, Flags: tc.Flags, State: tc.State}
}
