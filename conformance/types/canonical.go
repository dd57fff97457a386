package types

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"net"
	"net/netip"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/chnative/chnative/columns"
)

// Canonical renders v, a Go value of ClickHouse type typ as the columns package returns it (see
// columns/doc.go; database/sql values, where decimals and big integers arrive as strings, are
// accepted too), in the text chDB prints for the same value in FORMAT TabSeparated with the
// settings of [Settings]:
//
//   - top level: strings escaped (\t \n \\ \' \0 \b \f \r), NULL as \N, other bytes raw;
//   - inside Array/Tuple/Map: strings, dates, times, UUIDs, IPs and enum names in single quotes,
//     NULL as NULL; arrays [a,b], tuples (a,b) (also named ones), maps {k:v};
//   - floats in shortest round-trip form, exponent form below 1e-6 and from 1e21 (1e-7, 1e21),
//     nan, inf, -inf, -0;
//   - decimals with all S fraction digits (output_format_decimal_trailing_zeros=1);
//   - DateTime without a zone in UTC (session_timezone='UTC'), with a zone in that zone.
//
// Go maps have no order, so map entries are rendered sorted by their key text; the cases write
// their map literals in that order.
func Canonical(typ string, v any) (string, error) {
	n, err := columns.ParseType(typ)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := format(&b, n, v, false); err != nil {
		return "", fmt.Errorf("%s: %w", typ, err)
	}
	return b.String(), nil
}

// format appends v as type n; quoted is true inside composites.
func format(b *strings.Builder, n *columns.TypeNode, v any, quoted bool) error {
	v = deref(v)
	if t, inner, ok := typedValue(v); ok { // Variant and Dynamic values carry their type
		if t == "" && inner == nil { // NULL as an element of Array(Variant): the zero value
			return format(b, n, nil, quoted)
		}
		n2, err := columns.ParseType(t)
		if err != nil {
			return err
		}
		return format(b, n2, inner, quoted)
	}
	if v == nil {
		if quoted {
			b.WriteString("NULL")
		} else {
			b.WriteString(`\N`)
		}
		return nil
	}
	switch n.Name {
	case "Nullable", "LowCardinality":
		return format(b, typeArg(n, 0), v, quoted)
	case "SimpleAggregateFunction":
		return format(b, typeArg(n, len(n.Args)-1), v, quoted)
	case "Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64",
		"Int128", "Int256", "UInt128", "UInt256":
		return formatInt(b, v)
	case "IntervalNanosecond", "IntervalMicrosecond", "IntervalMillisecond", "IntervalSecond",
		"IntervalMinute", "IntervalHour", "IntervalDay", "IntervalWeek", "IntervalMonth",
		"IntervalQuarter", "IntervalYear":
		if d, ok := v.(time.Duration); ok {
			return fmt.Errorf("Interval value is a time.Duration (%v); want a count", d)
		}
		return formatInt(b, v)
	case "Float32", "BFloat16":
		f, ok := toFloat(v)
		if !ok {
			return badGo(n, v)
		}
		b.WriteString(FormatFloat(f, 32))
		return nil
	case "Float64":
		f, ok := toFloat(v)
		if !ok {
			return badGo(n, v)
		}
		b.WriteString(FormatFloat(f, 64))
		return nil
	case "Bool":
		x, ok := v.(bool)
		if !ok {
			return badGo(n, v)
		}
		b.WriteString(strconv.FormatBool(x))
		return nil
	case "String", "FixedString":
		s, ok := toString(v)
		if !ok {
			return badGo(n, v)
		}
		writeString(b, s, quoted)
		return nil
	case "UUID", "Enum8", "Enum16":
		s, ok := v.(string)
		if !ok {
			return badGo(n, v)
		}
		writeString(b, s, quoted)
		return nil
	case "IPv4", "IPv6":
		s, err := formatIP(n.Name, v)
		if err != nil {
			return err
		}
		writeString(b, s, quoted)
		return nil
	case "Decimal", "Decimal32", "Decimal64", "Decimal128", "Decimal256":
		switch x := v.(type) {
		case columns.Decimal:
			b.WriteString(x.String())
		case string: // database/sql: columns.SQLValue, without trailing zeros
			scale := numArg(n, 0)
			if n.Name == "Decimal" {
				scale = numArg(n, 1)
			}
			s, err := strconv.Atoi(scale)
			if err != nil {
				return fmt.Errorf("%s scale: %w", n.Name, err)
			}
			d, err := columns.ParseDecimal(x, s)
			if err != nil {
				return err
			}
			b.WriteString(d.String())
		default:
			return badGo(n, v)
		}
		return nil
	case "Date", "Date32":
		t, ok := v.(time.Time)
		if !ok {
			return badGo(n, v)
		}
		writeString(b, t.UTC().Format("2006-01-02"), quoted)
		return nil
	case "DateTime":
		t, ok := v.(time.Time)
		if !ok {
			return badGo(n, v)
		}
		loc, err := zoneArg(n, 0)
		if err != nil {
			return err
		}
		writeString(b, t.In(loc).Format("2006-01-02 15:04:05"), quoted)
		return nil
	case "DateTime64":
		t, ok := v.(time.Time)
		if !ok {
			return badGo(n, v)
		}
		p, err := strconv.Atoi(numArg(n, 0))
		if err != nil {
			return fmt.Errorf("DateTime64 precision: %w", err)
		}
		loc, err := zoneArg(n, 1)
		if err != nil {
			return err
		}
		layout := "2006-01-02 15:04:05"
		if p > 0 {
			layout += "." + strings.Repeat("0", p)
		}
		writeString(b, t.In(loc).Format(layout), quoted)
		return nil
	case "Time", "Time64":
		p := 0
		if n.Name == "Time64" {
			var err error
			if p, err = strconv.Atoi(numArg(n, 0)); err != nil {
				return fmt.Errorf("Time64 precision: %w", err)
			}
		}
		d, ok := v.(time.Duration)
		if !ok {
			return badGo(n, v)
		}
		writeString(b, formatTime(d, p), quoted)
		return nil
	case "Array", "Ring", "LineString", "MultiLineString", "Polygon", "MultiPolygon", "QBit":
		return formatArray(b, elemType(n), v)
	case "Nested":
		return formatArray(b, &columns.TypeNode{Name: "Tuple", Args: n.Args}, v)
	case "Tuple", "Point":
		elems := n.Args
		if n.Name == "Point" {
			f64 := columns.TypeArg{Kind: columns.ArgType, Type: &columns.TypeNode{Name: "Float64"}}
			elems = []columns.TypeArg{f64, f64}
		}
		return formatTuple(b, elems, v)
	case "Map":
		return formatMap(b, typeArg(n, 0), typeArg(n, 1), v)
	case "Variant":
		return formatVariant(b, n, v, quoted)
	case "Dynamic":
		return formatDynamic(b, v, quoted)
	case "JSON", "Object":
		return formatJSON(b, v, quoted)
	case "Nothing":
		return fmt.Errorf("Nothing holds a value %T", v)
	}
	return fmt.Errorf("no canonical form for type %s (Go %T)", n.Name, v)
}

