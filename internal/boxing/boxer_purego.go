//go:build purego

package boxing

import (
	"database/sql/driver"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/nativeproto"
)

// The safe twin of boxer_unsafe.go: the same windows, each value boxed plainly by
// columns.SQLValue (an allocation per value, as database/sql's own conversions make). The boxed
// values are fresh and immutable as in the unsafe build.

// boxCol is one column's boxed window: value j of the window is vals[j].
type boxCol struct {
	vals []any
}

// Boxer holds the boxed values of the current window of rows, per column. The zero Boxer has no
// window.
type Boxer struct {
	// Lo, Hi are the window: rows [Lo, Hi) of the current block; Hi = 0 when there is none.
	// Read-only outside this package.
	Lo, Hi int

	cols []boxCol
}

// Reset forgets the window: the block was decoded again.
func (bx *Boxer) Reset() { bx.Lo, bx.Hi = 0, 0 }

// Fill boxes rows [lo, hi) of every column, makes them the current window, and returns an
// estimate of the bytes the boxes take. The rows and the columns' windows are checked first, as
// in the unsafe build (checkRows, checkWindow): an error leaves bx without a window.
func (bx *Boxer) Fill(b *nativeproto.Block, lo, hi int) (uintptr, error) {
	bx.Lo, bx.Hi = 0, 0
	if err := checkRows(b, lo, hi); err != nil {
		return 0, err
	}
	ncols := b.NumColumns()
	for i := range ncols {
		w := columns.SQLWindowOf(b.Column(i))
		if err := checkWindow(&w, i, lo, hi); err != nil {
			return 0, err
		}
	}
	if cap(bx.cols) < ncols {
		bx.cols = make([]boxCol, ncols)
	}
	bx.cols = bx.cols[:ncols]
	n := hi - lo
	vals := make([]any, n*ncols)
	for i := range bx.cols {
		col, vs := b.Column(i), vals[i*n:(i+1)*n:(i+1)*n]
		for j := range vs {
			vs[j] = columns.SQLValue(col, lo+j)
		}
		bx.cols[i] = boxCol{vals: vs}
	}
	bx.Lo, bx.Hi = lo, hi
	return uintptr(len(vals)) * 32, nil
}

// Row copies row (an index in b, the current block, inside the window) into dest. A row outside
// the window, or more values than the window has columns, is an error, with dest untouched.
func (bx *Boxer) Row(dest []driver.Value, b *nativeproto.Block, row int) error {
	if row < bx.Lo || row >= bx.Hi || len(dest) > len(bx.cols) {
		return rowError(row, bx.Lo, bx.Hi, len(dest), len(bx.cols))
	}
	k := row - bx.Lo
	for i := range dest {
		dest[i] = bx.cols[i].vals[k]
	}
	return nil
}

// Value returns column i of row of b as a fresh interface (columns.SQLValue); ok is true unless
// the error says that the column or the row is not b's.
func (bx *Boxer) Value(b *nativeproto.Block, i, row, nrows int) (any, bool, error) {
	if err := checkRows(b, row, min(row+1, nrows)); err != nil {
		return nil, false, err
	}
	if i < 0 || i >= b.NumColumns() {
		return nil, false, rowError(row, row, row+1, i+1, b.NumColumns())
	}
	return columns.SQLValue(b.Column(i), row), true, nil
}
