package qbit

import (
	"fmt"
	"unsafe"
)

// Size returns the length in bytes of the Native body of rows vectors of
// QBit(T, dim) where bits = bits(T) (8, 16, 32 or 64): bits*rows*ceil(dim/8).
func Size(rows, dim, bits int) int {
	return bits * rows * ((dim + 7) / 8)
}

// TransposeFloat32 writes the len(src)/dim vectors of src as the Native body
// of QBit(Float32, dim): 32 planes, plane 0 (sign) first, into
// dst[:Size(rows, dim, 32)]. See the package preconditions.
func TransposeFloat32(dst []byte, src []float32, dim int) {
	encode(dst, src, dim, 32, enc32)
}

// DetransposeFloat32 is the inverse of TransposeFloat32: it decodes
// len(dst)/dim vectors from the QBit(Float32, dim) body src.
func DetransposeFloat32(dst []float32, src []byte, dim int) {
	decode(dst, src, dim, 32, dec32)
}

// TransposeFloat64 writes the len(src)/dim vectors of src as the Native body
// of QBit(Float64, dim) (64 planes) into dst[:Size(rows, dim, 64)].
func TransposeFloat64(dst []byte, src []float64, dim int) {
	encode(dst, src, dim, 64, enc64)
}

// DetransposeFloat64 is the inverse of TransposeFloat64.
func DetransposeFloat64(dst []float64, src []byte, dim int) {
	decode(dst, src, dim, 64, dec64)
}

// TransposeBFloat16 writes the len(src)/dim vectors of raw bfloat16 bit
// patterns in src as the Native body of QBit(BFloat16, dim) (16 planes) into
// dst[:Size(rows, dim, 16)]. (The server converts Float32 to BFloat16 by
// truncation: uint16(math.Float32bits(f) >> 16).)
func TransposeBFloat16(dst []byte, src []uint16, dim int) {
	encode(dst, src, dim, 16, enc16)
}

// DetransposeBFloat16 is the inverse of TransposeBFloat16; dst receives raw
// bfloat16 bit patterns.
func DetransposeBFloat16(dst []uint16, src []byte, dim int) {
	decode(dst, src, dim, 16, dec16)
}

// TransposeInt8 writes the len(src)/dim vectors of src as the Native body of
// QBit(Int8, dim) (8 planes) into dst[:Size(rows, dim, 8)].
func TransposeInt8(dst []byte, src []int8, dim int) {
	encode(dst, int8Bytes(src), dim, 8, enc8)
}

// DetransposeInt8 is the inverse of TransposeInt8.
func DetransposeInt8(dst []int8, src []byte, dim int) {
	decode(int8Bytes(dst), src, dim, 8, dec8)
}

// int8Bytes views s as bytes: int8 and byte have the same size and
// alignment, and the kernels then load eight elements with one 64-bit load.
func int8Bytes(s []int8) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// stageTarget is the approximate size of the staging buffer (bytes). A block
// of rows is transposed into it and then copied plane by plane.
var stageTarget = 16 << 10

// geometry describes how one call walks its rows.
type geometry struct {
	dim, w  int
	rows    int
	b       int // bytes per row per plane: ceil(dim/8)
	plane   int // bytes per plane in the body: rows*b
	nfull   int // complete 64-element chunks per row
	rem     int // elements after the complete chunks (0..63)
	nb      int // bytes of the tail chunk: ceil(rem/8)
	m       int // rows per packed chunk when nfull == 0, else 1
	block   int // rows per staged block
	ps      int // plane stride inside the staging buffer
	stageSz int
}

func newGeometry(op string, vlen, blen, dim, w int) geometry {
	if dim <= 0 {
		panic(fmt.Sprintf("qbit: %s: dimension %d must be > 0", op, dim))
	}
	if vlen%dim != 0 {
		panic(fmt.Sprintf("qbit: %s: vector slice length %d is not a multiple of dimension %d", op, vlen, dim))
	}
	g := geometry{dim: dim, w: w, rows: vlen / dim, b: (dim + 7) / 8}
	g.plane = g.rows * g.b
	if need := w * g.plane; blen < need {
		panic(fmt.Sprintf("qbit: %s: body slice has %d bytes, %d rows of QBit(%d-bit, %d) need %d", op, blen, g.rows, w, dim, need))
	}
	g.nfull = dim / 64
	g.rem = dim % 64
	g.nb = (g.rem + 7) / 8
	g.m = 1
	if g.nfull == 0 {
		g.m = 8 / g.b
	}
	r := stageTarget / (w * g.b)
	if r >= g.m {
		r -= r % g.m
	}
	r = max(r, 1)
	r = min(r, g.rows)
	g.block = r
	// Plane runs plus 8 bytes of slack (chunk stores may run up to 7 bytes
	// past a run), rounded to whole cache lines, and an odd number of lines
	// so that the W planes of one row fall into different cache sets.
	ps := (r*g.b + 8 + 63) &^ 63
	if (ps/64)%2 == 0 {
		ps += 64
	}
	g.ps = ps
	g.stageSz = w * ps
	return g
}

