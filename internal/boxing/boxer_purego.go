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
// estimate of the bytes the boxes take.
func (bx *Boxer) Fill(b *nativeproto.Block, lo, hi int) uintptr {
	ncols := b.NumColumns()
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
	return uintptr(len(vals)) * 32
}

// Row copies row (an index in b, the current block, inside the window) into dest.
func (bx *Boxer) Row(dest []driver.Value, b *nativeproto.Block, row int) {
	k := row - bx.Lo
	for i := range dest {
		dest[i] = bx.cols[i].vals[k]
	}
}

// Value returns column i of row of b as a fresh interface (columns.SQLValue); ok is always true.
func (bx *Boxer) Value(b *nativeproto.Block, i, row, nrows int) (any, bool) {
	return columns.SQLValue(b.Column(i), row), true
}
