package chconn

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
)

// Inserts on another replica: when to reopen or resume (insert_retry.go has how).
//
// Design note: an insert whose opening fails, before any of its data went out, because the
// connection broke (a transport failure, not the context's end) or the server answered an
// exception that blames the replica (RetryableInsertCode), is opened again on a new connection
// that the connection's Hosts dials, to another host first (StartInsert). An insert that ends
// unconfirmed after rows went out (a block's send or its end failed so) is resumed the same way
// (Resume: the kept packets go out again), and the failed step goes on there (FlushContext,
// Send, Append and AppendArgs; a Batch's Append through flushFailed, with the context the Batch
// was opened with). Each happens up to dsn.Config.InsertRetries times per insert, and never on a
// connection no Hosts dialed. What cannot be retried ends as an *InsertUnconfirmedError saying
// why, when rows may have been committed. The connection that replaced a broken one is
// found by Current (the old one is closed).

// StartInsert is OpenInsert, opened again on a new connection while it fails before any data
// was sent as the design note says (c.Current() is then the connection it is on).
func (c *Conn) StartInsert(ctx context.Context, query string, opts *Options, batch bool) (*Insert, error) {
	for try := 1; ; try++ {
		ins, err := c.OpenInsert(ctx, query, opts, batch)
		if err == nil {
			return ins, nil
		}
		if c.hosts == nil || try > c.cfg.InsertRetries || ctx.Err() != nil || isContextErr(err) || !retryableInsertErr(err) {
			return nil, err
		}
		cc, derr := c.redial(ctx)
		logRedial(ctx, c, "insert", "chnative: insert opened again on a new connection (no data was sent)", err, try, cc, derr)
		if derr != nil {
			return nil, err
		}
		c.replaceBy(cc)
		c = cc
	}
}

// Flush sends the buffered rows as one block, resumed on a new connection when the block's send
// leaves the insert unconfirmed (see resumeAfter); ctx bounds the retry. ErrClosed once the
// insert has ended.
func (ins *Insert) Flush(ctx context.Context) error {
	if ins.done {
		return ErrClosed
	}
	err := ins.flush()
	if err == nil {
		return nil
	}
	return ins.resumeAfter(ctx, err)
}

// Send sends the remaining rows and the end of data and waits for the server to confirm (finish),
// resumed on a new connection and finished there while the insert ends
// unconfirmed and may be retried (see resumeAfter). ErrClosed once the insert has ended.
func (ins *Insert) Send(ctx context.Context) error {
	if ins.done {
		return ErrClosed
	}
	for {
		err := ins.finish(ctx)
		if err == nil {
			return nil
		}
		if err := ins.resumeAfter(ctx, err); err != nil {
			return err
		}
	}
}

// recoverAppend handles err, the error of an append that may have sent a block (Append, endRow): a
// block whose send left the insert unconfirmed is resumed as resumeAfter allows, and then the append
// has succeeded (the block was in the packets sent again: nil); any other error (a value a
// column refused) is returned as it is. ctx bounds the retry.
func (ins *Insert) recoverAppend(ctx context.Context, err error) error {
	if ins.Unconfirmed() == nil {
		return err
	}
	return ins.resumeAfter(ctx, err)
}

// flushFailed resumes a Batch's insert whose block, sent by endRow, failed, with the context the
// Batch was opened with. (The retry is here rather than in the caller so that the caller's
// Append stays a single call.) Other inserts' callers call Recover with their own context.
func (ins *Insert) flushFailed(err error) error {
	if ins.batch && ins.Unconfirmed() != nil {
		return ins.resumeAfter(ins.ctx, err)
	}
	return err
}

// resumeAfter is called with err, the failure of a step of ins (a block's send or the insert's end).
// When ins ended unconfirmed and may be retried, it resumes ins on a new connection, which
// replaces the old one, and returns nil: the blocks sent so far, the failed one included, went
// out again, and a failed Finish is to be called again. Otherwise it returns the error for the
// caller: an *InsertUnconfirmedError when rows may have been committed, err as it is when the
// server refused the insert or nothing was sent.
func (ins *Insert) resumeAfter(ctx context.Context, err error) error {
	if ins.Unconfirmed() == nil {
		var pe *ProtocolError
		switch {
		case ins.Sent() == 0:
		case isContextErr(err):
			return ins.unconfirmedError(err, "the context ended")
		case errors.As(err, &pe):
			// The server's answer broke the protocol after rows went out: they may have been
			// committed, and a retry would only get the same answer again.
			return ins.unconfirmedError(err, "the server's answer broke the protocol, which is not retried")
		}
		return err
	}
	old := ins.c
	for first := true; ; first = false {
		reason := ins.noRetry(ctx)
		if reason != "" {
			ins.forget()
			return ins.unconfirmedError(err, reason)
		}
		if first {
			old.hosts.failed(old.addr)
		}
		cc, derr := old.hosts.Dial(ctx, old.dialer, old.addr)
		var rerr error
		if derr == nil {
			rerr = ins.Resume(ctx, cc, nil)
		}
		attrs := []any{slog.Int("rows_sent", ins.Sent()), slog.Int("kept_bytes", ins.KeptBytes())}
		if rerr != nil {
			attrs = append(attrs, slog.Any("resume_error", rerr))
		}
		logRedial(ctx, old, "insert", "chnative: insert retried on a new connection", err, ins.Tries(), cc, derr, attrs...)
		if derr != nil {
			ins.forget()
			return ins.unconfirmedError(err, "no new connection: "+derr.Error())
		}
		if rerr != nil {
			_ = cc.Close()
			old.hosts.failed(cc.addr)
			var hm *HeaderMismatchError
			var ue *UnsupportedError
			if errors.As(rerr, &hm) || errors.As(rerr, &ue) || !retryableInsertErr(rerr) {
				ins.forget()
				return ins.unconfirmedError(err, rerr.Error())
			}
			if ins.Tries() >= old.cfg.InsertRetries {
				ins.forget()
				return ins.unconfirmedError(err, "the last retry failed: "+rerr.Error())
			}
			continue // another host, while retries remain
		}
		old.replaceBy(cc)
		return nil
	}
}

// noRetry returns why the unconfirmed ins is not to be retried now, or "".
func (ins *Insert) noRetry(ctx context.Context) string {
	c := ins.c
	switch {
	case c == nil || c.hosts == nil:
		return "the connection has no host set to dial another"
	case c.cfg.InsertRetries == 0:
		return "insert_retries=0"
	case ins.Dropped():
		return fmt.Sprintf("its blocks passed insert_retry_buffer (%d bytes), so their copies were dropped", c.cfg.InsertRetryBuffer)
	case ins.Tries() >= c.cfg.InsertRetries:
		return fmt.Sprintf("insert_retries=%d used up", c.cfg.InsertRetries)
	case ctx == nil || ctx.Err() != nil:
		return "the context ended"
	case !ins.Resumable():
		return "nothing kept to send again"
	case !retryableInsertErr(ins.Unconfirmed()):
		return "not a transport failure"
	}
	return ""
}

// retryableInsertErr reports whether an insert that failed with err may be run again on another
// connection: a transport failure (IsTransport), or a server exception that blames the replica
// (RetryableInsertCode). Never after an answer that broke the protocol, nor an exception about
// the data: either would come again.
func retryableInsertErr(err error) bool {
	var ex *Exception
	if errors.As(err, &ex) {
		return RetryableInsertCode(ex.Code)
	}
	return IsTransport(err)
}
