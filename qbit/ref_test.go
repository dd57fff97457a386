package qbit

import (
	"math"
)

// refTranspose is the oracle encoder, written straight from the layout:
// element i of row r sets, in plane k, byte B-1-i/8 of the row bitmap at bit
// i%8 when bit W-1-k of its word is set. words holds rows*dim raw element
// bit patterns (low w bits used). All other bits of dst[:Size] are zero.
func refTranspose(dst []byte, words []uint64, dim, w int) {
	rows := len(words) / dim
	B := (dim + 7) / 8
	size := Size(rows, dim, w)
	for i := range dst[:size] {
		dst[i] = 0
	}
	for r := 0; r < rows; r++ {
		for i := 0; i < dim; i++ {
			word := words[r*dim+i]
			for k := 0; k < w; k++ {
				if word>>(w-1-k)&1 == 1 {
					dst[k*rows*B+r*B+B-1-i/8] |= 1 << (i % 8)
				}
			}
		}
	}
}

// refDetranspose is the oracle decoder: it returns rows*dim words read with
// the same formula as refTranspose, ignoring padding bits.
func refDetranspose(src []byte, rows, dim, w int) []uint64 {
	B := (dim + 7) / 8
	out := make([]uint64, rows*dim)
	for r := 0; r < rows; r++ {
		for i := 0; i < dim; i++ {
			var word uint64
			for k := 0; k < w; k++ {
				if src[k*rows*B+r*B+B-1-i/8]>>(i%8)&1 == 1 {
					word |= 1 << (w - 1 - k)
				}
			}
			out[r*dim+i] = word
		}
	}
	return out
}

func wordsF32(v []float32) []uint64 {
	out := make([]uint64, len(v))
	for i, x := range v {
		out[i] = uint64(math.Float32bits(x))
	}
	return out
}

func wordsF64(v []float64) []uint64 {
	out := make([]uint64, len(v))
	for i, x := range v {
		out[i] = math.Float64bits(x)
	}
	return out
}

func wordsU16(v []uint16) []uint64 {
	out := make([]uint64, len(v))
	for i, x := range v {
		out[i] = uint64(x)
	}
	return out
}

func wordsI8(v []int8) []uint64 {
	out := make([]uint64, len(v))
	for i, x := range v {
		out[i] = uint64(uint8(x))
	}
	return out
}

// codec bundles one element type's fast functions with conversions to and
// from raw words, so tests can be written once for all four types.
type codec struct {
	name string
	w    int
	// enc encodes n words (converted to the element type) into dst.
	enc func(dst []byte, words []uint64, dim int)
	// dec decodes rows*dim elements from src and returns them as words;
	// the element slice starts out filled with garbage.
	dec func(src []byte, rows, dim int) []uint64
}

var codecs = []codec{
	{"Float32", 32,
		func(dst []byte, words []uint64, dim int) {
			v := make([]float32, len(words))
			for i, x := range words {
				v[i] = math.Float32frombits(uint32(x))
			}
			TransposeFloat32(dst, v, dim)
		},
		func(src []byte, rows, dim int) []uint64 {
			v := make([]float32, rows*dim)
			for i := range v {
				v[i] = math.Float32frombits(0x7fc0dead)
			}
			DetransposeFloat32(v, src, dim)
			return wordsF32(v)
		}},
	{"Float64", 64,
		func(dst []byte, words []uint64, dim int) {
			v := make([]float64, len(words))
			for i, x := range words {
				v[i] = math.Float64frombits(x)
			}
			TransposeFloat64(dst, v, dim)
		},
		func(src []byte, rows, dim int) []uint64 {
			v := make([]float64, rows*dim)
			for i := range v {
				v[i] = math.Float64frombits(0xdeadbeefcafef00d)
			}
			DetransposeFloat64(v, src, dim)
			return wordsF64(v)
		}},
	{"BFloat16", 16,
		func(dst []byte, words []uint64, dim int) {
			v := make([]uint16, len(words))
			for i, x := range words {
				v[i] = uint16(x)
			}
			TransposeBFloat16(dst, v, dim)
		},
		func(src []byte, rows, dim int) []uint64 {
			v := make([]uint16, rows*dim)
			for i := range v {
				v[i] = 0xa5a5
			}
			DetransposeBFloat16(v, src, dim)
			return wordsU16(v)
		}},
	{"Int8", 8,
		func(dst []byte, words []uint64, dim int) {
			v := make([]int8, len(words))
			for i, x := range words {
				v[i] = int8(uint8(x))
			}
			TransposeInt8(dst, v, dim)
		},
		func(src []byte, rows, dim int) []uint64 {
			v := make([]int8, rows*dim)
			for i := range v {
				v[i] = -86
			}
			DetransposeInt8(v, src, dim)
			return wordsI8(v)
		}},
}
