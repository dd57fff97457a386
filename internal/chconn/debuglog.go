package chconn

import (
	"context"
	"github.com/chnative/chnative/nativeproto"
	"io"
	"log/slog"
	"time"
	"unicode/utf8"
)

// The debug log (debug=true, or a Logger in the dsn.Config; see the package documentation).
//
// Design note: the query lines go through the connection's observer (observe.go), logObserver
// being the debug log's, so everything here is off unless the connection has an observer
// (conn.obs): a connection without one pays a nil check per query and per packet, nothing
// more; the byte counter wraps the socket only for observed connections. A query's trace is
// kept on the connection and reported when the query ends (EndOfStream, an exception, a cancel, a broken
// stream). The read-ahead goroutine (readahead.go) and the background drain of a cancelled
// query (drain.go) update the trace too; each runs only while the connection's owner waits for
// it or does not touch the connection, so the trace has one writer at a time, like the rest of
// the connection's state.

// maxLoggedQuery is how much of a query's text the debug log shows.
const maxLoggedQuery = 256

// countingReader counts the bytes read from the socket of a logged connection.
type countingReader struct {
	r io.Reader
	n *uint64
}

func (cr countingReader) Read(p []byte) (int, error) {
	n, err := cr.r.Read(p)
	*cr.n += uint64(n)
	return n, err
}

// queryTrace is the running query, for the observer (observe.go).
type queryTrace struct {
	active  bool
	ev      QueryEvent
	ctx     context.Context // QueryStart's
	readAt0 uint64          // the connection's byte counter when the query was sent
}

// traceStart records a query being sent.
func (c *Conn) traceStart(id, body string) {
	if c.obs == nil {
		return
	}
	ctx := c.qctx
	if ctx == nil {
		ctx = context.Background()
	}
	c.trace = queryTrace{active: true, readAt0: c.bytesRead, ev: QueryEvent{
		ConnID: c.id, Addr: c.addr, ID: id, Query: body, Kind: statementKind(body), Start: time.Now(),
	}}
	c.trace.ctx = c.obs.QueryStart(ctx, &c.trace.ev)
}

// traceBlock records a Data packet of rows rows.
func (c *Conn) traceBlock(rows int) {
	if c.obs == nil || !c.trace.active {
		return
	}
	t := &c.trace.ev
	if t.Blocks == 0 {
		t.FirstBlock = time.Since(t.Start)
	}
	t.Blocks++
	t.Rows += rows
}

// traceSent records an insert block of rows rows written to the server.
func (c *Conn) traceSent(rows int) {
	if c.obs == nil || !c.trace.active {
		return
	}
	c.trace.ev.SentBlocks++
	c.trace.ev.SentRows += rows
}

// traceProgress adds a Progress packet to the query's server totals.
func (c *Conn) traceProgress(p nativeproto.Progress) {
	if c.obs == nil || !c.trace.active {
		return
	}
	t := &c.trace.ev
	t.ServerElapsed += time.Duration(p.ElapsedNS)
	t.ServerReadRows += p.ReadRows
	t.ServerReadBytes += p.ReadBytes
}

// traceEnd ends the query with outcome and err (for OutcomeCancelled, the context's error,
// nil for an explicit Cancel). Later calls for the same query report nothing.
func (c *Conn) traceEnd(outcome string, err error) {
	if c.obs == nil || !c.trace.active {
		return
	}
	c.trace.active = false
	t := &c.trace.ev
	t.End = time.Now()
	t.BytesRead = c.bytesRead - c.trace.readAt0
	t.Outcome, t.Err = outcome, err
	c.obs.QueryEnd(c.trace.ctx, t)
	c.trace.ctx = nil
}

// logObserver is the debug log as an Observer: a line when a query is sent and one when it
// ends. Connections, failovers and retries are logged where they happen, with what only
// that place knows (the next host, the back-off).
type logObserver struct{ log *slog.Logger }

func (l logObserver) QueryStart(ctx context.Context, q *QueryEvent) context.Context {
	l.log.Debug("chnative: query sent", slog.String("addr", q.Addr), slog.String("query_id", q.ID),
		slog.String("query", shortQuery(q.Query)))
	return ctx
}

func (l logObserver) QueryEnd(_ context.Context, q *QueryEvent) {
	msg := "chnative: query " + q.Outcome
	all := []slog.Attr{
		slog.String("addr", q.Addr), slog.String("query_id", q.ID),
		slog.Duration("elapsed", q.End.Sub(q.Start)), slog.Duration("first_block", q.FirstBlock),
		slog.Int("blocks", q.Blocks), slog.Int("rows", q.Rows),
		slog.Uint64("bytes_read", q.BytesRead),
	}
	if q.SentBlocks > 0 {
		all = append(all, slog.Int("sent_blocks", q.SentBlocks), slog.Int("sent_rows", q.SentRows))
	}
	switch {
	case q.Outcome == OutcomeCancelled && q.Err != nil:
		msg = "chnative: query cancelled (context ended); the Cancel and the drain run off the caller's path"
		all = append(all, slog.String("cause", q.Err.Error()))
	case q.Err != nil:
		all = append(all, slog.Any("error", q.Err))
	}
	l.log.LogAttrs(context.Background(), slog.LevelDebug, msg, all...)
}

func (logObserver) ConnOpen(context.Context, *ConnEvent) {}
func (logObserver) ConnIdle(*ConnEvent)                  {}
func (logObserver) ConnClose(*ConnEvent)                 {}
func (logObserver) Retry(context.Context, *RetryEvent)   {}

// logRetry logs that the connection cannot serve the next statement, which database/sql then
// retries on another connection (ErrBadConn).
func (c *Conn) logRetry(reason string) {
	if c.log != nil {
		c.log.Debug("chnative: connection not reusable, database/sql retries on another",
			slog.String("addr", c.addr), slog.String("reason", reason))
	}
}

// shortQuery returns body cut to maxLoggedQuery bytes (at a rune boundary).
func shortQuery(body string) string {
	if len(body) <= maxLoggedQuery {
		return body
	}
	cut := maxLoggedQuery
	for cut > 0 && !utf8.RuneStart(body[cut]) {
		cut--
	}
	return body[:cut] + "…"
}
