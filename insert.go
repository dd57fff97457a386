package chnative

import (
	"context"
	"database/sql/driver"
	"fmt"
	"regexp"
	"strings"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/nativeproto"
)

// insertState is an open native INSERT: the server has sent the table header and waits for data
// blocks. Rows are appended into typed columns and sent every maxRows rows.
type insertState struct {
	c       *conn
	query   string
	block   *nativeproto.Block
	maxRows int
	sent    int
	done    bool
	// batch: opened by PrepareBatch, so only the Batch's Send finishes it; the next statement
	// on the connection is refused (ErrBatchOpen) instead. An insert of a prepared statement
	// in a transaction (batch false) is finished by the next statement, as database/sql code
	// interleaving statements in a transaction expects.
	batch bool
}

var formatClause = regexp.MustCompile(`(?is)\bFORMAT\s+\w+\s*$`)

// insertBody turns "INSERT INTO t [(cols)] [VALUES (?, ...)]" into the query text the server
// expects before native data: everything up to and including VALUES.
func insertBody(query string) string {
	q := strings.TrimSpace(query)
	q = strings.TrimRight(q, "; \t\r\n")
	if tail, ok := insertValuesData(q); ok {
		// The VALUES keyword itself (not one in a literal, a comment or a column name).
		return q[:len(q)-len(tail)-len("VALUES")] + "VALUES"
	}
	if formatClause.MatchString(q) {
		return q
	}
	return q + " VALUES"
}

// openInsert sends the INSERT and reads the header block the server answers with.
func (c *conn) openInsert(ctx context.Context, query string) (*insertState, error) {
	if err := c.begin(); err != nil {
		return nil, err
	}
	stop, err := c.start(ctx, insertBody(query), nil)
	if err != nil {
		return nil, err
	}
	c.busy = true
	for {
		// The columns of the previous insert on this connection are reused when the table
		// header has the same types: appends then start with the capacity they reached.
		ev, err := c.recv(c.insertReuse)
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
			ins := &insertState{c: c, query: query, block: ev.block, maxRows: c.insertBlockSize()}
			if ins.maxRows <= 0 {
				ins.maxRows = 1_000_000
			}
			c.insert = ins
			c.insertReuse = ev.block
			return ins, nil
		case nativeproto.ServerCodeEndOfStream:
			stop()
			c.busy = false
			return nil, fmt.Errorf("chnative: %q is not an INSERT waiting for data", query)
		}
	}
}

// append adds one row. A value that does not convert fails this row only: the columns keep the
// rows appended before it.
func (ins *insertState) append(vals []any) error {
	if ins.done {
		return ErrClosed
	}
	b := ins.block
	if len(vals) != b.NumColumns() {
		return fmt.Errorf("chnative: insert into %d columns got %d values", b.NumColumns(), len(vals))
	}
	for i, v := range vals {
		if err := appendValue(b.Column(i), v); err != nil {
			return ins.rowError(i, err)
		}
	}
	if b.Rows() >= ins.maxRows {
		return ins.sendBlock()
	}
	return nil
}

// appendNamed is append for the arguments of a prepared statement's Exec.
func (ins *insertState) appendNamed(args []driver.NamedValue) error {
	if ins.done {
		return ErrClosed
	}
	b := ins.block
	if len(args) != b.NumColumns() {
		return fmt.Errorf("chnative: insert into %d columns got %d values", b.NumColumns(), len(args))
	}
	for i := range args {
		if err := appendValue(b.Column(i), args[i].Value); err != nil {
			return ins.rowError(i, err)
		}
	}
	if b.Rows() >= ins.maxRows {
		return ins.sendBlock()
	}
	return nil
}

// rowError drops the values columns [0, i) took for the failed row (column i took none) and
// returns the error naming column i and the row's number in the insert.
func (ins *insertState) rowError(i int, err error) error {
	b := ins.block
	n := b.Column(i).Rows()
	for j := 0; j < i; j++ {
		b.Column(j).Truncate(n)
	}
	return &ColumnError{Column: b.Name(i), Type: b.Type(i), Row: ins.sent + n, Err: err}
}

