package otelchnative

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/chnative/chnative"
	"github.com/chnative/chnative/dsn"
	"github.com/chnative/chnative/internal/faketest"
	"github.com/chnative/chnative/internal/testenv"
)

// The Observer against the test server (26.7 in CI's second pass, 18.16 in its first), with
// the SDK's in-memory span recorder and manual metric reader.

type otelEnv struct {
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
	obs    *Observer
}

func newOtelEnv(t *testing.T) *otelEnv {
	t.Helper()
	e := &otelEnv{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(e.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(e.reader))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) })
	var err error
	if e.obs, err = New(WithTracerProvider(tp), WithMeterProvider(mp)); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *otelEnv) open(t *testing.T, cfg *dsn.Config) *sql.DB {
	t.Helper()
	c, err := chnative.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.(*chnative.Connector).Observer = e.obs
	db := sql.OpenDB(c)
	t.Cleanup(func() { db.Close() })
	return db
}

// metrics returns every int and float data point's sum (counters, gauges, histograms' sums
// and counts) by metric name and attribute filter.
func (e *otelEnv) metrics(t *testing.T) map[string][]metricdata.Aggregation {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := e.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string][]metricdata.Aggregation{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			out[m.Name] = append(out[m.Name], m.Data)
		}
	}
	return out
}

func intSum(aggs []metricdata.Aggregation, match func(attribute.Set) bool) int64 {
	var n int64
	for _, a := range aggs {
		switch d := a.(type) {
		case metricdata.Sum[int64]:
			for _, p := range d.DataPoints {
				if match == nil || match(p.Attributes) {
					n += p.Value
				}
			}
		case metricdata.Gauge[int64]:
			for _, p := range d.DataPoints {
				n += p.Value
			}
		}
	}
	return n
}

func histCount(aggs []metricdata.Aggregation) uint64 {
	var n uint64
	for _, a := range aggs {
		if h, ok := a.(metricdata.Histogram[float64]); ok {
			for _, p := range h.DataPoints {
				n += p.Count
			}
		}
	}
	return n
}