// Chunk geometry. Inside a row bitmap of B bytes, the 8 bytes at offset
// B-8-8j are the big-endian encoding of the 64 plane bits of elements
// 64j..64j+63 (element 64j+i at bit i), so a full chunk is stored at
// pos = rowStart + B-8-8j. A tail of rem < 64 elements occupies the first nb
// bytes of the bitmap; it is transposed from slots 64-8nb.. of a zeroed
// 64-element buffer and stored at rowStart, so its last 8-nb stored bytes spill
// forward into bytes that are written afterwards (the row's own full chunks,
// or the next rows) or into the staging slack. For dim < 64, m = 8/B rows
// share one chunk the same way: row t of the group sits in slots
// 64-8(t+1)B .. 64-8(t+1)B+dim-1.

func encode[T any](dst []byte, src []T, dim, w int, kern func(e []T, out []byte, pos, ps int)) {
	g := newGeometry("transpose", len(src), len(dst), dim, w)
	if g.rows == 0 {
		return
	}
	st := make([]byte, g.stageSz)
	var buf [64]T
	b, ps := g.b, g.ps
	for r0 := 0; r0 < g.rows; r0 += g.block {
		n := min(g.block, g.rows-r0)
		blk := src[r0*dim : (r0+n)*dim]
		if g.nfull == 0 {
			m := g.m
			for t0 := 0; t0 < n; t0 += m {
				k := min(m, n-t0)
				if k < m {
					clear(buf[:])
				}
				for t := 0; t < k; t++ {
					copy(buf[64-8*(t+1)*b:], blk[(t0+t)*dim:(t0+t+1)*dim])
				}
				kern(buf[:], st, t0*b, ps)
			}
		} else {
			tail := 64 - 8*g.nb
			for t := 0; t < n; t++ {
				row := blk[t*dim : (t+1)*dim]
				pos := t * b
				if g.rem > 0 {
					// Before the full chunks: its store spills into them.
					copy(buf[tail:], row[64*g.nfull:])
					kern(buf[:], st, pos, ps)
				}
				p := pos + b - 8
				for j := 0; j < g.nfull; j++ {
					kern(row[64*j:], st, p, ps)
					p -= 8
				}
			}
		}
		run := n * b
		off := r0 * b
		for k := 0; k < w; k++ {
			copy(dst[k*g.plane+off:][:run], st[k*ps:k*ps+run])
		}
	}
}

func decode[T any](dst []T, src []byte, dim, w int, kern func(in []byte, pos, ps int, e []T)) {
	g := newGeometry("detranspose", len(dst), len(src), dim, w)
	if g.rows == 0 {
		return
	}
	st := make([]byte, g.stageSz)
	var buf [64]T
	b, ps := g.b, g.ps
	for r0 := 0; r0 < g.rows; r0 += g.block {
		n := min(g.block, g.rows-r0)
		run := n * b
		off := r0 * b
		for k := 0; k < w; k++ {
			copy(st[k*ps:k*ps+run], src[k*g.plane+off:][:run])
		}
		blk := dst[r0*dim : (r0+n)*dim]
		if g.nfull == 0 {
			m := g.m
			for t0 := 0; t0 < n; t0 += m {
				kern(st, t0*b, ps, buf[:])
				k := min(m, n-t0)
				for t := 0; t < k; t++ {
					copy(blk[(t0+t)*dim:(t0+t+1)*dim], buf[64-8*(t+1)*b:])
				}
			}
		} else {
			tail := 64 - 8*g.nb
			for t := 0; t < n; t++ {
				row := blk[t*dim : (t+1)*dim]
				pos := t * b
				p := pos + b - 8
				for j := 0; j < g.nfull; j++ {
					kern(st, p, ps, row[64*j:])
					p -= 8
				}
				if g.rem > 0 {
					kern(st, pos, ps, buf[:])
					copy(row[64*g.nfull:], buf[tail:tail+g.rem])
				}
			}
		}
	}
}
