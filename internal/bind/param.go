package bind

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/sqltext"
	"github.com/chnative/chnative/nativeproto"
)

// ParameterText is a query parameter's value given as the text the server parses for it (its
// Escaped, TabSeparated form: \n is a newline, \\ a backslash, \N NULL; ['a', 'b'] an Array), sent
// as it is. clickhouse-go's WithParameters(clickhouse.Parameters{...}) takes its values so; other
// values given to WithParameters or sql.Named are rendered for the placeholder's type (a string is
// the string itself, escaped by the driver). Port clickhouse.Parameters{"s": `line 1\nline 2`}
// as map[string]any{"s": chnative.ParameterText(`line 1\nline 2`)}, or write the value itself,
// "line 1\nline 2". On servers without query parameters (sql.Named there becomes a CAST literal)
// the text is unescaped and CAST to the type.
type ParameterText string

// ParameterValue renders a server-side query parameter: the value's text form (see
// parameterText), sent as a quoted Field dump (the server unquotes the dump once, then parses the
// text).
func ParameterValue(v any, typ string) (string, error) {
	if t, ok := v.(ParameterText); ok {
		return nativeproto.QuoteParameter(string(t)), nil
	}
	if typ == "Identifier" {
		s, ok := v.(string)
		if !ok {
			return "", fmt.Errorf("an Identifier parameter takes a string, not %T", v)
		}
		return nativeproto.QuoteParameter(s), nil
	}
	text, err := parameterText(v, typ)
	if err != nil {
		return "", err
	}
	return nativeproto.QuoteParameter(text), nil
}

// parameterText writes v as the text the server parses for a parameter of type typ. The server
// reads a parameter with the type's escaped (TabSeparated) text parser: at the top level a
// string is TabSeparated-escaped and unquoted and NULL is \N; inside Array, Tuple and Map each
// element is in its quoted form (strings, dates, times, UUIDs, IPs and enum names in single
// quotes, NULL as NULL, Bool as true/false). So the text follows the type, parsed from typ: the
// same Go value is written differently for Bool and UInt8, for DateTime and String. A type that
// does not parse, and Variant, Dynamic and unknown names, get the text of the Go value's own kind.
//
// Times are written for DateTime and DateTime64 as Unix seconds zero-padded to ten digits (the
// text parser reads shorter digit strings as a date: "0" and "1000" are refused or misread), with
// the fraction for DateTime64: that does not depend on any time zone. The one exception is a
// DateTime64 less than a second before 1970: the server drops the sign of "-0.5", so it is
// written as text in the type's zone (UTC when it names none: then it is read in the server's).
func parameterText(v any, typ string) (string, error) {
	n, err := columns.ParseType(typ)
	if err != nil {
		n = nil
	}
	var b strings.Builder
	if err := writeParam(&b, n, v, false, 0); err != nil {
		return "", err
	}
	return b.String(), nil
}

