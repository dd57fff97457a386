package chnative

import (
	"bytes"
	"database/sql/driver"
	"strings"
	"time"
	"unsafe"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/nativeproto"
)

// Boxing values for database/sql. Before Go 1.27 every value Rows.Next hands over is an interface,
// and converting a number, string or time to one allocates each time. boxer instead copies a
// window of rows (every column's values, and the strings' bytes) into fresh memory and makes
// interfaces that point into it: no allocation per value, and one per several windows (slabs are
// carved from shared chunks). Each string handed out points into its window's copy of the text.
//
// Ownership: the copies belong to the values handed out and are never written again, so values a
// caller keeps (scanned into *any or *string) stay valid and unchanged for as long as the caller
// keeps them, after further Next calls, Close and reuse of the connection. A kept value keeps the
// memory its window was carved from alive: one slabChunk (64 KiB) shared by several windows, or
// a window of its own when that is larger (a window holds at most boxWindow rows and, per String
// column, about windowBytes of text or one longer string).

// boxWindow is how many rows are boxed at once.
const boxWindow = 256

// windowBytes bounds the text of one String column copied per window (a window always holds at
// least one row), and so the memory a single kept string can hold on to.
const windowBytes = 64 << 10

// boxCol is one column's boxed window: value j of the window is the interface (typ, data+j*size).
type boxCol struct {
	typ  unsafe.Pointer // type word; nil: the column's values are boxed one at a time by Value
	data unsafe.Pointer // the window's fresh copy (never written after fill)
	size uintptr        // element size of the copy
}

// boxer holds the boxed values of the current window of rows, per column.
type boxer struct {
	lo, hi int // the window: rows [lo, hi) of the current block; hi = 0 when there is none
	cols   []boxCol
	plan   []slabPlan
	chunk  []uint64 // the unused rest of the current slab chunk (see carve)
	grown  int      // bytes of the last chunk allocated (see nextChunk)
}

// slabChunk is the size of the pointer-free chunks slabs are carved from: one allocation serves
// several windows. A carved slab is never handed out again, so values stay immutable; a kept value
// keeps its chunk (at most slabChunk bytes, or one larger window) alive.
const slabChunk = 64 << 10

// carve returns size bytes (8-byte aligned, never used before, not zeroed: fill writes every byte
// it hands out) of pointer-free memory.
func (bx *boxer) carve(size uintptr) unsafe.Pointer {
	if size == 0 {
		return nil
	}
	words := int((size + 7) / 8)
	if words > len(bx.chunk) {
		if words > slabChunk/8/2 {
			return allocNoZero(words * 8)
		}
		n := nextChunk(&bx.grown, words*8)
		bx.chunk = unsafe.Slice((*uint64)(allocNoZero(n)), n/8)
	}
	p := unsafe.Pointer(unsafe.SliceData(bx.chunk))
	bx.chunk = bx.chunk[words:]
	return p
}

// allocNoZero returns n > 0 bytes of fresh pointer-free memory, 8-byte aligned and not zeroed:
// the chunks are overwritten at once, and clearing them first cost several ns a row. The memory is
// the buffer of a strings.Builder, which Grow allocates without clearing and guarantees room for
// n bytes; the Builder is dropped, so the memory is the caller's alone.
func allocNoZero(n int) unsafe.Pointer {
	var sb strings.Builder
	sb.Grow(n)
	sb.WriteByte(0)
	return unsafe.Pointer(unsafe.StringData(sb.String()))
}

// nextChunk returns the size of the next chunk to allocate for at least need bytes: chunks start
// small and double up to slabChunk, so a one-row result (SELECT 1) does not allocate 64 KiB,
// and a long one soon shares each allocation among many windows. grown is the last size.
func nextChunk(grown *int, need int) int {
	n := min(max(*grown*2, 512), slabChunk)
	for n < need {
		n *= 2
	}
	*grown = n
	return n
}

// reset forgets the window: the block was decoded again.
func (bx *boxer) reset() { bx.lo, bx.hi = 0, 0 }

// eface is the layout of an empty interface.
type eface struct {
	typ, data unsafe.Pointer
}

// typeWord returns the type word of interfaces holding a T.
func typeWord[T any]() unsafe.Pointer {
	var z T
	a := any(z)
	return (*eface)(unsafe.Pointer(&a)).typ
}

