package chnative

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/chnative/chnative/internal/testenv"
	"github.com/chnative/chnative/nativeproto"
)

// serverTraceLines runs query with ctx and the server's trace-level logs on, and returns the
// log lines in which the server names the traceparent it received.
func serverTraceLines(t *testing.T, ctx context.Context, query string) []string {
	t.Helper()
	db := openDB(t)
	var mu sync.Mutex
	var lines []string
	ctx = WithSettings(WithLogs(ctx, func(l Log) {
		if strings.Contains(l.Text, "traceparent") {
			mu.Lock()
			lines = append(lines, l.Text)
			mu.Unlock()
		}
	}), Settings{"send_logs_level": "trace"})
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	mu.Lock()
	defer mu.Unlock()
	return lines
}

var testTrace = TraceContext{
	TraceID: [16]byte{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
	SpanID:  [8]byte{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
	Flags:   1,
	State:   "chnative=t1",
}

// TestTraceContextReachesServer: the span of WithTraceContext arrives in the query's ClientInfo.
// ClickHouse 26.7 logs the traceparent it parsed from the ClientInfo ("OpenTelemetry traceparent
// '00-...-01'", executeQuery, trace level), which shows the ids went out in the byte order the
// server reads; 18.16 (revision 54412, below the trace fields of 54442) gets none and runs the
// query as usual.
func TestTraceContextReachesServer(t *testing.T) {
	if got := testTrace.Traceparent(); got != "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" {
		t.Fatalf("Traceparent %q", got)
	}
	lines := serverTraceLines(t, WithTraceContext(context.Background(), testTrace), "SELECT 1")
	want := "OpenTelemetry traceparent '" + testTrace.Traceparent() + "'"
	switch testenv.Server(t) {
	case testenv.Modern:
		if len(lines) != 1 || !strings.Contains(lines[0], want) {
			t.Fatalf("server log lines naming a traceparent: %q, want one with %q", lines, want)
		}
	default:
		if len(lines) != 0 {
			t.Fatalf("18.16 logged a traceparent: %q", lines)
		}
	}
	// No trace context: the server names none.
	if lines := serverTraceLines(t, context.Background(), "SELECT 1"); len(lines) != 0 {
		t.Fatalf("without a trace context the server logged %q", lines)
	}
}

// TestTraceContextFunc: the function of SetTraceContextFunc supplies the span when the context
// has no WithTraceContext, which wins over it; an invalid TraceContext sends none.
func TestTraceContextFunc(t *testing.T) {
	other := testTrace
	other.SpanID = [8]byte{1, 2, 3, 4, 5, 6, 7, 8}
	type key struct{}
	SetTraceContextFunc(func(ctx context.Context) (TraceContext, bool) {
		tc, ok := ctx.Value(key{}).(TraceContext)
		return tc, ok
	})
	t.Cleanup(func() { SetTraceContextFunc(nil) })
	modern := testenv.Server(t) == testenv.Modern
	check := func(ctx context.Context, want string) {
		t.Helper()
		lines := serverTraceLines(t, ctx, "SELECT 1")
		switch {
		case !modern || want == "":
			if len(lines) != 0 {
				t.Fatalf("log lines %q, want none", lines)
			}
		case len(lines) != 1 || !strings.Contains(lines[0], "'"+want+"'"):
			t.Fatalf("log lines %q, want %s", lines, want)
		}
	}
	ctx := context.WithValue(context.Background(), key{}, other)
	check(ctx, other.Traceparent())
	check(WithTraceContext(ctx, testTrace), testTrace.Traceparent())
	check(WithTraceContext(ctx, TraceContext{}), "")
	check(context.Background(), "")
}

func TestParseTraceparent(t *testing.T) {
	tc, err := ParseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "chnative=t1")
	if err != nil || tc != testTrace {
		t.Fatalf("%+v, %v", tc, err)
	}
	if tc, err := ParseTraceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00-later", ""); err != nil || tc.Flags != 0 {
		t.Fatalf("a later version: %+v, %v", tc, err)
	}
	for _, bad := range []string{
		"", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
		"00-00000000000000000000000000000000-00f067aa0ba902b7-01",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
		"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
		"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
		"00-4bf92f3577b34da6a3ce929d0e0e473x-00f067aa0ba902b7-01",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
	} {
		if _, err := ParseTraceparent(bad, ""); err == nil {
			t.Errorf("ParseTraceparent(%q) accepted", bad)
		}
	}
}

// TestTraceContextBatchInsert: a Batch's INSERT carries the span of PrepareBatch's context.
func TestTraceContextBatchInsert(t *testing.T) {
	db := openDB(t)
	table := createTable(t, db, "trace_batch", "a UInt64")
	var mu sync.Mutex
	var lines []string
	ctx := WithSettings(WithLogs(WithTraceContext(context.Background(), testTrace), func(l Log) {
		if strings.Contains(l.Text, "traceparent") {
			mu.Lock()
			lines = append(lines, l.Text)
			mu.Unlock()
		}
	}), Settings{"send_logs_level": "trace"})
	c := sqlConn(t, db)
	if err := c.Raw(func(dc any) error {
		b, err := dc.(Conn).PrepareBatch(ctx, "INSERT INTO "+table)
		if err != nil {
			return err
		}
		if err := b.Append(uint64(1)); err != nil {
			return err
		}
		return b.SendContext(ctx)
	}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := 0
	if testenv.Server(t) == testenv.Modern {
		want = 1
	}
	if len(lines) != want || want == 1 && !strings.Contains(lines[0], testTrace.Traceparent()) {
		t.Fatalf("log lines %q, want %d naming %s", lines, want, testTrace.Traceparent())
	}
}

// TestFakeTraceContextBytes: what a scripted server decodes from the ClientInfo: the ids, flags
// and tracestate at 54488, and no trace below 54442 (the field does not exist there).
func TestFakeTraceContextBytes(t *testing.T) {
	var got recorder[*nativeproto.Trace]
	srv := fakeModern(t, fakeHello, serveQueries(func(c *fakeConn, q *nativeproto.Query) []byte {
		got.add(q.ClientInfo.Trace)
		return join(c.endOfData(), eos())
	}))
	for _, rev := range []nativeproto.Revision{nativeproto.LatestRevision, nativeproto.RevOpenTelemetry, nativeproto.RevOpenTelemetry - 1} {
		db := openAt(t, []string{srv.Addr()}, fmt.Sprint("protocol_revision=", uint64(rev)))
		if _, err := db.ExecContext(WithTraceContext(context.Background(), testTrace), "SELECT 1"); err != nil {
			t.Fatal(err)
		}
		all := got.all()
		tr := all[len(all)-1]
		want := &nativeproto.Trace{TraceID: testTrace.TraceID, SpanID: testTrace.SpanID, Flags: 1, State: "chnative=t1"}
		if rev < nativeproto.RevOpenTelemetry {
			want = nil
		}
		if fmt.Sprint(tr) != fmt.Sprint(want) {
			t.Fatalf("revision %d: trace %+v, want %+v", rev, tr, want)
		}
		db.Close()
	}
}
