//go:build !purego

package boxing

import (
	"database/sql/driver"
	"strings"
	"time"
	"unsafe"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/nativeproto"
)

// Why unsafe: an interface holding a number, string or time points to its value; converting a
// value to an interface allocates that memory each time. A Boxer allocates the memory of a whole
// window of values at once (a slab) and writes the interfaces' two words itself, the type word
// of the values' Go type and a pointer into the slab.
//
// What it relies on:
//   - The layout of an empty interface, two words: the type word, then a pointer to the value
//     (eface). Type words are taken from real interfaces (typeOf), never made up, and a
//     value's memory holds exactly a value of that type: the copy of a column whose
//     columns.SQLWindowOf says its memory is the values.
//   - The layout of a string header, pointer then length (unsafe.String's, written as two words).
//   - Go's heap objects never move, and an interior pointer keeps its whole object alive. The slab
//     is one pointer-free allocation (a strings.Builder's bytes): the string headers in it point only into the
//     slab's own text, which the garbage collector need not see, because anything that reaches a
//     header or a string also reaches the slab. Writing the headers as plain words needs no
//     write barrier for the same reason.
//   - The slab is never written after Fill returns, so the values handed out are immutable.
//   - Memory without clearing: a slab is written, in order, into a strings.Builder (the current
//     chunk, shared by several windows, or one of the window's own), whose Grow makes room
//     without zeroing it (make would, at a visible cost in the per-row time). Nothing is
//     written through a string: the Builder appends, and never changes what it has written. What
//     is relied on is that the chunk's bytes stay where they were written: Grow promises that
//     the room it made is filled without another allocation, and String does not copy (checked
//     after each window: a Builder that did would panic, never hand out a wrong value).

// boxCol is one column's boxed window: value j of the window is the interface (typ, data+j*size).
type boxCol struct {
	typ  unsafe.Pointer // type word; nil: the column's values are boxed one at a time by Row
	data unsafe.Pointer // the window's fresh copy (never written after Fill)
	size uintptr        // element size of the copy
}

// Boxer holds the boxed values of the current window of rows, per column. The zero Boxer has no
// window.
type Boxer struct {
	// Lo, Hi are the window: rows [Lo, Hi) of the current block; Hi = 0 when there is none.
	// Read-only outside this package.
	Lo, Hi int

	cols  []boxCol
	wide  []columns.Window // Fill's windows when there are more columns than fit on its stack
	plan  []slabPlan
	chunk strings.Builder // the current slab chunk: slabs carved, then room for more
	base  unsafe.Pointer  // the chunk's first byte
	hdrs  [][2]uintptr    // scratch: a window's string headers before they are written
	grown int             // bytes of the last chunk allocated (see nextChunk)
}

// rest returns the bytes a slab carved from the current chunk can take (less room for alignment).
func (bx *Boxer) rest() uintptr { return uintptr(max(bx.chunk.Cap()-bx.chunk.Len()-7, 0)) }

// begin returns where a slab of size bytes is to be written: sb, from its current length on, is
// at the 8-byte aligned address slab. base is sb's first byte, for end's check.
func (bx *Boxer) begin(size uintptr) (sb *strings.Builder, base, slab unsafe.Pointer) {
	if size > bx.rest() {
		if size > slabChunk/2 {
			sb = new(strings.Builder) // a window of its own
			sb.Grow(int(size) + 8)
			base := startChunk(sb)
			return sb, base, alignChunk(sb, base)
		}
		bx.chunk = strings.Builder{}
		bx.chunk.Grow(nextChunk(&bx.grown, int(size)+8))
		bx.base = startChunk(&bx.chunk)
	}
	return &bx.chunk, bx.base, alignChunk(&bx.chunk, bx.base)
}

// startChunk writes the first byte of a fresh chunk and returns its address.
func startChunk(sb *strings.Builder) unsafe.Pointer {
	sb.WriteByte(0)
	return unsafe.Pointer(unsafe.StringData(sb.String()))
}

// alignChunk pads sb to an 8-byte aligned address and returns it.
func alignChunk(sb *strings.Builder, base unsafe.Pointer) unsafe.Pointer {
	for (uintptr(base)+uintptr(sb.Len()))%8 != 0 {
		sb.WriteByte(0)
	}
	return unsafe.Add(base, sb.Len())
}

// padTo pads sb with zeros up to length n.
func padTo(sb *strings.Builder, n int) {
	for sb.Len() < n {
		sb.WriteByte(0)
	}
}

// end checks that the bytes written to sb are where the slab's pointers say.
func end(sb *strings.Builder, base unsafe.Pointer) {
	if unsafe.Pointer(unsafe.StringData(sb.String())) != base {
		panic("boxing: strings.Builder moved the bytes written to it")
	}
}

