package qbit

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// poisonStage puts an all-ones stage (n staging words, chunk buffer) in the 32-bit pool, so that the next call
// gets stale contents: a kernel path that read a word it had not written would now differ
// from the reference.
func poisonStage(n int) {
	s := &stage[uint32]{st: make([]uint64, n)}
	for i := range s.st {
		s.st[i] = ^uint64(0)
	}
	for i := range s.buf {
		s.buf[i] = ^uint32(0)
	}
	putStage(32, s)
}

func TestStaleStagingBuffer(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	for _, dim := range []int{1, 3, 8, 16, 17, 63, 64, 65, 100, 1024} {
		for _, rows := range []int{1, 2, 7, 33, 300} {
			src := make([]float32, rows*dim)
			for i := range src {
				src[i] = r.Float32()*2 - 1
			}
			want := make([]byte, Size(rows, dim, 32))
			refTranspose(want, wordsF32(src), dim, 32)

			poisonStage(1 << 15)
			got := make([]byte, len(want))
			TransposeFloat32(got, src, dim)
			if !bytes.Equal(got, want) {
				t.Fatalf("dim %d rows %d: encode with a stale staging buffer differs from the reference", dim, rows)
			}
			poisonStage(1 << 15)
			back := make([]float32, len(src))
			DetransposeFloat32(back, want, dim)
			if !slices.Equal(back, src) {
				t.Fatalf("dim %d rows %d: decode with a stale staging buffer differs", dim, rows)
			}
		}
	}
}

func TestDecodeOneVectorAllocs(t *testing.T) {
	const dim = 1024
	body := make([]byte, Size(1, dim, 32))
	dst := make([]float32, dim)
	DetransposeFloat32(dst, body, dim)
	if n := testing.AllocsPerRun(100, func() { DetransposeFloat32(dst, body, dim) }); n > 0.05 && !raceEnabled {
		t.Fatalf("DetransposeFloat32 of one vector: %.2f allocations per call, want 0 (staging buffer pooled)", n)
	}
}
