package structmap

import (
	"fmt"
	"reflect"
)

// assignValue stores v, a column's boxed value, in *dst as database/sql's Scan would: through
// Scan when scan is set (*dst's type is a Scan-er), nil as the zero value, *T for a Nullable
// element, assignable and convertible values (numbers that fit), and slices element by element.
func assignValue(dst reflect.Value, v any, scan bool) error {
	if scan {
		return dst.Interface().(scanner).Scan(v)
	}
	el := dst.Elem()
	if v == nil {
		el.SetZero()
		return nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && !rv.Type().AssignableTo(el.Type()) {
		// A Nullable element (*T) into a field of another type: its value, or the zero value.
		if rv.IsNil() {
			el.SetZero()
			return nil
		}
		rv = rv.Elem()
		v = rv.Interface()
	}
	if el.Kind() == reflect.Pointer {
		p := reflect.New(el.Type().Elem())
		if err := assignValue(p, v, isScanner(el.Type().Elem())); err != nil {
			return err
		}
		el.Set(p)
		return nil
	}
	if el.Kind() == reflect.Interface {
		el.Set(rv)
		return nil
	}
	if rv.Type().AssignableTo(el.Type()) {
		el.Set(rv)
		return nil
	}
	if rv.Type().ConvertibleTo(el.Type()) && convertibleKinds(rv.Kind(), el.Kind()) {
		c := rv.Convert(el.Type())
		if c.Convert(rv.Type()).Interface() != rv.Interface() {
			return fmt.Errorf("value %v does not fit %v", v, el.Type())
		}
		el.Set(c)
		return nil
	}
	if el.Kind() == reflect.Slice && rv.Kind() == reflect.Slice {
		// Array(T) into a slice of another element type: element by element, each checked
		// as a single value would be (Array(UInt8) into []uint64, Array(Nullable(T)) into []*U).
		et := el.Type().Elem()
		scan := isScanner(et)
		out := reflect.MakeSlice(el.Type(), rv.Len(), rv.Len())
		for i := range rv.Len() {
			if err := assignValue(out.Index(i).Addr(), rv.Index(i).Interface(), scan); err != nil {
				return fmt.Errorf("element %d: %w", i, err)
			}
		}
		el.Set(out)
		return nil
	}
	return fmt.Errorf("cannot store %T in %v", v, el.Type())
}

// convertibleKinds allows numeric to numeric and string-like conversions, not number to string.
func convertibleKinds(from, to reflect.Kind) bool {
	num := func(k reflect.Kind) bool { return k >= reflect.Int && k <= reflect.Float64 }
	if num(from) && num(to) {
		return true
	}
	return from == to
}