// appendValue appends v to col. The exact Go type of the common columns (uint64 to UInt64, string
// to String, ...) is appended without conversion; anything else goes through AppendValue.
func appendValue(col columns.Column, v any) error {
	switch c := col.(type) {
	case *columns.UInt64:
		if x, ok := v.(uint64); ok {
			c.Append(x)
			return nil
		}
	case *columns.Int64:
		if x, ok := v.(int64); ok {
			c.Append(x)
			return nil
		}
	case *columns.Float64:
		if x, ok := v.(float64); ok {
			c.Append(x)
			return nil
		}
	case *columns.String:
		switch x := v.(type) {
		case string:
			c.Append(x)
			return nil
		case []byte:
			c.AppendBytes(x)
			return nil
		}
	case *columns.UInt32:
		if x, ok := v.(uint32); ok {
			c.Append(x)
			return nil
		}
	case *columns.Int32:
		if x, ok := v.(int32); ok {
			c.Append(x)
			return nil
		}
	case *columns.UInt8:
		if x, ok := v.(uint8); ok {
			c.Append(x)
			return nil
		}
	case *columns.UInt16:
		if x, ok := v.(uint16); ok {
			c.Append(x)
			return nil
		}
	case *columns.Int8:
		if x, ok := v.(int8); ok {
			c.Append(x)
			return nil
		}
	case *columns.Int16:
		if x, ok := v.(int16); ok {
			c.Append(x)
			return nil
		}
	case *columns.Float32:
		if x, ok := v.(float32); ok {
			c.Append(x)
			return nil
		}
	}
	return col.AppendValue(v)
}

// sendBlock sends the buffered rows as one Data block. When the block cannot be encoded
// (columns of different lengths, a value the wire form refuses) nothing of it is written: the
// insert is cancelled and drained (see failSend), so the connection is ready for the next
// query, or marked bad when the drain fails.
func (ins *insertState) sendBlock() error {
	b := ins.block
	if b.Rows() == 0 {
		return nil
	}
	c := ins.c
	if err := c.pw.WriteDataBorrowed("", b); err != nil {
		return ins.failSend(err)
	}
	if err := c.flush(); err != nil {
		ins.done = true
		c.insert = nil
		c.busy = false
		c.markBad()
		return &ProtocolError{Op: "insert", Err: err}
	}
	ins.sent += b.Rows()
	c.traceSent(b.Rows())
	for i := 0; i < b.NumColumns(); i++ {
		b.Column(i).Reset()
	}
	return nil
}

// finish sends the remaining rows and the end of data, and waits for the server to confirm.
func (ins *insertState) finish(ctx context.Context) error {
	if ins.done {
		return nil
	}
	c := ins.c
	if err := ins.sendBlock(); err != nil {
		return err
	}
	ins.done = true
	c.insert = nil
	stop := c.watch(ctx)
	if err := c.pw.WriteEmptyData(); err != nil {
		stop()
		c.markBad()
		c.busy = false
		return err
	}
	if err := c.flush(); err != nil {
		c.busy = false
		return c.fail(ctx, stop(), err)
	}
	for {
		ev, err := c.recv(nil)
		if err != nil {
			c.busy = false
			return c.fail(ctx, stop(), err)
		}
		if ev.code == nativeproto.ServerCodeEndOfStream {
			stop()
			c.busy = false
			return nil
		}
	}
}

// failSend ends the insert after its block could not be encoded: the buffered rows are
// dropped, the insert cancelled, and err returned saying so. Blocks sent before stay inserted
// (ClickHouse keeps what an INSERT received before a Cancel).
func (ins *insertState) failSend(err error) error {
	buffered := ins.block.Rows()
	ins.abort()
	return &InsertAbortedError{Buffered: buffered, Sent: ins.sent, Err: err}
}

// openError is the error of a statement started while this Batch is open.
func (ins *insertState) openError() error {
	return fmt.Errorf("%w (%d rows buffered, %d sent)", ErrBatchOpen, ins.block.Rows(), ins.sent)
}

// abort drops the buffered rows and cancels the insert; the connection is drained for reuse.
func (ins *insertState) abort() {
	if ins.done {
		return
	}
	ins.done = true
	c := ins.c
	c.insert = nil
	for i := 0; i < ins.block.NumColumns(); i++ {
		ins.block.Column(i).Reset()
	}
	c.cancelAndDrain()
	c.busy = false
}

// InsertAbortedError reports an insert (a Batch, or a prepared insert in a transaction) that
// ended because a block could not be sent: Buffered rows were dropped, Sent rows had gone out
// in earlier blocks and stay inserted. The connection is ready for the next query.
type InsertAbortedError struct {
	Buffered int
	Sent     int
	Err      error
}

func (e *InsertAbortedError) Error() string {
	return fmt.Sprintf("chnative: insert aborted, %d buffered rows dropped (%d sent before stay): %v", e.Buffered, e.Sent, e.Err)
}

func (e *InsertAbortedError) Unwrap() error { return e.Err }

// ColumnError reports a value that one column of an insert could not take.
type ColumnError struct {
	Column string
	Type   string
	Row    int // the row's number in the insert (or the call), from 0
	Err    error
}

func (e *ColumnError) Error() string {
	return fmt.Sprintf("chnative: column %s (%s), row %d: %v", e.Column, e.Type, e.Row, e.Err)
}

func (e *ColumnError) Unwrap() error { return e.Err }
