package columns

import (
	"math"
	"reflect"
	"strconv"

	"github.com/chnative/chnative/qbit"
)

// Reading a QBit column's rows back as vectors: each row is gathered from its bit planes.

// decodeGroups decodes the body src of len(dst)/d rows with stride s into dst (row-major).
func decodeGroups[T any](dst []T, src []byte, d, s, w int, de func([]T, []byte, int)) {
	rows := len(dst) / d
	if rows == 0 {
		return
	}
	if s == d {
		de(dst, src, d)
		return
	}
	gsize := qbit.Size(rows, s, w)
	tmp := make([]T, rows*s)
	for g := 0; g < d/s; g++ {
		de(tmp, src[g*gsize:(g+1)*gsize], s)
		for r := 0; r < rows; r++ {
			copy(dst[r*d+g*s:r*d+(g+1)*s], tmp[r*s:])
		}
	}
}

// rowBody gathers decoded row i's bytes of every plane into c.rowBuf, laid out as the body of G
// rows of dimension S (so that one Detranspose with dim S yields the D elements in order).
func (c *QBit) rowBody(i int) []byte {
	g, w, b := c.groups, c.w, c.b
	need := w * g * b
	if cap(c.rowBuf) < need {
		c.rowBuf = make([]byte, need)
	}
	buf := c.rowBuf[:need]
	pl := c.planeLen()
	for gi := 0; gi < g; gi++ {
		for k := 0; k < w; k++ {
			src := (gi*w+k)*pl + i*b
			copy(buf[(k*g+gi)*b:(k*g+gi+1)*b], c.body[src:src+b])
		}
	}
	return buf
}

func (c *QBit) checkRow(i int) {
	if i < 0 || i >= c.Rows() {
		panic("columns: QBit: row " + strconv.Itoa(i) + " out of range [0, " + strconv.Itoa(c.Rows()) + ")")
	}
}

func grow[T any](dst []T, n int) []T {
	if cap(dst) < n {
		return make([]T, n)
	}
	return dst[:n]
}

// RowFloat32 returns row i as float32 values in dst's memory (reallocated when cap(dst) < D),
// detransposing it from the planes. It works on Float32 columns, and on BFloat16 and Int8 columns
// (exact widening); it panics on a Float64 column (use RowFloat64).
func (c *QBit) RowFloat32(i int, dst []float32) []float32 {
	c.checkRow(i)
	dst = grow(dst, c.dim)
	switch c.w {
	case 32:
		if i >= c.nt {
			copy(dst, c.f32[(i-c.nt)*c.dim:])
			return dst
		}
		qbit.DetransposeFloat32(dst, c.rowBody(i), c.stride)
	case 16:
		c.bfRow = c.RowBFloat16(i, c.bfRow)
		for j, x := range c.bfRow {
			dst[j] = math.Float32frombits(uint32(x) << 16)
		}
	case 8:
		c.i8Row = c.RowInt8(i, c.i8Row)
		for j, x := range c.i8Row {
			dst[j] = float32(x)
		}
	default:
		panic("columns: QBit.RowFloat32 on " + c.Type() + ": use RowFloat64")
	}
	return dst
}

// RowFloat64 returns row i as float64 values in dst's memory (reallocated when cap(dst) < D). It
// works on every element type; Float32 and BFloat16 values are widened exactly (NaN payloads are
// bit-exact only through RowFloat32/RowBFloat16).
func (c *QBit) RowFloat64(i int, dst []float64) []float64 {
	c.checkRow(i)
	dst = grow(dst, c.dim)
	switch c.w {
	case 64:
		if i >= c.nt {
			copy(dst, c.f64[(i-c.nt)*c.dim:])
			return dst
		}
		qbit.DetransposeFloat64(dst, c.rowBody(i), c.stride)
	default:
		f := c.RowFloat32(i, nil)
		for j, x := range f {
			dst[j] = float64(x)
		}
	}
	return dst
}

