package columns

import (
	"math/big"
	"reflect"
)

// Int128 is a 128-bit two's complement integer as on the wire: low 64 bits first.
type Int128 struct{ Lo, Hi uint64 }

// UInt128 is an unsigned 128-bit integer: low 64 bits first.
type UInt128 struct{ Lo, Hi uint64 }

// Int256 is a 256-bit two's complement integer: four 64-bit words, least significant first.
type Int256 [4]uint64

// UInt256 is an unsigned 256-bit integer: four 64-bit words, least significant first.
type UInt256 [4]uint64

// WideNum is the set of fixed-size big integer types.
type WideNum interface {
	Int128 | UInt128 | Int256 | UInt256
}

func wordsToBig(w []uint64, signed bool) *big.Int {
	b := make([]byte, len(w)*8)
	for i, x := range w {
		for k := 0; k < 8; k++ {
			b[len(b)-1-(i*8+k)] = byte(x >> (8 * k))
		}
	}
	v := new(big.Int).SetBytes(b)
	if signed && w[len(w)-1]>>63 == 1 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(len(w)*64)))
	}
	return v
}

// bigToWords converts v to n little-endian words, reporting whether it fits.
func bigToWords(v *big.Int, n int, signed bool) ([]uint64, bool) {
	bits := n * 64
	lim := new(big.Int).Lsh(big.NewInt(1), uint(bits))
	x := new(big.Int).Set(v)
	if signed {
		half := new(big.Int).Rsh(lim, 1)
		if x.Cmp(half) >= 0 || x.Cmp(new(big.Int).Neg(half)) < 0 {
			return nil, false
		}
		if x.Sign() < 0 {
			x.Add(x, lim)
		}
	} else if x.Sign() < 0 || x.Cmp(lim) >= 0 {
		return nil, false
	}
	w := make([]uint64, n)
	b := x.FillBytes(make([]byte, n*8))
	for i := range w {
		for k := 0; k < 8; k++ {
			w[i] |= uint64(b[len(b)-1-(i*8+k)]) << (8 * k)
		}
	}
	return w, true
}

// Big returns x as a big.Int.
func (x Int128) Big() *big.Int { return wordsToBig([]uint64{x.Lo, x.Hi}, true) }

// Big returns x as a big.Int.
func (x UInt128) Big() *big.Int { return wordsToBig([]uint64{x.Lo, x.Hi}, false) }

// Big returns x as a big.Int.
func (x Int256) Big() *big.Int { return wordsToBig(x[:], true) }

// Big returns x as a big.Int.
func (x UInt256) Big() *big.Int { return wordsToBig(x[:], false) }

// String formats x in decimal.
func (x Int128) String() string { return x.Big().String() }

// String formats x in decimal.
func (x UInt128) String() string { return x.Big().String() }

// String formats x in decimal.
func (x Int256) String() string { return x.Big().String() }

// String formats x in decimal.
func (x UInt256) String() string { return x.Big().String() }

// Int128FromBig converts v, reporting whether it fits.
func Int128FromBig(v *big.Int) (Int128, bool) {
	w, ok := bigToWords(v, 2, true)
	if !ok {
		return Int128{}, false
	}
	return Int128{w[0], w[1]}, true
}

// UInt128FromBig converts v, reporting whether it fits.
func UInt128FromBig(v *big.Int) (UInt128, bool) {
	w, ok := bigToWords(v, 2, false)
	if !ok {
		return UInt128{}, false
	}
	return UInt128{w[0], w[1]}, true
}

// Int256FromBig converts v, reporting whether it fits.
func Int256FromBig(v *big.Int) (Int256, bool) {
	w, ok := bigToWords(v, 4, true)
	if !ok {
		return Int256{}, false
	}
	return Int256(w), true
}

// UInt256FromBig converts v, reporting whether it fits.
func UInt256FromBig(v *big.Int) (UInt256, bool) {
	w, ok := bigToWords(v, 4, false)
	if !ok {
		return UInt256{}, false
	}
	return UInt256(w), true
}

// Wide is a column of 128- or 256-bit integers (Int128, UInt128, Int256, UInt256) stored in their
// wire layout. Value returns *big.Int; Values returns the fixed-size words (borrowed).
type Wide[T WideNum] struct {
	name string
	data []T
}

// NewWide returns an empty column named typeName.
func NewWide[T WideNum](typeName string) *Wide[T] { return &Wide[T]{name: typeName} }

// Type returns the ClickHouse type name.
func (c *Wide[T]) Type() string { return c.name }

// Rows returns the number of values.
func (c *Wide[T]) Rows() int { return len(c.data) }

// Values returns the values (borrowed).
func (c *Wide[T]) Values() []T { return c.data }

// Append appends v.
func (c *Wide[T]) Append(v T) { c.data = append(c.data, v) }

// Value returns row i as *big.Int.
func (c *Wide[T]) Value(i int) any {
	switch x := any(c.data[i]).(type) {
	case Int128:
		return x.Big()
	case UInt128:
		return x.Big()
	case Int256:
		return x.Big()
	case UInt256:
		return x.Big()
	}
	return nil
}

// ScanType returns *big.Int.
func (c *Wide[T]) ScanType() reflect.Type { return reflect.TypeFor[*big.Int]() }

// sqlType: database/sql gets a big.Int at the top level, as from clickhouse-go (database/sql
// stores it into *big.Int and **big.Int, which a *big.Int would not reach), and Value's *big.Int
// as an element (clickhouse-go's []*big.Int).
func (c *Wide[T]) sqlType(top bool) reflect.Type {
	if top {
		return reflect.TypeFor[big.Int]()
	}
	return nil
}

func (c *Wide[T]) sqlValue(i int, top bool) any { return *c.Value(i).(*big.Int) }

