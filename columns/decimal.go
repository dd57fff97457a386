package columns

import (
	"database/sql/driver"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
)

// Decimal is an exact decimal number: Unscaled × 10^-Scale. It is what Decimal columns return from
// Value and accept in AppendValue (as do strings such as "-12.3400", integers and floats, rounded
// half away from zero to the column's scale).
type Decimal struct {
	Unscaled *big.Int
	Scale    int
}

// String formats d exactly, with Scale digits after the point.
func (d Decimal) String() string {
	if d.Unscaled == nil {
		return "0"
	}
	s := new(big.Int).Abs(d.Unscaled).String()
	neg := d.Unscaled.Sign() < 0
	if d.Scale < 0 && d.Unscaled.Sign() != 0 {
		s += strings.Repeat("0", -d.Scale)
	}
	if d.Scale > 0 {
		if len(s) <= d.Scale {
			s = strings.Repeat("0", d.Scale-len(s)+1) + s
		}
		s = s[:len(s)-d.Scale] + "." + s[len(s)-d.Scale:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// rat returns d as an exact rational (a nil Unscaled is zero; a negative Scale multiplies).
func (d Decimal) rat() *big.Rat {
	if d.Unscaled == nil {
		return new(big.Rat)
	}
	if d.Scale < 0 {
		return new(big.Rat).SetInt(new(big.Int).Mul(d.Unscaled, pow10(-d.Scale)))
	}
	return new(big.Rat).SetFrac(d.Unscaled, pow10(d.Scale))
}

func pow10(n int) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil) }

// Float64 returns the nearest float64.
func (d Decimal) Float64() float64 {
	f, _ := strconv.ParseFloat(d.String(), 64)
	return f
}

// Value implements driver.Valuer: the exact text of d, as a string, which is how a Decimal
// argument is sent (so sql.Null[Decimal] and other drivers take it too).
func (d Decimal) Value() (driver.Value, error) { return d.String(), nil }

// Scan implements sql.Scanner: it stores a decimal string (what database/sql gets for a Decimal
// column, see SQLValue; its Scale is then the digits after the point), a Decimal, an integer or
// a float (its shortest exact decimal) into d.
func (d *Decimal) Scan(src any) error {
	switch v := src.(type) {
	case Decimal:
		u := new(big.Int)
		if v.Unscaled != nil {
			u.Set(v.Unscaled)
		}
		*d = Decimal{Unscaled: u, Scale: v.Scale}
		return nil
	case string:
		return d.scanText(v)
	case []byte:
		return d.scanText(string(v))
	case int64:
		*d = Decimal{Unscaled: big.NewInt(v)}
		return nil
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return &ScanError{Column: "Decimal", GoType: "*columns.Decimal", Reason: "not a finite number"}
		}
		return d.scanText(strconv.FormatFloat(v, 'f', -1, 64))
	case nil:
		return &ScanError{Column: "Decimal", GoType: "*columns.Decimal", Reason: "NULL"}
	}
	return &ScanError{Column: "Decimal", GoType: "*columns.Decimal", Reason: "cannot store a " + goTypeName(src)}
}

// scanText parses s keeping all its digits: the scale is the digits after the point (less a
// positive exponent).
func (d *Decimal) scanText(s string) error {
	t := strings.TrimSpace(s)
	mant, exp := t, 0
	if i := strings.IndexAny(t, "eE"); i >= 0 {
		e, err := strconv.Atoi(t[i+1:])
		if err != nil || e > maxDecimalExp || e < -maxDecimalExp {
			return &ScanError{Column: "Decimal", GoType: "*columns.Decimal", Reason: strconv.Quote(s) + " is not a decimal number"}
		}
		mant, exp = t[:i], e
	}
	scale := 0
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		scale = len(mant) - i - 1
	}
	scale = max(scale-exp, 0)
	v, err := ParseDecimal(t, scale)
	if err != nil {
		return &ScanError{Column: "Decimal", GoType: "*columns.Decimal", Reason: strconv.Quote(s) + " is not a decimal number"}
	}
	*d = v
	return nil
}

