package chnative

import (
	"database/sql/driver"
	"sync/atomic"

	"github.com/chnative/chnative/internal/boxing"
	"github.com/chnative/chnative/nativeproto"
)

// Boxing values for database/sql lives in internal/boxing (its package doc: the design, the
// ownership of the values handed out, and where unsafe is). The names below keep rows.go and
// rows_ahead.go as they are until they call boxing directly; they hold no logic.
//
// Transitional: boxer mirrors boxing.Boxer.Hi as hi, the field rows.Next's fast path reads; every
// call that moves the window goes through a method here that updates it.

// boxWindow is how many rows are boxed at once.
const boxWindow = boxing.Window

type boxer struct {
	boxing.Boxer
	hi int // = Boxer.Hi
}

// Reset, Fill and Value shadow boxing.Boxer's, keeping hi.

func (bx *boxer) Reset() { bx.Boxer.Reset(); bx.hi = 0 }

func (bx *boxer) Fill(b *nativeproto.Block, lo, hi int) uintptr {
	n := bx.Boxer.Fill(b, lo, hi)
	bx.hi = bx.Boxer.Hi
	return n
}

func (bx *boxer) Value(b *nativeproto.Block, i, row, nrows int) (any, bool) {
	v, ok := bx.Boxer.Value(b, i, row, nrows)
	bx.hi = bx.Boxer.Hi
	return v, ok
}

func (bx *boxer) reset() { bx.Reset() }

func (bx *boxer) fill(b *nativeproto.Block, lo, hi int) uintptr { return bx.Fill(b, lo, hi) }

func (bx *boxer) row(dest []driver.Value, b *nativeproto.Block, row int) { bx.Boxer.Row(dest, b, row) }

func (bx *boxer) boxAhead(b *nativeproto.Block, stop *atomic.Bool) preboxed {
	pre := bx.Boxer.BoxAhead(b, stop)
	bx.hi = bx.Boxer.Hi
	return preboxed{pre}
}

type preboxed struct{ boxing.Preboxed }

func (p *preboxed) take(bx *boxer, row int) bool {
	ok := p.Preboxed.Take(&bx.Boxer, row)
	bx.hi = bx.Boxer.Hi
	return ok
}

type textWindows struct{ boxing.TextWindows }

func (tw *textWindows) reset() { tw.TextWindows.Reset() }