func spanAttr(s sdktrace.ReadOnlySpan, key string) (attribute.Value, bool) {
	for _, kv := range s.Attributes() {
		if string(kv.Key) == key {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

func TestSpansAndMetrics(t *testing.T) {
	kind := testenv.Server(t)
	cfg, err := dsn.Parse(testenv.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	e := newOtelEnv(t)
	db := e.open(t, cfg)
	db.SetMaxOpenConns(1)
	ctx := context.Background()

	var sum uint64
	if err := db.QueryRowContext(ctx, "SELECT sum(number) FROM (SELECT number FROM system.numbers LIMIT 100000)").Scan(&sum); err != nil {
		t.Fatal(err)
	}
	rows, err := db.QueryContext(ctx, "SELECT number FROM system.numbers LIMIT 50000")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		n++
	}
	if err := rows.Close(); err != nil || n != 50000 {
		t.Fatalf("%d rows, %v", n, err)
	}
	table := fmt.Sprintf("otel_spans_%d", time.Now().UnixNano()%1e9)
	if _, err := db.ExecContext(ctx, "CREATE TABLE "+table+" (id UInt64) ENGINE = Memory"); err != nil {
		t.Fatal(err)
	}
	defer db.ExecContext(ctx, "DROP TABLE "+table)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	stmt, err := tx.PrepareContext(ctx, "INSERT INTO "+table+" (id)")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		if _, err := stmt.ExecContext(ctx, uint64(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	_, qerr := db.ExecContext(ctx, "SELECT no_such_column FROM system.one")
	if qerr == nil {
		t.Fatal("a bad query succeeded")
	}

	spans := e.spans.Ended()
	byText := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range spans {
		if v, ok := spanAttr(s, "db.query.text"); ok {
			byText[v.AsString()] = s
		}
	}
	sel := byText["SELECT number FROM system.numbers LIMIT 50000"]
	if sel == nil {
		t.Fatalf("no span for the SELECT among %d", len(spans))
	}
	if sel.Name() != "SELECT" || sel.SpanKind().String() != "client" {
		t.Errorf("SELECT span %q kind %v", sel.Name(), sel.SpanKind())
	}
	if v, _ := spanAttr(sel, "db.response.returned_rows"); v.AsInt64() != 50000 {
		t.Errorf("returned_rows %d, want 50000", v.AsInt64())
	}
	if v, _ := spanAttr(sel, "clickhouse.blocks"); v.AsInt64() < 2 {
		t.Errorf("blocks %d, want the header and the data", v.AsInt64())
	}
	if v, _ := spanAttr(sel, "clickhouse.bytes_read"); v.AsInt64() < 50000*8 {
		t.Errorf("bytes_read %d, want at least the numbers' 400000 bytes", v.AsInt64())
	}
	if v, _ := spanAttr(sel, "clickhouse.query_id"); len(v.AsString()) != 36 {
		t.Errorf("query id %q", v.AsString())
	}
	if v, _ := spanAttr(sel, "clickhouse.server.elapsed"); kind == testenv.Modern && v.AsFloat64() <= 0 {
		t.Errorf("26.7 sends its elapsed time in Progress packets: server.elapsed %v", v.AsFloat64())
	}
	var ins sdktrace.ReadOnlySpan
	for text, s := range byText {
		if s.Name() == "INSERT" && len(text) > 0 {
			ins = s
		}
	}
	if ins == nil {
		t.Fatal("no INSERT span")
	}
	if v, _ := spanAttr(ins, "clickhouse.rows_written"); v.AsInt64() != 1000 {
		t.Errorf("INSERT span rows_written %d, want 1000", v.AsInt64())
	}
	bad := byText["SELECT no_such_column FROM system.one"]
	if bad == nil || bad.Status().Code != codes.Error || len(bad.Events()) == 0 {
		t.Fatalf("the failed query's span has no error: %+v", bad)
	}

	m := e.metrics(t)
	if c := histCount(m["db.client.operation.duration"]); c < 5 {
		t.Errorf("duration histogram has %d statements, want at least 5", c)
	}
	if r := intSum(m["chnative.rows.read"], nil); r < 50000 {
		t.Errorf("rows read %d", r)
	}
	if r := intSum(m["chnative.rows.written"], nil); r != 1000 {
		t.Errorf("rows written %d, want 1000", r)
	}
	if r := intSum(m["chnative.connections.open"], nil); r != 1 {
		t.Errorf("open connections %d, want 1", r)
	}
	if r := intSum(m["chnative.connections.memory_kept"], nil); r <= 0 {
		t.Errorf("memory kept %d, want the idle connection's blocks", r)
	}
	db.Close()
	if r := intSum(e.metrics(t)["chnative.connections.open"], nil); r != 0 {
		t.Errorf("open connections after Close %d, want 0", r)
	}
}

// A dial retried within wake_up_timeout is counted as a retry, its failed dials as failed.
func TestRetriesCounted(t *testing.T) {
	testenv.Require(t)
	cfg, err := dsn.Parse(testenv.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	proxy, err := faketest.NewProxy(cfg.Addrs[0])
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	proxy.SetMode(faketest.Blackhole)
	cfg.Addrs, cfg.DialTimeout, cfg.WakeUpTimeout, cfg.HostBackoff = []string{proxy.Addr()}, 200*time.Millisecond, 10*time.Second, 0
	e := newOtelEnv(t)
	db := e.open(t, cfg)
	time.AfterFunc(500*time.Millisecond, func() { proxy.SetMode(faketest.Forward) })
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
	m := e.metrics(t)
	dial := func(s attribute.Set) bool { v, _ := s.Value("chnative.retry.op"); return v.AsString() == "dial" }
	if r := intSum(m["chnative.retries"], dial); r < 1 {
		t.Errorf("dial retries %d, want at least 1", r)
	}
	if r := intSum(m["chnative.connections.failed"], nil); r < 1 {
		t.Errorf("failed dials %d, want at least 1", r)
	}
	if errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
}
