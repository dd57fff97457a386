package ecosystem

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/XSAM/otelsql"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/chnative/chnative"
	"github.com/chnative/chnative/internal/testenv"
)

// chnative under github.com/XSAM/otelsql: otelsql.Open("chnative", dsn) wraps every driver
// connection, statement and transaction in spans. The adapter below is all an application
// writes to send those spans to ClickHouse as the parent of the server's query span (chnative
// does not import OpenTelemetry itself).

// otelTraceContext reads the OpenTelemetry span of ctx for chnative.SetTraceContextFunc.
func otelTraceContext(ctx context.Context) (chnative.TraceContext, bool) {
	sc := trace.SpanContextFromContext(ctx)
	return chnative.TraceContext{TraceID: sc.TraceID(), SpanID: sc.SpanID(),
		Flags: byte(sc.TraceFlags()), State: sc.TraceState().String()}, sc.IsValid()
}

// openOtel opens the test server through otelsql with a tracer provider that records every span.
func openOtel(t *testing.T) (*sql.DB, *tracetest.SpanRecorder, trace.Tracer) {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	db, err := otelsql.Open("chnative", dsn(t), otelsql.WithTracerProvider(tp),
		otelsql.WithSpanOptions(otelsql.SpanOptions{Ping: true}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	chnative.SetTraceContextFunc(otelTraceContext)
	t.Cleanup(func() { chnative.SetTraceContextFunc(nil) })
	return db, rec, tp.Tracer("chnative-ecosystem")
}

func spanNames(rec *tracetest.SpanRecorder) map[string]int {
	n := map[string]int{}
	for _, s := range rec.Ended() {
		n[s.Name()]++
	}
	return n
}

// TestOtelsqlOpenQueryExecBatch runs Ping, DDL, Exec with arguments, a query and a prepared
// batch insert in a transaction through otelsql, and checks the rows and that otelsql recorded
// a span for each step.
func TestOtelsqlOpenQueryExecBatch(t *testing.T) {
	db, rec, tracer := openOtel(t)
	ctx, parent := tracer.Start(context.Background(), "test")
	defer parent.End()
	if err := db.PingContext(ctx); err != nil {
		t.Fatal(err)
	}
	table := tableName("otelsql")
	if _, err := db.ExecContext(ctx, "CREATE TABLE "+table+" (id UInt64, name String) ENGINE = Memory"); err != nil {
		t.Fatal(err)
	}
	dropLater(t, db, table)
	if _, err := db.ExecContext(ctx, "INSERT INTO "+table+" (id, name) VALUES (?, ?)", uint64(0), "zero"); err != nil {
		t.Fatal(err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := tx.PrepareContext(ctx, "INSERT INTO "+table+" (id, name) VALUES (?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 100; i++ {
		if _, err := st.ExecContext(ctx, uint64(i), fmt.Sprint("n", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	rows, err := db.QueryContext(ctx, "SELECT id, name FROM "+table+" WHERE id >= ? ORDER BY id", uint64(99))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var id uint64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d %s", id, name))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if fmt.Sprint(got) != "[99 n99 100 n100]" {
		t.Fatalf("rows %v", got)
	}
	var n uint64
	if err := db.QueryRowContext(ctx, "SELECT count() FROM "+table).Scan(&n); err != nil || n != 101 {
		t.Fatalf("count %d, %v", n, err)
	}
	names := spanNames(rec)
	for _, m := range []otelsql.Method{otelsql.MethodConnPing, otelsql.MethodConnExec, otelsql.MethodConnQuery,
		otelsql.MethodConnBeginTx, otelsql.MethodConnPrepare, otelsql.MethodStmtExec, otelsql.MethodTxCommit, otelsql.MethodRows} {
		if names[string(m)] == 0 {
			t.Errorf("no %s span (spans: %v)", m, names)
		}
	}
	if names[string(otelsql.MethodStmtExec)] != 100 {
		t.Errorf("%d %s spans, want 100", names[string(otelsql.MethodStmtExec)], otelsql.MethodStmtExec)
	}
}

// TestOtelsqlBatchExtension: under otelsql, sql.Conn.Raw hands over otelsql's connection;
// chnative.AsConn finds chnative's underneath, so PrepareBatch and the helpers (InsertRows,
// StreamRows) take the native path: no prepared statement goes through otelsql for them.
func TestOtelsqlBatchExtension(t *testing.T) {
	db, rec, _ := openOtel(t)
	ctx := context.Background()
	table := tableName("otelsql_batch")
	exec(t, db, "CREATE TABLE "+table+" (id UInt64) ENGINE = Memory")
	dropLater(t, db, table)
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Raw(func(dc any) error {
		if _, ok := dc.(chnative.Conn); ok {
			return fmt.Errorf("otelsql's connection is chnative's itself: %T", dc)
		}
		cc, ok := chnative.AsConn(dc)
		if !ok {
			return fmt.Errorf("AsConn(%T) found no chnative connection", dc)
		}
		b, err := cc.PrepareBatch(ctx, "INSERT INTO "+table)
		if err != nil {
			return err
		}
		if err := b.Append(uint64(1)); err != nil {
			b.Abort()
			return err
		}
		return b.Send()
	}); err != nil {
		t.Fatal(err)
	}
	before := spanNames(rec)[string(otelsql.MethodConnPrepare)]
	if err := chnative.InsertRows(ctx, db, "INSERT INTO "+table, [][]any{{uint64(2)}, {uint64(3)}}); err != nil {
		t.Fatal(err)
	}
	if after := spanNames(rec)[string(otelsql.MethodConnPrepare)]; after != before {
		t.Fatalf("InsertRows prepared %d statements through otelsql: it took the database/sql fallback", after-before)
	}
	var sum uint64
	if err := chnative.StreamRows(ctx, db, "SELECT sum(id) FROM "+table, nil, func(row []any) error {
		sum = row[0].(uint64)
		return nil
	}); err != nil || sum != 6 {
		t.Fatalf("sum %d, %v", sum, err)
	}
}

// TestOtelsqlSpanReachesServer: the span otelsql starts for a query is the parent the server
// receives. ClickHouse 26.7 logs the traceparent it parsed from the ClientInfo (executeQuery,
// trace level): it names the test's trace id and the span id of otelsql's sql.conn.query span.
// 18.16 (protocol revision 54412) has no trace fields and logs none; the query runs the same.
func TestOtelsqlSpanReachesServer(t *testing.T) {
	db, rec, tracer := openOtel(t)
	ctx, parent := tracer.Start(context.Background(), "test")
	var mu sync.Mutex
	var lines []string
	ctx = chnative.WithSettings(chnative.WithLogs(ctx, func(l chnative.Log) {
		if strings.Contains(l.Text, "traceparent") {
			mu.Lock()
			lines = append(lines, l.Text)
			mu.Unlock()
		}
	}), chnative.Settings{"send_logs_level": "trace"})
	rows, err := db.QueryContext(ctx, "SELECT 1")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	parent.End()
	var query trace.SpanContext
	for _, s := range rec.Ended() {
		if s.Name() == string(otelsql.MethodConnQuery) {
			query = s.SpanContext()
		}
	}
	if !query.IsValid() || query.TraceID() != parent.SpanContext().TraceID() {
		t.Fatalf("otelsql's query span %v, parent %v", query, parent.SpanContext())
	}
	mu.Lock()
	defer mu.Unlock()
	switch testenv.Server(t) {
	case testenv.Modern:
		want := fmt.Sprintf("'00-%s-%s-01'", query.TraceID(), query.SpanID())
		if len(lines) != 1 || !strings.Contains(lines[0], want) {
			t.Fatalf("server log lines naming a traceparent: %q, want one with %s", lines, want)
		}
	default:
		if len(lines) != 0 {
			t.Fatalf("18.16 logged %q", lines)
		}
	}
}