// sqlText is a Decimal as database/sql gets it: its exact value without trailing zeros after
// the point ("-1.5", "0"), as ClickHouse prints it by default and clickhouse-go hands it over.
func (d Decimal) sqlText() string {
	s := d.String()
	if strings.IndexByte(s, '.') < 0 {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// decimalSQLType: database/sql gets a Decimal column's values as strings (Decimal.sqlText) at the
// top level, which database/sql stores into strings, floats and the Scanners of decimal types
// (shopspring's decimal.Decimal, clickhouse-go's scan type, and Decimal); as elements of
// composites they stay Decimal.
func decimalSQLType(top bool) reflect.Type {
	if top {
		return reflect.TypeFor[string]()
	}
	return nil
}

// decimalScan stores d into a *big.Rat; other destinations get the SQL text.
func decimalScan(d Decimal, dest any) (bool, error) {
	if r, ok := dest.(*big.Rat); ok {
		r.Set(d.rat())
		return true, nil
	}
	return false, nil
}

// ParseDecimal parses an exact decimal such as "-12.345" or "1e-3" into a Decimal of the given scale;
// digits beyond the scale are rounded half away from zero.
func ParseDecimal(s string, scale int) (Decimal, error) {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		// Refuse exponents far outside any Decimal's range before big.Rat computes 10^exp.
		if e, err := strconv.Atoi(s[i+1:]); err != nil || e > maxDecimalExp || e < -maxDecimalExp {
			return Decimal{}, &TypeMismatchError{Column: "Decimal", GoType: "string", Reason: strconv.Quote(s) + " has an exponent out of range"}
		}
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok || strings.ContainsAny(s, "/") {
		return Decimal{}, &TypeMismatchError{Column: "Decimal", GoType: "string", Reason: strconv.Quote(s) + " is not a number"}
	}
	return decimalFromRat(r, scale), nil
}

func decimalFromRat(r *big.Rat, scale int) Decimal {
	num := new(big.Int).Mul(r.Num(), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil))
	q, m := new(big.Int).QuoRem(num, r.Denom(), new(big.Int))
	// Round half away from zero.
	if m.Sign() != 0 {
		m2 := new(big.Int).Mul(new(big.Int).Abs(m), big.NewInt(2))
		if m2.Cmp(r.Denom()) >= 0 {
			if num.Sign() < 0 {
				q.Sub(q, big.NewInt(1))
			} else {
				q.Add(q, big.NewInt(1))
			}
		}
	}
	return Decimal{Unscaled: q, Scale: scale}
}

// maxDecimalExp bounds the exponent ParseDecimal accepts ("1e5000" is refused).
const maxDecimalExp = 4096

// decimalSpec holds a Decimal column's precision and scale and converts Go values to its unscaled
// integers.
type decimalSpec struct {
	precision, scale int
}

func (d decimalSpec) typeName() string {
	return "Decimal(" + strconv.Itoa(d.precision) + ", " + strconv.Itoa(d.scale) + ")"
}

// unscaled converts v to the unscaled integer at the column's scale, checking the precision.
func (d decimalSpec) unscaled(col Column, v any) (*big.Int, error) {
	x, isNil, err := deref(v)
	if err != nil {
		return nil, err
	}
	if isNil {
		return nil, mismatch(col, nil, "NULL in a non-Nullable column")
	}
	var dec Decimal
	switch t := x.(type) {
	case Decimal:
		dec = decimalFromRat(t.rat(), d.scale)
	case string:
		dec, err = ParseDecimal(t, d.scale)
		if err != nil {
			return nil, mismatch(col, v, textReason(v, t, "a number"))
		}
	case big.Int: // deref has followed the *big.Int
		dec = decimalFromRat(new(big.Rat).SetInt(&t), d.scale)
	case big.Rat:
		dec = decimalFromRat(&t, d.scale)
	default:
		i, u, f, kind := numOf(x)
		switch kind {
		case 'i':
			dec = decimalFromRat(new(big.Rat).SetInt64(i), d.scale)
		case 'u':
			dec = decimalFromRat(new(big.Rat).SetUint64(u), d.scale)
		case 'f':
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, mismatch(col, v, "not a finite number")
			}
			dec, _ = ParseDecimal(strconv.FormatFloat(f, 'f', -1, 64), d.scale)
		default:
			return nil, mismatch(col, v, "")
		}
	}
	limit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.precision)), nil)
	if new(big.Int).Abs(dec.Unscaled).Cmp(limit) >= 0 {
		return nil, mismatch(col, v, "exceeds the precision "+strconv.Itoa(d.precision))
	}
	return dec.Unscaled, nil
}