// deref follows pointers (Nullable elements of composites are pointers) and driver.Valuer values
// other than the columns package's own.
func deref(v any) any {
	for v != nil {
		rv := reflect.ValueOf(v)
		if rv.Kind() == reflect.Pointer {
			if rv.IsNil() {
				return nil
			}
			if _, isBig := v.(*big.Int); isBig {
				return v
			}
			v = rv.Elem().Interface()
			continue
		}
		return v
	}
	return nil
}

func badGo(n *columns.TypeNode, v any) error {
	return fmt.Errorf("unexpected Go value %T (%v) for %s", v, v, n.Name)
}

func typeArg(n *columns.TypeNode, i int) *columns.TypeNode {
	if i < 0 || i >= len(n.Args) || n.Args[i].Type == nil {
		return &columns.TypeNode{Name: "?"}
	}
	return n.Args[i].Type
}

func numArg(n *columns.TypeNode, i int) string {
	if i >= len(n.Args) {
		return ""
	}
	return n.Args[i].Number
}

func zoneArg(n *columns.TypeNode, i int) (*time.Location, error) {
	if i >= len(n.Args) || n.Args[i].Kind != columns.ArgString {
		return time.UTC, nil
	}
	return time.LoadLocation(n.Args[i].String)
}

func elemType(n *columns.TypeNode) *columns.TypeNode {
	if elem, ok := columns.GeoElem(n.Name); ok {
		return &columns.TypeNode{Name: elem}
	}
	return typeArg(n, 0)
}

func formatInt(b *strings.Builder, v any) error {
	switch x := v.(type) {
	case *big.Int:
		b.WriteString(x.String())
	case big.Int:
		b.WriteString(x.String())
	case string: // database/sql: driverValue of big integers
		b.WriteString(x)
	case fmt.Stringer:
		b.WriteString(x.String())
	default:
		rv := reflect.ValueOf(v)
		switch {
		case rv.CanInt():
			b.WriteString(strconv.FormatInt(rv.Int(), 10))
		case rv.CanUint():
			b.WriteString(strconv.FormatUint(rv.Uint(), 10))
		default:
			return fmt.Errorf("unexpected Go value %T (%v) for an integer", v, v)
		}
	}
	return nil
}