// writeParam appends v as type n (nil: by its Go kind); quoted is true inside composites.
func writeParam(b *strings.Builder, n *columns.TypeNode, v any, quoted bool, depth int) error {
	if depth > maxLiteralDepth {
		return fmt.Errorf("nested more than %d levels", maxLiteralDepth)
	}
	v, err := derefParam(v)
	if err != nil {
		return err
	}
	if t, ok := v.(ParameterText); ok {
		b.WriteString(string(t)) // the caller's own text, as it is
		return nil
	}
	if typ, val, ok := typedValue(v); ok {
		// A Variant or Dynamic parameter takes the value's text in the value's type (the server
		// picks the variant from the text); any other parameter the value itself.
		if n == nil || n.Name == "Variant" || n.Name == "Dynamic" {
			if tn, err := columns.ParseType(typ); err == nil {
				n = tn
			} else if typ != "" {
				return fmt.Errorf("type %q of a Variant or Dynamic value: %w", typ, err)
			}
		}
		return writeParam(b, n, val, quoted, depth+1)
	}
	if v == nil {
		if quoted {
			b.WriteString("NULL")
		} else {
			b.WriteString(`\N`)
		}
		return nil
	}
	name := ""
	if n != nil {
		name = n.Name
	}
	switch name {
	case "Nullable", "LowCardinality":
		return writeParam(b, paramArg(n, 0), v, quoted, depth+1)
	case "SimpleAggregateFunction":
		return writeParam(b, paramArg(n, len(n.Args)-1), v, quoted, depth+1)
	case "Bool":
		if t, ok := boolOf(v); ok {
			b.WriteString(strconv.FormatBool(t))
			return nil
		}
		return writeTextParam(b, v, quoted)
	case "JSON", "Object":
		rv := reflect.ValueOf(v)
		if k := rv.Kind(); k == reflect.Map || k == reflect.Struct || k == reflect.Slice && rv.Type().Elem().Kind() != reflect.Uint8 {
			out, err := json.Marshal(v)
			if err != nil {
				return fmt.Errorf("JSON parameter: %w", err)
			}
			v = out
		}
		fallthrough
	case "String", "FixedString", "UUID", "IPv4", "IPv6":
		s, err := textOf(v, name)
		if err != nil {
			return err
		}
		writeQuotable(b, s, quoted)
		return nil
	case "Enum8", "Enum16":
		s, err := enumText(n, v)
		if err != nil {
			return err
		}
		writeQuotable(b, s, quoted)
		return nil
	case "Date", "Date32":
		if t, ok := v.(time.Time); ok {
			writeQuotable(b, epochIfZero(t).Format("2006-01-02"), quoted)
			return nil
		}
		return writeTextParam(b, v, quoted)
	case "DateTime", "DateTime64":
		t, ok := v.(time.Time)
		if !ok {
			if i, isInt := intOf(v); isInt {
				t, ok = time.Unix(i, 0), true
			}
		}
		if ok {
			writeQuotable(b, dateTimeText(t, n), quoted)
			return nil
		}
		return writeTextParam(b, v, quoted)
	case "Time", "Time64":
		if d, ok := v.(time.Duration); ok {
			writeQuotable(b, durationText(d), quoted)
			return nil
		}
		return writeTextParam(b, v, quoted)
	case "IntervalNanosecond", "IntervalMicrosecond", "IntervalMillisecond", "IntervalSecond",
		"IntervalMinute", "IntervalHour", "IntervalDay", "IntervalWeek":
		if d, ok := v.(time.Duration); ok {
			unit := intervalUnits[name]
			if d%unit != 0 {
				return fmt.Errorf("%v is not a whole number of %s units", d, name)
			}
			b.WriteString(strconv.FormatInt(int64(d/unit), 10))
			return nil
		}
		return writeNumber(b, v)
	case "Int8", "Int16", "Int32", "Int64", "Int128", "Int256", "UInt8", "UInt16", "UInt32", "UInt64",
		"UInt128", "UInt256", "Float32", "Float64", "BFloat16", "Decimal", "Decimal32", "Decimal64",
		"Decimal128", "Decimal256", "IntervalMonth", "IntervalQuarter", "IntervalYear":
		return writeNumber(b, v)
	case "Array", "Ring", "LineString", "MultiLineString", "Polygon", "MultiPolygon", "QBit", "Nested":
		return writeListParam(b, n, v, depth)
	case "Tuple", "Point":
		return writeTupleParam(b, n, v, depth)
	case "Map":
		return writeMapParam(b, paramArg(n, 0), paramArg(n, 1), v, depth)
	}
	return writeKindParam(b, v, quoted, depth)
}

// typedValue unwraps a VariantValue or DynamicValue into its type and value.
func typedValue(v any) (string, any, bool) {
	switch x := v.(type) {
	case columns.VariantValue:
		return x.Type, x.Value, true
	case columns.DynamicValue:
		return x.Type, x.Value, true
	}
	return "", nil, false
}

func paramArg(n *columns.TypeNode, i int) *columns.TypeNode {
	if i < 0 || i >= len(n.Args) {
		return nil
	}
	return n.Args[i].Type
}

// writeQuotable appends the text s of a string-like value: escaped at the top level, quoted
// inside composites.
func writeQuotable(b *strings.Builder, s string, quoted bool) {
	if quoted {
		b.WriteString(sqltext.QuoteLiteral(s))
	} else {
		b.WriteString(sqltext.EscapeText(s))
	}
}

// writeTextParam appends a value given as text (a string) or as a number for a type whose text
// is not a number: the string is the value's text.
func writeTextParam(b *strings.Builder, v any, quoted bool) error {
	s, err := textOf(v, "")
	if err != nil {
		return err
	}
	writeQuotable(b, s, quoted)
	return nil
}

// elemOf returns the element type of an array-like type.
func elemOf(n *columns.TypeNode) *columns.TypeNode {
	if elem, ok := columns.GeoElem(n.Name); ok {
		return &columns.TypeNode{Name: elem}
	}
	if n.Name == "Nested" {
		return &columns.TypeNode{Name: "Tuple", Args: n.Args}
	}
	return paramArg(n, 0)
}
