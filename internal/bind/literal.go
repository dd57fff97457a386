package bind

import (
	"fmt"
	"math/big"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/sqltext"
	"github.com/chnative/chnative/internal/valuer"
)

// maxLiteralDepth bounds nesting of slices and maps in arguments.
const maxLiteralDepth = 64

// formatLiteral writes v as a ClickHouse SQL literal.
func formatLiteral(v any, depth int) (string, error) {
	if depth > maxLiteralDepth {
		return "", fmt.Errorf("nested more than %d levels", maxLiteralDepth)
	}
	switch x := v.(type) {
	case nil:
		return "NULL", nil
	case string:
		return sqltext.QuoteLiteral(x), nil
	case []byte:
		return sqltext.QuoteLiteral(string(x)), nil
	case bool:
		if x {
			return "1", nil
		}
		return "0", nil
	case int:
		return strconv.FormatInt(int64(x), 10), nil
	case int8:
		return strconv.FormatInt(int64(x), 10), nil
	case int16:
		return strconv.FormatInt(int64(x), 10), nil
	case int32:
		return strconv.FormatInt(int64(x), 10), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case uint:
		return strconv.FormatUint(uint64(x), 10), nil
	case uint8:
		return strconv.FormatUint(uint64(x), 10), nil
	case uint16:
		return strconv.FormatUint(uint64(x), 10), nil
	case uint32:
		return strconv.FormatUint(uint64(x), 10), nil
	case uint64:
		return strconv.FormatUint(x, 10), nil
	case float32:
		return formatFloat(float64(x), 32), nil
	case float64:
		return formatFloat(x, 64), nil
	case time.Time:
		return formatTime(x), nil
	case *time.Time:
		if x == nil {
			return "NULL", nil
		}
		return formatTime(*x), nil
	case columns.Decimal:
		return formatDecimal(x)
	case *columns.Decimal:
		if x == nil {
			return "NULL", nil
		}
		return formatDecimal(*x)
	case *big.Int:
		if x == nil {
			return "NULL", nil
		}
		return formatBigInt(x)
	case big.Int:
		return formatBigInt(&x)
	case columns.VariantValue:
		return typedValueLiteral(x.Type, x.Value, depth)
	case columns.DynamicValue:
		return typedValueLiteral(x.Type, x.Value, depth)
	}
	if vv, ok, isNil, err := valuer.Call(v); ok { // a database/sql Valuer
		switch {
		case err != nil:
			return "", err
		case isNil:
			return "NULL", nil
		}
		return formatLiteral(vv, depth+1)
	}
	if s, ok, err := interfaceText(v); ok || err != nil {
		if err != nil {
			return "", err
		}
		return sqltext.QuoteLiteral(s), nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer:
		if rv.IsNil() {
			return "NULL", nil
		}
		return formatLiteral(rv.Elem().Interface(), depth+1)
	case reflect.String:
		return sqltext.QuoteLiteral(rv.String()), nil
	case reflect.Bool:
		return formatLiteral(rv.Bool(), depth)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(rv.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(rv.Uint(), 10), nil
	case reflect.Float32:
		return formatFloat(rv.Float(), 32), nil
	case reflect.Float64:
		return formatFloat(rv.Float(), 64), nil
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return "[]", nil
		}
		if rv.Type().Elem().Kind() == reflect.Uint8 {
			b := make([]byte, rv.Len())
			reflect.Copy(reflect.ValueOf(b), rv)
			return sqltext.QuoteLiteral(string(b)), nil
		}
		return listOf(rv, depth, formatLiteral, ", ")
	case reflect.Map:
		lits, err := mapEntries(rv, depth, formatLiteral)
		if err != nil {
			return "", err
		}
		var sb strings.Builder
		sb.WriteString("map(")
		for i, kv := range lits {
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(kv[0])
			sb.WriteString(", ")
			sb.WriteString(kv[1])
		}
		sb.WriteByte(')')
		return sb.String(), nil
	}
	return "", fmt.Errorf("cannot write %T as a ClickHouse literal", v)
}

// typedValueLiteral writes the value of a VariantValue or DynamicValue as a literal of its type,
// CAST(literal AS typ), so that the server takes it as that type (Int64 or UInt64, String or
// LowCardinality(String)), as a Variant or Dynamic column holds it. The zero value (no type, no
// value: a NULL read back) is NULL.
func typedValueLiteral(typ string, v any, depth int) (string, error) {
	if typ == "" {
		if v == nil {
			return "NULL", nil
		}
		return "", fmt.Errorf("a %T value needs a type", v)
	}
	if _, err := columns.ParseType(typ); err != nil {
		return "", fmt.Errorf("type %q of a Variant or Dynamic value: %w", typ, err)
	}
	return castLiteralDepth(v, typ, depth+1)
}

// mapEntries renders the keys and values of the map rv with format, sorted by key text.
func mapEntries(rv reflect.Value, depth int, format func(any, int) (string, error)) ([][2]string, error) {
	keys := rv.MapKeys()
	lits := make([][2]string, 0, len(keys))
	for _, k := range keys {
		ks, err := format(k.Interface(), depth+1)
		if err != nil {
			return nil, err
		}
		vs, err := format(rv.MapIndex(k).Interface(), depth+1)
		if err != nil {
			return nil, err
		}
		lits = append(lits, [2]string{ks, vs})
	}
	sort.Slice(lits, func(a, b int) bool { return lits[a][0] < lits[b][0] })
	return lits, nil
}

// listOf renders the elements of the slice or array rv with format as "[e1<sep>e2...]".
func listOf(rv reflect.Value, depth int, format func(any, int) (string, error), sep string) (string, error) {
	var sb strings.Builder
	sb.WriteByte('[')
	for i := 0; i < rv.Len(); i++ {
		if i > 0 {
			sb.WriteString(sep)
		}
		s, err := format(rv.Index(i).Interface(), depth+1)
		if err != nil {
			return "", err
		}
		sb.WriteString(s)
	}
	sb.WriteByte(']')
	return sb.String(), nil
}

// Literal writes v as a ClickHouse SQL literal by its Go kind: strings quoted, numbers in a form
// the server reads back as the same type family, times as toDateTime/toDateTime64 in UTC,
// slices as arrays, maps as map(...), Valuers by their value, VariantValue and DynamicValue as
// CAST to their type.
func Literal(v any) (string, error) { return formatLiteral(v, 0) }
