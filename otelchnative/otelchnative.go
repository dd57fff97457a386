// Package otelchnative reports chnative's queries, inserts and connections to OpenTelemetry:
// a client span per query and insert, and metrics of latency, rows, bytes, retries, open
// connections and the memory they keep. It is a separate module so that chnative itself
// depends on no OpenTelemetry package.
//
//	cfg, _ := dsn.Parse("clickhouse://127.0.0.1:9000/default")
//	c, _ := chnative.NewConnector(cfg)
//	obs, _ := otelchnative.New() // the global tracer and meter providers
//	c.(*chnative.Connector).Observer = obs
//	db := sql.OpenDB(c)
//
// Spans are named after the statement's first keyword (SELECT, INSERT, ...) and carry
// db.system.name, db.operation.name, db.query.text (unless WithQueryText(false)),
// server.address and server.port, clickhouse.query_id, and when the statement ends
// db.response.returned_rows, clickhouse.blocks, clickhouse.bytes_read,
// clickhouse.rows_written, clickhouse.server.elapsed (seconds, from the server's Progress
// packets) and the error. To make the server's own spans children of the caller's, pass the
// caller's span with chnative.WithTraceContext as well.
package otelchnative

import (
	"context"
	"net"
	"strconv"
	"sync"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/chnative/chnative"
)

// ScopeName is the instrumentation scope of the tracer and the meter.
const ScopeName = "github.com/chnative/chnative/otelchnative"

// Option configures New.
type Option func(*config)

type config struct {
	tp        trace.TracerProvider
	mp        metric.MeterProvider
	queryText bool
}

// WithTracerProvider sets where spans go; the default is otel.GetTracerProvider().
func WithTracerProvider(tp trace.TracerProvider) Option { return func(c *config) { c.tp = tp } }

// WithMeterProvider sets where metrics go; the default is otel.GetMeterProvider().
func WithMeterProvider(mp metric.MeterProvider) Option { return func(c *config) { c.mp = mp } }

// WithQueryText sets whether spans carry the statement's text (db.query.text); on by default.
// chnative binds arguments into the text, so turn it off when values are confidential.
func WithQueryText(on bool) Option { return func(c *config) { c.queryText = on } }

// Observer is a chnative.Observer that reports to OpenTelemetry. Set it on
// chnative.Connector.Observer; one Observer may serve several connectors.
type Observer struct {
	tracer    trace.Tracer
	queryText bool

	duration    metric.Float64Histogram
	rowsRead    metric.Int64Counter
	rowsWritten metric.Int64Counter
	bytesRead   metric.Int64Counter
	retries     metric.Int64Counter
	open        metric.Int64UpDownCounter
	dialFailed  metric.Int64Counter

	mu   sync.Mutex
	kept map[uint64]int64 // memory kept by each open connection, by ConnEvent.ID
}

var _ chnative.Observer = (*Observer)(nil)

// New returns an Observer with its instruments created.
func New(opts ...Option) (*Observer, error) {
	c := config{queryText: true}
	for _, o := range opts {
		o(&c)
	}
	if c.tp == nil {
		c.tp = otel.GetTracerProvider()
	}
	if c.mp == nil {
		c.mp = otel.GetMeterProvider()
	}
	m := c.mp.Meter(ScopeName)
	o := &Observer{tracer: c.tp.Tracer(ScopeName), queryText: c.queryText, kept: map[uint64]int64{}}
	var err error
	if o.duration, err = m.Float64Histogram("db.client.operation.duration", metric.WithUnit("s"),
		metric.WithDescription("Time from sending a query or insert to its end"),
		metric.WithExplicitBucketBoundaries(0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10)); err != nil {
		return nil, err
	}
	if o.rowsRead, err = m.Int64Counter("chnative.rows.read", metric.WithUnit("{row}"),
		metric.WithDescription("Rows received in result blocks")); err != nil {
		return nil, err
	}
	if o.rowsWritten, err = m.Int64Counter("chnative.rows.written", metric.WithUnit("{row}"),
		metric.WithDescription("Rows sent in insert blocks")); err != nil {
		return nil, err
	}
	if o.bytesRead, err = m.Int64Counter("chnative.bytes.read", metric.WithUnit("By"),
		metric.WithDescription("Bytes read from the server for queries and inserts, as received")); err != nil {
		return nil, err
	}
	if o.retries, err = m.Int64Counter("chnative.retries", metric.WithUnit("{retry}"),
		metric.WithDescription("Dial rounds, reads and inserts tried again (attribute chnative.retry.op)")); err != nil {
		return nil, err
	}
	if o.open, err = m.Int64UpDownCounter("chnative.connections.open", metric.WithUnit("{connection}"),
		metric.WithDescription("Open connections")); err != nil {
		return nil, err
	}
	if o.dialFailed, err = m.Int64Counter("chnative.connections.failed", metric.WithUnit("{connection}"),
		metric.WithDescription("Dials of a host that did not connect")); err != nil {
		return nil, err
	}
	if _, err = m.Int64ObservableGauge("chnative.connections.memory_kept", metric.WithUnit("By"),
		metric.WithDescription("Memory the open connections keep for their next statements"),
		metric.WithInt64Callback(func(_ context.Context, io metric.Int64Observer) error {
			io.Observe(o.keptTotal())
			return nil
		})); err != nil {
		return nil, err
	}
	return o, nil
}