var (
	typeUint8   = typeWord[uint8]()
	typeUint16  = typeWord[uint16]()
	typeUint32  = typeWord[uint32]()
	typeUint64  = typeWord[uint64]()
	typeInt8    = typeWord[int8]()
	typeInt16   = typeWord[int16]()
	typeInt32   = typeWord[int32]()
	typeInt64   = typeWord[int64]()
	typeFloat32 = typeWord[float32]()
	typeFloat64 = typeWord[float64]()
	typeString  = typeWord[string]()
	typeTime    = typeWord[time.Time]()
)

// The window's copies of fixed-width numbers and strings share one allocation of pointer-free
// memory (a "slab"), so boxing a window costs one allocation and no write barriers: the string
// headers in it point only into the slab's own text, which the garbage collector need not see,
// because anything that reaches a header or a string also reaches the slab (Go's heap objects
// never move). DateTime values hold a *time.Location and get an ordinary []time.Time.

// slabPlan is where one column's values go in the slab.
type slabPlan struct {
	off, size uintptr // offset of the column's values, element size; 0 size: not in the slab
	textOff   uintptr // String columns: offset of the text
	textStart int     // String columns: arena offset of the window's first byte
}

// fill boxes rows [lo, hi) (hi possibly lowered to bound string windows) of every column it has a
// fast path for, and returns the bytes of slab it used.
func (bx *boxer) fill(b *nativeproto.Block, lo, hi int) uintptr {
	ncols := b.NumColumns()
	if cap(bx.cols) < ncols {
		bx.cols = make([]boxCol, ncols)
		bx.plan = make([]slabPlan, ncols)
	}
	bx.cols, bx.plan = bx.cols[:ncols], bx.plan[:ncols]
	for i := 0; i < ncols; i++ {
		if c, ok := b.Column(i).(*columns.String); ok {
			_, ends := c.Data()
			hi = stringsEnd(ends, lo, hi)
		}
	}

	// Lay out the slab: each column's values (8-byte aligned), then each String column's text.
	for i := range bx.plan {
		p := &bx.plan[i]
		*p = slabPlan{}
		var typ unsafe.Pointer
		switch b.Column(i).(type) {
		case *columns.UInt8:
			typ, p.size = typeUint8, 1
		case *columns.UInt16:
			typ, p.size = typeUint16, 2
		case *columns.UInt32:
			typ, p.size = typeUint32, 4
		case *columns.UInt64:
			typ, p.size = typeUint64, 8
		case *columns.Int8:
			typ, p.size = typeInt8, 1
		case *columns.Int16:
			typ, p.size = typeInt16, 2
		case *columns.Int32:
			typ, p.size = typeInt32, 4
		case *columns.Int64:
			typ, p.size = typeInt64, 8
		case *columns.Float32:
			typ, p.size = typeFloat32, 4
		case *columns.Float64:
			typ, p.size = typeFloat64, 8
		case *columns.String:
			typ, p.size = typeString, unsafe.Sizeof("")
		}
		bx.cols[i] = boxCol{typ: typ, size: p.size}
	}
	hi = bx.fitChunk(b, lo, hi)
	bx.lo, bx.hi = lo, hi
	n := uintptr(hi - lo)
	var size uintptr
	for i := range bx.plan {
		if p := &bx.plan[i]; p.size != 0 {
			p.off = size
			size = (size + n*p.size + 7) &^ 7
		}
	}
	for i := range bx.plan {
		if c, ok := b.Column(i).(*columns.String); ok {
			p := &bx.plan[i]
			_, ends := c.Data()
			if lo > 0 {
				p.textStart = ends[lo-1]
			}
			p.textOff = size
			size += uintptr(ends[hi-1] - p.textStart)
		}
	}
	slab := bx.carve(size)

	for i := range bx.cols {
		bc, p := &bx.cols[i], &bx.plan[i]
		if p.size != 0 {
			bc.data = unsafe.Add(slab, p.off)
		}
		switch c := b.Column(i).(type) {
		case *columns.UInt8:
			copySlab(bc.data, c.Values()[lo:hi])
		case *columns.UInt16:
			copySlab(bc.data, c.Values()[lo:hi])
		case *columns.UInt32:
			copySlab(bc.data, c.Values()[lo:hi])
		case *columns.UInt64:
			copySlab(bc.data, c.Values()[lo:hi])
		case *columns.Int8:
			copySlab(bc.data, c.Values()[lo:hi])
		case *columns.Int16:
			copySlab(bc.data, c.Values()[lo:hi])
		case *columns.Int32:
			copySlab(bc.data, c.Values()[lo:hi])
		case *columns.Int64:
			copySlab(bc.data, c.Values()[lo:hi])
		case *columns.Float32:
			copySlab(bc.data, c.Values()[lo:hi])
		case *columns.Float64:
			copySlab(bc.data, c.Values()[lo:hi])
		case *columns.String:
			arena, ends := c.Data()
			// Headers as plain words: no write barrier, and none needed (see above). The slab is
			// not zeroed, so an empty string's header is written too.
			hdr := unsafe.Slice((*[2]uintptr)(bc.data), n)
			if ends[hi-1] == p.textStart {
				clear(hdr) // only empty strings
				break
			}
			text := unsafe.Add(slab, p.textOff)
			copySlab(text, arena[p.textStart:ends[hi-1]])
			prev := p.textStart
			for j := range hdr {
				e := ends[lo+j]
				if e > prev {
					hdr[j] = [2]uintptr{uintptr(text) + uintptr(prev-p.textStart), uintptr(e - prev)}
				} else {
					hdr[j] = [2]uintptr{}
				}
				prev = e
			}
		case *columns.DateTime:
			ts := make([]time.Time, n)
			for j := range ts {
				ts[j] = c.Time(lo + j)
			}
			*bc = boxCol{typ: typeTime, data: unsafe.Pointer(unsafe.SliceData(ts)), size: unsafe.Sizeof(time.Time{})}
		}
	}
	return size
}

