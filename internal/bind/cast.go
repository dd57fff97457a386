package bind

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/sqltext"
)

// castLiteral writes v for a {name:Type} parameter substituted in the query text (servers without
// query parameters): CAST(literal AS Type), or a quoted identifier for Type Identifier.
func castLiteral(v any, typ string) (string, error) {
	return castLiteralDepth(v, typ, 0)
}

func castLiteralDepth(v any, typ string, depth int) (string, error) {
	if t, ok := v.(ParameterText); ok {
		if t == `\N` {
			return "CAST(NULL AS " + typ + ")", nil
		}
		return "CAST(" + sqltext.QuoteLiteral(sqltext.UnescapeText(string(t))) + " AS " + typ + ")", nil
	}
	if typ == "Identifier" {
		s, ok := v.(string)
		if !ok {
			return "", fmt.Errorf("an Identifier parameter takes a string, not %T", v)
		}
		return sqltext.QuoteIdentifier(s), nil
	}
	n, err := columns.ParseType(typ)
	if err != nil {
		n = nil
	}
	lit, err := typedLiteral(n, v, depth)
	if err != nil {
		return "", err
	}
	return "CAST(" + lit + " AS " + typ + ")", nil
}

// typedLiteral writes v as an SQL literal for type n (nil: formatLiteral, by the Go value).
// Composites follow the type, so that a Go slice is a tuple for Tuple and the elements of an
// array literal are all of one type: a time.Time is its calendar day in its own location for Date
// (as a query parameter and a Date column take it), UUIDs and IPs given as bytes or netip.Addr
// are their text, an enum's number is its name.
func typedLiteral(n *columns.TypeNode, v any, depth int) (string, error) {
	if depth > maxLiteralDepth {
		return "", fmt.Errorf("nested more than %d levels", maxLiteralDepth)
	}
	if n == nil {
		return formatLiteral(v, depth)
	}
	v, err := derefParam(v)
	if err != nil {
		return "", err
	}
	if v == nil {
		return "NULL", nil
	}
	rv := reflect.ValueOf(v)
	switch n.Name {
	case "Nullable", "LowCardinality":
		return typedLiteral(paramArg(n, 0), v, depth+1)
	case "SimpleAggregateFunction":
		return typedLiteral(paramArg(n, len(n.Args)-1), v, depth+1)
	case "Date", "Date32":
		if t, ok := v.(time.Time); ok {
			return sqltext.QuoteLiteral(epochIfZero(t).Format("2006-01-02")), nil
		}
	case "UUID", "IPv4", "IPv6":
		s, err := textOf(v, n.Name)
		if err != nil {
			return "", err
		}
		return sqltext.QuoteLiteral(s), nil
	case "Enum8", "Enum16":
		s, err := enumText(n, v)
		if err != nil {
			return "", err
		}
		return sqltext.QuoteLiteral(s), nil
	case "Array", "Ring", "LineString", "MultiLineString", "Polygon", "MultiPolygon", "QBit", "Nested":
		if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
			break
		}
		elem := elemOf(n)
		parts := make([]string, rv.Len())
		for i := range parts {
			if parts[i], err = typedLiteral(elem, rv.Index(i).Interface(), depth+1); err != nil {
				return "", err
			}
		}
		return "[" + strings.Join(parts, ", ") + "]", nil
	case "Tuple", "Point":
		if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array && rv.Kind() != reflect.Struct && rv.Kind() != reflect.Map {
			break
		}
		items, elems, err := tupleItems(n, v)
		if err != nil {
			return "", err
		}
		parts := make([]string, len(items))
		for i, it := range items {
			if parts[i], err = typedLiteral(elems[i].Type, it, depth+1); err != nil {
				return "", err
			}
		}
		return "tuple(" + strings.Join(parts, ", ") + ")", nil
	case "Map":
		if rv.Kind() != reflect.Map {
			break
		}
		kt, vt := paramArg(n, 0), paramArg(n, 1)
		entries := make([][2]string, 0, rv.Len())
		for it := rv.MapRange(); it.Next(); {
			k, err := typedLiteral(kt, it.Key().Interface(), depth+1)
			if err != nil {
				return "", err
			}
			val, err := typedLiteral(vt, it.Value().Interface(), depth+1)
			if err != nil {
				return "", err
			}
			entries = append(entries, [2]string{k, val})
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i][0] < entries[j][0] })
		parts := make([]string, len(entries))
		for i, e := range entries {
			parts[i] = e[0] + ", " + e[1]
		}
		return "map(" + strings.Join(parts, ", ") + ")", nil
	}
	return formatLiteral(v, depth)
}