func (o *Observer) keptTotal() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	var n int64
	for _, b := range o.kept {
		n += b
	}
	return n
}

var systemAttr = attribute.String("db.system.name", "clickhouse")

func hostPort(addr string) []attribute.KeyValue {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return []attribute.KeyValue{attribute.String("server.address", addr)}
	}
	p, _ := strconv.Atoi(port)
	return []attribute.KeyValue{attribute.String("server.address", host), attribute.Int("server.port", p)}
}

// QueryStart starts the statement's client span.
func (o *Observer) QueryStart(ctx context.Context, q *chnative.QueryEvent) context.Context {
	name := q.Kind
	if name == "" {
		name = "clickhouse"
	}
	attrs := append(hostPort(q.Addr), systemAttr, attribute.String("db.operation.name", q.Kind),
		attribute.String("clickhouse.query_id", q.ID))
	if o.queryText {
		attrs = append(attrs, attribute.String("db.query.text", q.Query))
	}
	ctx, _ = o.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithTimestamp(q.Start), trace.WithAttributes(attrs...))
	return ctx
}

// QueryEnd ends the span and records the statement's metrics.
func (o *Observer) QueryEnd(ctx context.Context, q *chnative.QueryEvent) {
	span := trace.SpanFromContext(ctx)
	span.SetAttributes(
		attribute.Int("db.response.returned_rows", q.Rows),
		attribute.Int("clickhouse.blocks", q.Blocks),
		attribute.Int64("clickhouse.bytes_read", int64(q.BytesRead)),
		attribute.Int("clickhouse.rows_written", q.SentRows),
		attribute.Float64("clickhouse.server.elapsed", q.ServerElapsed.Seconds()),
		attribute.String("clickhouse.outcome", q.Outcome),
	)
	mattrs := []attribute.KeyValue{systemAttr, attribute.String("db.operation.name", q.Kind)}
	if q.Err != nil {
		span.RecordError(q.Err)
		span.SetStatus(codes.Error, q.Err.Error())
		mattrs = append(mattrs, attribute.String("error.type", q.Outcome))
	}
	span.End(trace.WithTimestamp(q.End))
	set := metric.WithAttributes(mattrs...)
	o.duration.Record(ctx, q.End.Sub(q.Start).Seconds(), set)
	if q.Rows > 0 {
		o.rowsRead.Add(ctx, int64(q.Rows), set)
	}
	if q.SentRows > 0 {
		o.rowsWritten.Add(ctx, int64(q.SentRows), set)
	}
	o.bytesRead.Add(ctx, int64(q.BytesRead), set)
}

// ConnOpen counts the connection open, or the dial failed.
func (o *Observer) ConnOpen(ctx context.Context, c *chnative.ConnEvent) {
	set := metric.WithAttributes(hostPort(c.Addr)...)
	if c.Err != nil {
		o.dialFailed.Add(ctx, 1, set)
		return
	}
	o.mu.Lock()
	o.kept[c.ID] = 0
	o.mu.Unlock()
	o.open.Add(ctx, 1, set)
}

// ConnIdle records the memory the connection keeps.
func (o *Observer) ConnIdle(c *chnative.ConnEvent) {
	o.mu.Lock()
	if _, ok := o.kept[c.ID]; ok {
		o.kept[c.ID] = c.KeptBytes
	}
	o.mu.Unlock()
}

// ConnClose counts the connection closed.
func (o *Observer) ConnClose(c *chnative.ConnEvent) {
	o.mu.Lock()
	_, ok := o.kept[c.ID]
	delete(o.kept, c.ID)
	o.mu.Unlock()
	if ok {
		o.open.Add(context.Background(), -1, metric.WithAttributes(hostPort(c.Addr)...))
	}
}

// Retry counts a retry, by its operation.
func (o *Observer) Retry(ctx context.Context, r *chnative.RetryEvent) {
	o.retries.Add(ctx, 1, metric.WithAttributes(systemAttr, attribute.String("chnative.retry.op", r.Op)))
}
