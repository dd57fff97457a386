package chconn

import (
	"context"
	"io"
	"log/slog"
	"time"
	"unicode/utf8"
)

// The debug log (debug=true, or a Logger in the dsn.Config; see the package documentation).
//
// Design note: everything here is off unless the connection has a logger (conn.log), so a
// connection without one pays a nil check per query and per packet, nothing more: the byte
// counter wraps the socket only for logged connections. A query's trace is kept on the
// connection and written when the query ends (EndOfStream, an exception, a cancel, a broken
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

// queryTrace is what the debug log says about the running query.
type queryTrace struct {
	active     bool
	id         string
	start      time.Time
	firstBlock time.Duration // from sending the query to its first Data packet
	blocks     int           // Data packets received (the header block included)
	rows       int           // rows in them
	sentBlocks int           // insert blocks sent
	sentRows   int
	readAt0    uint64 // the connection's byte counter when the query was sent
}

// traceStart records a query being sent.
func (c *Conn) traceStart(id, body string, settings int) {
	if c.log == nil {
		return
	}
	c.trace = queryTrace{active: true, id: id, start: time.Now(), readAt0: c.bytesRead}
	c.log.Debug("chnative: query sent", slog.String("addr", c.addr), slog.String("query_id", id),
		slog.String("query", shortQuery(body)), slog.Int("settings", settings))
}

// traceBlock records a Data packet of rows rows.
func (c *Conn) traceBlock(rows int) {
	if c.log == nil || !c.trace.active {
		return
	}
	if c.trace.blocks == 0 {
		c.trace.firstBlock = time.Since(c.trace.start)
	}
	c.trace.blocks++
	c.trace.rows += rows
}

// traceSent records an insert block of rows rows written to the server.
func (c *Conn) traceSent(rows int) {
	if c.log == nil || !c.trace.active {
		return
	}
	c.trace.sentBlocks++
	c.trace.sentRows += rows
}

// traceEnd writes the query's summary: msg is what ended it ("query done", "query failed",
// "query cancelled", ...), err the error if any. Later calls for the same query write nothing.
func (c *Conn) traceEnd(msg string, err error, attrs ...slog.Attr) {
	if c.log == nil || !c.trace.active {
		return
	}
	t := &c.trace
	t.active = false
	all := append([]slog.Attr{
		slog.String("addr", c.addr), slog.String("query_id", t.id),
		slog.Duration("elapsed", time.Since(t.start)), slog.Duration("first_block", t.firstBlock),
		slog.Int("blocks", t.blocks), slog.Int("rows", t.rows),
		slog.Uint64("bytes_read", c.bytesRead-t.readAt0),
	}, attrs...)
	if t.sentBlocks > 0 {
		all = append(all, slog.Int("sent_blocks", t.sentBlocks), slog.Int("sent_rows", t.sentRows))
	}
	if err != nil {
		all = append(all, slog.Any("error", err))
	}
	c.log.LogAttrs(context.Background(), slog.LevelDebug, "chnative: "+msg, all...)
}

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
