package columns

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// plainAgrees checks the plain-text path against the big.Rat one for s at precision p and scale
// sc: where plain takes s it must give big.Rat's value; where s is plain decimal text (strict),
// plain must take it exactly when big.Rat's path accepts it (within the precision).
func plainAgrees(t *testing.T, s string, p, sc int, strict bool) {
	t.Helper()
	d := decimalSpec{precision: p, scale: sc}
	col, _ := NewDecimal(p, sc)
	slow, err := d.unscaled(col, s)
	fast, ok := d.plain(s)
	switch {
	case ok && err != nil:
		t.Fatalf("%q at Decimal(%d, %d): plain took it as %v, big.Rat refused it: %v", s, p, sc, wordsToBig(fast[:], true), err)
	case ok && wordsToBig(fast[:], true).Cmp(slow) != 0:
		t.Fatalf("%q at Decimal(%d, %d): plain %v, big.Rat %v", s, p, sc, wordsToBig(fast[:], true), slow)
	case strict && !ok && err == nil:
		t.Fatalf("%q at Decimal(%d, %d): plain refused it, big.Rat gave %v", s, p, sc, slow)
	}
}

// TestPlainDecimalMatchesRat: plain decimal text, random and at the edges (rounding at the
// scale, the precision's limit, 256 bits, signs, leading zeros), gives big.Rat's value, and is
// refused exactly where big.Rat's path refuses it.
func TestPlainDecimalMatchesRat(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 6))
	digits := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteByte(byte('0' + r.IntN(10)))
		}
		return b.String()
	}
	edges := []string{"0", "-0", "+0", "0.0", "1", "-1", "0.5", "-0.5", "0.4999", "0.05", "-0.05", "0.0049",
		"0.005", "-0.005", "9.995", "-9.995", "99.99", "999999999", "-999999999", "999999999.5", "1000000000",
		"00012.3400", "+7.25", "123456789012345678901234567890.123456789", strings.Repeat("9", 76),
		"-" + strings.Repeat("9", 76), strings.Repeat("9", 77), "1" + strings.Repeat("0", 80),
		"0." + strings.Repeat("9", 90), "-0." + strings.Repeat("0", 76) + "5", "18446744073709551615",
		"18446744073709551616", "-9223372036854775808", "9223372036854775807.5"}
	for _, p := range []int{1, 2, 9, 10, 18, 19, 38, 39, 76} {
		for _, sc := range []int{0, 1, 2, p / 2, p} {
			if sc > p {
				continue
			}
			for _, s := range edges {
				plainAgrees(t, s, p, sc, true)
			}
			for range 300 {
				s := digits(1 + r.IntN(p+3))
				if r.IntN(3) > 0 {
					s += "." + digits(1+r.IntN(sc+3))
				}
				if r.IntN(2) == 0 {
					s = "-" + s
				}
				plainAgrees(t, s, p, sc, true)
			}
		}
	}
	// Not plain: big.Rat's path decides (plain must not take them).
	for _, s := range []string{"", "-", "+", ".", ".5", "5.", "1e3", "1E-2", " 1", "1 ", "1.2.3", "--1", "0x10", "1/2", "1_000", "١"} {
		if _, ok := (decimalSpec{precision: 18, scale: 4}).plain(s); ok {
			t.Errorf("plain took %q", s)
		}
	}
}

// valuerText is a Valuer of decimal text, as shopspring's decimal.Decimal is.
type valuerText string

func (v valuerText) Value() (any, error) { return string(v), nil }

// TestPlainDecimalAppend: each width appends plain text, and a Valuer of it, to the value big.Rat
// gives; text beyond the precision is refused with the precision named.
func TestPlainDecimalAppend(t *testing.T) {
	for _, typ := range []string{"Decimal(9, 2)", "Decimal(18, 4)", "Decimal(38, 10)", "Decimal(76, 20)"} {
		c, err := New(typ)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []any{"-1234.565", valuerText("1234.5650001"), "0.001"} {
			if err := c.AppendValue(v); err != nil {
				t.Fatalf("%s: %v: %v", typ, v, err)
			}
		}
		got := []string{}
		for i := range c.Rows() {
			got = append(got, c.Value(i).(Decimal).String())
		}
		want := map[string]string{
			"Decimal(9, 2)":   "[-1234.57 1234.57 0.00]",
			"Decimal(18, 4)":  "[-1234.5650 1234.5650 0.0010]",
			"Decimal(38, 10)": "[-1234.5650000000 1234.5650001000 0.0010000000]",
			"Decimal(76, 20)": "[-1234.56500000000000000000 1234.56500010000000000000 0.00100000000000000000]",
		}[typ]
		if s := "[" + strings.Join(got, " ") + "]"; s != want {
			t.Errorf("%s: %s, want %s", typ, s, want)
		}
		if err := c.AppendValue("1" + strings.Repeat("0", 80)); err == nil || !strings.Contains(err.Error(), "precision") {
			t.Errorf("%s: 10^80: %v", typ, err)
		}
	}
}

