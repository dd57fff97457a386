//go:build go1.27

package chnative

import (
	"bytes"
	"database/sql"
	"database/sql/driver"
	"time"
	"unsafe"

	"github.com/chnative/chnative/columns"
)

// From Go 1.27 database/sql calls NextRow and ScanColumn instead of Next: each value goes from
// its column straight into the caller's variable, without boxing it as a driver.Value.

var _ driver.RowsColumnScanner = (*rows)(nil)

// NextRow advances to the next row.
func (r *rows) NextRow() error {
	if row := r.row; row < r.nrows {
		r.cur, r.row = row, row+1
		return nil
	}
	return r.advance()
}

// ScanColumn copies column i of the current row into dest.
func (r *rows) ScanColumn(sc driver.ScanContext, i int, dest any) error {
	col := r.block.Column(i)
	row := r.cur
	if d, ok := dest.(*any); ok {
		// The value the caller keeps comes from a boxed window, as Next's do: no allocation
		// per value.
		if v, ok := r.boxed(i); ok {
			*d = v
			return nil
		}
	}
	switch c := col.(type) {
	case *columns.UInt64:
		v := c.Row(row)
		switch d := dest.(type) {
		case *uint64:
			*d = v
			return nil
		case *int64:
			if v <= 1<<63-1 {
				*d = int64(v)
				return nil
			}
		}
	case *columns.Int64:
		v := c.Row(row)
		switch d := dest.(type) {
		case *int64:
			*d = v
			return nil
		case *int:
			*d = int(v)
			return nil
		}
	case *columns.UInt32:
		v := c.Row(row)
		switch d := dest.(type) {
		case *uint32:
			*d = v
			return nil
		case *int64:
			*d = int64(v)
			return nil
		case *uint64:
			*d = uint64(v)
			return nil
		}
	case *columns.Int32:
		v := c.Row(row)
		switch d := dest.(type) {
		case *int32:
			*d = v
			return nil
		case *int64:
			*d = int64(v)
			return nil
		case *int:
			*d = int(v)
			return nil
		}
	case *columns.Float64:
		if d, ok := dest.(*float64); ok {
			*d = c.Row(row)
			return nil
		}
	case *columns.Float32:
		// Not into *float64: database/sql (and so Next before Go 1.27, and clickhouse-go) gives
		// the float64 nearest the float32's shortest text (0.1, not 0.10000000149011612).
		if d, ok := dest.(*float32); ok {
			*d = c.Row(row)
			return nil
		}
	case *columns.String:
		switch d := dest.(type) {
		case *string:
			// Immutable: the text is copied a window at a time into a buffer never reused.
			*d = r.scan.str(i, c, row)
			return nil
		case *[]byte:
			*d = bytes.Clone(c.Bytes(row))
			return nil
		case *sql.RawBytes:
			*d = c.Bytes(row)
			return nil
		}
	case *columns.LowCardinality:
		if d, ok := dest.(*string); ok && !c.IsNull(row) {
			if dict, isString := c.Dictionary().(*columns.String); isString {
				*d = r.scan.dictStr(i, dict, int(c.Indexes()[row]))
				return nil
			}
		}
	case *columns.DateTime:
		if d, ok := dest.(*time.Time); ok {
			*d = c.Time(row)
			return nil
		}
	}
	if _, isAny := dest.(*any); !isAny {
		// chnative's own types, and conversions the column has that database/sql lacks.
		if ok, err := columns.ScanValue(col, row, dest); ok {
			return err
		}
	}
	return sql.ConvertAssign(sc, dest, columns.SQLValue(col, row))
}

// boxed returns column i of the current row as an interface into the boxed window of rows (see
// boxer), boxing the window that starts at the row when the row is outside the current one; false
// for a column boxer has no fast path for.
func (r *rows) boxed(i int) (any, bool) {
	row, bx := r.cur, &r.box
	if row < bx.lo || row >= bx.hi {
		bx.fill(r.block, row, min(row+boxWindow, r.nrows))
	}
	c := bx.cols[i]
	if c.typ == nil {
		return nil, false
	}
	var v any
	e := (*eface)(unsafe.Pointer(&v))
	e.typ, e.data = c.typ, unsafe.Add(c.data, uintptr(row-bx.lo)*c.size)
	return v, true
}
