package chnative

import (
	"context"
	"database/sql/driver"
	"time"

	"github.com/chnative/chnative/internal/boxing"
	"github.com/chnative/chnative/internal/chconn"
	"github.com/chnative/chnative/nativeproto"
)

// conn is the database/sql connection: an adapter over the native connection (internal/chconn),
// which holds the protocol's state machine. conn turns database/sql's calls and values into
// chconn's (whose ErrBadConn is driver.ErrBadConn); it is used by one goroutine at a time, as
// database/sql guarantees.
type conn struct {
	// cc is the native connection; a read retried or an insert resumed on a new one after it
	// broke replaces it (native).
	cc    *chconn.Conn
	ahead *boxing.Ahead // the read-ahead's boxing state, made once and used by one result at a time
	inTx  bool          // a transaction is open: prepared INSERTs batch their rows until Commit
}

// native returns the native connection, following its replacement after a read retry or an
// insert resume (chconn.Conn.Current).
func (c *conn) native() *chconn.Conn {
	c.cc = c.cc.Current()
	return c.cc
}

// ServerInfo describes the server a connection talks to: what its Hello said, for the revision
// the connection negotiated (fields of newer revisions are zero below them).
type ServerInfo = chconn.ServerInfo

// PasswordRule is a password complexity rule: passwords must match Pattern, or the server
// answers Message.
type PasswordRule = nativeproto.PasswordRule

// ServerInfo returns what the server said about itself in its Hello.
func (c *conn) ServerInfo() ServerInfo { return c.native().ServerInfo() }

// Location returns the session's time zone: the one DateTime values without a time zone in
// their type are read in. It is the server's (from its Hello) until a SET session_timezone or a
// TimezoneUpdate from the server changes it (see timezoneUpdate).
func (c *conn) Location() *time.Location { return c.native().ServerInfo().Location }

// CheckNamedValue accepts every argument as it is: the binder and the columns convert them.
func (c *conn) CheckNamedValue(nv *driver.NamedValue) error { return nil }

// Prepare prepares a statement.
func (c *conn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

// Begin starts a transaction (see BeginTx).
func (c *conn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

// BeginTx starts a "transaction": ClickHouse has none, so it only scopes batched prepared inserts,
// which Commit sends and Rollback cancels.
func (c *conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if _, err := c.native().Begin(true); err != nil {
		return nil, err
	}
	c.inTx = true
	return &tx{c: c}, nil
}

// tx is a "transaction" of a connection. It holds the database/sql connection, not its native
// one, which an insert resumed on a new native connection replaces (native).
type tx struct {
	c    *conn
	done bool
}

// Commit sends the rows of the open insert and finishes it (a Batch is sent by its Send only).
func (t *tx) Commit() error { return t.end(true) }

// Rollback cancels the open insert: rows not yet sent are dropped.
func (t *tx) Rollback() error { return t.end(false) }

func (t *tx) end(commit bool) error {
	if t.done {
		return ErrClosed
	}
	t.done, t.c.inTx = true, false
	return t.c.native().EndTx(context.Background(), commit)
}

// Ping checks the connection (see chconn.Conn.Ping: the first Ping of a connection whose DSN has
// settings runs a query with them).
func (c *conn) Ping(ctx context.Context) error {
	return c.native().Ping(ctx, queryOptions(ctx, nil))
}

// Close closes the connection. A background drain of a cancelled query ends with it.
func (c *conn) Close() error { return c.native().Close() }

// ResetSession keeps only connections that are idle and in sync, and younger than the DSN's
// conn_max_lifetime; it waits for the drain of a query cancelled before, bounded by ctx.
func (c *conn) ResetSession(ctx context.Context) error { return c.native().ResetSession(ctx) }

// IsValid reports whether the connection may go back to the pool (a draining connection is
// valid: ResetSession waits for the drain before the pool hands it out again).
func (c *conn) IsValid() bool { return c.native().IsValid() }
