package chnative

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/chnative/chnative/internal/chconn"
)

// InsertUnconfirmedError reports a native insert whose end the server never confirmed, and that
// the driver did not (or could no longer) retry: fields Sent, Buffered, Token, Retries, Reason
// and Err. The server may or may not have committed the Sent rows.
//
// # Exactly-once inserts
//
// The guarantee: into a Replicated*MergeTree table, a native insert whose connection or replica
// dies is either resumed on another replica without losing or doubling a row, or fails with an
// *InsertUnconfirmedError that says its rows may have been committed and how to insert them
// again exactly once (the conditions are below).
//
// Which inserts retry automatically: every native insert, that is a Batch (PrepareBatch,
// InsertRows, Append, AppendStructs, Column appends then Flush or Send), a prepared insert in a
// transaction (each Exec, and Commit), and an Exec of an INSERT with arguments (one row, or
// VALUES (?, ?), (?, ?) rows). An INSERT whose data is in its text (VALUES without arguments)
// or that selects its rows (INSERT ... SELECT) runs as one statement and is not retried: its
// error is returned as it is. When a block's send, or the insert's end (Send, Commit, the Exec),
// fails because the connection broke (not because the context ended) or because the server
// answered an exception that blames the replica rather than the data (32 ATTEMPT_TO_READ_AFTER_EOF
// from a Distributed insert's shard, 209 SOCKET_TIMEOUT, 210
// NETWORK_ERROR, 225 NO_ZOOKEEPER, 242 TABLE_IS_READ_ONLY, 279 ALL_CONNECTION_TRIES_FAILED, 319
// UNKNOWN_STATUS_OF_INSERT, 999 KEEPER_EXCEPTION), the host backs off (see Connector), a new
// connection is dialed to another host first, the same INSERT is opened there with the same
// options (query id policy, settings, WithDeduplicationToken), its table header is checked
// against the first one, and every block sent so far is sent again, the same bytes in the same
// order; then the failed step goes on. "The connection broke" means a transport failure
// (chnative.TransportError: the socket ended, was reset, timed out, or a frame failed its
// checksum); an answer that breaks the protocol (an unknown packet, a malformed block) would
// come again from a retry and is returned at once, as an *InsertUnconfirmedError when rows had
// been sent. Up to dsn.Config.InsertRetries times per insert (DSN key
// insert_retries, default 0: off, for the driver cannot know that the table deduplicates; a
// plain MergeTree or Memory table would keep both copies of what the failed attempt committed.
// Turn it on, insert_retries=2, for Replicated tables). The database/sql connection stays the same; a
// transaction follows the new native connection. An insert whose connection or replica fails so
// while it is being opened, before any of its data went out, is opened again on another host,
// within the same insert_retries. Each retry writes a debug log line.
//
// Which return an error to retry: an insert whose blocks passed the retry buffer, whose retries
// are used up, for which no new connection could be dialed or resumed (another table header
// there: the error names the column), or whose failure was the context's end, returns an
// *InsertUnconfirmedError (errors.As; it wraps the failure, so errors.As for *ProtocolError or
// *Exception and errors.Is for context errors still work). Insert the same rows again, in the
// same blocks (the same insert_block_rows or WithBlockSize, the same order) and with the same
// WithDeduplicationToken, and the server drops the blocks it already has. An exception about
// the data (a type, a parse, too many parts) is returned as it is and never retried: sending
// the same blocks again would fail the same way. A statement that fails before the INSERT
// reached the server is retried by database/sql itself (driver.ErrBadConn). Not retried: the
// insert a prepared insert in a transaction has open when the transaction's next statement
// (other than Exec on it and Commit) finishes it; its error is returned as it is.
//
// The memory bound: an insert keeps a copy of each Data packet it sends (encoded, compressed as
// sent) until the server confirms the insert, up to dsn.Config.InsertRetryBuffer bytes (DSN key
// insert_retry_buffer, default 64 MiB; 0 keeps nothing and turns the automatic retry off). An
// insert that sends more drops its copies at once and is no longer retried automatically: its
// failure returns an *InsertUnconfirmedError. A connection keeps up to 4 MiB of copy buffers
// from one insert for the next.
//
// The conditions: a retried insert is exactly-once only where the server deduplicates identical
// blocks, that is a Replicated*MergeTree table with insert_deduplicate=1 (the default), and only
// while the blocks the failed attempt committed are still within its
// replicated_deduplication_window (the hashes of the last 100 inserted blocks by default on
// 18.16; see system.merge_tree_settings) and replicated_deduplication_window_seconds; with
// WithDeduplicationToken the same holds per block of the token's insert (ClickHouse suffixes
// the token _0, _1, ...). An asynchronous insert (async_insert=1) deduplicates only with
// async_insert_deduplicate=1. A plain MergeTree table deduplicates
// nothing unless its non_replicated_deduplication_window is set: there a retry can insert again
// the blocks the failed attempt had committed (set insert_retries=0 to get the error instead).
// Through a Distributed table it holds only when the sharding key is deterministic (not rand())
// and insert_distributed_sync=1 (called distributed_foreground_insert in newer servers), so
// that every block reaches the same shard's replicated table when it is sent again and the
// insert is confirmed only once the shards have it.
type InsertUnconfirmedError = chconn.InsertUnconfirmedError

