//go:build go1.27

package chnative

import (
	"database/sql"
	"database/sql/driver"

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

// ScanColumn copies column i of the current row into dest. The column answers the common
// destinations itself (columns.ScanFast); strings scanned into *string come from text copied a
// window at a time (internal/boxing.TextWindows), values scanned into *any from a boxed window
// as Next's do: no allocation per value.
func (r *rows) ScanColumn(sc driver.ScanContext, i int, dest any) error {
	col, row := r.block.Column(i), r.cur
	if d, ok := dest.(*any); ok {
		v, ok, err := r.box.Value(r.block, i, row, r.nrows)
		if err != nil {
			return r.boxFailed(err)
		}
		if ok {
			*d = v
			return nil
		}
	} else {
		if r.scan.Scan(i, col, row, dest) || columns.ScanFast(col, row, dest) {
			return nil
		}
		// chnative's own types, and conversions the column has that database/sql lacks.
		if ok, err := columns.ScanValue(col, row, dest); ok {
			return err
		}
	}
	return sql.ConvertAssign(sc, dest, columns.SQLValue(col, row))
}
