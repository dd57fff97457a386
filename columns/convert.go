package columns

import (
	"encoding"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"time"
)

// deref unwraps database/sql Valuers (driver.Valuer, recognised as valuer.go says) and non-nil
// pointers. It reports isNil for nil, nil pointers and Valuers that return nil.
func deref(v any) (out any, isNil bool, err error) {
	for range 8 {
		if v == nil {
			return nil, true, nil
		}
		if x, ok, isNil, err := callValuer(v); ok {
			if isNil || err != nil {
				return nil, isNil, err
			}
			v = x
			continue
		}
		rv := reflect.ValueOf(v)
		if rv.Kind() == reflect.Pointer {
			if rv.IsNil() {
				return nil, true, nil
			}
			v = rv.Elem().Interface()
			continue
		}
		return v, false, nil
	}
	return v, false, nil
}

// derefWith is deref that can stop early: at each level (v, then what its Valuers and non-nil
// pointers lead to) it returns the level as it is when before accepts it, else calls its Value
// when it is a driver.Valuer, else returns it when after accepts it, else follows it when it is a
// pointer. Columns use it to take a value by an interface it implements, in the order
// clickhouse-go's columns check them (FixedString takes an encoding.BinaryMarshaler before a
// Valuer, String a fmt.Stringer after one): a method with a pointer receiver is only on the
// pointer, which deref follows past.
func derefWith(v any, before, after func(any) bool) (out any, isNil bool, err error) {
	for range 8 {
		if v == nil {
			return nil, true, nil
		}
		if before != nil && before(v) {
			return v, false, nil
		}
		if x, ok, isNil, err := callValuer(v); ok {
			if isNil || err != nil {
				return nil, isNil, err
			}
			v = x
			continue
		}
		if after != nil && after(v) {
			return v, false, nil
		}
		rv := reflect.ValueOf(v)
		if rv.Kind() != reflect.Pointer {
			return v, false, nil
		}
		if rv.IsNil() {
			return nil, true, nil
		}
		v = rv.Elem().Interface()
	}
	return v, false, nil
}

// innerArg returns what a wrapping column (Nullable, LowCardinality) passes to its inner column
// once deref has found v, which is not NULL, to be x: x, unless v's type has methods (a Valuer,
// a BinaryMarshaler, a Stringer, possibly with pointer receivers), which the inner column may
// take v by in its own order (FixedString's MarshalBinary before Value), so v as it was given.
func innerArg(v, x any) any {
	vb, vs, vt := convertMethods(v)
	if !vb && !vs && !vt {
		return x
	}
	if xb, xs, xt := convertMethods(x); vb && !xb || vs && !xs || vt && !xt {
		return v
	}
	return x // *time.Time: time.Time has those methods
}

// convertMethods reports which of the methods some column takes a value by v has: MarshalBinary,
// String, MarshalText.
func convertMethods(v any) (binary, stringer, text bool) {
	_, binary = v.(encoding.BinaryMarshaler)
	_, stringer = v.(fmt.Stringer)
	_, text = v.(encoding.TextMarshaler)
	return binary, stringer, text
}

// isBinaryMarshaler reports whether v implements encoding.BinaryMarshaler (a nil pointer does
// not count: it is NULL).
func isBinaryMarshaler(v any) bool {
	_, ok := v.(encoding.BinaryMarshaler)
	return ok && !isNilPointer(v)
}

// isTextual reports whether v has a text form by fmt.Stringer or encoding.TextMarshaler (a nil
// pointer does not count: it is NULL).
func isTextual(v any) bool {
	switch v.(type) {
	case fmt.Stringer, encoding.TextMarshaler:
		return !isNilPointer(v)
	}
	return false
}

// isTextualNotNumber is isTextual for a value that is not of a numeric or bool kind and not a
// time.Time (nor a pointer to one): the columns that take numbers keep taking a named number with
// a String method as its number.
func isTextualNotNumber(v any) bool {
	if !isTextual(v) {
		return false
	}
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeFor[time.Time]() {
		return false
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint,
		reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr, reflect.Float32, reflect.Float64:
		return false
	}
	return true
}

func isNilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

// textOf returns the text of a value isTextual accepts: its String(), else its MarshalText.
func textOf(v any) (string, bool, error) {
	switch x := v.(type) {
	case fmt.Stringer:
		return x.String(), true, nil
	case encoding.TextMarshaler:
		b, err := x.MarshalText()
		if err != nil {
			return "", false, err
		}
		return string(b), true, nil
	}
	return "", false, nil
}