// RowBFloat16 returns row i of a BFloat16 column as raw bfloat16 bit patterns in dst's memory
// (reallocated when cap(dst) < D). It panics on other element types.
func (c *QBit) RowBFloat16(i int, dst []uint16) []uint16 {
	c.checkRow(i)
	if c.w != 16 {
		panic("columns: QBit.RowBFloat16 on " + c.Type())
	}
	dst = grow(dst, c.dim)
	if i >= c.nt {
		copy(dst, c.bf16[(i-c.nt)*c.dim:])
		return dst
	}
	qbit.DetransposeBFloat16(dst, c.rowBody(i), c.stride)
	return dst
}

// RowInt8 returns row i of an Int8 column in dst's memory (reallocated when cap(dst) < D). It
// panics on other element types.
func (c *QBit) RowInt8(i int, dst []int8) []int8 {
	c.checkRow(i)
	if c.w != 8 {
		panic("columns: QBit.RowInt8 on " + c.Type())
	}
	dst = grow(dst, c.dim)
	if i >= c.nt {
		copy(dst, c.i8[(i-c.nt)*c.dim:])
		return dst
	}
	qbit.DetransposeInt8(dst, c.rowBody(i), c.stride)
	return dst
}

// Float32s returns every row of a Float32 column, row-major (Rows()·D values), in dst's memory
// (reallocated when too small), detransposing the whole column at once. It panics on other
// element types.
func (c *QBit) Float32s(dst []float32) []float32 {
	if c.w != 32 {
		panic("columns: QBit.Float32s on " + c.Type())
	}
	dst = grow(dst, c.Rows()*c.dim)
	decodeGroups(dst[:c.nt*c.dim], c.body, c.dim, c.stride, c.w, qbit.DetransposeFloat32)
	copy(dst[c.nt*c.dim:], c.f32)
	return dst
}

// Float64s is Float32s for a Float64 column.
func (c *QBit) Float64s(dst []float64) []float64 {
	if c.w != 64 {
		panic("columns: QBit.Float64s on " + c.Type())
	}
	dst = grow(dst, c.Rows()*c.dim)
	decodeGroups(dst[:c.nt*c.dim], c.body, c.dim, c.stride, c.w, qbit.DetransposeFloat64)
	copy(dst[c.nt*c.dim:], c.f64)
	return dst
}

// BFloat16s is Float32s for a BFloat16 column (raw bfloat16 bit patterns).
func (c *QBit) BFloat16s(dst []uint16) []uint16 {
	if c.w != 16 {
		panic("columns: QBit.BFloat16s on " + c.Type())
	}
	dst = grow(dst, c.Rows()*c.dim)
	decodeGroups(dst[:c.nt*c.dim], c.body, c.dim, c.stride, c.w, qbit.DetransposeBFloat16)
	copy(dst[c.nt*c.dim:], c.bf16)
	return dst
}

// Int8s is Float32s for an Int8 column.
func (c *QBit) Int8s(dst []int8) []int8 {
	if c.w != 8 {
		panic("columns: QBit.Int8s on " + c.Type())
	}
	dst = grow(dst, c.Rows()*c.dim)
	decodeGroups(dst[:c.nt*c.dim], c.body, c.dim, c.stride, c.w, qbit.DetransposeInt8)
	copy(dst[c.nt*c.dim:], c.i8)
	return dst
}

// Value returns row i in a new slice: []float32 (Float32), []float64 (Float64), []uint16 (BFloat16,
// raw bit patterns) or []int8 (Int8).
func (c *QBit) Value(i int) any {
	switch c.w {
	case 32:
		return c.RowFloat32(i, nil)
	case 64:
		return c.RowFloat64(i, nil)
	case 16:
		return c.RowFloat32(i, nil) // widened exactly, as a BFloat16 column's values are
	}
	return c.RowInt8(i, nil)
}

// ScanType returns []float32 (Float32 and BFloat16), []float64 or []int8. RowBFloat16 gives the
// raw bfloat16 bits.
func (c *QBit) ScanType() reflect.Type {
	switch c.w {
	case 32:
		return reflect.TypeFor[[]float32]()
	case 64:
		return reflect.TypeFor[[]float64]()
	case 16:
		return reflect.TypeFor[[]float32]()
	}
	return reflect.TypeFor[[]int8]()
}