// sqlScanType is *big.Int, as clickhouse-go names: database/sql stores the big.Int into a
// **big.Int too.
func (c *Wide[T]) sqlScanType() reflect.Type { return reflect.TypeFor[*big.Int]() }

// scanValue stores row i into *string and *[]byte (decimal text), and into any Go integer or
// float destination it fits (an integer exactly, a float to the nearest). (*big.Int and
// **big.Int take SQLValue's big.Int through database/sql.)
func (c *Wide[T]) scanValue(i int, dest any) (bool, error) {
	b := c.Value(i).(*big.Int)
	switch d := dest.(type) {
	case *string:
		*d = b.String()
		return true, nil
	case *[]byte:
		*d = b.Append(nil, 10)
		return true, nil
	}
	return scanBigInto(c, b, dest)
}

// scanBigInto stores b into a pointer to a Go integer (when it fits) or float.
func scanBigInto(col Column, b *big.Int, dest any) (bool, error) {
	dv := reflect.ValueOf(dest).Elem()
	switch dv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if !b.IsInt64() || dv.OverflowInt(b.Int64()) {
			return true, &ScanError{Column: col.Type(), GoType: dv.Type().String(), Reason: b.String() + " out of range"}
		}
		dv.SetInt(b.Int64())
		return true, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if !b.IsUint64() || dv.OverflowUint(b.Uint64()) {
			return true, &ScanError{Column: col.Type(), GoType: dv.Type().String(), Reason: b.String() + " out of range"}
		}
		dv.SetUint(b.Uint64())
		return true, nil
	case reflect.Float32, reflect.Float64:
		f, _ := new(big.Float).SetInt(b).Float64()
		dv.SetFloat(f)
		return true, nil
	}
	return false, nil
}

// AppendValue appends a T, a *big.Int (or big.Int), another of Int128/UInt128/Int256/UInt256, a
// decimal string or any Go integer that fits.
func (c *Wide[T]) AppendValue(v any) error {
	if x, ok := v.(T); ok {
		c.data = append(c.data, x)
		return nil
	}
	x, isNil, err := deref(v)
	if err != nil {
		return err
	}
	if isNil {
		return mismatch(c, nil, "NULL in a non-Nullable column")
	}
	if t, ok := x.(T); ok {
		c.data = append(c.data, t)
		return nil
	}
	var b *big.Int
	switch t := x.(type) {
	case *big.Int:
		b = t
	case big.Int:
		b = &t
	case Int128:
		b = t.Big()
	case UInt128:
		b = t.Big()
	case Int256:
		b = t.Big()
	case UInt256:
		b = t.Big()
	case string:
		var ok bool
		if b, ok = new(big.Int).SetString(t, 10); !ok {
			return mismatch(c, v, "not an integer")
		}
	default:
		i, u, _, kind := numOf(x)
		switch kind {
		case 'i':
			b = big.NewInt(i)
		case 'u':
			b = new(big.Int).SetUint64(u)
		default:
			return mismatch(c, v, "")
		}
	}
	return c.appendBig(v, b)
}

// AppendBig appends b, which must fit the column's type; on error nothing is appended.
func (c *Wide[T]) AppendBig(b *big.Int) error {
	if b == nil {
		return mismatch(c, b, "nil *big.Int")
	}
	return c.appendBig(b, b)
}

// appendBig appends b, naming v (the value as given) in an error.
func (c *Wide[T]) appendBig(v any, b *big.Int) error {
	var z T
	var ok bool
	switch any(z).(type) {
	case Int128:
		var y Int128
		y, ok = Int128FromBig(b)
		z = any(y).(T)
	case UInt128:
		var y UInt128
		y, ok = UInt128FromBig(b)
		z = any(y).(T)
	case Int256:
		var y Int256
		y, ok = Int256FromBig(b)
		z = any(y).(T)
	case UInt256:
		var y UInt256
		y, ok = UInt256FromBig(b)
		z = any(y).(T)
	}
	if !ok {
		return mismatch(c, v, "out of range")
	}
	c.data = append(c.data, z)
	return nil
}

// appendRaw appends every value of src, a column of the same type, without converting them.
func (c *Wide[T]) appendRaw(src Column) bool {
	s, ok := src.(interface{ Values() []T })
	if ok {
		c.data = append(c.data, s.Values()...)
	}
	return ok
}

// AppendDefault appends zero.
func (c *Wide[T]) AppendDefault() {
	var z T
	c.data = append(c.data, z)
}

// Truncate keeps the first n values.
func (c *Wide[T]) Truncate(n int) { c.data = c.data[:n] }

// Reset removes all values.
func (c *Wide[T]) Reset() { c.data = c.data[:0] }

// ReadPrefix reads nothing.
func (c *Wide[T]) ReadPrefix(*Reader) error { return nil }

// WritePrefix writes nothing.
func (c *Wide[T]) WritePrefix(*Writer) {}

// Read replaces the values with rows values from r.
func (c *Wide[T]) Read(r *Reader, rows int) error {
	var err error
	c.data, err = readFixed(r, c.data[:0], rows)
	if err != nil {
		c.data = c.data[:0]
		return decodeErr(c, "%v", err)
	}
	return nil
}

// Write appends the values.
func (c *Wide[T]) Write(w *Writer) { w.Buf = appendFixed(w.Buf, c.data) }

// WireBytes returns the bytes Write would append, as a view of the column's memory (valid until
// the column is next changed; built with the purego tag, a copy).
func (c *Wide[T]) WireBytes() []byte { return wireBytes(c.data) }

// elemSize is the bytes of one value in memory (rowBytes).
func (c *Wide[T]) elemSize() int { return int(reflect.TypeFor[T]().Size()) }
