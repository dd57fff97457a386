package chconn

import (
	"context"
	"errors"

	"github.com/chnative/chnative/internal/sqltext"
)

// Read retries (dsn.Config.ReadRetries).
//
// Design note: a read-only statement (sqltext.IsReadOnly) run by Read whose connection breaks
// before any of its rows reached the caller is run again: the broken connection is replaced by
// a new one that its Hosts dials (hosts.go), to another host first; the host that broke backs
// off. The Result then reads from the new connection as if nothing had happened. Up to
// ReadRetries times per statement. It never happens once a row was delivered (the caller knows,
// and calls Rerun only before: a result never restarts and repeats rows), for a server's
// exception (the statement failed, not the connection), for an answer that broke the protocol
// (only a transport failure, IsTransport, is retried: the same query would get the same lie
// again, at three times the server's work), when the query's context has ended, inside a
// transaction (its insert is on the old connection), or on a connection no Hosts dialed. Every
// attempt sends the same options; the query id follows their policy on each (theirs, else a
// new one).

// readRetry is what running a read again needs, kept on the connection while its result is
// open.
type readRetry struct {
	ctx   context.Context
	body  string
	opts  *Options
	tries int     // retries made so far
	res   *Result // the result it reads into (its Close forgets the read)
}

// Read runs the read body into res (a zero Result) with opts (nil: none), retrying on a new connection while it fails before its header as the design note
// says. After a retry c.Current() is the connection the result reads from (c is then closed).
func (c *Conn) Read(ctx context.Context, body string, opts *Options, res *Result) error {
	c.read = readRetry{ctx: ctx, body: body, opts: opts, res: res}
	for {
		err := res.start(c)
		if err == nil {
			return nil
		}
		next, ok := c.retryRead(res, err)
		if !ok {
			return err
		}
		c = next
	}
}

// rerun runs r's statement again on a new connection after err, the failure of its connection
// before any of its rows reached the caller (Next calls it); false when it may not (Next returns
// err). The connection that broke is replaced (Conn.Current finds the new one).
//
// The new result's header must name the columns and types the first one did: the caller read
// them, and reads the rows by them (a replica in the middle of an ALTER may answer otherwise). A
// header that differs fails the result with a *ProtocolError (errors.As finds the
// *BlockMismatchError) and closes the new connection; rerun then returns that error.
func (r *Result) rerun(err error) (bool, error) {
	c := r.c
	if c == nil {
		return false, err
	}
	cols := r.cols
	for {
		next, ok := c.retryRead(r, err)
		if !ok {
			return false, err
		}
		c = next
		if err = r.start(c); err == nil {
			if cols == nil || r.Ended() {
				return true, nil
			}
			n := len(cols) / 2 // the first run's names, then types
			if e := blockMismatch("read retry header", r.block, cols[:n:n], cols[n:]); e != nil {
				return false, r.finish(&ProtocolError{Op: "read retry", Err: e})
			}
			return true, nil
		}
	}
}

// start sends c's read on c into r, made a zero Result.
func (r *Result) start(c *Conn) error {
	*r = Result{}
	return c.QueryInto(c.read.ctx, c.read.body, c.read.opts, r)
}

// retryRead reports whether c's read into res, failed with err, is to be run again; if so, it
// returns the new connection that replaced c, which took the read over.
func (c *Conn) retryRead(res *Result, err error) (*Conn, bool) {
	if c == nil {
		return nil, false
	}
	rr := &c.read
	// The context's end first, by the error too: a socket deadline can fire a moment before the
	// context's own timer, and the failure is then the context's, with the cancel and drain
	// running in the background (drain.go), which may be marking the connection bad right now:
	// Bad is read only when no drain can run.
	var ex *Exception
	if c.hosts == nil || rr.res != res || rr.ctx == nil || rr.ctx.Err() != nil || isContextErr(err) || errors.As(err, &ex) ||
		rr.tries >= c.cfg.ReadRetries || c.inTx || !sqltext.IsReadOnly(rr.body) || !c.bad || !IsTransport(err) {
		return nil, false
	}
	rr.tries++
	cc, derr := c.redial(rr.ctx)
	logRedial(rr.ctx, c, "read", "chnative: read retried on a new connection", err, rr.tries, cc, derr)
	if derr != nil {
		return nil, false
	}
	cc.read, c.read = *rr, readRetry{} // the new connection runs the read now
	c.replaceBy(cc)
	return cc, true
}

// isContextErr reports whether err is a context's end.
func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
