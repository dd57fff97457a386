package chconn

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/chnative/chnative/dsn"
	"github.com/chnative/chnative/internal/faketest"
	"github.com/chnative/chnative/internal/wire"
	"github.com/chnative/chnative/nativeproto"
)

// recorder is an Observer that keeps copies of its events.
type recorder struct {
	mu      sync.Mutex
	starts  []QueryEvent
	ends    []QueryEvent
	opens   []ConnEvent
	idles   []ConnEvent
	closes  []ConnEvent
	retries []RetryEvent
	retryTo []any // the value of retryKey in each Retry's context
}

// retryKey marks the context a test's statement runs under, to see that Retry gets it.
type retryKey struct{}

type ctxKey struct{}

func (r *recorder) QueryStart(ctx context.Context, q *QueryEvent) context.Context {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.starts = append(r.starts, *q)
	return context.WithValue(ctx, ctxKey{}, q.ID)
}

func (r *recorder) QueryEnd(ctx context.Context, q *QueryEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ctx.Value(ctxKey{}) != q.ID {
		panic("QueryEnd did not get QueryStart's context")
	}
	r.ends = append(r.ends, *q)
}

func (r *recorder) ConnOpen(_ context.Context, c *ConnEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.opens = append(r.opens, *c)
}

func (r *recorder) ConnIdle(c *ConnEvent) { r.mu.Lock(); r.idles = append(r.idles, *c); r.mu.Unlock() }

func (r *recorder) ConnClose(c *ConnEvent) {
	r.mu.Lock()
	r.closes = append(r.closes, *c)
	r.mu.Unlock()
}

func (r *recorder) Retry(ctx context.Context, e *RetryEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.retries = append(r.retries, *e)
	r.retryTo = append(r.retryTo, ctx.Value(retryKey{}))
}

// progressElapsed is a Progress packet of rows rows and elapsed server time, at rev.
func progressElapsed(rev nativeproto.Revision, rows uint64, elapsed time.Duration) []byte {
	var w wire.Writer
	p := nativeproto.Progress{ReadRows: rows, ReadBytes: rows * 8, ElapsedNS: uint64(elapsed)}
	p.Encode(&w, rev)
	return w.Buf
}

// The events of a connection, a query with Progress packets, a failed query and the close.
func TestObserverEvents(t *testing.T) {
	rev := faketest.ModernHello().Revision
	answer := append(u64Header(t, rev), progressElapsed(rev, 1, 3*time.Millisecond)...)
	answer = append(answer, u64Block(t, rev, 1, 1)...)
	answer = append(answer, progressElapsed(rev, 2, 4*time.Millisecond)...)
	srv, err := faketest.NewServer(faketest.Script(faketest.ModernHello(),
		faketest.Send(faketest.EndQuery(answer, rev)),
		faketest.Send(faketest.Exception(nil, 47, "Missing columns: 'x'", 1))))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cfg, err := dsn.Parse("clickhouse://default@" + srv.Addr() + "/default")
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	c, err := Dial(context.Background(), cfg, srv.Addr(), Dialer{Observer: rec})
	if err != nil {
		t.Fatal(err)
	}
	checkSelectOne(t, c)
	if _, err := c.Begin(false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Query(context.Background(), "select x", nil); err == nil {
		t.Fatal("the exception was not returned")
	}
	if !c.IsValid() {
		t.Fatal("connection not reusable after an exception")
	}
	c.Close()

	if len(rec.opens) != 1 || rec.opens[0].ID == 0 || rec.opens[0].Err != nil || rec.opens[0].Revision != rev {
		t.Fatalf("ConnOpen events %+v", rec.opens)
	}
	id := rec.opens[0].ID
	if len(rec.starts) != 2 || len(rec.ends) != 2 {
		t.Fatalf("%d starts, %d ends, want 2 of each", len(rec.starts), len(rec.ends))
	}
	q := rec.ends[0]
	if q.ConnID != id || q.Kind != "SELECT" || q.Outcome != OutcomeDone || q.Err != nil || q.Rows != 1 ||
		q.Blocks != 2 || q.BytesRead == 0 || q.ID != rec.starts[0].ID || q.End.Before(q.Start) {
		t.Errorf("SELECT's end: %+v", q)
	}
	if q.ServerElapsed != 7*time.Millisecond || q.ServerReadRows != 3 || q.ServerReadBytes != 24 {
		t.Errorf("server totals %v, %d rows, %d bytes; want the Progress packets' 7ms, 3, 24", q.ServerElapsed, q.ServerReadRows, q.ServerReadBytes)
	}
	f := rec.ends[1]
	var ex *Exception
	if f.Kind != "SELECT" || f.Outcome != OutcomeFailed || !errors.As(f.Err, &ex) || ex.Code != 47 {
		t.Errorf("failed query's end: %+v", f)
	}
	if len(rec.idles) == 0 || rec.idles[0].ID != id {
		t.Errorf("ConnIdle events %+v", rec.idles)
	}
	if len(rec.closes) != 1 || rec.closes[0].ID != id || rec.closes[0].Broken {
		t.Errorf("ConnClose events %+v", rec.closes)
	}
}

// Without an observer, following a query costs nothing: no event is built.
func TestObserverOffAllocs(t *testing.T) {
	c := &Conn{}
	allocs := testing.AllocsPerRun(100, func() {
		c.traceStart("id", "SELECT number FROM system.numbers")
		c.traceBlock(10)
		c.traceSent(10)
		c.traceProgress(nativeproto.Progress{ReadRows: 1})
		c.traceEnd(OutcomeDone, nil)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per query without an observer, want 0", allocs)
	}
	if c.trace.active || c.trace.ev.ID != "" {
		t.Error("a query was traced without an observer")
	}
}

func TestStatementKind(t *testing.T) {
	for body, want := range map[string]string{
		"SELECT 1": "SELECT", "  insert into t": "INSERT", "(SELECT 1) UNION ALL (SELECT 2)": "SELECT",
		"-- c\n/* x */ WITH a AS (SELECT 1) SELECT * FROM a": "WITH", "": "", "-- only": "", "123": "",
	} {
		if got := statementKind(body); got != want {
			t.Errorf("statementKind(%q) = %q, want %q", body, got, want)
		}
	}
}
