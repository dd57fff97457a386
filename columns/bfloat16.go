package columns

import (
	"math"
	"math/big"
	"reflect"
	"strconv"
)

// BFloat16 is a column of BFloat16: the top 16 bits of a float32 (sign, 8 exponent bits, 7 mantissa
// bits), two little-endian bytes per value. Values returns the raw bits (borrowed); Value widens them
// to float32 exactly.
type BFloat16 struct{ Fixed[uint16] }

// NewBFloat16 returns an empty BFloat16 column.
func NewBFloat16() *BFloat16 { return &BFloat16{Fixed[uint16]{name: "BFloat16"}} }

// BFloat16Bits rounds f to the nearest BFloat16, ties to even (as ch-go does; values past the
// largest BFloat16 round to ±Inf). A NaN stays a NaN of the same sign.
func BFloat16Bits(f float32) uint16 {
	b := math.Float32bits(f)
	if f != f {
		return uint16(b>>16) | 0x0040 // keep it a (quiet) NaN even when the dropped bits held the payload
	}
	b += 0x7fff + (b>>16)&1
	return uint16(b >> 16)
}

// BFloat16Float32 returns the float32 that BFloat16 bits b stand for (exact).
func BFloat16Float32(b uint16) float32 { return math.Float32frombits(uint32(b) << 16) }

// bfloat16FromFloat64 rounds f to the nearest BFloat16 without double rounding: f is first rounded
// to float32 with round-to-odd, which keeps enough information for the final ties-to-even step.
func bfloat16FromFloat64(f float64) uint16 {
	if f != f {
		return BFloat16Bits(float32(f))
	}
	f32 := float32(f)
	if float64(f32) != f {
		bits := math.Float32bits(f32)
		if math.Abs(float64(f32)) > math.Abs(f) {
			bits-- // truncate toward zero (sign-magnitude: one step down in magnitude)
		}
		f32 = math.Float32frombits(bits | 1) // inexact: make it odd
	}
	return BFloat16Bits(f32)
}

// Append appends f rounded to the nearest BFloat16 (ties to even).
func (c *BFloat16) Append(f float32) { c.data = append(c.data, BFloat16Bits(f)) }

// AppendBits appends raw BFloat16 bits.
func (c *BFloat16) AppendBits(b uint16) { c.data = append(c.data, b) }

// Row returns value i as a float32.
func (c *BFloat16) Row(i int) float32 { return BFloat16Float32(c.data[i]) }

// Value returns row i as a float32.
func (c *BFloat16) Value(i int) any { return BFloat16Float32(c.data[i]) }

// ScanType returns float32.
func (c *BFloat16) ScanType() reflect.Type { return reflect.TypeFor[float32]() }

func (c *BFloat16) sliceValue(lo, hi int) any {
	out := make([]float32, hi-lo)
	for j, b := range c.data[lo:hi] {
		out[j] = BFloat16Float32(b)
	}
	return out
}

// AppendValue appends any Go number or numeric string, rounded to the nearest BFloat16 (ties to
// even, integers and float64 without double rounding). A finite value that would round to ±Inf is an
// error; NaN and ±Inf are kept.
func (c *BFloat16) AppendValue(v any) error {
	if f, ok := v.(float32); ok {
		return c.appendChecked(v, bfloat16FromFloat64(float64(f)), float64(f))
	}
	x, isNil, err := deref(v)
	if err != nil {
		return err
	}
	if isNil {
		return mismatch(c, nil, "NULL in a non-Nullable column")
	}
	if s, ok := x.(string); ok {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return mismatch(c, v, textReason(v, s, "a number"))
		}
		return c.appendChecked(v, bfloat16FromFloat64(f), f)
	}
	i, u, f, kind := numOf(x)
	switch kind {
	case 'i', 'u':
		// Integers round once, exactly, to the 8 significant bits of a BFloat16.
		bf := new(big.Float).SetPrec(8).SetMode(big.ToNearestEven)
		if kind == 'i' {
			bf.SetInt64(i)
		} else {
			bf.SetUint64(u)
		}
		f32, _ := bf.Float32()
		c.data = append(c.data, uint16(math.Float32bits(f32)>>16))
		return nil
	case 'f':
		return c.appendChecked(v, bfloat16FromFloat64(f), f)
	}
	return mismatch(c, v, "")
}

func (c *BFloat16) appendChecked(v any, b uint16, f float64) error {
	if b&0x7fff == 0x7f80 && !math.IsInf(f, 0) {
		return mismatch(c, v, "out of range")
	}
	c.data = append(c.data, b)
	return nil
}
