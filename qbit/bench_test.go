package qbit

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// Benchmarks: b.SetBytes is the size of the vector data (rows*dim*W/8), which
// equals the body size when dim%8 == 0.

var benchShapes = []struct{ rows, dim int }{
	{1024, 1024},
	{100000, 4},
	{100000, 17},
}

func benchName(rows, dim int) string { return fmt.Sprintf("r%d_d%d", rows, dim) }

func BenchmarkFloat32(b *testing.B) {
	for _, s := range benchShapes {
		rng := rand.New(rand.NewPCG(1, 1))
		src := make([]float32, s.rows*s.dim)
		for i := range src {
			src[i] = rng.Float32()*2 - 1
		}
		body := make([]byte, Size(s.rows, s.dim, 32))
		out := make([]float32, len(src))
		b.Run("Encode/"+benchName(s.rows, s.dim), func(b *testing.B) {
			b.SetBytes(int64(4 * len(src)))
			c := startCPU(b)
			for b.Loop() {
				TransposeFloat32(body, src, s.dim)
			}
			c.stop(b)
		})
		b.Run("Decode/"+benchName(s.rows, s.dim), func(b *testing.B) {
			b.SetBytes(int64(4 * len(src)))
			c := startCPU(b)
			for b.Loop() {
				DetransposeFloat32(out, body, s.dim)
			}
			c.stop(b)
		})
	}
}

func BenchmarkFloat64(b *testing.B) {
	for _, s := range benchShapes {
		rng := rand.New(rand.NewPCG(1, 1))
		src := make([]float64, s.rows*s.dim)
		for i := range src {
			src[i] = rng.Float64()*2 - 1
		}
		body := make([]byte, Size(s.rows, s.dim, 64))
		out := make([]float64, len(src))
		b.Run("Encode/"+benchName(s.rows, s.dim), func(b *testing.B) {
			b.SetBytes(int64(8 * len(src)))
			c := startCPU(b)
			for b.Loop() {
				TransposeFloat64(body, src, s.dim)
			}
			c.stop(b)
		})
		b.Run("Decode/"+benchName(s.rows, s.dim), func(b *testing.B) {
			b.SetBytes(int64(8 * len(src)))
			c := startCPU(b)
			for b.Loop() {
				DetransposeFloat64(out, body, s.dim)
			}
			c.stop(b)
		})
	}
}

func BenchmarkBFloat16(b *testing.B) {
	for _, s := range benchShapes {
		rng := rand.New(rand.NewPCG(1, 1))
		src := make([]uint16, s.rows*s.dim)
		for i := range src {
			src[i] = uint16(rng.Uint32())
		}
		body := make([]byte, Size(s.rows, s.dim, 16))
		out := make([]uint16, len(src))
		b.Run("Encode/"+benchName(s.rows, s.dim), func(b *testing.B) {
			b.SetBytes(int64(2 * len(src)))
			c := startCPU(b)
			for b.Loop() {
				TransposeBFloat16(body, src, s.dim)
			}
			c.stop(b)
		})
		b.Run("Decode/"+benchName(s.rows, s.dim), func(b *testing.B) {
			b.SetBytes(int64(2 * len(src)))
			c := startCPU(b)
			for b.Loop() {
				DetransposeBFloat16(out, body, s.dim)
			}
			c.stop(b)
		})
	}
}

func BenchmarkInt8(b *testing.B) {
	for _, s := range benchShapes {
		rng := rand.New(rand.NewPCG(1, 1))
		src := make([]int8, s.rows*s.dim)
		for i := range src {
			src[i] = int8(rng.Uint32())
		}
		body := make([]byte, Size(s.rows, s.dim, 8))
		out := make([]int8, len(src))
		b.Run("Encode/"+benchName(s.rows, s.dim), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			c := startCPU(b)
			for b.Loop() {
				TransposeInt8(body, src, s.dim)
			}
			c.stop(b)
		})
		b.Run("Decode/"+benchName(s.rows, s.dim), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			c := startCPU(b)
			for b.Loop() {
				DetransposeInt8(out, body, s.dim)
			}
			c.stop(b)
		})
	}
}