func toFloat(v any) (float64, bool) {
	rv := reflect.ValueOf(v)
	if rv.CanFloat() {
		return rv.Float(), true
	}
	return 0, false
}

func toString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case []byte:
		return string(x), true
	}
	return "", false
}

// FormatFloat renders f as ClickHouse does: the shortest digits that read back as the same
// float of the given bit size, in plain notation for 1e-6 <= |f| < 1e21 and as d.ddde±x (no '+')
// otherwise (the JavaScript rule), and nan, inf, -inf, -0.
func FormatFloat(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case f == 0:
		if math.Signbit(f) {
			return "-0"
		}
		return "0"
	}
	s := strconv.FormatFloat(f, 'e', -1, bits) // -d.dddde±xx
	sign := ""
	if s[0] == '-' {
		sign, s = "-", s[1:]
	}
	mant, exp, _ := strings.Cut(s, "e")
	digits := strings.Replace(mant, ".", "", 1)
	e, _ := strconv.Atoi(exp)
	k := len(digits)
	pos := e + 1 // the decimal point sits after pos digits
	switch {
	case k <= pos && pos <= 21:
		return sign + digits + strings.Repeat("0", pos-k)
	case 0 < pos && pos <= 21:
		return sign + digits[:pos] + "." + digits[pos:]
	case -6 < pos && pos <= 0:
		return sign + "0." + strings.Repeat("0", -pos) + digits
	}
	out := digits[:1]
	if k > 1 {
		out += "." + digits[1:]
	}
	return sign + out + "e" + strconv.Itoa(pos-1)
}

// writeString appends s escaped as ClickHouse's TabSeparated output does (writeEscapedString),
// single-quoted when quoted.
func writeString(b *strings.Builder, s string, quoted bool) {
	if quoted {
		b.WriteByte('\'')
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case 0:
			b.WriteString(`\0`)
		case '\\':
			b.WriteString(`\\`)
		case '\'':
			b.WriteString(`\'`)
		default:
			b.WriteByte(c)
		}
	}
	if quoted {
		b.WriteByte('\'')
	}
}

func formatIP(typ string, v any) (string, error) {
	var a netip.Addr
	switch x := v.(type) {
	case netip.Addr:
		a = x
	case net.IP:
		if typ == "IPv4" {
			x = x.To4()
		} else {
			x = x.To16()
		}
		var ok bool
		if a, ok = netip.AddrFromSlice(x); !ok {
			return "", fmt.Errorf("bad net.IP %v for %s", x, typ)
		}
	case [4]byte:
		a = netip.AddrFrom4(x)
	case [16]byte:
		a = netip.AddrFrom16(x)
	case uint32:
		a = netip.AddrFrom4([4]byte{byte(x >> 24), byte(x >> 16), byte(x >> 8), byte(x)})
	case string:
		return x, nil
	default:
		return "", fmt.Errorf("unexpected Go value %T (%v) for %s", v, v, typ)
	}
	if typ == "IPv4" {
		a = a.Unmap()
	} else if a.Is4() {
		a = netip.AddrFrom16(a.As16())
	}
	return a.String(), nil
}

// formatTime renders a Time/Time64 value: [-]H:MM:SS[.fff], hours with at least two digits.
func formatTime(d time.Duration, p int) string {
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
	sec := int64(d / time.Second)
	frac := int64(d % time.Second)
	s := fmt.Sprintf("%s%02d:%02d:%02d", sign, sec/3600, sec/60%60, sec%60)
	if p > 0 {
		f := fmt.Sprintf("%09d", frac)
		if p <= 9 {
			s += "." + f[:p]
		} else {
			s += "." + f + strings.Repeat("0", p-9)
		}
	}
	return s
}

func formatArray(b *strings.Builder, elem *columns.TypeNode, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return fmt.Errorf("unexpected Go value %T for an array of %s", v, elem.Name)
	}
	b.WriteByte('[')
	for i := range rv.Len() {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := format(b, elem, rv.Index(i).Interface(), true); err != nil {
			return err
		}
	}
	b.WriteByte(']')
	return nil
}

