package qbit

import (
	"bytes"
	"testing"
)

func mustPanic(t *testing.T, name string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: no panic", name)
		}
	}()
	f()
}

func TestPreconditionsPanic(t *testing.T) {
	v := make([]float32, 12)
	body := bytes.Repeat([]byte{0xAA}, Size(4, 3, 32))
	mustPanic(t, "short dst", func() { TransposeFloat32(body[:len(body)-1], v, 3) })
	mustPanic(t, "short src", func() { DetransposeFloat32(v, body[:len(body)-1], 3) })
	mustPanic(t, "dim 0", func() { TransposeFloat32(body, v, 0) })
	mustPanic(t, "dim <0", func() { DetransposeFloat32(v, body, -1) })
	mustPanic(t, "ragged src", func() { TransposeFloat32(body, v[:11], 3) })
	mustPanic(t, "ragged dst", func() { DetransposeFloat32(v[:11], body, 3) })
	mustPanic(t, "int8 short", func() { TransposeInt8(make([]byte, 7), make([]int8, 3), 3) })
	mustPanic(t, "bf16 short", func() { DetransposeBFloat16(make([]uint16, 3), make([]byte, 15), 3) })
	mustPanic(t, "f64 short", func() { TransposeFloat64(make([]byte, 63), make([]float64, 3), 3) })
	// A panicking call writes nothing.
	for _, b := range body {
		if b != 0xAA {
			t.Fatal("panicking Transpose wrote to dst")
		}
	}
}

func TestSizeAndEmpty(t *testing.T) {
	for _, c := range []struct{ rows, dim, bits, want int }{
		{0, 5, 32, 0}, {1, 1, 8, 8}, {2, 3, 32, 64}, {3, 9, 64, 384}, {10, 1024, 16, 20480},
	} {
		if got := Size(c.rows, c.dim, c.bits); got != c.want {
			t.Errorf("Size(%d,%d,%d) = %d, want %d", c.rows, c.dim, c.bits, got, c.want)
		}
	}
	// Zero rows: nothing to read or write, nil slices accepted.
	TransposeFloat32(nil, nil, 5)
	DetransposeFloat64(nil, nil, 5)
	TransposeBFloat16(nil, []uint16{}, 1)
	DetransposeInt8([]int8{}, nil, 1)
}
