package qbit

import (
	"bytes"
	"math"
	"testing"
)

// Special values must survive bit for bit: several NaN payloads (quiet,
// signalling, negative), ±Inf, ±0, denormals, min/max.
func TestSpecialValuesFloat32(t *testing.T) {
	bits := []uint32{
		0x7fc00000, 0x7fc00001, 0xffc00000, 0x7f800001, 0x7fbfffff, 0xffffffff, 0x7fffffff, // NaNs
		0x7f800000, 0xff800000, // ±Inf
		0x00000000, 0x80000000, // ±0
		0x00000001, 0x807fffff, 0x00400000, // denormals
		0x00800000, 0x7f7fffff, 0xff7fffff, // min normal, ±max
		0x3f800000, 0xbf800000,
	}
	for _, dim := range []int{1, 7, 19, 64, 65, 130} {
		v := make([]float32, 0, 40*dim)
		for i := 0; len(v) < cap(v); i++ {
			v = append(v, math.Float32frombits(bits[i%len(bits)]))
		}
		body := bytes.Repeat([]byte{0xAA}, Size(40, dim, 32))
		TransposeFloat32(body, v, dim)
		want := make([]byte, len(body))
		refTranspose(want, wordsF32(v), dim, 32)
		if !bytes.Equal(body, want) {
			t.Fatalf("dim %d: encode differs from reference", dim)
		}
		out := make([]float32, len(v))
		DetransposeFloat32(out, body, dim)
		for i := range v {
			if math.Float32bits(out[i]) != math.Float32bits(v[i]) {
				t.Fatalf("dim %d: element %d: %#x -> %#x", dim, i, math.Float32bits(v[i]), math.Float32bits(out[i]))
			}
		}
	}
}

func TestSpecialValuesFloat64(t *testing.T) {
	bits := []uint64{
		0x7ff8000000000000, 0x7ff8000000000001, 0xfff8000000000000, 0x7ff0000000000001, 0x7ff7ffffffffffff, 0xffffffffffffffff, // NaNs
		0x7ff0000000000000, 0xfff0000000000000, // ±Inf
		0, 0x8000000000000000, // ±0
		1, 0x800fffffffffffff, // denormals
		0x0010000000000000, 0x7fefffffffffffff, 0xffefffffffffffff, // min normal, ±max
	}
	for _, dim := range []int{1, 9, 64, 100} {
		v := make([]float64, 0, 20*dim)
		for i := 0; len(v) < cap(v); i++ {
			v = append(v, math.Float64frombits(bits[i%len(bits)]))
		}
		body := bytes.Repeat([]byte{0x55}, Size(20, dim, 64))
		TransposeFloat64(body, v, dim)
		want := make([]byte, len(body))
		refTranspose(want, wordsF64(v), dim, 64)
		if !bytes.Equal(body, want) {
			t.Fatalf("dim %d: encode differs from reference", dim)
		}
		out := make([]float64, len(v))
		DetransposeFloat64(out, body, dim)
		for i := range v {
			if math.Float64bits(out[i]) != math.Float64bits(v[i]) {
				t.Fatalf("dim %d: element %d: %#x -> %#x", dim, i, math.Float64bits(v[i]), math.Float64bits(out[i]))
			}
		}
	}
}

// BFloat16 and Int8 are small enough to check every bit pattern.
func TestAllBFloat16Patterns(t *testing.T) {
	v := make([]uint16, 1<<16)
	for i := range v {
		v[i] = uint16(i)
	}
	all := v
	for _, dim := range []int{1, 3, 16, 64, 128} {
		v := all[:len(all)/dim*dim]
		body := make([]byte, Size(len(v)/dim, dim, 16))
		TransposeBFloat16(body, v, dim)
		want := make([]byte, len(body))
		refTranspose(want, wordsU16(v), dim, 16)
		if !bytes.Equal(body, want) {
			t.Fatalf("dim %d: encode differs from reference", dim)
		}
		out := make([]uint16, len(v))
		DetransposeBFloat16(out, body, dim)
		for i := range v {
			if out[i] != v[i] {
				t.Fatalf("dim %d: element %d: %#x -> %#x", dim, i, v[i], out[i])
			}
		}
	}
}

func TestAllInt8Patterns(t *testing.T) {
	v := make([]int8, 256)
	for i := range v {
		v[i] = int8(i - 128)
	}
	for _, dim := range []int{1, 2, 4, 8, 16, 32, 64, 128, 256} {
		body := make([]byte, Size(len(v)/dim, dim, 8))
		TransposeInt8(body, v, dim)
		want := make([]byte, len(body))
		refTranspose(want, wordsI8(v), dim, 8)
		if !bytes.Equal(body, want) {
			t.Fatalf("dim %d: encode differs from reference", dim)
		}
		out := make([]int8, len(v))
		DetransposeInt8(out, body, dim)
		for i := range v {
			if out[i] != v[i] {
				t.Fatalf("dim %d: element %d: %d -> %d", dim, i, v[i], out[i])
			}
		}
	}
	// -128 sets only plane 0; -1 sets all 8 planes (wire notes §2.4).
	body := make([]byte, 16)
	TransposeInt8(body[:8], []int8{-128}, 1)
	TransposeInt8(body[8:], []int8{-1}, 1)
	if !bytes.Equal(body, []byte{1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1}) {
		t.Fatalf("Int8 -128/-1 planes: %x", body)
	}
}
