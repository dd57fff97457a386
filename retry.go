package chnative

import (
	"context"
	"errors"
	"log/slog"

	"github.com/chnative/chnative/internal/chconn"
	"github.com/chnative/chnative/internal/sqltext"
)

// Read retries (dsn.Config.ReadRetries).
//
// Design note: a read-only statement (sqltext.IsReadOnly) whose connection breaks before any
// of its rows reached the caller is run again: the broken native connection is replaced, inside
// the same database/sql connection, by a new one that the Connector dials (failover.go), to
// another host first; the host that broke backs off. The result then reads from the new
// connection as if nothing had happened. Up to ReadRetries times per statement. It never
// happens once a row was delivered (rows and Blocks know: a result never restarts and repeats
// rows), for a server's exception (the statement failed, not the connection), for an answer
// that broke the protocol (only a transport failure, chconn.IsTransport, is retried: the same
// query would get the same lie again, at three times the server's work), when the query's
// context has ended, or inside a transaction (its insert is on the old connection). The query
// id follows the same policy on every attempt: the caller's WithQueryID, else a new one.
// database/sql's own retry (driver.ErrBadConn) covers a connection found broken before the
// statement was sent.

// readRetry is what running a read again needs, kept on the connection while its result is
// open.
type readRetry struct {
	ctx    context.Context
	body   string
	params map[string]string
	tries  int // retries made so far
}

// runRead runs the read body into res (a zero Result), retrying while it fails before its
// header as retryRead allows.
func (c *conn) runRead(ctx context.Context, body string, params map[string]string, res *chconn.Result) error {
	c.read = readRetry{ctx: ctx, body: body, params: params}
	for {
		err := c.startRead(res)
		if err == nil {
			return nil
		}
		if !c.retryRead(err) {
			c.read = readRetry{}
			return sqlErr(err)
		}
		res.Reset()
	}
}

// startRead sends the current read into res.
func (c *conn) startRead(res *chconn.Result) error {
	opts, err := c.options(c.read.ctx, c.read.params, c.read.body)
	if err != nil {
		return err
	}
	return c.cc.QueryInto(c.read.ctx, c.read.body, opts, res)
}

// rerun runs the current read again into res, whose connection broke with err before any row
// of it reached the caller; false when it may not be retried (the caller returns err).
func (c *conn) rerun(res *chconn.Result, err error) bool {
	for c.retryRead(err) {
		res.Reset()
		if err = c.startRead(res); err == nil {
			return true
		}
	}
	return false
}

// readDone forgets the current read (its result ended or was closed).
func (c *conn) readDone() { c.read = readRetry{} }

// retryRead reports whether the current read, failed with err, is to be run again; if so, it
// has replaced the broken connection with a new one.
func (c *conn) retryRead(err error) bool {
	rr := &c.read
	// The context's end first, by the error too: a socket deadline can fire a moment before the
	// context's own timer, and the failure is then the context's, with the cancel and drain
	// running in the background (drain.go), which may be marking the connection bad right now:
	// Bad is read only when no drain can run.
	var ex *Exception
	if c.ctr == nil || rr.ctx == nil || rr.ctx.Err() != nil || errors.Is(err, context.Canceled) ||
		errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ex) || rr.tries >= c.ctr.cfg.ReadRetries ||
		c.cc.InTx() || !sqltext.IsReadOnly(rr.body) || !c.cc.Bad() || !chconn.IsTransport(err) {
		return false
	}
	rr.tries++
	old := c.cc.Addr()
	cc, derr := c.ctr.redialAfter(rr.ctx, old)
	c.logRedial("chnative: read retried on a new connection", old, err, rr.tries, cc, derr)
	if derr != nil {
		return false
	}
	c.replaceConn(cc)
	return true
}

// logRedial writes the debug line of a retry that dialed cc (or failed to: derr) after err
// broke the statement on old, its try-th; attrs are the retry's own.
func (c *conn) logRedial(msg, old string, err error, try int, cc *chconn.Conn, derr error, attrs ...any) {
	log := c.ctr.logger()
	if log == nil {
		return
	}
	attrs = append([]any{slog.String("addr", old), slog.Any("error", err), slog.Int("retry", try)}, attrs...)
	if derr != nil {
		attrs = append(attrs, slog.Any("dial_error", derr))
	} else {
		attrs = append(attrs, slog.String("new_addr", cc.Addr()))
	}
	log.Debug(msg, attrs...)
}

// replaceConn makes cc the connection's native connection in place of the broken one, which it
// closes; an open transaction carries over.
func (c *conn) replaceConn(cc *chconn.Conn) {
	cc.SetInTx(c.cc.InTx())
	_ = c.cc.Close()
	c.cc = cc
}

// TransportError marks a failure of the connection itself (field Err, the cause): the socket
// ended, was reset or refused, timed out (not by the caller's context), or a compressed frame
// failed its checksum. It is found with errors.As inside the *ProtocolError the call returns.
// Only such a failure is retried (read_retries, insert_retries); an answer that breaks the
// protocol (a *ProtocolError without it) is returned at once and its connection closed.
type TransportError = chconn.TransportError