// numKind classifies a Go value as a signed integer, unsigned integer or float.
func numOf(v any) (i int64, u uint64, f float64, kind byte) {
	switch x := v.(type) {
	case int:
		return int64(x), 0, 0, 'i'
	case int64:
		return x, 0, 0, 'i'
	case int32:
		return int64(x), 0, 0, 'i'
	case int16:
		return int64(x), 0, 0, 'i'
	case int8:
		return int64(x), 0, 0, 'i'
	case uint:
		return 0, uint64(x), 0, 'u'
	case uint64:
		return 0, x, 0, 'u'
	case uint32:
		return 0, uint64(x), 0, 'u'
	case uint16:
		return 0, uint64(x), 0, 'u'
	case uint8:
		return 0, uint64(x), 0, 'u'
	case float64:
		return 0, 0, x, 'f'
	case float32:
		return 0, 0, float64(x), 'f'
	case bool:
		if x {
			return 1, 0, 0, 'i'
		}
		return 0, 0, 0, 'i'
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), 0, 0, 'i'
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return 0, rv.Uint(), 0, 'u'
	case reflect.Float32, reflect.Float64:
		return 0, 0, rv.Float(), 'f'
	case reflect.Bool:
		if rv.Bool() {
			return 1, 0, 0, 'i'
		}
		return 0, 0, 0, 'i'
	}
	return 0, 0, 0, 0
}

// convertNum converts v to T, failing when v is not a number or does not fit T exactly.
func convertNum[T FixedNum](col Column, v any) (T, error) {
	var z T
	if x, ok := v.(T); ok {
		return x, nil
	}
	v, isNil, err := deref(v)
	if err != nil {
		return z, err
	}
	if isNil {
		return z, mismatch(col, nil, "NULL in a non-Nullable column")
	}
	if s, ok := v.(string); ok {
		return parseNum[T](col, s)
	}
	i, u, f, kind := numOf(v)
	if kind == 0 {
		return z, mismatch(col, v, "")
	}
	switch any(z).(type) {
	case float32, float64:
		switch kind {
		case 'i':
			return T(i), nil
		case 'u':
			return T(u), nil
		}
		if sizeOf[T]() == 4 && !math.IsNaN(f) && !math.IsInf(f, 0) && math.Abs(f) > math.MaxFloat32 {
			return z, mismatch(col, v, "out of range")
		}
		return T(f), nil
	}
	signed := T(0)-1 < 0
	bits := uint(sizeOf[T]()) * 8
	if kind == 'f' {
		if f != math.Trunc(f) || math.IsInf(f, 0) || math.IsNaN(f) {
			return z, mismatch(col, v, "not an integer")
		}
		if f < 0 {
			if f < -(1 << 63) {
				return z, mismatch(col, v, "out of range")
			}
			i, kind = int64(f), 'i'
		} else {
			if f >= 1<<64 {
				return z, mismatch(col, v, "out of range")
			}
			u, kind = uint64(f), 'u'
		}
	}
	if kind == 'i' {
		if signed {
			if bits < 64 && (i < -(1<<(bits-1)) || i >= 1<<(bits-1)) {
				return z, mismatch(col, v, "out of range")
			}
			return T(i), nil
		}
		if i < 0 || (bits < 64 && uint64(i) >= 1<<bits) {
			return z, mismatch(col, v, "out of range")
		}
		return T(i), nil
	}
	if signed {
		if u >= 1<<(bits-1) {
			return z, mismatch(col, v, "out of range")
		}
		return T(u), nil
	}
	if bits < 64 && u >= 1<<bits {
		return z, mismatch(col, v, "out of range")
	}
	return T(u), nil
}

func parseNum[T FixedNum](col Column, s string) (T, error) {
	var z T
	switch any(z).(type) {
	case float32, float64:
		f, err := strconv.ParseFloat(s, sizeOf[T]()*8)
		if err != nil {
			return z, mismatch(col, s, "not a number")
		}
		return T(f), nil
	}
	if T(0)-1 < 0 {
		i, err := strconv.ParseInt(s, 10, sizeOf[T]()*8)
		if err != nil {
			return z, mismatch(col, s, "not an integer in range")
		}
		return T(i), nil
	}
	u, err := strconv.ParseUint(s, 10, sizeOf[T]()*8)
	if err != nil {
		return z, mismatch(col, s, "not an integer in range")
	}
	return T(u), nil
}
