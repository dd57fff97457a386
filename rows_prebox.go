package chnative

import (
	"sync/atomic"

	"github.com/chnative/chnative/nativeproto"
)

// Boxing ahead: when the caller reads rows through Next (database/sql before Go 1.27), the
// read-ahead goroutine (rows_ahead.go) also boxes the block it has just decoded, a window at a
// time, as Next would (see boxer). Next then only hands the boxed windows over, and copying the
// values into fresh memory leaves the caller's per-row path too.
//
// The boxed windows are the values database/sql gets, with the same ownership as boxer's: never
// written after they are made. The read-ahead goroutine uses a boxer of its own (rows.aheadBox),
// so its chunks are never shared with the caller's. Boxing ahead stops after preboxBytes of slabs
// per block (Next boxes the rest), and at once when Close wants the read-ahead's result.

// preboxBytes bounds the memory boxed ahead for one block.
const preboxBytes = 16 << 20

// preboxed is a block's windows boxed ahead: window w is rows [his[w-1], his[w]) (his[-1] = 0),
// and its columns are cols[w*ncols : (w+1)*ncols].
type preboxed struct {
	his  []int
	cols []boxCol
	next int // the next window to hand over
}

// boxAhead boxes the windows of b, from its first row, until preboxBytes or stop. The result's
// slices are fresh: the caller may still be reading the previous block's.
func (bx *boxer) boxAhead(b *nativeproto.Block, stop *atomic.Bool) preboxed {
	var pre preboxed
	n, ncols := b.Rows(), b.NumColumns()
	if n == 0 || ncols == 0 {
		return pre
	}
	bx.reset()
	size := uintptr(0)
	for lo := 0; lo < n && size < preboxBytes && !stop.Load(); lo = bx.hi {
		size += bx.fill(b, lo, min(lo+boxWindow, n))
		pre.cols = append(pre.cols, bx.cols...)
		pre.his = append(pre.his, bx.hi)
	}
	return pre
}

// take makes the next boxed window the boxer's current one, if it starts at row; false when there
// is none left (Next then boxes the window itself).
func (p *preboxed) take(bx *boxer, row int) bool {
	if p.next >= len(p.his) {
		return false
	}
	lo := 0
	if p.next > 0 {
		lo = p.his[p.next-1]
	}
	if row != lo {
		return false
	}
	ncols := len(p.cols) / len(p.his)
	if cap(bx.cols) < ncols {
		bx.cols = make([]boxCol, ncols)
	}
	bx.cols = bx.cols[:ncols]
	copy(bx.cols, p.cols[p.next*ncols:])
	bx.lo, bx.hi = lo, p.his[p.next]
	p.next++
	return true
}
