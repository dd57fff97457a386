package chnative

import (
	"context"
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
type TraceContext = nativeproto.Trace

// ParseTraceparent reads a W3C traceparent header ("00-4bf92f3577b34da6a3ce929d0e0e4736-
// 00f067aa0ba902b7-01") and a tracestate header ("" for none) into a TraceContext.
func ParseTraceparent(traceparent, tracestate string) (TraceContext, error) {
	return nativeproto.ParseTraceparent(traceparent, tracestate)
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
	t := tc // escapes: allocated here only, not for every query without a trace
	return &t
}
