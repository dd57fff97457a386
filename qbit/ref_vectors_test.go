package qbit

import (
	"bytes"
	"encoding/hex"
	"math"
	"strings"
	"testing"
)

// Worked examples and server captures from the QBit wire notes (§2.8-2.10);
// the first three 2.10 vectors are byte-exact captures from ClickHouse 26.6/26.7.

func hx(s string) []byte {
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		panic(err)
	}
	return b
}

func zeros(n int) string { return strings.Repeat("00", n) }

func alt16() []float64 {
	v := make([]float64, 16)
	for i := range v {
		v[i] = float64(i + 1)
		if i%2 == 1 {
			v[i] = -v[i]
		}
	}
	return v
}

type vector struct {
	name string
	w    int
	dim  int
	vals []float64 // converted to the element type
	want []byte
}

func (v vector) words() []uint64 {
	out := make([]uint64, len(v.vals))
	for i, x := range v.vals {
		switch v.w {
		case 8:
			out[i] = uint64(uint8(int8(x)))
		case 16:
			out[i] = uint64(math.Float32bits(float32(x)) >> 16)
		case 32:
			out[i] = uint64(math.Float32bits(float32(x)))
		case 64:
			out[i] = math.Float64bits(x)
		}
	}
	return out
}

var negZero = math.Copysign(0, -1)

var vectors = []vector{
	{"F32x3 2 rows (2.8)", 32, 3, []float64{1, -2, 0.5, 0, 0, 0},
		hx("02 00 02 00 05 00 05 00 05 00 05 00 05 00 05 00 01 00" + zeros(46))},
	{"F32x3 3 rows (2.8)", 32, 3, []float64{1, -2, 0.5, 0, 0, 0, negZero, 2, 3},
		hx("020001 020006 050000 050000 050000 050000 050000 050000 010000 000004" + zeros(22*3))},
	{"F32x10 reversal (2.9)", 32, 10, []float64{1, 0, 0, 0, 0, 0, 0, 0, 0, -1},
		hx("0200 0000" + strings.Repeat("0201", 7) + zeros(23*2))},
	{"F32x4 capture 26.6", 32, 4, []float64{1, 2, 3, 4},
		hx("00 0E 01 01 01 01 01 01 09 04" + zeros(22))},
	{"F32x16 capture 26.6", 32, 16, alt16(),
		hx("AA AA FF FE 00 01 00 01 00 01 00 01 00 01 FF 81 80 79 78 64 66 50 55 00" + zeros(40))},
	{"Int8x16 capture 26.7", 8, 16, alt16(),
		hx("AA AA AA AA AA AA AA AA 55 AA 5A 5A 66 66 55 55")},
	{"BF16x3", 16, 3, []float64{1, -2, 0.5},
		hx("02 02 05 05 05 05 05 05 01 00 00 00 00 00 00 00")},
	{"F64x3", 64, 3, []float64{1, -2, 0.5},
		hx("02 02 05 05 05 05 05 05 05 05 05 01" + zeros(52))},
	{"Int8x3", 8, 3, []float64{1, -2, 127},
		hx("02 06 06 06 06 06 06 05")},
}

func codecFor(w int) codec {
	for _, c := range codecs {
		if c.w == w {
			return c
		}
	}
	panic("no codec")
}

func TestReferenceMatchesWorkedExamples(t *testing.T) {
	for _, v := range vectors {
		words := v.words()
		rows := len(words) / v.dim
		if len(v.want) != Size(rows, v.dim, v.w) {
			t.Fatalf("%s: vector has %d bytes, Size says %d", v.name, len(v.want), Size(rows, v.dim, v.w))
		}
		got := make([]byte, len(v.want))
		refTranspose(got, words, v.dim, v.w)
		if !bytes.Equal(got, v.want) {
			t.Errorf("%s: ref\n got %x\nwant %x", v.name, got, v.want)
		}
		back := refDetranspose(v.want, rows, v.dim, v.w)
		for i := range back {
			if back[i] != words[i] {
				t.Errorf("%s: ref decode element %d = %#x, want %#x", v.name, i, back[i], words[i])
			}
		}
	}
}

func TestFastMatchesWorkedExamples(t *testing.T) {
	for _, v := range vectors {
		c := codecFor(v.w)
		words := v.words()
		rows := len(words) / v.dim
		got := bytes.Repeat([]byte{0xAA}, len(v.want))
		c.enc(got, words, v.dim)
		if !bytes.Equal(got, v.want) {
			t.Errorf("%s: %s encode\n got %x\nwant %x", v.name, c.name, got, v.want)
		}
		back := c.dec(v.want, rows, v.dim)
		for i := range back {
			if back[i] != words[i] {
				t.Errorf("%s: %s decode element %d = %#x, want %#x", v.name, c.name, i, back[i], words[i])
			}
		}
	}
}

// 03368_qbit_subcolumns: QBit(Float32, 8) rows [2,0..0] and [-0,0..0]:
// bin(vec.2) of the first is 00000001 and bin(vec.1) of the second 00000001.
func TestSubcolumnBits03368(t *testing.T) {
	v := make([]float32, 16)
	v[0] = 2
	v[8] = float32(negZero)
	body := make([]byte, Size(2, 8, 32))
	TransposeFloat32(body, v, 8)
	if got := body[1*2+0]; got != 0b00000001 {
		t.Errorf("vec.2 row 0 = %08b", got)
	}
	if got := body[0*2+1]; got != 0b00000001 {
		t.Errorf("vec.1 row 1 = %08b", got)
	}
}
