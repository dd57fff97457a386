package noopdriver

import (
	"database/sql/driver"
	"io"
	"strings"
	"unsafe"
)

// freshRows is the no-op driver's rows with database/sql's contract kept the way a real driver
// must keep it: a caller may hold on to any value Next hands out (scanned into *any, a string into
// *string), so values cannot live in memory that is written again. It copies the values of a
// window of rows at a time (every UInt64, Float64 and String column: the numbers, the strings'
// text and their headers) into fresh pointer-free memory and hands out interfaces pointing there,
// as chnative's row tier does; other columns' values are handed out as they are. It reads no
// socket and decodes nothing, and the copies run on the caller's goroutine: the floor of a row
// tier that keeps values immutable without a second goroutine.
//
// It is a Go 1.26 arm: on Go 1.27 database/sql calls NextRow and ScanColumn (promoted from rows),
// which copy each value into the caller's variable and hand out nothing to keep.
type freshRows struct {
	rows
	lo, hi int        // the window: rows [lo, hi) of the cycle
	cols   []freshCol // per column, the window's copy
	chunk  []uint64   // the unused rest of the current chunk
}

// freshCol is one column's window: value j is the interface (typ, data + j*size).
type freshCol struct {
	typ  unsafe.Pointer // nil: handed out as it is
	data unsafe.Pointer
	size uintptr
}

const (
	freshWindow = 256      // rows copied at once, as chnative's boxWindow
	freshChunk  = 64 << 10 // chunks windows are carved from, as chnative's slabChunk
)

var (
	typeUint64  = typeWord[uint64]()
	typeFloat64 = typeWord[float64]()
	typeString  = typeWord[string]()
)

type eface struct{ typ, data unsafe.Pointer }

func typeWord[T any]() unsafe.Pointer {
	var z T
	a := any(z)
	return (*eface)(unsafe.Pointer(&a)).typ
}

// carve returns n bytes (8-byte aligned, never handed out before, not zeroed) of fresh
// pointer-free memory.
func (r *freshRows) carve(n uintptr) unsafe.Pointer {
	words := int((n + 7) / 8)
	if words > len(r.chunk) {
		size := max(freshChunk, words*8)
		var sb strings.Builder // Grow allocates without zeroing, as chnative's slabs
		sb.Grow(size)
		sb.WriteByte(0)
		r.chunk = unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.StringData(sb.String()))), size/8)
	}
	p := unsafe.Pointer(unsafe.SliceData(r.chunk))
	r.chunk = r.chunk[words:]
	return p
}

// fill copies rows [lo, hi) of the cycle into one fresh slab.
func (r *freshRows) fill(lo, hi int) {
	cc := r.d.columnar()
	if r.cols == nil {
		r.cols = make([]freshCol, len(r.d.names))
	}
	n := uintptr(hi - lo)
	var size uintptr
	for i := range r.cols {
		switch {
		case cc.u64[i] != nil, cc.f64[i] != nil:
			size += 8 * n
		case cc.ends[i] != nil:
			size += 16*n + uintptr(cc.textLen(i, lo, hi))
			size = (size + 7) &^ 7
		}
	}
	slab, off := r.carve(size), uintptr(0)
	for i := range r.cols {
		c := &r.cols[i]
		*c = freshCol{}
		switch {
		case cc.u64[i] != nil:
			*c = freshCol{typ: typeUint64, data: unsafe.Add(slab, off), size: 8}
			copy(unsafe.Slice((*uint64)(c.data), n), cc.u64[i][lo:hi])
			off += 8 * n
		case cc.f64[i] != nil:
			*c = freshCol{typ: typeFloat64, data: unsafe.Add(slab, off), size: 8}
			copy(unsafe.Slice((*float64)(c.data), n), cc.f64[i][lo:hi])
			off += 8 * n
		case cc.ends[i] != nil:
			*c = freshCol{typ: typeString, data: unsafe.Add(slab, off), size: 16}
			hdr := unsafe.Slice((*[2]uintptr)(c.data), n)
			text := unsafe.Add(slab, off+16*n)
			start := cc.start(i, lo)
			copy(unsafe.Slice((*byte)(text), cc.textLen(i, lo, hi)), cc.text[i][start:cc.ends[i][hi-1]])
			// Headers as plain words: they point only into their own slab, which anything that
			// reaches them keeps alive (as chnative's slabs).
			prev := start
			for j := range hdr {
				e := cc.ends[i][lo+j]
				hdr[j] = [2]uintptr{uintptr(text) + uintptr(prev-start), uintptr(e - prev)}
				prev = e
			}
			off = (off + 16*n + uintptr(cc.textLen(i, lo, hi)) + 7) &^ 7
		}
	}
	r.lo, r.hi = lo, hi
}

func (r *freshRows) Next(dest []driver.Value) error {
	if r.i >= r.n {
		return io.EOF
	}
	k := r.i % len(r.d.rows)
	r.i++
	if k < r.lo || k >= r.hi {
		r.fill(k, min(k+freshWindow, len(r.d.rows)))
	}
	j := uintptr(k - r.lo)
	for i := range dest {
		if c := &r.cols[i]; c.typ != nil {
			*(*eface)(unsafe.Pointer(&dest[i])) = eface{c.typ, unsafe.Add(c.data, j*c.size)}
		} else {
			dest[i] = r.d.rows[k][i]
		}
	}
	return nil
}

// columnarData is a shape's cycle of rows by column, for freshRows: per column, the values of
// a UInt64 or Float64 column, or a String column's text and the end of each value in it.
type columnarData struct {
	u64  [][]uint64
	f64  [][]float64
	text [][]byte
	ends [][]int
}

func (c *columnarData) start(i, row int) int {
	if row == 0 {
		return 0
	}
	return c.ends[i][row-1]
}

func (c *columnarData) textLen(i, lo, hi int) int { return c.ends[i][hi-1] - c.start(i, lo) }

// columnar returns d's rows by column, built once.
func (d *data) columnar() *columnarData {
	d.colOnce.Do(func() {
		nc := len(d.names)
		c := &columnarData{u64: make([][]uint64, nc), f64: make([][]float64, nc), text: make([][]byte, nc), ends: make([][]int, nc)}
		for i := 0; i < nc; i++ {
			switch d.rows[0][i].(type) {
			case uint64:
				for _, row := range d.rows {
					c.u64[i] = append(c.u64[i], row[i].(uint64))
				}
			case float64:
				for _, row := range d.rows {
					c.f64[i] = append(c.f64[i], row[i].(float64))
				}
			case string:
				for _, row := range d.rows {
					c.text[i] = append(c.text[i], row[i].(string)...)
					c.ends[i] = append(c.ends[i], len(c.text[i]))
				}
			}
		}
		d.col = c
	})
	return d.col
}
