package bind

import (
	"encoding"
	"fmt"
	"math"
	"math/big"
	"net"
	"net/netip"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/valuer"
)

// derefParam follows pointers and driver.Valuer values (nil pointers and nil values are NULL);
// values this file renders itself are kept, and so is a pointer whose String or MarshalText
// method (a pointer receiver) its element does not have: its text is the value's.
func derefParam(v any) (any, error) {
	for range maxLiteralDepth {
		switch v.(type) {
		case nil:
			return nil, nil
		case time.Time, columns.Decimal, *big.Int, big.Int:
			return v, nil
		}
		if vv, ok, isNil, err := valuer.Call(v); ok { // a database/sql Valuer
			switch {
			case err != nil:
				return nil, err
			case isNil:
				return nil, nil
			}
			v = vv
			continue
		}
		rv := reflect.ValueOf(v)
		if rv.Kind() != reflect.Pointer {
			return v, nil
		}
		if rv.IsNil() {
			return nil, nil
		}
		if textMethodsOnPointer(rv.Type()) {
			return v, nil
		}
		v = rv.Elem().Interface()
	}
	return nil, fmt.Errorf("pointers or Valuers nested more than %d levels", maxLiteralDepth)
}

var (
	stringerType      = reflect.TypeFor[fmt.Stringer]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// textMethodsOnPointer reports whether the pointer type pt has a String or MarshalText method
// that its element type lacks (declared with a pointer receiver), and the element is not a
// number: following the pointer would lose the value's text.
func textMethodsOnPointer(pt reflect.Type) bool {
	et := pt.Elem()
	if isNumberKind(et.Kind()) {
		return false
	}
	return pt.Implements(stringerType) && !et.Implements(stringerType) ||
		pt.Implements(textMarshalerType) && !et.Implements(textMarshalerType)
}

func isNumberKind(k reflect.Kind) bool {
	switch k {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint,
		reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr, reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// interfaceText returns the text of a value by its String method (fmt.Stringer), else its
// MarshalText (encoding.TextMarshaler): how clickhouse-go writes a ? argument of another type
// (netip.Addr, a named string type, a struct with a String method, and a named integer with
// names: shade(1) is 'green', which an Enum column compares by name). A time.Duration keeps its
// own form.
func interfaceText(v any) (string, bool, error) {
	switch v.(type) {
	case nil, time.Duration, *time.Duration:
		return "", false, nil
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return "", false, nil
	}
	switch x := v.(type) {
	case fmt.Stringer:
		return x.String(), true, nil
	case encoding.TextMarshaler:
		b, err := x.MarshalText()
		if err != nil {
			return "", false, fmt.Errorf("%T.MarshalText: %w", v, err)
		}
		return string(b), true, nil
	}
	return "", false, nil
}

// textOf returns the text of a value of a string-like type (typ: "UUID", "IPv6", ...; "" for any).
func textOf(v any, typ string) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case []byte:
		return string(x), nil
	case time.Time:
		return x.UTC().Format("2006-01-02 15:04:05.999999999"), nil
	case columns.Decimal:
		return x.String(), nil
	case *big.Int:
		return x.String(), nil
	case big.Int:
		return x.String(), nil
	case netip.Addr:
		if typ == "IPv6" && x.Is4() {
			x = netip.AddrFrom16(x.As16())
		}
		return x.String(), nil
	case net.IP:
		return x.String(), nil
	case fmt.Stringer:
		return x.String(), nil
	case encoding.TextMarshaler:
		b, err := x.MarshalText()
		if err != nil {
			return "", fmt.Errorf("%T.MarshalText: %w", v, err)
		}
		return string(b), nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.String:
		return rv.String(), nil
	case reflect.Bool:
		return strconv.FormatBool(rv.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(rv.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if typ == "IPv4" {
			u := rv.Uint()
			if u > math.MaxUint32 {
				return "", fmt.Errorf("%d is not an IPv4 address", u)
			}
			return netip.AddrFrom4([4]byte{byte(u >> 24), byte(u >> 16), byte(u >> 8), byte(u)}).String(), nil
		}
		return strconv.FormatUint(rv.Uint(), 10), nil
	case reflect.Float32:
		return floatText(rv.Float(), 32), nil
	case reflect.Float64:
		return floatText(rv.Float(), 64), nil
	case reflect.Array, reflect.Slice:
		if rv.Type().Elem().Kind() != reflect.Uint8 {
			break
		}
		raw := make([]byte, rv.Len())
		reflect.Copy(reflect.ValueOf(raw), rv)
		switch {
		case typ == "UUID" && len(raw) == 16:
			return fmt.Sprintf("%x-%x-%x-%x-%x", raw[0:4], raw[4:6], raw[6:8], raw[8:10], raw[10:16]), nil
		case (typ == "IPv4" || typ == "IPv6") && (len(raw) == 4 || len(raw) == 16):
			a, _ := netip.AddrFromSlice(raw)
			return textOf(a, typ)
		}
		return string(raw), nil
	}
	return "", fmt.Errorf("cannot write %T as %s text", v, strings.TrimSpace("a "+typ))
}

// enumText returns the name of an enum value given as its name or its number. A value with a
// String method (type Color int8 with its names) is its String() when the enum has that name,
// as an Enum column takes it.
func enumText(n *columns.TypeNode, v any) (string, error) {
	if s, ok := v.(fmt.Stringer); ok && enumHasName(n, s.String()) {
		return s.String(), nil
	}
	i, ok := intOf(v)
	if !ok {
		return textOf(v, "")
	}
	num := strconv.FormatInt(i, 10)
	for _, a := range n.Args {
		if a.Kind == columns.ArgEnum && strings.TrimPrefix(a.Number, "+") == num {
			return a.String, nil
		}
	}
	return "", fmt.Errorf("%s has no element %d", n.Name, i)
}

func enumHasName(n *columns.TypeNode, name string) bool {
	for _, a := range n.Args {
		if a.Kind == columns.ArgEnum && a.String == name {
			return true
		}
	}
	return false
}