// slabSize returns the bytes of slab rows [lo, hi) of b take, with bx.plan's element sizes set.
func (bx *boxer) slabSize(b *nativeproto.Block, lo, hi int) uintptr {
	n := uintptr(hi - lo)
	var size uintptr
	for i := range bx.plan {
		if s := bx.plan[i].size; s != 0 {
			size = (size + n*s + 7) &^ 7
		}
	}
	for i := range bx.plan {
		if c, ok := b.Column(i).(*columns.String); ok {
			_, ends := c.Data()
			start := 0
			if lo > 0 {
				start = ends[lo-1]
			}
			size += uintptr(ends[hi-1] - start)
		}
	}
	return size
}

// fitChunk returns the end of the window of rows [lo, hi) to box: hi, or less so that the window
// fills the rest of the current slab chunk instead of leaving it unused when a new chunk is
// started. It shortens a window only when that rest is at least an eighth of the window, so
// windows stay long; a window takes at least one row.
func (bx *boxer) fitChunk(b *nativeproto.Block, lo, hi int) int {
	size := bx.slabSize(b, lo, hi)
	rest := uintptr(len(bx.chunk)) * 8
	if size <= rest || rest < size/8 || size > slabChunk/2 || hi-lo < 2 {
		return hi // fits; or the rest is too small to be worth a window; or no chunk is used
	}
	// The largest e in [lo+1, hi) with slabSize(lo, e) <= rest, or hi when there is none.
	a, e := lo, hi-1
	for a < e {
		m := int(uint(a+e+1) >> 1)
		if bx.slabSize(b, lo, m) <= rest {
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

// copySlab copies vals to dst, in the slab.
func copySlab[T columns.FixedNum](dst unsafe.Pointer, vals []T) {
	if len(vals) > 0 {
		copy(unsafe.Slice((*T)(dst), len(vals)), vals)
	}
}

// row copies row (an index in the current block, inside the window) into dest.
func (bx *boxer) row(dest []driver.Value, b *nativeproto.Block, row int) {
	k := uintptr(row - bx.lo)
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
}

// textWindows gives out the strings of String columns for ScanColumn (Go 1.27) without an
// allocation per value: per column, the text of a window of rows is copied once into a fresh
// buffer, and the strings handed out point into it. As with boxer, the buffer is never written
// again and belongs to the strings: a kept string keeps its chunk (slabChunk bytes shared by
// several windows, or one larger window of its own) alive.
type textWindows struct {
	cols  []textWindow
	chunk []byte // the unused rest of the current text chunk
	grown int    // bytes of the last chunk allocated (see nextChunk)
}

type textWindow struct {
	lo, hi int    // rows [lo, hi) of the column are in text; hi = 0 when there is none
	start  int    // offset of text[0] in the column's arena
	text   []byte // fresh copy, never written after fill
}

// reset forgets every window: the block was decoded again.
func (tw *textWindows) reset() {
	for i := range tw.cols {
		tw.cols[i].hi = 0
	}
}

func (tw *textWindows) col(i int) *textWindow {
	if i >= len(tw.cols) {
		tw.cols = append(tw.cols, make([]textWindow, i+1-len(tw.cols))...)
	}
	return &tw.cols[i]
}

// dictStr returns entry k of the String dictionary of a LowCardinality column, column i of the
// current block, as an immutable string. The whole dictionary's text is copied once per block (a
// kept string keeps that copy alive).
func (tw *textWindows) dictStr(i int, dict *columns.String, k int) string {
	w := tw.col(i)
	arena, ends := dict.Data()
	if w.hi == 0 {
		w.lo, w.hi, w.start = 0, len(ends), 0
		w.text = nil
		if len(ends) > 0 {
			w.text = bytes.Clone(arena[:ends[len(ends)-1]])
		}
	}
	s := 0
	if k > 0 {
		s = ends[k-1]
	}
	if ends[k] == s {
		return ""
	}
	return unsafe.String(&w.text[s], ends[k]-s)
}

// str returns row of c, column i of the current block, as an immutable string.
func (tw *textWindows) str(i int, c *columns.String, row int) string {
	w := tw.col(i)
	_, ends := c.Data()
	if row < w.lo || row >= w.hi {
		w.fill(tw, c, row)
	}
	s := 0
	if row > 0 {
		s = ends[row-1]
	}
	e := ends[row]
	if e == s {
		return ""
	}
	return unsafe.String(&w.text[s-w.start], e-s)
}

func (w *textWindow) fill(tw *textWindows, c *columns.String, row int) {
	arena, ends := c.Data()
	hi := stringsEnd(ends, row, min(row+boxWindow, len(ends)))
	start := 0
	if row > 0 {
		start = ends[row-1]
	}
	if size, rest := ends[hi-1]-start, len(tw.chunk); size > rest && rest >= size/8 && size <= slabChunk/2 {
		// Fill the rest of the current chunk rather than leave it unused (see boxer.fitChunk).
		if e := stringsWithin(ends, row, hi, rest); ends[e-1]-start <= rest {
			hi = e
		}
	}
	w.lo, w.hi, w.start = row, hi, start
	src := arena[start:ends[hi-1]]
	// Carved from a shared chunk (one allocation for several windows; never handed out twice).
	if len(src) > len(tw.chunk) {
		if len(src) > slabChunk/2 {
			w.text = bytes.Clone(src)
			return
		}
		n := nextChunk(&tw.grown, len(src))
		tw.chunk = unsafe.Slice((*byte)(allocNoZero(n)), n)
	}
	n := copy(tw.chunk, src)
	w.text = tw.chunk[:n:n]
	tw.chunk = tw.chunk[n:]
}

// stringsEnd returns the end (exclusive) of the longest window of rows [lo, hi) whose text in
// ends fits windowBytes, and at least lo+1.
func stringsEnd(ends []int, lo, hi int) int { return stringsWithin(ends, lo, hi, windowBytes) }

// stringsWithin returns the end (exclusive) of the longest window of rows [lo, hi) whose text in
// ends fits limit bytes, and at least lo+1.
func stringsWithin(ends []int, lo, hi, limit int) int {
	start := 0
	if lo > 0 {
		start = ends[lo-1]
	}
	if ends[hi-1]-start <= limit {
		return hi
	}
	// The largest e in [lo+1, hi] with ends[e-1]-start <= limit, or lo+1.
	a, b := lo+1, hi
	for a < b {
		m := int(uint(a+b+1) >> 1)
		if ends[m-1]-start <= limit {
			a = m
		} else {
			b = m - 1
		}
	}
	return a
}