// Reset forgets the window: the block was decoded again.
func (bx *Boxer) Reset() { bx.Lo, bx.Hi = 0, 0 }

// eface is the layout of an empty interface.
type eface struct {
	typ, data unsafe.Pointer
}

// typeOf returns the type word of v, an interface.
func typeOf(v any) unsafe.Pointer { return (*eface)(unsafe.Pointer(&v)).typ }

var (
	typeString = typeOf("")
	typeTime   = typeOf(time.Time{})
)

// slabPlan is where one column's values go in the slab.
type slabPlan struct {
	off, size uintptr // offset of the column's values, element size; 0 size: not in the slab
	textOff   uintptr // String columns: offset of the text
	textStart int     // String columns: arena offset of the window's first byte
}

// Fill boxes rows [lo, hi) (hi possibly lowered to bound string windows, at least one row) of
// every column with a window (columns.SQLWindowOf), makes them the current window, and returns
// the bytes of slab it used. The rows and every column's window are checked before anything is
// written (checkWindow): a block that does not hold what the slab's layout relies on is an error,
// and bx then has no window.
func (bx *Boxer) Fill(b *nativeproto.Block, lo, hi int) (uintptr, error) {
	bx.Lo, bx.Hi = 0, 0
	if err := checkRows(b, lo, hi); err != nil {
		return 0, err
	}
	ncols := b.NumColumns()
	if cap(bx.cols) < ncols {
		bx.cols = make([]boxCol, ncols)
		bx.plan = make([]slabPlan, ncols)
	}
	bx.cols, bx.plan = bx.cols[:ncols], bx.plan[:ncols]
	// The windows are borrowed from the block's columns, for this call only: on the stack, so
	// that a Boxer (one per query) costs no allocation for them.
	var stack [8]columns.Window
	wins := stack[:]
	if ncols > len(stack) {
		if cap(bx.wide) < ncols {
			bx.wide = make([]columns.Window, ncols)
		}
		wins = bx.wide
	}
	wins = wins[:ncols]
	for i := range wins {
		w := columns.SQLWindowOf(b.Column(i))
		if err := checkWindow(&w, i, lo, hi); err != nil {
			clear(wins)
			return 0, err
		}
		if w.Kind == columns.WindowString {
			hi = stringsEnd(w.Ends, lo, hi)
		}
		wins[i] = w
	}

	// Lay out the slab: each column's values (8-byte aligned), then each String column's text.
	for i := range bx.plan {
		p, w := &bx.plan[i], &wins[i]
		*p = slabPlan{}
		var typ unsafe.Pointer
		switch w.Kind {
		case columns.WindowFixed:
			typ, p.size = typeOf(w.Zero), w.Size
		case columns.WindowString:
			typ, p.size = typeString, unsafe.Sizeof("")
		}
		bx.cols[i] = boxCol{typ: typ, size: p.size}
	}
	hi = bx.fitChunk(lo, hi, wins)
	bx.Lo, bx.Hi = lo, hi
	n := uintptr(hi - lo)
	var size uintptr
	for i := range bx.plan {
		if p := &bx.plan[i]; p.size != 0 {
			p.off = size
			size = (size + n*p.size + 7) &^ 7
		}
	}
	for i := range bx.plan {
		if w := &wins[i]; w.Kind == columns.WindowString {
			p := &bx.plan[i]
			if lo > 0 {
				p.textStart = w.Ends[lo-1]
			}
			p.textOff = size
			size += uintptr(w.Ends[hi-1] - p.textStart)
		}
	}
	var sb *strings.Builder
	var base, slab unsafe.Pointer
	at := 0       // the slab's offset in sb
	if size > 0 { // else no column is in the slab
		sb, base, slab = bx.begin(size)
		at = sb.Len()
	}
	for i := range bx.cols {
		bc, p, w := &bx.cols[i], &bx.plan[i], &wins[i]
		if p.size != 0 {
			bc.data = unsafe.Add(slab, p.off)
			padTo(sb, at+int(p.off))
		}
		switch w.Kind {
		case columns.WindowFixed:
			sb.Write(w.Mem[uintptr(lo)*p.size : uintptr(hi)*p.size])
		case columns.WindowString:
			// Headers as plain words: no write barrier, and none needed (see above).
			if cap(bx.hdrs) < int(n) {
				bx.hdrs = make([][2]uintptr, n)
			}
			hdr, ends := bx.hdrs[:n], w.Ends
			if ends[hi-1] == p.textStart {
				clear(hdr) // only empty strings
			} else {
				text := uintptr(unsafe.Add(slab, p.textOff))
				prev := p.textStart
				for j := range hdr {
					e := ends[lo+j]
					if e > prev {
						hdr[j] = [2]uintptr{text + uintptr(prev-p.textStart), uintptr(e - prev)}
					} else {
						hdr[j] = [2]uintptr{}
					}
					prev = e
				}
			}
			sb.Write(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(hdr))), n*p.size))
		case columns.WindowTime:
			ts := make([]time.Time, n)
			columns.SQLTimes(b.Column(i), ts, lo)
			*bc = boxCol{typ: typeTime, data: unsafe.Pointer(unsafe.SliceData(ts)), size: unsafe.Sizeof(time.Time{})}
		}
	}
	for i := range wins {
		if w, p := &wins[i], &bx.plan[i]; w.Kind == columns.WindowString {
			padTo(sb, at+int(p.textOff))
			sb.Write(w.Text[p.textStart:w.Ends[hi-1]])
		}
	}
	if sb != nil {
		end(sb, base)
	}
	clear(wins) // not kept past Fill
	return size, nil
}