// RetryInsert is the chconn.Retrier of a Batch's insert: a block sent by an Append failed.
func (c *conn) RetryInsert(ins *chconn.Insert, err error) error {
	return c.retryInsert(context.Background(), ins, err)
}

// appendFailed handles the error of an append that may have sent a block (Batch.Append,
// AppendStructs, a prepared insert's Exec): a block whose send failed is retried as retryInsert
// allows, and then the append has succeeded (the block was in the packets sent again); any other
// error (a value a column refused) is returned as it is. ctx bounds the retry. c may be nil (a
// detached Batch).
func (c *conn) appendFailed(ctx context.Context, ins *chconn.Insert, err error) error {
	if c == nil || ins.Unconfirmed() == nil {
		return err
	}
	return c.retryInsert(ctx, ins, err)
}

// flushInsert sends ins's buffered rows as one block, retrying as retryInsert allows.
func (c *conn) flushInsert(ctx context.Context, ins *chconn.Insert) error {
	err := ins.Flush()
	if err == nil || c == nil {
		return err
	}
	return c.retryInsert(ctx, ins, err)
}

// finishInsert sends ins's last rows and its end and waits for the server's confirmation,
// resuming it on a new connection and finishing it there as retryInsert allows.
func (c *conn) finishInsert(ctx context.Context, ins *chconn.Insert) error {
	for {
		err := ins.Finish(ctx)
		if err == nil || c == nil {
			return sqlErr(err)
		}
		if err := c.retryInsert(ctx, ins, err); err != nil {
			return err
		}
	}
}

