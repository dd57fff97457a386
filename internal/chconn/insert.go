package chconn

import (
	"context"
	"database/sql/driver"
	"fmt"
	"log/slog"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/sqltext"
	"github.com/chnative/chnative/nativeproto"
)

// Insert is an open native INSERT: the server has sent the table header and waits for data
// blocks. Rows are appended into typed columns and sent every maxRows rows, or sooner when they
// hold maxBytes bytes of values (insert_block_bytes: wide rows). Every Data packet it
// sends is also kept (insert_retry.go) until the server confirms the insert, so that an insert
// whose connection broke can be resumed on another one (Resume).
type Insert struct {
	c       *Conn
	query   string
	opts    *Options // the insert's options, sent again by Resume
	block   *nativeproto.Block
	maxRows int
	// maxBytes, when > 0, sends the block once its columns hold this many bytes of values
	// (Block.DataBytes), whichever of it and maxRows comes first.
	maxBytes int
	// left is how many more rows endRow ends before it looks at the block's row count again
	// (an interface call a row otherwise). It counts down from maxRows minus the rows the
	// block had when it last looked; a caller's own appends into the columns only make that
	// look late, never early.
	left int
	sent int
	done bool
	// batch: opened by PrepareBatch, so only the Batch's Send finishes it; the next statement
	// on the connection is refused (ErrBatchOpen) instead. An insert of a prepared statement
	// in a transaction (batch false) is finished by the next statement, as database/sql code
	// interleaving statements in a transaction expects.
	batch bool

	retry insertRetry // the kept packets and the state of a retry (insert_retry.go)

	// ctx is the context the insert was opened with: a Batch's Append resumes the insert under
	// it (flushFailed), having none of its own.
	ctx context.Context
}

// OpenInsert sends the INSERT (query, to which insertBody adds VALUES when it has no data
// clause) with opts and reads the header block the server answers with. A batch insert is
// finished only by its own Finish: every other statement on the connection gets openError
// meanwhile; another insert is finished by the connection's next statement (Begin).
func (c *Conn) OpenInsert(ctx context.Context, query string, opts *Options, batch bool) (*Insert, error) {
	if err := c.begin(); err != nil {
		return nil, err
	}
	stop, err := c.start(ctx, sqltext.InsertBody(query), opts)
	if err != nil {
		return nil, err
	}
	// The columns of the previous insert on this connection are reused when the table header
	// has the same types: appends then start with the capacity they reached. A new block
	// otherwise, of the insert role from the start (recv would decode into the read role's).
	reuse := c.blocks.get(roleInsert)
	if reuse == nil {
		reuse = nativeproto.NewBlock()
	}
	header, err := c.insertHeader(ctx, stop, reuse, query)
	if err != nil {
		return nil, err
	}
	ins := &Insert{c: c, ctx: ctx, query: query, opts: opts, block: header, maxRows: c.insertBlockSize(),
		maxBytes: c.cfg.InsertBlockBytes, batch: batch}
	if ins.maxRows <= 0 {
		ins.maxRows = 1_000_000
	}
	ins.retry.start(c, opts)
	c.insert = ins
	c.blocks.keep(roleInsert, header)
	return ins, nil
}

// insertHeader reads the table header an INSERT just sent (watched by stop) is answered with,
// decoding it into reuse when not nil. The connection is busy on success, not on failure.
func (c *Conn) insertHeader(ctx context.Context, stop func() bool, reuse *nativeproto.Block, query string) (*nativeproto.Block, error) {
	c.busy = true
	for {
		ev, err := c.recv(reuse)
		if err != nil {
			c.busy = false
			return nil, c.fail(ctx, stop(), err)
		}
		switch ev.code {
		case nativeproto.ServerCodeData:
			stop()
			if ev.block.NumColumns() == 0 {
				c.cancelAndDrain()
				c.busy = false
				return nil, fmt.Errorf("chnative: the server sent no columns for %q: name the columns or use VALUES", query)
			}
			return ev.block, nil
		case nativeproto.ServerCodeEndOfStream:
			stop()
			c.busy = false
			return nil, fmt.Errorf("chnative: %q is not an INSERT waiting for data", query)
		}
	}
}

