//go:build purego

package qbit

import (
	"math"
	"sync"
)

// The safe twin of views_unsafe.go: the kernels work on raw bit patterns, so each Transpose
// copies its source into a slice of the unsigned type of the same size (math.Float32bits, ...)
// and each Detranspose decodes into such a slice and converts it into the caller's. Slower (one
// pass more per call, through a pooled scratch slice), with the same results bit for bit. A call
// whose preconditions fail panics inside encode or decode before the caller's slice is written.

func encodeFloat32(dst []byte, src []float32, dim int) {
	encodeAs(dst, src, dim, 32, enc32, &pool32, math.Float32bits)
}

func decodeFloat32(dst []float32, src []byte, dim int) {
	decodeAs(dst, src, dim, 32, dec32, &pool32, math.Float32frombits)
}

func encodeFloat64(dst []byte, src []float64, dim int) {
	encodeAs(dst, src, dim, 64, enc64, &pool64, math.Float64bits)
}

func decodeFloat64(dst []float64, src []byte, dim int) {
	decodeAs(dst, src, dim, 64, dec64, &pool64, math.Float64frombits)
}

func encodeInt8(dst []byte, src []int8, dim int) {
	encodeAs(dst, src, dim, 8, enc8, &pool8, func(v int8) byte { return byte(v) })
}

func decodeInt8(dst []int8, src []byte, dim int) {
	decodeAs(dst, src, dim, 8, dec8, &pool8, func(v byte) int8 { return int8(v) })
}

// encodeAs is encode of src's elements converted by bits to their patterns U.
func encodeAs[E, U any](dst []byte, src []E, dim, w int, kern func([]U, []uint64), pool *sync.Pool, bits func(E) U) {
	p := scratch[U](pool, len(src))
	defer pool.Put(p)
	b := *p
	for i, v := range src {
		b[i] = bits(v)
	}
	encode(dst, b, dim, w, kern)
}

// decodeAs is decode into patterns U, converted by from into dst's elements.
func decodeAs[E, U any](dst []E, src []byte, dim, w int, kern func([]uint64, []U), pool *sync.Pool, from func(U) E) {
	p := scratch[U](pool, len(dst))
	defer pool.Put(p)
	b := *p
	decode(b, src, dim, w, kern)
	for i, u := range b {
		dst[i] = from(u)
	}
}

// Scratch slices of the three bit-pattern types, kept between calls so that a transform of a
// reused destination allocates nothing once warm (as the unsafe build's views do not).
var pool32, pool64, pool8 sync.Pool

// scratch returns a pooled *[]T of length n, or a new one when the pool's is missing or short.
func scratch[T any](pool *sync.Pool, n int) *[]T {
	if p, ok := pool.Get().(*[]T); ok && cap(*p) >= n {
		*p = (*p)[:n]
		return p
	}
	b := make([]T, n)
	return &b
}
