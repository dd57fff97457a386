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
	p := scratch[uint32](&pool32, len(src))
	defer pool32.Put(p)
	b := *p
	for i, f := range src {
		b[i] = math.Float32bits(f)
	}
	encode(dst, b, dim, 32, enc32)
}

func decodeFloat32(dst []float32, src []byte, dim int) {
	p := scratch[uint32](&pool32, len(dst))
	defer pool32.Put(p)
	b := *p
	decode(b, src, dim, 32, dec32)
	for i, u := range b {
		dst[i] = math.Float32frombits(u)
	}
}

func encodeFloat64(dst []byte, src []float64, dim int) {
	p := scratch[uint64](&pool64, len(src))
	defer pool64.Put(p)
	b := *p
	for i, f := range src {
		b[i] = math.Float64bits(f)
	}
	encode(dst, b, dim, 64, enc64)
}

func decodeFloat64(dst []float64, src []byte, dim int) {
	p := scratch[uint64](&pool64, len(dst))
	defer pool64.Put(p)
	b := *p
	decode(b, src, dim, 64, dec64)
	for i, u := range b {
		dst[i] = math.Float64frombits(u)
	}
}

func encodeInt8(dst []byte, src []int8, dim int) {
	p := scratch[byte](&pool8, len(src))
	defer pool8.Put(p)
	b := *p
	for i, v := range src {
		b[i] = byte(v)
	}
	encode(dst, b, dim, 8, enc8)
}

func decodeInt8(dst []int8, src []byte, dim int) {
	p := scratch[byte](&pool8, len(dst))
	defer pool8.Put(p)
	b := *p
	decode(b, src, dim, 8, dec8)
	for i, v := range b {
		dst[i] = int8(v)
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