// Append adds one row. A value that does not convert fails this row only: the columns keep the
// rows appended before it, and the error is a *ColumnError. (The loop calls columns.Append
// directly: it runs once a value, where a call costs.)
func (ins *Insert) Append(ctx context.Context, vals []any) error {
	if err := ins.startRow(len(vals)); err != nil {
		return err
	}
	b := ins.block
	for i, v := range vals {
		if err := columns.Append(b.Column(i), v); err != nil {
			return ins.failRow(i, err)
		}
	}
	return ins.endRow(ctx)
}

// AppendArgs is Append for a row of driver arguments (a prepared statement's Exec of one row),
// without copying them into a slice.
func (ins *Insert) AppendArgs(ctx context.Context, args []driver.NamedValue) error {
	if err := ins.startRow(len(args)); err != nil {
		return err
	}
	b := ins.block
	for i := range args {
		if err := columns.Append(b.Column(i), args[i].Value); err != nil {
			return ins.failRow(i, err)
		}
	}
	return ins.endRow(ctx)
}

// AppendRows appends rows of driver arguments as one step (a prepared statement's Exec): when
// a row fails and no block went out meanwhile, the rows this call appended before it are
// dropped too, so that the step fails whole. ErrClosed once the insert has ended.
func (ins *Insert) AppendRows(ctx context.Context, rows [][]driver.NamedValue) error {
	if ins.done {
		return ErrClosed // before its block, which the connection's next insert may have taken
	}
	start, sent := ins.block.Rows(), ins.sent
	for _, row := range rows {
		if err := ins.AppendArgs(ctx, row); err != nil {
			if ins.sent == sent {
				for i := 0; i < ins.block.NumColumns(); i++ {
					ins.block.Column(i).Truncate(start)
				}
			}
			return err
		}
	}
	return nil
}

