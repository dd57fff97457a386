package chnative

import (
	"database/sql/driver"
	"time"
	"unsafe"

	"github.com/chnative/chnative/columns"
)

// Boxing values for database/sql. Before Go 1.27 every value Rows.Next hands over is an interface,
// and converting a number, string or time to one allocates each time. boxer instead copies a
// window of a column's values into one fresh slice and makes interfaces that point into it: one
// allocation per window instead of one per value. The copies are never written again, so values
// a caller keeps (scanned into *any) stay valid; a kept value keeps its window alive.

// boxWindow is how many rows are boxed at once.
const boxWindow = 256

// boxer holds the boxed values of the current window of rows, per column.
type boxer struct {
	lo, hi int     // the window: rows [lo, hi) of the current block
	vals   [][]any // per column; nil for columns boxed one value at a time
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

// boxSlice fills dst with interfaces of type typ pointing at the elements of vals, which the
// caller must never modify afterwards.
func boxSlice[T any](dst []any, typ unsafe.Pointer, vals []T) {
	for j := range vals {
		e := (*eface)(unsafe.Pointer(&dst[j]))
		e.typ = typ
		e.data = unsafe.Pointer(&vals[j])
	}
}

// boxFixed boxes copies of vals[lo:hi].
func boxFixed[T columns.FixedNum](dst []any, typ unsafe.Pointer, vals []T) {
	boxSlice(dst, typ, append([]T(nil), vals...))
}

// fill boxes rows [lo, hi) of every column it has a fast path for.
func (bx *boxer) fill(cols func(i int) columns.Column, ncols, lo, hi int) {
	bx.lo, bx.hi = lo, hi
	if len(bx.vals) < ncols {
		bx.vals = make([][]any, ncols)
	}
	n := hi - lo
	for i := 0; i < ncols; i++ {
		dst := bx.vals[i]
		if cap(dst) < boxWindow {
			dst = make([]any, boxWindow)
		}
		dst = dst[:n]
		ok := true
		switch c := cols(i).(type) {
		case *columns.UInt8:
			boxFixed(dst, typeUint8, c.Values()[lo:hi])
		case *columns.UInt16:
			boxFixed(dst, typeUint16, c.Values()[lo:hi])
		case *columns.UInt32:
			boxFixed(dst, typeUint32, c.Values()[lo:hi])
		case *columns.UInt64:
			boxFixed(dst, typeUint64, c.Values()[lo:hi])
		case *columns.Int8:
			boxFixed(dst, typeInt8, c.Values()[lo:hi])
		case *columns.Int16:
			boxFixed(dst, typeInt16, c.Values()[lo:hi])
		case *columns.Int32:
			boxFixed(dst, typeInt32, c.Values()[lo:hi])
		case *columns.Int64:
			boxFixed(dst, typeInt64, c.Values()[lo:hi])
		case *columns.Float32:
			boxFixed(dst, typeFloat32, c.Values()[lo:hi])
		case *columns.Float64:
			boxFixed(dst, typeFloat64, c.Values()[lo:hi])
		case *columns.String:
			s := make([]string, n)
			for j := range s {
				s[j] = c.String(lo + j)
			}
			boxSlice(dst, typeString, s)
		case *columns.DateTime:
			ts := make([]time.Time, n)
			for j := range ts {
				ts[j] = c.Time(lo + j)
			}
			boxSlice(dst, typeTime, ts)
		default:
			ok = false
		}
		if ok {
			bx.vals[i] = dst
		} else {
			bx.vals[i] = nil
		}
	}
}

// row copies row (an index in the current block) into dest, boxing a new window when needed.
func (bx *boxer) row(dest []driver.Value, cols func(i int) columns.Column, rows, row int) {
	if row < bx.lo || row >= bx.hi {
		bx.fill(cols, len(dest), row, min(row+boxWindow, rows))
	}
	for i := range dest {
		if v := bx.vals[i]; v != nil {
			dest[i] = v[row-bx.lo]
		} else {
			dest[i] = driverValue(cols(i).Value(row))
		}
	}
}
