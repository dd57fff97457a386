package chnative

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"time"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/bind"
	"github.com/chnative/chnative/internal/chconn"
	"github.com/chnative/chnative/nativeproto"
)

// Conn is the Batch extension: what the driver connection offers beyond database/sql. Reach it
// through sql.Conn.Raw:
//
//	err := sqlConn.Raw(func(dc any) error {
//		c := dc.(chnative.Conn)
//		...
//	})
//
// Under a wrapping driver (github.com/XSAM/otelsql) dc is the wrapper's connection: AsConn finds
// chnative's beneath it. Batches and Blocks must be finished (Send/Abort, Close) inside the Raw
// callback; a Batch left open refuses the connection's next statement (see Batch).
type Conn interface {
	// PrepareBatch starts "INSERT INTO t [(cols)]" and returns a Batch of typed columns shaped by
	// the table header the server sent.
	PrepareBatch(ctx context.Context, query string) (*Batch, error)
	// QueryBlocks runs a query and returns its result one block of typed columns at a time.
	// Arguments bind as in QueryContext: positional ones to ?/$N, sql.Named ones to @name and
	// {name:Type}.
	QueryBlocks(ctx context.Context, query string, args ...any) (*Blocks, error)
	// ServerInfo describes the server.
	ServerInfo() ServerInfo
	// Location returns the server's time zone.
	Location() *time.Location
}

// Batch is an open native INSERT: append rows into its typed columns, then Send. Blocks go out
// every max_block_size rows appended through Append, or when Flush is called.
//
// A Batch is inserted by its Send and by nothing else. While it is open, every other statement
// on its connection (a query, an Exec, Ping, Begin, Prepare, another PrepareBatch, a
// transaction's Commit) fails with ErrBatchOpen, which says how many rows wait, and leaves the
// Batch as it was: Send it, or Abort it, and the connection goes on. A connection handed back to
// database/sql with a Batch still open (sql.Conn.Close, or the end of the Raw callback of a
// pooled connection) is discarded by the pool, and its rows are never inserted.
//
// When a block cannot be sent (Send, Flush, or an Append that sends a block at max_block_size,
// with columns of different lengths after typed Column appends, for example), the Batch ends:
// the insert is cancelled, the buffered rows dropped, and the error is an *InsertAbortedError;
// later calls return ErrClosed and the connection takes the next query at once (it is closed
// instead, and database/sql discards it, only when the cancel cannot be completed). Blocks sent
// before are the server's to keep or drop: ClickHouse 18.16 keeps them, 26.7 drops the whole
// insert into a Memory table.
//
// When a block's send or Send fails because the connection or its replica failed, the Batch is
// resumed on a new connection to another host and goes on as if nothing had happened, or ends
// with an *InsertUnconfirmedError: see InsertUnconfirmedError for when, and for what it
// guarantees. The context given to PrepareBatch bounds the resumes of the blocks Append,
// AppendStructs and Flush send (once it has ended, a failed block is not resumed); SendContext's
// bounds those of Send.
type Batch struct {
	ins  *chconn.Insert
	c    *conn             // nil when detached
	plan *structAppendPlan // the struct mapping of the last AppendStructs
	ctx  context.Context   // PrepareBatch's: it bounds the resumes of Flush and AppendStructs
}

// PrepareBatch starts an insert (see Conn).
func (c *conn) PrepareBatch(ctx context.Context, query string) (*Batch, error) {
	ins, err := c.openInsert(ctx, query, true)
	if err != nil {
		return nil, err
	}
	return &Batch{ins: ins, c: c, ctx: ctx}, nil
}

// NumColumns returns the number of columns.
func (b *Batch) NumColumns() int { return b.ins.Block().NumColumns() }

// Name returns column i's name.
func (b *Batch) Name(i int) string { return b.ins.Block().Name(i) }

// Column returns column i for typed appends, e.g. b.Column(0).(*columns.UInt64).Append(1). All
// columns must hold the same number of rows when the batch is flushed or sent.
func (b *Batch) Column(i int) columns.Column { return b.ins.Block().Column(i) }

// Block returns the block being filled.
func (b *Batch) Block() *nativeproto.Block { return b.ins.Block() }

// Append appends one row, converting each value to its column's type (a value of the column's own
// Go type, such as uint64 for UInt64 or string for String, is appended without conversion). A
// value that does not convert fails this call only, with a *ColumnError naming the column and the
// row; rows appended before stay. Passing values as ...any boxes them in the caller, usually one
// allocation per number or string: Column(i) typed appends and AppendStructs make none per row.
// (A failed block's send is resumed inside the insert, under PrepareBatch's context: Append
// stays one call a row.)
func (b *Batch) Append(values ...any) error {
	return b.ins.Append(b.ctx, values)
}

// Rows returns the number of rows buffered and not yet sent.
func (b *Batch) Rows() int { return b.ins.Block().Rows() }

// Sent returns the number of rows already sent.
func (b *Batch) Sent() int { return b.ins.Sent() }

// Flush sends the buffered rows as one block. An error ends the Batch (see Batch).
func (b *Batch) Flush() error { return b.ins.Flush(b.ctx) }

// Send sends the buffered rows and finishes the insert. An error ends the Batch either way: a
// block that could not be sent drops the buffered rows (*InsertAbortedError), and an exception
// from the server (*Exception) says the server refused the insert.
func (b *Batch) Send() error { return b.SendContext(context.Background()) }

// SendContext is Send bounded by ctx: when ctx ends before the server confirms, the insert is
// cancelled and the connection drained or closed.
func (b *Batch) SendContext(ctx context.Context) error { return b.ins.Send(ctx) }

// WriteBlock sends b, a block of the Batch's columns (the names and types of Block()) filled by
// the caller, as one block of the insert, and leaves its rows in b, so that it can be sent again
// elsewhere. A block of other columns is refused, and the Batch stays open.
func (b *Batch) WriteBlock(blk *nativeproto.Block) error {
	return b.ins.WriteBlock(b.ctx, blk)
}

// Abort drops the buffered rows and cancels the insert; the connection is ready for the next
// query. Blocks already sent are the server's to keep or drop (see Batch).
func (b *Batch) Abort() { b.ins.Abort() }

// Blocks is a result read one block of typed columns at a time: Next, Block (valid until the
// next Next), Columns, Err, Close, and once read to its end Totals and Extremes (or ResultSet(n),
// those it has in turn). Fail ends it for a lie the caller found in a block, closing the
// connection.
type Blocks = chconn.Blocks

// QueryBlocks runs a query (see Conn).
func (c *conn) QueryBlocks(ctx context.Context, query string, args ...any) (*Blocks, error) {
	rev, err := c.native().Begin(false)
	if err != nil {
		return nil, err
	}
	body, params, err := bind.Query(query, namedValues(args), rev)
	if err != nil {
		return nil, err
	}
	opts := queryOptions(ctx, params)
	b := new(Blocks)
	if err := c.native().ReadBlocks(ctx, body, opts, b, nil); err != nil {
		return nil, err
	}
	return b, nil
}

// namedValues turns the arguments of QueryBlocks into what database/sql hands the driver:
// sql.Named arguments keep their name (for @name and {name:Type}), the others are positional.
func namedValues(args []any) []driver.NamedValue {
	named := make([]driver.NamedValue, len(args))
	for i, a := range args {
		named[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
		if na, ok := a.(sql.NamedArg); ok {
			named[i].Name, named[i].Value = na.Name, na.Value
		}
	}
	return named
}