// FuzzPlainDecimal: on any text, what the plain path takes it takes at big.Rat's value.
func FuzzPlainDecimal(f *testing.F) {
	for _, s := range []string{"1.5", "-0.005", "99999999999999999999.99", "1e3", ".5", "+0", "00.10"} {
		f.Add(s, uint8(18), uint8(4))
	}
	f.Fuzz(func(t *testing.T, s string, p, sc uint8) {
		prec := 1 + int(p)%76
		plainAgrees(t, s, prec, int(sc)%(prec+1), false)
	})
}

// TestPlainDecimalNoAllocs: appending decimal text to a Decimal column of any width allocates
// nothing, a Valuer of it only the text its Value boxes (big.Rat's path allocates about twenty
// times a value).
func TestPlainDecimalNoAllocs(t *testing.T) {
	for _, typ := range []string{"Decimal(9, 2)", "Decimal(18, 4)", "Decimal(38, 10)", "Decimal(76, 20)"} {
		c, err := New(typ)
		if err != nil {
			t.Fatal(err)
		}
		for want, v := range []any{"-1234.5678", any(valuerText("1234.5678"))} {
			for range 100 {
				_ = c.AppendValue(v)
			}
			c.Reset() // keeps the capacity
			if n := testing.AllocsPerRun(50, func() {
				if err := c.AppendValue(v); err != nil {
					t.Fatal(err)
				}
			}); n > float64(want) {
				t.Errorf("%s: %T: %v allocations a value", typ, v, n)
			}
			c.Reset()
		}
	}
}

// coefDecimal is shopspring's decimal.Decimal in miniature: c x 10^e, with Coefficient and
// Exponent, and its text as Value (the exact path's input).
type coefDecimal struct {
	c *big.Int
	e int32
}

func (d coefDecimal) Coefficient() *big.Int { return new(big.Int).Set(d.c) }
func (d coefDecimal) Exponent() int32       { return d.e }
func (d coefDecimal) Value() (any, error) {
	s := new(big.Int).Abs(d.c).String()
	if d.e >= 0 {
		s += strings.Repeat("0", int(d.e))
	} else {
		if n := int(-d.e); len(s) <= n {
			s = strings.Repeat("0", n-len(s)+1) + s
		}
		s = s[:len(s)+int(d.e)] + "." + s[len(s)+int(d.e):]
	}
	if d.c.Sign() < 0 {
		s = "-" + s
	}
	return s, nil
}

// TestCoefExpDecimalMatchesRat: a shopspring-like decimal (coefficient and exponent) appends to
// the value its text gives through big.Rat, and is refused exactly where that text is, at random
// and at the edges (rounding at the scale, 10^precision, exponents far either way).
func TestCoefExpDecimalMatchesRat(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 7))
	check := func(c *big.Int, e int32, p, sc int) {
		t.Helper()
		v := coefDecimal{c, e}
		d := decimalSpec{precision: p, scale: sc}
		col, _ := NewDecimal(p, sc)
		slow, err := d.unscaled(col, v)
		fast, ok := d.plain(v)
		text, _ := v.Value()
		switch {
		case ok && err != nil:
			t.Fatalf("%s at Decimal(%d, %d): fast %v, exact path refused: %v", text, p, sc, wordsToBig(fast[:], true), err)
		case ok && wordsToBig(fast[:], true).Cmp(slow) != 0:
			t.Fatalf("%s at Decimal(%d, %d): fast %v, exact %v", text, p, sc, wordsToBig(fast[:], true), slow)
		case !ok && err == nil && c.BitLen() <= 64 && int(e)+sc >= -19 && int(e)+sc <= 76:
			t.Fatalf("%s at Decimal(%d, %d): fast refused it, exact gave %v", text, p, sc, slow)
		}
	}
	for _, p := range []int{1, 9, 18, 19, 38, 76} {
		for _, sc := range []int{0, 2, p / 2, p} {
			if sc > p {
				continue
			}
			for _, c := range []int64{0, 1, -1, 5, -5, 15, -15, 25, 4999, 5000, -5000, 9999, math.MaxInt64, math.MinInt64 + 1} {
				for _, e := range []int32{-80, -25, -20, -19, -18, -5, -3, -2, -1, 0, 1, 2, 30, 80} {
					check(big.NewInt(c), e, p, sc)
				}
			}
			for range 300 {
				c := new(big.Int)
				for range 1 + r.IntN(5) {
					c.Lsh(c, 64).Or(c, new(big.Int).SetUint64(r.Uint64()>>r.IntN(64)))
				}
				if r.IntN(2) == 0 {
					c.Neg(c)
				}
				check(c, int32(r.IntN(60)-40), p, sc)
			}
		}
	}
}