// slabSize returns the bytes of slab rows [lo, hi) take, with bx.plan's element sizes set and the
// columns' windows wins.
func (bx *Boxer) slabSize(lo, hi int, wins []columns.Window) uintptr {
	n := uintptr(hi - lo)
	var size uintptr
	for i := range bx.plan {
		if s := bx.plan[i].size; s != 0 {
			size = (size + n*s + 7) &^ 7
		}
	}
	for i := range wins {
		if w := &wins[i]; w.Kind == columns.WindowString {
			start := 0
			if lo > 0 {
				start = w.Ends[lo-1]
			}
			size += uintptr(w.Ends[hi-1] - start)
		}
	}
	return size
}

// fitChunk returns the end of the window of rows [lo, hi) to box: hi, or less so that the window
// fills the rest of the current slab chunk instead of leaving it unused when a new chunk is
// started. It shortens a window only when that rest is at least an eighth of the window, so
// windows stay long; a window takes at least one row.
func (bx *Boxer) fitChunk(lo, hi int, wins []columns.Window) int {
	size := bx.slabSize(lo, hi, wins)
	rest := bx.rest()
	if size <= rest || rest < size/8 || size > slabChunk/2 || hi-lo < 2 {
		return hi // fits; or the rest is too small to be worth a window; or no chunk is used
	}
	// The largest e in [lo+1, hi) with slabSize(lo, e) <= rest, or hi when there is none.
	a, e := lo, hi-1
	for a < e {
		m := int(uint(a+e+1) >> 1)
		if bx.slabSize(lo, m, wins) <= rest {
			a = m
		} else {
			e = m - 1
		}
	}
	if a == lo {
		return hi
	}
	return a
}

// Row copies row (an index in b, the current block, inside the window) into dest. A row outside
// the window, or more values than the window has columns, is an error, with dest untouched: the
// values are read from the slab at offsets computed from both.
func (bx *Boxer) Row(dest []driver.Value, b *nativeproto.Block, row int) error {
	if row < bx.Lo || row >= bx.Hi || len(dest) > len(bx.cols) {
		return rowError(row, bx.Lo, bx.Hi, len(dest), len(bx.cols))
	}
	k := uintptr(row - bx.Lo)
	cols := bx.cols[:len(dest)]
	for i := range cols {
		c := &cols[i]
		if c.typ != nil {
			// dest is database/sql's, reused row after row: its type word is usually already
			// right, and writing only the data word halves the write barriers.
			e := (*eface)(unsafe.Pointer(&dest[i]))
			if e.typ != c.typ {
				e.typ = c.typ
			}
			e.data = unsafe.Add(c.data, k*c.size)
		} else {
			dest[i] = columns.SQLValue(b.Column(i), row)
		}
	}
	return nil
}

// Value returns column i of row of b, the current block of nrows rows, as an interface into the
// boxed window, boxing the window that starts at row when row is outside the current one; false
// for a column without a window (the caller boxes it as usual). An error is Fill's, or a column
// or row outside the block.
func (bx *Boxer) Value(b *nativeproto.Block, i, row, nrows int) (any, bool, error) {
	if row < bx.Lo || row >= bx.Hi {
		if _, err := bx.Fill(b, row, min(row+Window, nrows)); err != nil {
			return nil, false, err
		}
	}
	if i < 0 || i >= len(bx.cols) {
		return nil, false, rowError(row, bx.Lo, bx.Hi, i+1, len(bx.cols))
	}
	c := bx.cols[i]
	if c.typ == nil {
		return nil, false, nil
	}
	var v any
	e := (*eface)(unsafe.Pointer(&v))
	e.typ, e.data = c.typ, unsafe.Add(c.data, uintptr(row-bx.Lo)*c.size)
	return v, true, nil
}
