package chnative

import (
	"context"

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
// UNKNOWN_STATUS_OF_INSERT, 999 KEEPER_EXCEPTION), the host backs off (see Connector.Connect), a new
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

// The native insert's steps with their retries (internal/chconn's insert_failover.go decides);
// after each, the connection takes the insert's native connection, a new one after a retry.

// appendFailed handles the error of an append that may have sent a block (AppendStructs, a
// prepared insert's Exec): a block whose send failed is resumed as chconn allows, and then the
// append has succeeded; any other error is returned as it is. ctx bounds the retry. c may be
// nil (a detached Batch).
func (c *conn) appendFailed(ctx context.Context, ins *chconn.Insert, err error) error {
	if c == nil {
		return err
	}
	err = ins.Recover(ctx, err)
	c.adopt(ins.Conn())
	return sqlErr(err)
}

// flushInsert sends ins's buffered rows as one block, resumed on a new connection as chconn
// allows.
func (c *conn) flushInsert(ctx context.Context, ins *chconn.Insert) error {
	if c == nil {
		return ins.Flush()
	}
	err := ins.FlushContext(ctx)
	c.adopt(ins.Conn())
	return sqlErr(err)
}

// finishInsert sends ins's last rows and its end and waits for the server's confirmation,
// resumed on a new connection and finished there as chconn allows.
func (c *conn) finishInsert(ctx context.Context, ins *chconn.Insert) error {
	if c == nil {
		return sqlErr(ins.Finish(ctx))
	}
	err := ins.Send(ctx)
	c.adopt(ins.Conn())
	return sqlErr(err)
}

// adopt makes cc the connection's native connection when a retry replaced the old one (which
// chconn closed; an open transaction carried over). nil changes nothing.
func (c *conn) adopt(cc *chconn.Conn) {
	if cc != nil {
		c.cc = cc
	}
}

// runRead runs the read body into res (a zero Result), on a new connection when the first one
// breaks before the header (see chconn.Conn.Read and dsn.Config.ReadRetries).
func (c *conn) runRead(ctx context.Context, body string, params map[string]string, res *chconn.Result) error {
	opts, err := c.options(ctx, params, body)
	if err != nil {
		return err
	}
	cc, err := c.cc.Read(ctx, body, opts, res)
	c.adopt(cc)
	return sqlErr(err)
}

// rerun runs res's read again on a new connection after err broke it before any of its rows
// reached the caller; false when it may not be retried (the caller returns err).
func (c *conn) rerun(res *chconn.Result, err error) bool {
	cc, ok := res.Rerun(err)
	c.adopt(cc)
	return ok
}