// retryInsert is called with err, the failure of a step of ins on c.cc (a block's send or the
// insert's end). When ins ended unconfirmed and may be retried, it resumes ins on a new
// connection, which replaces c.cc, and returns nil: the blocks sent so far, the failed one
// included, went out again, and a failed Finish is to be called again. Otherwise it returns the
// error for the caller: an *InsertUnconfirmedError when rows may have been committed, err as it
// is when the server refused the insert or nothing was sent.
func (c *conn) retryInsert(ctx context.Context, ins *chconn.Insert, err error) error {
	if ins.Unconfirmed() == nil {
		var pe *ProtocolError
		switch {
		case ins.Sent() == 0:
		case isContextErr(err):
			return ins.UnconfirmedError(err, "the context ended")
		case errors.As(err, &pe):
			// The server's answer broke the protocol after rows went out: they may have been
			// committed, and a retry would only get the same answer again.
			return ins.UnconfirmedError(err, "the server's answer broke the protocol, which is not retried")
		}
		return sqlErr(err)
	}
	old := c.cc
	for first := true; ; first = false {
		reason := c.noInsertRetry(ctx, ins)
		if reason != "" {
			ins.Forget()
			return ins.UnconfirmedError(err, reason)
		}
		if first {
			c.ctr.health.failed(old.Addr(), c.ctr.cfg.HostBackoff, time.Now())
		}
		cc, derr := c.ctr.dial(ctx, old.Addr())
		var rerr error
		if derr == nil {
			rerr = ins.Resume(ctx, cc, nil)
		}
		attrs := []any{slog.Int("rows_sent", ins.Sent()), slog.Int("kept_bytes", ins.KeptBytes())}
		if rerr != nil {
			attrs = append(attrs, slog.Any("resume_error", rerr))
		}
		c.logRedial("chnative: insert retried on a new connection", old.Addr(), err, ins.Tries(), cc, derr, attrs...)
		if derr != nil {
			ins.Forget()
			return ins.UnconfirmedError(err, "no new connection: "+derr.Error())
		}
		if rerr != nil {
			_ = cc.Close()
			c.ctr.health.failed(cc.Addr(), c.ctr.cfg.HostBackoff, time.Now())
			var hm *chconn.HeaderMismatchError
			var ue *UnsupportedError
			if errors.As(rerr, &hm) || errors.As(rerr, &ue) || !retryableInsertErr(rerr) {
				ins.Forget()
				return ins.UnconfirmedError(err, rerr.Error())
			}
			if ins.Tries() >= c.ctr.cfg.InsertRetries {
				ins.Forget()
				return ins.UnconfirmedError(err, "the last retry failed: "+rerr.Error())
			}
			continue // another host, while retries remain
		}
		c.replaceConn(cc)
		return nil
	}
}

// reopenInsert reports whether an insert whose opening failed with err, before any of its data
// was sent, is to be opened again (its try-th failure): the connection broke (not by the
// context's end) or the server answered an exception of the replica's own (see
// chconn.RetryableInsertCode), and insert_retries allows it. If so, c.cc has been replaced by a
// new connection to another host first.
func (c *conn) reopenInsert(ctx context.Context, err error, try int) bool {
	if c.ctr == nil || try > c.ctr.cfg.InsertRetries || ctx.Err() != nil || isContextErr(err) {
		return false
	}
	if !retryableInsertErr(err) {
		return false
	}
	old := c.cc.Addr()
	cc, derr := c.ctr.redialAfter(ctx, old)
	c.logRedial("chnative: insert opened again on a new connection (no data was sent)", old, err, try, cc, derr)
	if derr != nil {
		return false
	}
	c.replaceConn(cc)
	return true
}

// retryableInsertErr reports whether an insert that failed with err may be run again on another
// connection: a transport failure (chconn.IsTransport), or a server exception that blames the
// replica (chconn.RetryableInsertCode). Never after an answer that broke the protocol, nor an
// exception about the data: either would come again.
func retryableInsertErr(err error) bool {
	var ex *Exception
	if errors.As(err, &ex) {
		return chconn.RetryableInsertCode(ex.Code)
	}
	return chconn.IsTransport(err)
}

// noInsertRetry returns why the unconfirmed ins is not to be retried now, or "".
func (c *conn) noInsertRetry(ctx context.Context, ins *chconn.Insert) string {
	switch {
	case c.ctr == nil:
		return "the connection has no Connector to dial another"
	case c.ctr.cfg.InsertRetries == 0:
		return "insert_retries=0"
	case ins.Dropped():
		return fmt.Sprintf("its blocks passed insert_retry_buffer (%d bytes), so their copies were dropped", c.ctr.cfg.InsertRetryBuffer)
	case ins.Tries() >= c.ctr.cfg.InsertRetries:
		return fmt.Sprintf("insert_retries=%d used up", c.ctr.cfg.InsertRetries)
	case ctx.Err() != nil:
		return "the context ended"
	case !ins.Resumable():
		return "nothing kept to send again"
	case !retryableInsertErr(ins.Unconfirmed()):
		return "not a transport failure"
	}
	return ""
}

// isContextErr reports whether err is a context's end.
func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
