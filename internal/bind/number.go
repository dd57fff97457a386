package bind

import (
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/sqltext"
)

func boolOf(v any) (bool, bool) {
	rv := reflect.ValueOf(v)
	switch {
	case rv.Kind() == reflect.Bool:
		return rv.Bool(), true
	case rv.CanInt() && (rv.Int() == 0 || rv.Int() == 1):
		return rv.Int() == 1, true
	case rv.CanUint() && rv.Uint() <= 1:
		return rv.Uint() == 1, true
	}
	return false, false
}

func intOf(v any) (int64, bool) {
	rv := reflect.ValueOf(v)
	switch {
	case rv.CanInt():
		return rv.Int(), true
	case rv.CanUint() && rv.Uint() <= math.MaxInt64:
		return int64(rv.Uint()), true
	}
	return 0, false
}

// writeNumber appends a number; a string is taken as the number's text and must look like one
// (so that it cannot add elements or close a composite).
func writeNumber(b *strings.Builder, v any) error {
	switch x := v.(type) {
	case columns.Decimal:
		b.WriteString(x.String())
		return nil
	case *big.Int:
		b.WriteString(x.String())
		return nil
	case big.Int:
		b.WriteString(x.String())
		return nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Bool:
		if rv.Bool() {
			b.WriteByte('1')
		} else {
			b.WriteByte('0')
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b.WriteString(strconv.FormatInt(rv.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		b.WriteString(strconv.FormatUint(rv.Uint(), 10))
	case reflect.Float32:
		b.WriteString(floatText(rv.Float(), 32))
	case reflect.Float64:
		b.WriteString(floatText(rv.Float(), 64))
	case reflect.String, reflect.Slice:
		s, err := textOf(v, "")
		if err != nil {
			return err
		}
		if s == "" || strings.ContainsFunc(s, func(r rune) bool {
			return !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '.' || r == '-' || r == '+' || r == '_')
		}) {
			return fmt.Errorf("%q is not a number", s)
		}
		b.WriteString(s)
	default:
		return fmt.Errorf("cannot write %T as a number", v)
	}
	return nil
}

// formatFloat writes f as a Float64 literal: always with a point or an exponent, since the
// server reads "3" or "-0" as integers (UInt8 3, Int8 0: the sign of -0 would be lost). Subnormal
// numbers, which the server's parser rejects, are written as an exact product of two normal ones.
func formatFloat(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case f != 0 && math.Abs(f) < 0x1p-1022:
		// f·2^100 is normal and both factors are exact, so is their product.
		return "(" + formatFloat(f*0x1p100, 64) + " * " + formatFloat(0x1p-100, 64) + ")"
	}
	s := strconv.FormatFloat(f, 'g', -1, bits)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

// floatText writes f in the text format of Float32 and Float64 values.
func floatText(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'g', -1, bits)
}

// formatDecimal writes d as a Decimal value of its scale: a plain "1.50" would be a Float64, which
// loses digits and cannot be compared with Decimal columns.
func formatDecimal(d columns.Decimal) (string, error) {
	s := d.String()
	scale := max(d.Scale, 0)
	digits := len(strings.TrimPrefix(s, "-"))
	if scale > 0 {
		digits--
	}
	switch {
	case digits <= 38 && scale <= 38:
		return "toDecimal128(" + sqltext.QuoteLiteral(s) + ", " + strconv.Itoa(scale) + ")", nil
	case digits <= 76 && scale <= 76:
		return "toDecimal256(" + sqltext.QuoteLiteral(s) + ", " + strconv.Itoa(scale) + ")", nil
	}
	return "", fmt.Errorf("decimal %s has more than 76 digits", s)
}

// formatBigInt writes x as the narrowest of Int128, UInt128, Int256 and UInt256 that holds it,
// as clickhouse-go does: a *big.Int argument stands for a wide-integer column, so toTypeName(?)
// and comparisons see a wide integer even for small values (a bare literal would be UInt8, and
// one over 64 bits a Float64 that loses digits).
func formatBigInt(x *big.Int) (string, error) {
	n := x.BitLen()
	if x.Sign() < 0 && new(big.Int).Neg(x).TrailingZeroBits() == uint(n-1) {
		n-- // -2^k needs k bits, as 2^k-1 does
	}
	fn := ""
	switch {
	case n <= 127:
		fn = "toInt128"
	case x.Sign() > 0 && n <= 128:
		fn = "toUInt128"
	case n <= 255:
		fn = "toInt256"
	case x.Sign() > 0 && n <= 256:
		fn = "toUInt256"
	default:
		return "", fmt.Errorf("integer %s does not fit in 256 bits", x)
	}
	return fn + "(" + sqltext.QuoteLiteral(x.String()) + ")", nil
}

// narrowBigInt gives servers without wide integers (before revWideIntegers) a big integer that
// fits 64 bits, alone or in a slice of them, as an int64 or uint64, bound as a bare literal as
// before; any other value is returned as it is.
func narrowBigInt(v any) any {
	switch x := v.(type) {
	case *big.Int:
		switch {
		case x == nil:
		case x.IsInt64():
			return x.Int64()
		case x.IsUint64():
			return x.Uint64()
		}
		return v
	case big.Int:
		return narrowBigInt(&x)
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice || rv.Type().Elem() != reflect.TypeFor[*big.Int]() && rv.Type().Elem() != reflect.TypeFor[big.Int]() {
		return v
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = narrowBigInt(rv.Index(i).Interface())
	}
	return out
}
