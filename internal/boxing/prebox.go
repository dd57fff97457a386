package boxing

import (
	"sync/atomic"

	"github.com/chnative/chnative/nativeproto"
)

// Boxing ahead: when the caller reads rows through Next (database/sql before Go 1.27), the
// read-ahead goroutine also boxes the block it has just decoded, a window at a time, as Next
// would. Next then only hands the boxed windows over, and copying the values into fresh memory
// leaves the caller's per-row path too.
//
// The boxed windows are the values database/sql gets, with the same ownership as a Boxer's: never
// written after they are made. The read-ahead goroutine uses a Boxer of its own, so its chunks
// are never shared with the caller's. Boxing ahead stops after preboxBytes of slabs per block
// (Next boxes the rest), and at once when stop is set (Close wants the read-ahead's result).

// Preboxed is a block's windows boxed ahead: window w is rows [his[w-1], his[w]) (his[-1] = 0),
// and its columns are cols[w*ncols : (w+1)*ncols]. The zero Preboxed has no window.
type Preboxed struct {
	his  []int
	cols []boxCol
	next int // the next window to hand over
}

// BoxAhead boxes the windows of b, from its first row, until preboxBytes or stop, into pre
// (emptied first; its slices are reused). pre must not be the Preboxed the caller still takes
// the previous block's windows from.
func (bx *Boxer) BoxAhead(b *nativeproto.Block, stop *atomic.Bool, pre *Preboxed) {
	pre.Reset()
	n, ncols := b.Rows(), b.NumColumns()
	if n == 0 || ncols == 0 {
		return
	}
	bx.Reset()
	size := uintptr(0)
	for lo := 0; lo < n && size < preboxBytes && !stop.Load(); lo = bx.Hi {
		used, err := bx.Fill(b, lo, min(lo+Window, n))
		if err != nil {
			// Next boxes the rest itself, and meets the error there.
			return
		}
		size += used
		pre.cols = append(pre.cols, bx.cols...)
		pre.his = append(pre.his, bx.Hi)
	}
}

// Reset empties p and keeps its slices for the next BoxAhead. The values of its windows are
// untouched (they live in their slabs, and may be the caller's already): p only described them.
func (p *Preboxed) Reset() {
	clear(p.cols) // no longer keeps the slabs alive
	p.cols, p.his, p.next = p.cols[:0], p.his[:0], 0
}

// Take makes the next boxed window bx's current one, if it starts at row; false when there is
// none left (Next then boxes the window itself).
func (p *Preboxed) Take(bx *Boxer, row int) bool {
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
	bx.Lo, bx.Hi = lo, p.his[p.next]
	p.next++
	return true
}

// Ends returns the end row of each window boxed ahead (borrowed), for tests and traces.
func (p *Preboxed) Ends() []int { return p.his }

// Taken returns how many windows Take has handed over.
func (p *Preboxed) Taken() int { return p.next }

// Ahead is the read-ahead goroutine's boxing: a Boxer of its own, whose chunks are never shared
// with the caller's, and what it boxed, handed over with its block (Handover). A connection
// keeps one for the results it runs one at a time.
type Ahead struct {
	box Boxer
	pre Preboxed
}

// Box boxes b's first windows (BoxAhead), on the read-ahead's goroutine.
func (a *Ahead) Box(b *nativeproto.Block, stop *atomic.Bool) { a.box.BoxAhead(b, stop, &a.pre) }

// Handover empties pre, the caller's, for the block it moves to, and when a boxed that block
// (ahead) gives it a's windows instead; the next Box reuses pre's slices. a may be nil.
func (a *Ahead) Handover(pre *Preboxed, ahead bool) {
	pre.Reset()
	if ahead && a != nil {
		*pre, a.pre = a.pre, *pre
	}
}