func formatTuple(b *strings.Builder, elems []columns.TypeArg, v any) error {
	var items []any
	rv := reflect.ValueOf(v)
	switch {
	case rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array:
		for i := range rv.Len() {
			items = append(items, rv.Index(i).Interface())
		}
	case rv.Kind() == reflect.Struct:
		for i := range rv.NumField() {
			items = append(items, rv.Field(i).Interface())
		}
	case rv.Kind() == reflect.Map && rv.Type().Key().Kind() == reflect.String:
		// A named tuple from database/sql (columns.SQLValue): its elements by name.
		for _, e := range elems {
			x := rv.MapIndex(reflect.ValueOf(e.Field))
			if !x.IsValid() {
				return fmt.Errorf("tuple value %T has no element %q", v, e.Field)
			}
			items = append(items, x.Interface())
		}
	default:
		return fmt.Errorf("unexpected Go value %T for a tuple", v)
	}
	if len(items) != len(elems) {
		return fmt.Errorf("tuple value has %d elements, type has %d", len(items), len(elems))
	}
	b.WriteByte('(')
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := format(b, elems[i].Type, it, true); err != nil {
			return err
		}
	}
	b.WriteByte(')')
	return nil
}

func formatMap(b *strings.Builder, kt, vt *columns.TypeNode, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Map {
		return fmt.Errorf("unexpected Go value %T for a map", v)
	}
	type entry struct{ k, v string }
	var entries []entry
	for it := rv.MapRange(); it.Next(); {
		var kb, vb strings.Builder
		if err := format(&kb, kt, it.Key().Interface(), true); err != nil {
			return err
		}
		if err := format(&vb, vt, it.Value().Interface(), true); err != nil {
			return err
		}
		entries = append(entries, entry{kb.String(), vb.String()})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].k < entries[j].k })
	b.WriteByte('{')
	for i, e := range entries {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(e.k + ":" + e.v)
	}
	b.WriteByte('}')
	return nil
}

// formatVariant renders the alternative whose Go type (the ScanType of its column) is the
// value's; the first match wins.
func formatVariant(b *strings.Builder, n *columns.TypeNode, v any, quoted bool) error {
	for _, a := range n.Args {
		if a.Type == nil {
			continue
		}
		c, err := columns.FromNode(a.Type)
		if err != nil {
			continue
		}
		if c.ScanType() == reflect.TypeOf(v) {
			return format(b, a.Type, v, quoted)
		}
	}
	return fmt.Errorf("Go value %T matches no alternative of %s", v, n.Name)
}

// formatDynamic renders a Dynamic value by its Go type.
func formatDynamic(b *strings.Builder, v any, quoted bool) error {
	var name string
	switch x := v.(type) {
	case interface{ TypeName() string }: // a value that carries its ClickHouse type
		name = x.TypeName()
		if vv, ok := v.(interface{ Value() any }); ok {
			v = vv.Value()
		}
	case driver.Valuer:
		dv, err := x.Value()
		if err != nil {
			return err
		}
		return formatDynamic(b, dv, quoted)
	case bool:
		name = "Bool"
	case string:
		name = "String"
	case float32:
		name = "Float32"
	case float64:
		name = "Float64"
	case columns.Decimal:
		name = "Decimal"
	case time.Time:
		name = "DateTime64(9)"
	default:
		rv := reflect.ValueOf(v)
		switch {
		case rv.CanInt(), rv.CanUint():
			name = "Int64"
		case rv.Kind() == reflect.Slice:
			b.WriteByte('[')
			for i := range rv.Len() {
				if i > 0 {
					b.WriteByte(',')
				}
				if err := formatDynamic(b, deref(rv.Index(i).Interface()), true); err != nil {
					return err
				}
			}
			b.WriteByte(']')
			return nil
		default:
			return fmt.Errorf("no canonical form for Dynamic value %T", v)
		}
	}
	n, err := columns.ParseType(name)
	if err != nil {
		return err
	}
	return format(b, n, v, quoted)
}

// formatJSON renders a JSON object as ClickHouse prints the JSON type: compact, keys sorted.
func formatJSON(b *strings.Builder, v any, quoted bool) error {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case []byte:
		s = string(x)
	default:
		out, err := json.Marshal(v) // maps marshal with sorted keys
		if err != nil {
			return fmt.Errorf("JSON value %T: %w", v, err)
		}
		s = string(out)
	}
	writeString(b, s, quoted)
	return nil
}

// typedValue unpacks a value that names its own ClickHouse type: a struct with the fields
// Type string and Value any (columns.VariantValue, columns.DynamicValue).
func typedValue(v any) (typ string, val any, ok bool) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Struct {
		return "", nil, false
	}
	t, val2 := rv.FieldByName("Type"), rv.FieldByName("Value")
	if !t.IsValid() || !val2.IsValid() || t.Kind() != reflect.String || val2.Kind() != reflect.Interface {
		return "", nil, false
	}
	return t.String(), val2.Interface(), true
}
