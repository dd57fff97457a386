package qbit

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"sync"
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
	encodeFloat32(dst, src, dim)
}

// DetransposeFloat32 is the inverse of TransposeFloat32: it decodes
// len(dst)/dim vectors from the QBit(Float32, dim) body src.
func DetransposeFloat32(dst []float32, src []byte, dim int) {
	decodeFloat32(dst, src, dim)
}

// TransposeFloat64 writes the len(src)/dim vectors of src as the Native body
// of QBit(Float64, dim) (64 planes) into dst[:Size(rows, dim, 64)].
func TransposeFloat64(dst []byte, src []float64, dim int) {
	encodeFloat64(dst, src, dim)
}

// DetransposeFloat64 is the inverse of TransposeFloat64.
func DetransposeFloat64(dst []float64, src []byte, dim int) {
	decodeFloat64(dst, src, dim)
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
	encodeInt8(dst, src, dim)
}

// DetransposeInt8 is the inverse of TransposeInt8.
func DetransposeInt8(dst []int8, src []byte, dim int) {
	decodeInt8(dst, src, dim)
}

// stageTarget is the approximate size in bytes of the staging buffer that
// holds one block of transposed chunks (more when minRun needs it).
const stageTarget = 32 << 10

// minRun is the minimum number of bytes per plane that a block covers when
// rows are long: shorter runs of the W plane-strided streams measured several
// times slower (the hardware prefetchers do not get going).
const minRun = 1024

// geometry describes how one call walks its rows.
type geometry struct {
	dim, w int
	rows   int
	b      int // bytes per row per plane: ceil(dim/8)
	plane  int // bytes per plane in the body: rows*b
	nfull  int // complete 64-element chunks per row
	rem    int // elements after the complete chunks (0..63)
	nb     int // bytes of the tail chunk: ceil(rem/8)
	m      int // rows per packed chunk when nfull == 0, else 1
	nch    int // chunks per row when nfull > 0
	block  int // rows per staged block
	chunks int // chunks per staged block
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
	chunks := max(stageTarget/(8*w), 1) // chunks that fit the staging target
	if g.nfull == 0 {
		g.m = 8 / g.b
		g.block = min(chunks*g.m, g.rows)
		g.chunks = (g.block + g.m - 1) / g.m
	} else {
		g.m = 1
		g.nch = g.nfull
		if g.rem > 0 {
			g.nch++
		}
		g.block = min(max(chunks/g.nch, (minRun+g.b-1)/g.b), g.rows)
		g.chunks = g.block * g.nch
	}
	return g
}

// Chunk geometry. Inside a row bitmap of B bytes, the 8 bytes at offset
// B-8-8j are the big-endian encoding of the 64 plane bits of elements
// 64j..64j+63 (element 64j+i at bit i): a full chunk is stored there. A tail
// of rem < 64 elements occupies the first nb bytes of the bitmap; it is
// transposed from slots 64-8nb.. of a zeroed 64-element buffer, so that the
// big-endian 8-byte store at the row start puts it in bytes 0..nb-1, and its
// last 8-nb bytes (zero) spill forward into bytes written afterwards. For
// dim < 64, m = 8/B consecutive rows share one chunk the same way: row t of
// the group sits in slots 64-8(t+1)B .. 64-8(t+1)B+dim-1, so that one 8-byte
// store writes the m row bitmaps one after the other.
//
// A block is transposed chunk by chunk into the staging buffer st (chunk c,
// plane k at st[c*W+k]), and then scattered plane by plane into the body,
// which writes each plane's run of the block sequentially; the decoder
// gathers the other way. This keeps the W plane-strided accesses, which sit
// rows*B bytes apart in the body (a multiple of 4 KiB for common shapes, so
// they alias in the caches and the TLB), out of the transpose itself.

// stage is the scratch of one encode or decode call: the staging words and the 64-element
// chunk buffer (which escapes to the heap, since it is handed to a kernel through a func value).
type stage[T any] struct {
	st  []uint64
	buf [64]T
}

// stagePools keep stages between calls, one pool per element width (8, 16, 32, 64 bits; the
// element type is fixed by the width): a per-row caller, one vector at a time, would otherwise
// allocate a few KiB per vector.
var stagePools [4]sync.Pool

// getStage returns a stage with n staging words from the pool for width w. Its contents are
// stale: encode clears the chunk buffer, and both write every staging word they read.
func getStage[T any](w, n int) *stage[T] {
	p := &stagePools[bits.TrailingZeros(uint(w))-3]
	s, ok := p.Get().(*stage[T])
	if !ok {
		s = new(stage[T])
	}
	if cap(s.st) < n {
		s.st = make([]uint64, n)
	}
	s.st = s.st[:n]
	return s
}

// putStage returns s to the pool for width w.
func putStage[T any](w int, s *stage[T]) { stagePools[bits.TrailingZeros(uint(w))-3].Put(s) }

