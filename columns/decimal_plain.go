package columns

import (
	"math"
	"math/big"
	"math/bits"
	"reflect"

	"github.com/chnative/chnative/internal/valuer"
)

// Decimals appended without big.Rat: text such as "-1234.5678" (an optional sign, digits, an
// optional point with digits after it) is parsed digit by digit into the unscaled integer at
// the column's scale, in 256 bits, without the allocations and the division of
// big.Rat.SetString; shopspring's decimal.Decimal is read as its coefficient and exponent,
// without formatting it as text first. Anything else (exponents, spaces, ".5", a value beyond
// the precision) takes the exact big.Rat path, which gives the same value, rounded half away
// from zero past the scale, or the error.

// decWords is an unsigned 256-bit magnitude, least significant word first.
type decWords [4]uint64

// decPow10[n] is 10^n for every Decimal precision.
var decPow10 = func() (p [77]decWords) {
	p[0][0] = 1
	for n := 1; n < len(p); n++ {
		p[n] = p[n-1]
		p[n].mulAdd(10, 0)
	}
	return p
}()

// mulAdd sets w to w*m + a (m, a <= 10), reporting false when the result needs more than 256
// bits.
func (w *decWords) mulAdd(m, a uint64) bool {
	if w[1]|w[2]|w[3] == 0 && w[0] <= (math.MaxUint64-10)/10 { // one word: most values
		w[0] = w[0]*m + a
		return true
	}
	carry := a
	for i := range w {
		hi, lo := bits.Mul64(w[i], m)
		var c uint64
		w[i], c = bits.Add64(lo, carry, 0)
		carry = hi + c
	}
	return carry == 0
}

// less reports whether w < x.
func (w *decWords) less(x *decWords) bool {
	for i := len(w) - 1; i >= 0; i-- {
		if w[i] != x[i] {
			return w[i] < x[i]
		}
	}
	return false
}

// twos returns w, negated in two's complement when neg.
func (w decWords) twos(neg bool) decWords {
	if !neg {
		return w
	}
	var c uint64 = 1
	for i := range w {
		w[i], c = bits.Add64(^w[i], 0, c)
	}
	return w
}

// coefExp is a decimal as coefficient x 10^exponent: shopspring's decimal.Decimal, read without
// formatting it as text (its Value) and parsing that back.
type coefExp interface {
	Coefficient() *big.Int
	Exponent() int32
}

// fromCoefExp returns c x 10^exp at the column's scale (rounded half away from zero), in two's
// complement, when it is within the precision and the arithmetic stays in 64-bit words; ok is
// false otherwise, and the caller takes the exact path.
func (d decimalSpec) fromCoefExp(c *big.Int, exp int) (decWords, bool) {
	words := c.Bits()
	if bits.UintSize != 64 || len(words) > len(decWords{}) {
		return decWords{}, false
	}
	var mag decWords
	for i, w := range words {
		mag[i] = uint64(w)
	}
	if k := exp + d.scale; k >= 0 {
		for ; k > 0; k-- {
			if !mag.mulAdd(10, 0) {
				return decWords{}, false
			}
		}
	} else if mag[1]|mag[2]|mag[3] != 0 {
		return decWords{}, false
	} else if k < -19 {
		mag[0] = 0 // below half a unit: 2 x mag < 10^20
	} else {
		p := decPow10[-k][0]
		q, r := mag[0]/p, mag[0]%p
		if r >= p-r { // r >= p/2: half away from zero
			q++
		}
		mag[0] = q
	}
	if d.precision < 0 || d.precision >= len(decPow10) || !mag.less(&decPow10[d.precision]) {
		return decWords{}, false
	}
	return mag.twos(c.Sign() < 0), true
}

// plain returns v's unscaled value at the column's scale, in two's complement, when v is plain
// decimal text (a string, or a Valuer of one) or a coefExp (shopspring's decimal.Decimal) within
// the column's precision; ok is false for anything else.
func (d decimalSpec) plain(v any) (decWords, bool) {
	s, ok := v.(string)
	if !ok {
		if ce, isCE := v.(coefExp); isCE && reflect.TypeOf(v).Kind() != reflect.Pointer {
			return d.fromCoefExp(ce.Coefficient(), int(ce.Exponent()))
		}
		x, isValuer, isNil, err := valuer.Call(v)
		if !isValuer || isNil || err != nil {
			return decWords{}, false
		}
		if s, ok = x.(string); !ok {
			return decWords{}, false
		}
	}
	mag, neg, ok := parsePlainDecimal(s, d.scale)
	if !ok || d.precision < 0 || d.precision >= len(decPow10) || !mag.less(&decPow10[d.precision]) {
		return decWords{}, false
	}
	return mag.twos(neg), true
}

// parsePlainDecimal parses [+-]digits[.digits] into the magnitude of its value times 10^scale,
// rounded half away from zero, reporting false for other text and for magnitudes beyond 256
// bits.
func parsePlainDecimal(s string, scale int) (mag decWords, neg, ok bool) {
	i := 0
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		neg, i = s[0] == '-', 1
	}
	intDigits, fracDigits, kept := 0, 0, 0
	roundUp, point := false, false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.' && !point:
			point = true
			continue
		case c < '0' || c > '9':
			return mag, neg, false
		}
		if point {
			fracDigits++
			if kept == scale { // past the scale: the first such digit decides the rounding
				if fracDigits == scale+1 {
					roundUp = c >= '5'
				}
				continue
			}
			kept++
		} else {
			intDigits++
		}
		if !mag.mulAdd(10, uint64(c-'0')) {
			return mag, neg, false
		}
	}
	if intDigits == 0 || point && fracDigits == 0 {
		return mag, neg, false // ".5", "5.", "-": the big.Rat path decides
	}
	for ; kept < scale; kept++ {
		if !mag.mulAdd(10, 0) {
			return mag, neg, false
		}
	}
	if roundUp && !mag.mulAdd(1, 1) {
		return mag, neg, false
	}
	return mag, neg, true
}