// AppendWith appends n rows with fill, which appends rows [from, to) of its own into the
// columns of b, the insert's block (a struct slice, say), and returns a *ColumnError for a value
// refused. The rows go in as many calls of fill as the block's size asks, and a block due is
// sent between them (resumed as Flush's, ctx bounding the retry). ErrClosed once the insert has
// ended.
func (ins *Insert) AppendWith(ctx context.Context, n int, fill func(b *nativeproto.Block, from, to int) error) error {
	for done := 0; done < n; {
		if ins.done {
			return ErrClosed
		}
		k := min(n-done, max(ins.room(), 1))
		if err := fill(ins.block, done, done+k); err != nil {
			return err
		}
		done += k
		if ins.room() == 0 {
			if err := ins.Flush(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// endRow ends the row being appended: the block is sent when it holds the insert's block size
// (maxRows) or its byte size (insert_block_bytes), whichever comes first, and a send that failed
// is resumed with ctx bounding the retry (a Batch's own Append resumes under the Batch's context,
// in flushFailed). Rows a caller appends into the block's columns itself, without endRow, are
// sent with the rows around them and can make a block larger than that by as many; never smaller.
func (ins *Insert) endRow(ctx context.Context) error {
	if ins.left--; ins.left > 0 {
		return nil
	}
	return ins.endRowCount(ctx) // out of line: endRow inlines into the callers' row loops
}

// startRow checks that a row of n values can be appended: the insert is open and has n columns.
// A row is then startRow, columns.Append into Block's columns 0 to n-1 in order (failRow on a
// refusal), and endRow: Append does the three for a slice, and the root's prepared statements
// the same for driver arguments, without copying them into one.
func (ins *Insert) startRow(n int) error {
	if ins.done || n != ins.block.NumColumns() {
		return ins.startRowFailed(n) // out of line: startRow inlines into the callers' row loops
	}
	return nil
}

func (ins *Insert) startRowFailed(n int) error {
	if ins.done {
		return ErrClosed
	}
	b := ins.block
	return fmt.Errorf("chnative: insert into %d columns got %d values", b.NumColumns(), n)
}

// endRowCount is endRow once left has counted down: it looks at the block's rows and bytes.
func (ins *Insert) endRowCount(ctx context.Context) error {
	if room := ins.room(); room > 0 {
		ins.left = room
		return nil
	}
	err := ins.flush()
	switch {
	case err == nil:
	case ins.batch:
		err = ins.flushFailed(err)
	default:
		err = ins.recoverAppend(ctx, err)
	}
	return err
}

// room returns how many more rows the block takes before it is due to be sent; 0 when it is
// due (it holds blockRows rows, or insert_block_bytes bytes of values). The byte side is an
// estimate from the rows so far, halved, so a caller that appends room rows and asks again
// reaches the byte size within a few calls (about log2 of the rows a block holds) and
// overshoots it by at most a row's bytes when rows keep their width.
func (ins *Insert) room() int {
	rows := ins.block.Rows()
	if rows >= ins.maxRows {
		return 0
	}
	room := ins.maxRows - rows
	if ins.maxBytes <= 0 {
		return room
	}
	if rows == 0 {
		return 1 // the first row gives the width to estimate from
	}
	limit := int64(ins.maxBytes)
	n := ins.block.DataBytes(limit)
	if n >= limit {
		return 0
	}
	perRow := max(n/int64(rows), 1)
	return int(min(int64(room), (limit-n)/perRow/2+1))
}

// failRow drops the values columns [0, i) took for the row being appended, which column i
// refused with err (it took none), and returns the *ColumnError naming column i and the row's
// number in the insert. Callers that append a row's values themselves (columns.Append into
// Block's columns, between startRow and endRow) end a failed row with it.
func (ins *Insert) failRow(i int, err error) error {
	b := ins.block
	n := b.Column(i).Rows()
	for j := 0; j < i; j++ {
		b.Column(j).Truncate(n)
	}
	return &ColumnError{Column: b.Name(i), Type: b.Type(i), Row: ins.sent + n, Err: err}
}

// flush sends the buffered rows as one Data block. When the block cannot be encoded
// (columns of different lengths, a value the wire form refuses) nothing of it is written: the
// insert is cancelled and drained (see failSend), so the connection is ready for the next
// query, or marked bad when the drain fails. When it cannot be written, the connection is
// closed and the block counts as sent (the server may have it whole): the insert ends
// unconfirmed (see Unconfirmed) and can be resumed on another connection (Resume).
func (ins *Insert) flush() error { return ins.write(ins.block, true) }

// WriteBlock sends b, a block of the insert's columns (names and types) filled by the caller, as
// one Data packet, as flush does, but leaves b's rows in it: a caller that must send the same
// block again (on another insert, with the same deduplication token) still has it. A block of
// other columns is refused before anything is sent; the insert stays open. A send that leaves the
// insert unconfirmed is resumed as Flush's is, ctx bounding the retry.
func (ins *Insert) WriteBlock(ctx context.Context, b *nativeproto.Block) error {
	if ins.done {
		return ErrClosed
	}
	h := ins.block
	if b.NumColumns() != h.NumColumns() {
		return fmt.Errorf("chnative: a block of %d columns for an insert of %d", b.NumColumns(), h.NumColumns())
	}
	for i := range h.NumColumns() {
		if b.Name(i) != h.Name(i) || b.Type(i) != h.Type(i) {
			return fmt.Errorf("chnative: block column %d is %s %s, the insert's is %s %s", i, b.Name(i), b.Type(i), h.Name(i), h.Type(i))
		}
	}
	if err := ins.write(b, false); err != nil {
		return ins.recoverAppend(ctx, err)
	}
	return nil
}

// write sends b as one Data packet; reset empties its columns afterwards (flush).
func (ins *Insert) write(b *nativeproto.Block, reset bool) error {
	if b.Rows() == 0 {
		return nil
	}
	c := ins.c
	if c == nil {
		return &UnsupportedError{Msg: "an insert with no connection cannot send"}
	}
	// The packet leaves in pieces of about nativeproto.StreamChunk bytes as it is encoded, each
	// kept for a resend (retry.keep) before the socket write empties the buffer. After a failed
	// write the rest is still encoded and kept, not sent, so that a Resume has the whole packet.
	var err error
	spilled := false
	spill := func() {
		spilled = true
		ins.retry.keep(c.pw)
		if err == nil {
			err = c.flush()
		} else {
			c.pw.Reset()
		}
	}
	if eerr := c.pw.WriteDataStream("", b, spill); eerr != nil {
		if !spilled {
			return ins.failSend(eerr)
		}
		return ins.brokenSend(eerr)
	}
	spill()
	rows := b.Rows()
	ins.sent += rows
	if keep := int64(c.cfg.BlockKeepBytes); reset && !c.blocks.insertFilled {
		c.blocks.insertFilled = b.DataBytes(keep) > keep // for trim, before the block is emptied
	}
	for i := 0; reset && i < b.NumColumns(); i++ {
		b.Column(i).Reset()
	}
	if err != nil {
		ins.endOnBadConn()
		return ins.lose(&ProtocolError{Op: "insert", Err: &TransportError{Err: err}}) // a socket write
	}
	c.traceSent(rows)
	return nil
}

// finish sends the remaining rows and the end of data, and waits for the server to confirm.
// A failure after the insert's packets went out leaves it unconfirmed when the connection broke
// or the server blamed itself (see Unconfirmed), for a Resume and a new Finish.
func (ins *Insert) finish(ctx context.Context) error {
	if ins.done {
		return nil
	}
	c := ins.c
	if c == nil {
		return &UnsupportedError{Msg: "an insert with no connection cannot send"}
	}
	if err := ins.flush(); err != nil {
		return err
	}
	ins.done = true
	c.insert = nil
	stop := c.watch(ctx)
	if err := c.pw.WriteEmptyData(); err != nil {
		stop()
		c.markBad()
		c.busy = false
		return ins.lose(err)
	}
	if err := c.flush(); err != nil {
		c.busy = false
		return ins.failed(c.fail(ctx, stop(), err))
	}
	for {
		ev, err := c.recv(nil)
		if err != nil {
			c.busy = false
			return ins.failed(c.fail(ctx, stop(), err))
		}
		if ev.code == nativeproto.ServerCodeEndOfStream {
			stop()
			c.busy = false
			ins.retry.release(c)
			c.trimKept()
			return nil
		}
	}
}

// failSend ends the insert after its block could not be encoded: the buffered rows are
// dropped, the insert cancelled, and err returned saying so. Blocks sent before stay inserted
// (ClickHouse keeps what an INSERT received before a Cancel).
func (ins *Insert) failSend(err error) error {
	buffered := ins.block.Rows()
	ins.Abort()
	return &InsertAbortedError{Buffered: buffered, Sent: ins.sent, Err: err}
}

// brokenSend ends the insert after encoding failed on a block partly sent: the connection is
// out of step (closed, not drained) and the packet's copies are incomplete (dropped, no Resume).
func (ins *Insert) brokenSend(err error) error {
	ins.endOnBadConn()
	ins.retry.release(ins.c)
	return &InsertAbortedError{Buffered: ins.block.Rows(), Sent: ins.sent, Err: err}
}

// endOnBadConn ends the insert on a connection a failed write left out of step: it is marked
// bad (closed, not drained) and free of the insert.
func (ins *Insert) endOnBadConn() {
	ins.done = true
	c := ins.c
	c.insert = nil
	c.busy = false
	c.markBad()
}

// openError is the error of a statement started while this Batch is open.
func (ins *Insert) openError() error {
	return fmt.Errorf("%w (%d rows buffered, %d sent)", ErrBatchOpen, ins.block.Rows(), ins.sent)
}

// Abort drops the buffered rows and cancels the insert; the connection is drained for reuse.
func (ins *Insert) Abort() {
	if ins.done {
		return
	}
	ins.done = true
	for i := 0; i < ins.block.NumColumns(); i++ {
		ins.block.Column(i).Reset()
	}
	c := ins.c
	if c == nil {
		return
	}
	c.insert = nil
	c.cancelAndDrain()
	c.busy = false
	ins.retry.release(c)
	if !c.bad && !c.draining() {
		c.trimKept()
	}
}

// Block returns the block rows are appended into: its typed columns are the caller's to append
// to until the next Flush, which sends and resets them.
func (ins *Insert) Block() *nativeproto.Block { return ins.block }

// DebugLog returns the debug log of the insert's connection (the DSN's debug=true or
// dsn.Config.Logger), or nil when it has none.
func (ins *Insert) DebugLog() *slog.Logger {
	if ins.c == nil {
		return nil
	}
	return ins.c.log
}

// Sent returns the rows sent in blocks so far.
func (ins *Insert) Sent() int { return ins.sent }

// Done reports whether the insert has ended (finished, aborted, or failed).
func (ins *Insert) Done() bool { return ins.done }

// Batch reports whether only the insert's own Finish ends it (see OpenInsert).
func (ins *Insert) Batch() bool { return ins.batch }

// blockRows returns the rows per block: Flush is due when the block holds this many.
func (ins *Insert) blockRows() int { return ins.maxRows }