func encode[T any](dst []byte, src []T, dim, w int, kern func(e []T, o []uint64)) {
	g := newGeometry("transpose", len(src), len(dst), dim, w)
	if g.rows == 0 {
		return
	}
	sp := getStage[T](w, g.chunks*w)
	defer putStage(w, sp)
	st, buf := sp.st, &sp.buf
	clear(buf[:]) // padding slots between and after elements must be zero
	b := g.b
	for r0 := 0; r0 < g.rows; r0 += g.block {
		n := min(g.block, g.rows-r0)
		blk := src[r0*dim : (r0+n)*dim]
		if g.nfull == 0 {
			m := g.m
			c := 0
			for t0 := 0; t0 < n; t0 += m {
				k := min(m, n-t0)
				if k < m {
					clear(buf[:])
				}
				for t := 0; t < k; t++ {
					copy(buf[64-8*(t+1)*b:], blk[(t0+t)*dim:(t0+t+1)*dim])
				}
				kern(buf[:], st[c*w:])
				c++
			}
			for k := 0; k < w; k++ {
				pend := (k + 1) * g.plane
				o := k*g.plane + r0*b
				for i := k; i < c*w; i += w {
					if o+8 <= pend {
						binary.BigEndian.PutUint64(dst[o:], st[i])
					} else {
						for j, y := 0, st[i]; o+j < pend; j++ {
							dst[o+j] = byte(y >> (56 - 8*j))
						}
					}
					o += m * b
				}
			}
		} else {
			tail := 64 - 8*g.nb
			c := 0
			for t := 0; t < n; t++ {
				row := blk[t*dim : (t+1)*dim]
				if g.rem > 0 {
					copy(buf[tail:], row[64*g.nfull:])
					kern(buf[:], st[c*w:])
					c++
				}
				for j := 0; j < g.nfull; j++ {
					kern(row[64*j:], st[c*w:])
					c++
				}
			}
			for k := 0; k < w; k++ {
				o := k*g.plane + r0*b
				i := k
				for t := 0; t < n; t++ {
					bm := dst[o : o+b]
					if g.rem > 0 {
						// Before the full chunks: its store spills into them.
						binary.BigEndian.PutUint64(bm, st[i])
						i += w
					}
					for p := b - 8; p >= g.nb; p -= 8 {
						binary.BigEndian.PutUint64(bm[p:], st[i])
						i += w
					}
					o += b
				}
			}
		}
	}
}

func decode[T any](dst []T, src []byte, dim, w int, kern func(o []uint64, e []T)) {
	g := newGeometry("detranspose", len(dst), len(src), dim, w)
	if g.rows == 0 {
		return
	}
	sp := getStage[T](w, g.chunks*w)
	defer putStage(w, sp)
	st, buf := sp.st, &sp.buf
	b := g.b
	for r0 := 0; r0 < g.rows; r0 += g.block {
		n := min(g.block, g.rows-r0)
		blk := dst[r0*dim : (r0+n)*dim]
		if g.nfull == 0 {
			m := g.m
			nc := (n + m - 1) / m
			for k := 0; k < w; k++ {
				o := k*g.plane + r0*b
				for i := k; i < nc*w; i += w {
					if o+8 <= len(src) {
						st[i] = binary.BigEndian.Uint64(src[o:])
					} else {
						var y uint64
						for j := 0; o+j < len(src); j++ {
							y |= uint64(src[o+j]) << (56 - 8*j)
						}
						st[i] = y
					}
					o += m * b
				}
			}
			c := 0
			for t0 := 0; t0 < n; t0 += m {
				kern(st[c*w:], buf[:])
				c++
				k := min(m, n-t0)
				for t := 0; t < k; t++ {
					copy(blk[(t0+t)*dim:(t0+t+1)*dim], buf[64-8*(t+1)*b:])
				}
			}
		} else {
			for k := 0; k < w; k++ {
				o := k*g.plane + r0*b
				i := k
				for t := 0; t < n; t++ {
					bm := src[o : o+b]
					if g.rem > 0 {
						st[i] = binary.BigEndian.Uint64(bm)
						i += w
					}
					for p := b - 8; p >= g.nb; p -= 8 {
						st[i] = binary.BigEndian.Uint64(bm[p:])
						i += w
					}
					o += b
				}
			}
			tail := 64 - 8*g.nb
			c := 0
			for t := 0; t < n; t++ {
				row := blk[t*dim : (t+1)*dim]
				if g.rem > 0 {
					kern(st[c*w:], buf[:])
					c++
					copy(row[64*g.nfull:], buf[tail:tail+g.rem])
				}
				for j := 0; j < g.nfull; j++ {
					kern(st[c*w:], row[64*j:])
					c++
				}
			}
		}
	}
}
