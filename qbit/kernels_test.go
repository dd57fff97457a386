package qbit

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

var testDims = []int{1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 40, 63, 64, 65, 100, 127, 128, 129, 256, 768, 1024, 1536}

// testRows returns row counts for dim: 0, 1, a few small ones and counts that
// fill several staging blocks with a partial last block.
func testRows(c codec, dim int) []int {
	g := newGeometry("test", dim<<20, math.MaxInt, dim, c.w)
	blk := g.block
	return []int{0, 1, 2, 9, 3*blk + 1, 2*blk - 1}
}

func randWords(rng *rand.Rand, n, w int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = rng.Uint64()
		if w < 64 {
			out[i] &= 1<<w - 1
		}
	}
	return out
}

// checkEncode encodes words (rows*dim) with the fast path into the middle of
// a garbage-filled buffer and compares with the reference; bytes outside
// the body must be untouched.
func checkEncode(t *testing.T, c codec, words []uint64, dim int, rng *rand.Rand) []byte {
	t.Helper()
	rows := len(words) / dim
	size := Size(rows, dim, c.w)
	want := make([]byte, size)
	refTranspose(want, words, dim, c.w)

	const guard = 13
	buf := make([]byte, guard+size+guard)
	for i := range buf {
		buf[i] = byte(rng.Uint32())
	}
	if rng.IntN(2) == 0 {
		for i := range buf {
			buf[i] = 0xAA
		}
	}
	orig := bytes.Clone(buf)
	c.enc(buf[guard:], words, dim)
	if !bytes.Equal(buf[:guard], orig[:guard]) || !bytes.Equal(buf[guard+size:], orig[guard+size:]) {
		t.Fatalf("%s dim %d rows %d: wrote outside the body", c.name, dim, rows)
	}
	got := buf[guard : guard+size]
	if !bytes.Equal(got, want) {
		for i := range got {
			if got[i] != want[i] {
				B := (dim + 7) / 8
				t.Fatalf("%s dim %d rows %d: first diff at byte %d (plane %d row %d byte %d): got %#02x want %#02x",
					c.name, dim, rows, i, i/(rows*B), i%(rows*B)/B, i%B, got[i], want[i])
			}
		}
	}
	return want
}

func checkDecode(t *testing.T, c codec, body []byte, rows, dim int) {
	t.Helper()
	want := refDetranspose(body, rows, dim, c.w)
	got := c.dec(body, rows, dim)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s dim %d rows %d: element %d (row %d col %d) = %#x, want %#x",
				c.name, dim, rows, i, i/dim, i%dim, got[i], want[i])
		}
	}
}

func TestKernelsMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range codecs {
		for _, dim := range testDims {
			for _, rows := range testRows(c, dim) {
				t.Run(fmt.Sprintf("%s/d%d/r%d", c.name, dim, rows), func(t *testing.T) {
					words := randWords(rng, rows*dim, c.w)
					body := checkEncode(t, c, words, dim, rng)
					checkDecode(t, c, body, rows, dim)
				})
			}
		}
	}
}

// A body from the wire may carry anything in its padding bits; decoding must
// ignore them, and re-encoding must give the body with padding cleared.
func TestDecodeArbitraryBody(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range codecs {
		for _, dim := range testDims {
			rows := 37
			body := make([]byte, Size(rows, dim, c.w))
			for i := range body {
				body[i] = byte(rng.Uint32())
			}
			checkDecode(t, c, body, rows, dim)
			words := c.dec(body, rows, dim)
			checkEncode(t, c, words, dim, rng)
		}
	}
}

// Sub-slices: vectors taken from the middle of a larger array (not starting
// at row 0) and bodies written into / read from the middle of a buffer.
func TestSubSlices(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, dim := range []int{3, 17, 64, 100} {
		const total, from, rows = 700, 123, 400
		all := make([]float32, total*dim)
		for i := range all {
			all[i] = rng.Float32()*2 - 1
		}
		sub := all[from*dim : (from+rows)*dim]
		size := Size(rows, dim, 32)
		big := make([]byte, 3*size)
		for i := range big {
			big[i] = 0xAA
		}
		body := big[size : 2*size]
		TransposeFloat32(body, sub, dim)
		want := make([]byte, size)
		refTranspose(want, wordsF32(sub), dim, 32)
		if !bytes.Equal(body, want) {
			t.Fatalf("dim %d: sub-slice encode differs from reference", dim)
		}
		for _, b := range append(big[:size:size], big[2*size:]...) {
			if b != 0xAA {
				t.Fatalf("dim %d: wrote outside the body", dim)
			}
		}
		out := make([]float32, total*dim)
		dsub := out[from*dim : (from+rows)*dim]
		DetransposeFloat32(dsub, body, dim)
		for i := range out {
			inside := i >= from*dim && i < (from+rows)*dim
			if inside && out[i] != all[i] || !inside && out[i] != 0 {
				t.Fatalf("dim %d: element %d = %v", dim, i, out[i])
			}
		}
	}
}
