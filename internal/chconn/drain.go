package chconn

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// Cancelling a query off the caller's path.
//
// When the context of a running query ends, the caller gets the context's error at once (the
// watcher in conn.watch has already made the blocked socket call return), and the Cancel packet
// and the reading of the rest of the query run on a goroutine of their own. Until that drain
// ends, the connection is in no state to serve anything, so every way into it waits for the
// drain first (awaitDrain): begin (every query, exec, prepare, Ping, PrepareBatch, QueryBlocks),
// ResetSession, Close, ServerInfo (the session's zone) and the transaction's end (EndTx). The
// drain is bounded (DrainTimeout for the Cancel's write and again for the reads); when the
// server does not end the query in time, the connection is marked bad and closed, and
// database/sql's next use of it gets ErrBadConn (driver.ErrBadConn) and moves to another
// connection.
//
// database/sql puts the connection back in the pool right after the failed call returns
// (IsValid, on the caller's goroutine): IsValid does not wait, it reports a draining connection
// as valid, and the ResetSession that database/sql calls before handing the connection out
// again waits for the drain (bounded, and by that caller's context) and then answers for the
// state the drain left. A connection in an unknown state is never handed out: either the drain
// finished and the stream is in step, or the connection is closed.
//
// Callbacks (WithProgress, WithLogs, ...) are dropped when the drain starts: the caller has its
// error and may already be running other code, so none of them runs after the call returned.

// drainState is a background drain in progress.
type drainState struct {
	done chan struct{}
}

// cancelOffPath starts cancelling the running query on a goroutine and returns at once. cause is
// the context's error, for the debug log; cancelSent says the Cancel packet was already written
// (Result.Close after a read-ahead), so only the drain is left.
func (c *Conn) cancelOffPath(cause error, cancelSent bool) {
	if c.bad {
		return
	}
	c.cur = nil // no callbacks once the caller has its error
	d := &drainState{done: make(chan struct{})}
	c.drain = d
	go func() {
		defer close(d.done)
		start := time.Now()
		if cancelSent {
			c.drainAfterCancel()
		} else {
			c.cancelAndDrain()
		}
		if c.log != nil {
			c.log.Debug("chnative: cancelled query drained off the caller's path",
				slog.String("addr", c.addr), slog.String("query_id", c.trace.ev.ID),
				slog.Duration("drain", time.Since(start)), slog.Bool("connection_kept", !c.bad),
				slog.String("cause", cause.Error()))
		}
	}()
}

// awaitDrain waits for a background drain to end. After it returns, the connection's state is
// the caller's again.
func (c *Conn) awaitDrain() {
	if c.drain == nil {
		return
	}
	<-c.drain.done
	c.drain = nil
}

// awaitDrainCtx is awaitDrain bounded by ctx: when ctx ends first, the socket is closed (which
// ends the drain at once) and the connection is bad.
func (c *Conn) awaitDrainCtx(ctx context.Context) {
	if c.drain == nil {
		return
	}
	select {
	case <-c.drain.done:
	case <-ctx.Done():
		_ = c.nc.Close() // the drain's read fails now; it marks the connection bad
		<-c.drain.done
		c.bad = true
	}
	c.drain = nil
}

// draining reports, without waiting, whether a background drain still runs.
func (c *Conn) draining() bool {
	if c.drain == nil {
		return false
	}
	select {
	case <-c.drain.done:
		c.drain = nil
		return false
	default:
		return true
	}
}

// contextError is what a query whose context ended returns: the context's error, wrapped with the
// query id (errors.Is(err, context.DeadlineExceeded) and context.Canceled hold).
func (c *Conn) contextError(cause error) error {
	if c.queryID == "" {
		return fmt.Errorf("chnative: %w", cause)
	}
	return fmt.Errorf("chnative: query %s: %w", c.queryID, cause)
}
