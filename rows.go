package chnative

import (
	"database/sql/driver"
	"io"
	"reflect"
	"sync/atomic"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/boxing"
	"github.com/chnative/chnative/internal/chconn"
	"github.com/chnative/chnative/nativeproto"
)

// rows is the database/sql result: a cursor (chconn.Cursor) over the blocks of a chconn.Blocks.
// Next copies row cur of each column of the current block into dest, boxing a window of rows at
// a time (see boxing.Boxer); nothing is buffered beyond the current block, which the Blocks lends
// until its next block.
type rows struct {
	res   chconn.Blocks      // filled in place by chconn.Conn.ReadBlocks; never copied
	c     *conn              // for the read-ahead's boxing state; nil for a statement's empty rows
	block *nativeproto.Block // the current block
	row   int                // the next row of block to read
	cur   int                // the current row, after advance
	nrows int                // rows of block

	sets     int8 // NextResultSet: the result sets after the data moved to (Totals, Extremes)
	usesNext bool // the caller reads through Next (see ahead)

	box  boxing.Boxer       // values boxed a window at a time for Next
	scan boxing.TextWindows // strings for ScanColumn (Go 1.27), a window at a time

	// Boxing ahead (internal/boxing/prebox.go): the read-ahead of the next block (chconn's) boxes
	// its first windows too when the caller reads through Next.
	ahead *boxing.Ahead   // the connection's, taken by the first WorkAhead (a one-block result does without)
	pre   boxing.Preboxed // the current block's windows boxed ahead
}

// setBlock makes b the current block, from its first row.
func (r *rows) setBlock(b *nativeproto.Block) {
	r.block = b
	r.box.Reset()
	r.scan.Reset()
	r.nrows = b.Rows()
	r.row = 0
}

// Moved makes b, the block the Blocks moved to, the current block (chconn.Cursor), with the
// windows the read-ahead boxed when it did (ahead); the read-ahead of the next block boxes its
// first windows when the caller reads through Next.
func (r *rows) Moved(b *nativeproto.Block, ahead bool) bool {
	r.setBlock(b)
	r.ahead.Handover(&r.pre, ahead)
	return r.usesNext
}

// WorkAhead is the read-ahead's work (chconn.Cursor) when the caller reads through Next: box the
// next block's first windows on the read-ahead's goroutine.
func (r *rows) WorkAhead(b *nativeproto.Block, stop *atomic.Bool) {
	if r.ahead == nil {
		// The connection's state, made once, on the goroutine of its one read-ahead running.
		if r.c.ahead == nil {
			r.c.ahead = new(boxing.Ahead)
		}
		r.ahead = r.c.ahead
	}
	r.ahead.Box(b, stop)
}

// Columns returns the column names.
func (r *rows) Columns() []string { return r.res.Columns() }

// Next copies the next row into dest. The values are boxed a window of rows at a time (see
// boxing.Boxer); they belong to the caller and are never changed afterwards.
func (r *rows) Next(dest []driver.Value) error {
	if row := r.row; row < r.box.Hi {
		// The row is in the boxed window of the current block.
		r.cur, r.row = row, row+1
		if err := r.box.Row(dest, r.block, row); err != nil {
			return r.boxFailed(err)
		}
		return nil
	}
	r.usesNext = true
	if err := r.advance(); err != nil {
		return err
	}
	if !r.pre.Take(&r.box, r.cur) {
		if _, err := r.box.Fill(r.block, r.cur, min(r.cur+boxing.Window, r.nrows)); err != nil {
			return r.boxFailed(err)
		}
	}
	if err := r.box.Row(dest, r.block, r.cur); err != nil {
		return r.boxFailed(err)
	}
	return nil
}

// boxFailed ends the result with err, a block the boxing could not rely on: a lie that got past
// the header check. The connection is closed (chconn.Blocks.Fail).
func (r *rows) boxFailed(err error) error {
	r.box.Reset()
	r.nrows, r.row = 0, 0
	return r.res.Fail(err)
}

// advance moves to the next row, taking the next block (Moved) when the current one is used
// up; r.cur is then the row's index in r.block.
func (r *rows) advance() error {
	if r.row >= r.nrows && !r.res.Next() {
		if err := r.res.Err(); err != nil {
			return err
		}
		return io.EOF
	}
	r.cur = r.row
	r.row++
	return nil
}

// Close ends the result: an unfinished query is cancelled and drained.
func (r *rows) Close() error {
	r.box.Reset()
	r.nrows = 0
	return r.res.Close()
}

// HasNextResultSet reports whether Totals or Extremes follow, once the result has ended.
func (r *rows) HasNextResultSet() bool { return r.res.ResultSet(int(r.sets)+1) != nil }

// NextResultSet moves to the Totals block, then to the Extremes block (those the result has).
func (r *rows) NextResultSet() error {
	if !r.HasNextResultSet() {
		// Read to the end to reach the Totals and Extremes packets.
		dest := make([]driver.Value, len(r.res.Columns()))
		for {
			if err := r.Next(dest); err != nil {
				if err == io.EOF {
					break
				}
				return err
			}
		}
	}
	b := r.res.ResultSet(int(r.sets) + 1)
	if b == nil {
		return io.EOF
	}
	r.sets++
	r.setBlock(b)
	return nil
}

func (r *rows) column(i int) columns.Column {
	if r.block != nil && i < r.block.NumColumns() {
		return r.block.Column(i)
	}
	return nil
}

// ColumnTypeDatabaseTypeName returns the ClickHouse type name (every block has the header's).
func (r *rows) ColumnTypeDatabaseTypeName(i int) string {
	if c := r.column(i); c != nil {
		return c.Type()
	}
	return ""
}

// ColumnTypeScanType returns the Go type of the values Next hands over (columns.SQLScanType: the
// type clickhouse-go names, or one database/sql fills as well), a pointer to it for Nullable
// columns: a variable of it can always be scanned into.
func (r *rows) ColumnTypeScanType(i int) reflect.Type {
	if c := r.column(i); c != nil {
		t := columns.SQLScanType(c)
		if columns.IsNullable(c) && t.Kind() != reflect.Interface && t.Kind() != reflect.Pointer {
			return reflect.PointerTo(t)
		}
		return t
	}
	return reflect.TypeFor[any]()
}

// ColumnTypeNullable reports whether the column is Nullable or LowCardinality(Nullable), also
// inside SimpleAggregateFunction(f, T), whose values are T's.
func (r *rows) ColumnTypeNullable(i int) (nullable, ok bool) {
	if c := r.column(i); c != nil {
		return columns.IsNullable(c), true
	}
	return false, false
}

// ColumnTypePrecisionScale returns a Decimal's precision and scale, and a DateTime64's precision
// (scale 0), as clickhouse-go does; for an Array, its innermost element's (columns.PrecisionScale).
func (r *rows) ColumnTypePrecisionScale(i int) (precision, scale int64, ok bool) {
	if c := r.column(i); c != nil {
		return columns.PrecisionScale(c)
	}
	return 0, 0, false
}

// ColumnTypeLength returns the size of a FixedString and "unbounded" for String
// (columns.Length).
func (r *rows) ColumnTypeLength(i int) (length int64, ok bool) {
	if c := r.column(i); c != nil {
		return columns.Length(c)
	}
	return 0, false
}