// Decimal32 is a column of Decimal(P, S) with P <= 9: unscaled values as Int32 (Values()).
type Decimal32 struct {
	Fixed[int32]
	decimalSpec
}

// Decimal64 is a column of Decimal(P, S) with 10 <= P <= 18: unscaled values as Int64 (Values()).
type Decimal64 struct {
	Fixed[int64]
	decimalSpec
}

// NewDecimal returns an empty column of Decimal(precision, scale) of the width precision needs.
func NewDecimal(precision, scale int) (Column, error) {
	if precision < 1 || precision > 76 || scale < 0 || scale > precision {
		return nil, &TypeMismatchError{Column: decimalSpec{precision, scale}.typeName(), GoType: "type", Reason: "precision must be 1..76 and scale 0..precision"}
	}
	spec := decimalSpec{precision, scale}
	switch {
	case precision <= 9:
		return &Decimal32{Fixed[int32]{name: spec.typeName()}, spec}, nil
	case precision <= 18:
		return &Decimal64{Fixed[int64]{name: spec.typeName()}, spec}, nil
	case precision <= 38:
		return &Decimal128{Wide[Int128]{name: spec.typeName()}, spec}, nil
	default:
		return &Decimal256{Wide[Int256]{name: spec.typeName()}, spec}, nil
	}
}

// Scale returns S.
func (c *Decimal32) Scale() int { return c.scale }

// Value returns row i as a Decimal.
func (c *Decimal32) Value(i int) any {
	return Decimal{Unscaled: big.NewInt(int64(c.data[i])), Scale: c.scale}
}

// ScanType returns Decimal.
func (c *Decimal32) ScanType() reflect.Type { return reflect.TypeFor[Decimal]() }

// AppendValue appends a Decimal, a decimal string, an integer or a float.
func (c *Decimal32) AppendValue(v any) error {
	if u, ok := c.plain(v); ok {
		c.data = append(c.data, int32(u[0]))
		return nil
	}
	u, err := c.unscaled(c, v)
	if err != nil {
		return err
	}
	c.data = append(c.data, int32(u.Int64()))
	return nil
}

func (c *Decimal32) sliceValue(lo, hi int) any { return genericSlice(c, lo, hi) }

func (c *Decimal32) sqlType(top bool) reflect.Type { return decimalSQLType(top) }

func (c *Decimal32) sqlValue(i int, _ bool) any { return c.Value(i).(Decimal).sqlText() }

func (c *Decimal32) scanValue(i int, dest any) (bool, error) {
	return decimalScan(c.Value(i).(Decimal), dest)
}

// Scale returns S.
func (c *Decimal64) Scale() int { return c.scale }

// Value returns row i as a Decimal.
func (c *Decimal64) Value(i int) any { return Decimal{Unscaled: big.NewInt(c.data[i]), Scale: c.scale} }

// ScanType returns Decimal.
func (c *Decimal64) ScanType() reflect.Type { return reflect.TypeFor[Decimal]() }

// AppendValue appends a Decimal, a decimal string, an integer or a float.
func (c *Decimal64) AppendValue(v any) error {
	if u, ok := c.plain(v); ok {
		c.data = append(c.data, int64(u[0]))
		return nil
	}
	u, err := c.unscaled(c, v)
	if err != nil {
		return err
	}
	c.data = append(c.data, u.Int64())
	return nil
}

func (c *Decimal64) sliceValue(lo, hi int) any { return genericSlice(c, lo, hi) }

func (c *Decimal64) sqlType(top bool) reflect.Type { return decimalSQLType(top) }

func (c *Decimal64) sqlValue(i int, _ bool) any { return c.Value(i).(Decimal).sqlText() }

func (c *Decimal64) scanValue(i int, dest any) (bool, error) {
	return decimalScan(c.Value(i).(Decimal), dest)
}

// Decimal128 is a column of Decimal(P, S) with 19 <= P <= 38: unscaled values as Int128.
type Decimal128 struct {
	Wide[Int128]
	decimalSpec
}

// Scale returns S.
func (c *Decimal128) Scale() int { return c.scale }

// Value returns row i as a Decimal.
func (c *Decimal128) Value(i int) any { return Decimal{Unscaled: c.data[i].Big(), Scale: c.scale} }

// ScanType returns Decimal.
func (c *Decimal128) ScanType() reflect.Type { return reflect.TypeFor[Decimal]() }

// AppendValue appends a Decimal, a decimal string, an integer or a float.
func (c *Decimal128) AppendValue(v any) error {
	if u, ok := c.plain(v); ok {
		c.data = append(c.data, Int128{Lo: u[0], Hi: u[1]})
		return nil
	}
	u, err := c.unscaled(c, v)
	if err != nil {
		return err
	}
	x, _ := Int128FromBig(u)
	c.data = append(c.data, x)
	return nil
}

func (c *Decimal128) sliceValue(lo, hi int) any { return genericSlice(c, lo, hi) }

func (c *Decimal128) sqlType(top bool) reflect.Type { return decimalSQLType(top) }

// sqlScanType overrides Wide's: a Decimal's scan type is its SQL text's, string.
func (c *Decimal128) sqlScanType() reflect.Type { return reflect.TypeFor[string]() }

func (c *Decimal128) sqlValue(i int, _ bool) any { return c.Value(i).(Decimal).sqlText() }

func (c *Decimal128) scanValue(i int, dest any) (bool, error) {
	return decimalScan(c.Value(i).(Decimal), dest)
}

// Decimal256 is a column of Decimal(P, S) with 39 <= P <= 76: unscaled values as Int256.
type Decimal256 struct {
	Wide[Int256]
	decimalSpec
}

// Scale returns S.
func (c *Decimal256) Scale() int { return c.scale }

// Value returns row i as a Decimal.
func (c *Decimal256) Value(i int) any { return Decimal{Unscaled: c.data[i].Big(), Scale: c.scale} }

// ScanType returns Decimal.
func (c *Decimal256) ScanType() reflect.Type { return reflect.TypeFor[Decimal]() }

// AppendValue appends a Decimal, a decimal string, an integer or a float.
func (c *Decimal256) AppendValue(v any) error {
	if u, ok := c.plain(v); ok {
		c.data = append(c.data, Int256(u))
		return nil
	}
	u, err := c.unscaled(c, v)
	if err != nil {
		return err
	}
	x, _ := Int256FromBig(u)
	c.data = append(c.data, x)
	return nil
}

func (c *Decimal256) sliceValue(lo, hi int) any { return genericSlice(c, lo, hi) }

func (c *Decimal256) sqlType(top bool) reflect.Type { return decimalSQLType(top) }

// sqlScanType overrides Wide's: a Decimal's scan type is its SQL text's, string.
func (c *Decimal256) sqlScanType() reflect.Type { return reflect.TypeFor[string]() }

func (c *Decimal256) sqlValue(i int, _ bool) any { return c.Value(i).(Decimal).sqlText() }

func (c *Decimal256) scanValue(i int, dest any) (bool, error) {
	return decimalScan(c.Value(i).(Decimal), dest)
}
