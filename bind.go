package chnative

import (
	"database/sql/driver"
	"encoding"
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
	"github.com/chnative/chnative/nativeproto"
)

// BindError reports arguments that do not match a query's placeholders or cannot be written as
// ClickHouse literals.
type BindError struct {
	Msg string
}

func (e *BindError) Error() string { return "chnative: binding arguments: " + e.Msg }

func bindErr(format string, args ...any) error { return &BindError{Msg: fmt.Sprintf(format, args...)} }

// placeholder is one placeholder found in a query.
type placeholder struct {
	start, end int    // byte range in the query
	kind       byte   // '?', '$', '@', '{'
	index      int    // $N: N; ?: its position, from 1
	name       string // @name, {name:Type}
	typ        string // {name:Type}: Type
}

// scanPlaceholders finds ?, $N, @name and {name:Type} outside string literals, quoted identifiers
// and comments. It follows the ClickHouse lexer conservatively: whatever a server (old or new)
// may read as a literal, identifier or comment is skipped, so no argument is ever substituted
// where its text could change the meaning of the surrounding token.
func scanPlaceholders(q string) []placeholder {
	var out []placeholder
	for i := 0; i < len(q); {
		ch := q[i]
		switch {
		case ch == '\'' || ch == '"' || ch == '`':
			i = skipQuoted(q, i)
		case ch == '\xe2' && (strings.HasPrefix(q[i:], "\u2018") || strings.HasPrefix(q[i:], "\u201c")):
			// ‘string’ and “identifier”: Unicode quotes, no escapes (newer servers).
			closing := "\u2019"
			if q[i+2] == '\x9c' {
				closing = "\u201d"
			}
			j := strings.Index(q[i+3:], closing)
			if j < 0 {
				return out
			}
			i += 3 + j + len(closing)
		case ch == '-' && strings.HasPrefix(q[i:], "--"), ch == '#', ch == '/' && strings.HasPrefix(q[i:], "//"):
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				return out
			}
			i += j + 1
		case ch == '/' && strings.HasPrefix(q[i:], "/*"):
			// Newer servers nest block comments; reading them nested is the cautious choice for
			// older ones too (it can only hide placeholders, never expose a comment's text).
			j := skipBlockComment(q, i)
			if j < 0 {
				return out
			}
			i = j
		case ch == '$' && (i == 0 || !isWordChar(q[i-1])):
			if j := skipHeredoc(q, i); j > 0 {
				i = j
				continue
			}
			j := i + 1
			for j < len(q) && isDigit(q[j]) {
				j++
			}
			if j > i+1 {
				if n, err := strconv.Atoi(q[i+1 : j]); err == nil {
					out = append(out, placeholder{start: i, end: j, kind: '$', index: n})
				}
			}
			i = j
		case ch == '?':
			out = append(out, placeholder{start: i, end: i + 1, kind: '?'})
			i++
		case ch == '@' && i+1 < len(q) && isIdentStart(q[i+1]) && (i == 0 || !isWordChar(q[i-1])):
			j := i + 1
			for j < len(q) && isIdentChar(q[j]) {
				j++
			}
			out = append(out, placeholder{start: i, end: j, kind: '@', name: q[i+1 : j]})
			i = j
		case ch == '{':
			if p, ok := scanParameter(q, i); ok {
				out = append(out, p)
				i = p.end
				continue
			}
			i++
		default:
			i++
		}
	}
	return out
}

// scanParameter reads a server-side parameter {name:Type} at q[i] == '{'. The type may hold
// quoted strings (Enum8('a}' = 1)) and parentheses.
func scanParameter(q string, i int) (placeholder, bool) {
	k := strings.IndexByte(q[i:], ':')
	if k < 0 {
		return placeholder{}, false
	}
	name := strings.TrimSpace(q[i+1 : i+k])
	if !isIdent(name) {
		return placeholder{}, false
	}
	for j := i + k + 1; j < len(q); {
		switch q[j] {
		case '\'', '"', '`':
			j = skipQuoted(q, j)
		case '{':
			return placeholder{}, false
		case '}':
			typ := strings.TrimSpace(q[i+k+1 : j])
			if typ == "" {
				return placeholder{}, false
			}
			return placeholder{start: i, end: j + 1, kind: '{', name: name, typ: typ}, true
		default:
			j++
		}
	}
	return placeholder{}, false
}

// skipBlockComment returns the index after the (nested) block comment starting at q[i:i+2] ==
// "/*", or -1 when it is not closed.
func skipBlockComment(q string, i int) int {
	depth := 1
	for j := i + 2; j+1 < len(q); {
		switch {
		case q[j] == '/' && q[j+1] == '*':
			depth++
			j += 2
		case q[j] == '*' && q[j+1] == '/':
			depth--
			j += 2
			if depth == 0 {
				return j
			}
		default:
			j++
		}
	}
	return -1
}

// skipHeredoc returns the index after a heredoc string $$...$$ or $tag$...$tag$ starting at
// q[i] == '$', or 0 when there is none. Tags are identifiers, so $1 ... $1 is not a heredoc.
func skipHeredoc(q string, i int) int {
	j := i + 1
	if j < len(q) && isIdentStart(q[j]) {
		for j < len(q) && isIdentChar(q[j]) {
			j++
		}
	}
	if j >= len(q) || q[j] != '$' {
		return 0
	}
	tag := q[i : j+1]
	k := strings.Index(q[j+1:], tag)
	if k < 0 {
		return 0
	}
	return j + 1 + k + len(tag)
}

// skipQuoted returns the index after the quoted literal or identifier starting at i (backslash
// escapes and doubled quotes both handled); the end of the string when it is unterminated.
func skipQuoted(q string, i int) int {
	quote := q[i]
	for j := i + 1; j < len(q); j++ {
		switch q[j] {
		case '\\':
			j++
		case quote:
			if j+1 < len(q) && q[j+1] == quote {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(q)
}

func isDigit(c byte) bool      { return c >= '0' && c <= '9' }
func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isIdentChar(c byte) bool  { return isIdentStart(c) || isDigit(c) }

// isWordChar reports whether c continues a bare word for the ClickHouse lexer ($ included).
func isWordChar(c byte) bool { return isIdentChar(c) || c == '$' }
func isIdent(s string) bool {
	if s == "" || !isIdentStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isIdentChar(s[i]) {
			return false
		}
	}
	return true
}

// hasPlaceholders reports whether query has placeholders that take arguments: ?, $N, @name, and
// server-side {name:Type} too (sql.Named arguments fill them), so that the arguments of INSERT
// ... SELECT {name:Type} are not taken for a row to insert.
func hasPlaceholders(query string) bool {
	return len(scanPlaceholders(query)) > 0
}

// bindQuery substitutes the arguments into the query text as ClickHouse literals. Server-side
// {name:Type} parameters take named arguments and are sent as query parameters when the server's
// revision allows it (else they are substituted as CAST(literal AS Type)).
func bindQuery(query string, args []driver.NamedValue, rev nativeproto.Revision) (string, map[string]string, error) {
	var params map[string]string
	var pos []driver.NamedValue
	named := map[string]driver.NamedValue{}
	for _, a := range args {
		if a.Name != "" {
			named[a.Name] = a
		} else {
			pos = append(pos, a)
		}
	}
	if len(pos) == 0 && len(named) == 0 {
		return query, params, nil
	}
	phs := scanPlaceholders(query)
	var b strings.Builder
	last := 0
	next := 0
	usedNamed := map[string]bool{}
	maxDollar := 0
	for _, p := range phs {
		var v any
		switch p.kind {
		case '?':
			if next >= len(pos) {
				return "", nil, bindErr("the query has more ? placeholders than the %d arguments", len(pos))
			}
			v = pos[next].Value
			next++
			p.index = next
		case '$':
			if p.index < 1 || p.index > len(pos) {
				return "", nil, bindErr("$%d has no argument (%d given)", p.index, len(pos))
			}
			v = pos[p.index-1].Value
			maxDollar = max(maxDollar, p.index)
		case '@':
			a, ok := named[p.name]
			if !ok {
				continue // e.g. an e-mail address in the query: not a placeholder we fill
			}
			usedNamed[p.name] = true
			v = a.Value
		case '{':
			a, ok := named[p.name]
			if !ok {
				continue
			}
			usedNamed[p.name] = true
			if rev.Has(nativeproto.RevParameters) {
				if params == nil {
					params = map[string]string{}
				}
				s, err := parameterValue(a.Value, p.typ)
				if err != nil {
					return "", nil, bindErr("argument %s: %v", describeArg(p), err)
				}
				params[p.name] = s
				continue
			}
			v = a.Value
		}
		var lit string
		var err error
		if p.kind == '{' {
			lit, err = castLiteral(v, p.typ)
		} else {
			lit, err = formatLiteral(v, 0)
		}
		if err != nil {
			return "", nil, bindErr("argument %s: %v", describeArg(p), err)
		}
		b.WriteString(query[last:p.start])
		// A literal after a minus sign would form "--", a comment: keep them apart.
		if strings.HasSuffix(query[:p.start], "-") && strings.HasPrefix(lit, "-") {
			b.WriteByte(' ')
		}
		b.WriteString(lit)
		last = p.end
	}
	b.WriteString(query[last:])
	if next > 0 && maxDollar > 0 {
		return "", nil, bindErr("the query mixes ? and $N placeholders")
	}
	used := max(next, maxDollar)
	if used != len(pos) {
		return "", nil, bindErr("the query uses %d positional arguments, %d given", used, len(pos))
	}
	for n := range named {
		if !usedNamed[n] {
			return "", nil, bindErr("named argument %q has no @%s or {%s:Type} placeholder", n, n, n)
		}
	}
	return b.String(), params, nil
}

func describeArg(p placeholder) string {
	switch p.kind {
	case '$':
		return "$" + strconv.Itoa(p.index)
	case '@':
		return "@" + p.name
	case '{':
		return "{" + p.name + ":" + p.typ + "}"
	}
	if p.index > 0 {
		return "?" + " #" + strconv.Itoa(p.index)
	}
	return "?"
}

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
		return "CAST(" + quoteLiteral(unescapeText(string(t))) + " AS " + typ + ")", nil
	}
	if typ == "Identifier" {
		s, ok := v.(string)
		if !ok {
			return "", fmt.Errorf("an Identifier parameter takes a string, not %T", v)
		}
		return quoteIdentifier(s), nil
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
			return quoteLiteral(epochIfZero(t).Format("2006-01-02")), nil
		}
	case "UUID", "IPv4", "IPv6":
		s, err := textOf(v, n.Name)
		if err != nil {
			return "", err
		}
		return quoteLiteral(s), nil
	case "Enum8", "Enum16":
		s, err := enumText(n, v)
		if err != nil {
			return "", err
		}
		return quoteLiteral(s), nil
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

// quoteIdentifier writes s as a back-quoted identifier.
func quoteIdentifier(s string) string {
	q := quoteLiteral(s)
	return "`" + strings.ReplaceAll(q[1:len(q)-1], "`", "\\`") + "`"
}

// ParameterText is a query parameter's value given as the text the server parses for it (its
// Escaped, TabSeparated form: \n is a newline, \\ a backslash, \N NULL; ['a', 'b'] an Array), sent
// as it is. clickhouse-go's WithParameters(clickhouse.Parameters{...}) takes its values so; other
// values given to WithParameters or sql.Named are rendered for the placeholder's type (a string is
// the string itself, escaped by the driver). Port clickhouse.Parameters{"s": `line 1\nline 2`}
// as map[string]any{"s": chnative.ParameterText(`line 1\nline 2`)}, or write the value itself,
// "line 1\nline 2". On servers without query parameters (sql.Named there becomes a CAST literal)
// the text is unescaped and CAST to the type.
type ParameterText string

// parameterValue renders a server-side query parameter: the value's text form (see
// parameterText), sent as a quoted Field dump (the server unquotes the dump once, then parses the
// text).
func parameterValue(v any, typ string) (string, error) {
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

// intervalUnits are the lengths of the Interval kinds a time.Duration can count.
var intervalUnits = map[string]time.Duration{
	"IntervalNanosecond": time.Nanosecond, "IntervalMicrosecond": time.Microsecond,
	"IntervalMillisecond": time.Millisecond, "IntervalSecond": time.Second, "IntervalMinute": time.Minute,
	"IntervalHour": time.Hour, "IntervalDay": 24 * time.Hour, "IntervalWeek": 7 * 24 * time.Hour,
}

// derefParam follows pointers and driver.Valuer values (nil pointers and nil values are NULL);
// values this file renders itself are kept, and so is a pointer whose String or MarshalText
// method (a pointer receiver) its element does not have: its text is the value's.
func derefParam(v any) (any, error) {
	for range maxLiteralDepth {
		switch x := v.(type) {
		case nil:
			return nil, nil
		case time.Time, columns.Decimal, *big.Int, big.Int:
			return v, nil
		case driver.Valuer:
			if rv := reflect.ValueOf(x); rv.Kind() == reflect.Pointer && rv.IsNil() {
				return nil, nil
			}
			vv, err := x.Value()
			if err != nil {
				return nil, err
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
		b.WriteString(quoteLiteral(s))
	} else {
		b.WriteString(escapeText(s))
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

// epochIfZero returns the epoch for the zero time.Time, which the Date and time columns store as
// 0 (as clickhouse-go does), so that a parameter or literal of it means what a column of it holds.
func epochIfZero(t time.Time) time.Time {
	if t.IsZero() {
		return time.Unix(0, 0).UTC()
	}
	return t
}

// dateTimeText writes t for DateTime or DateTime64 (see parameterText).
func dateTimeText(t time.Time, n *columns.TypeNode) string {
	t = epochIfZero(t)
	sec, ns := t.Unix(), t.Nanosecond()
	if n.Name == "DateTime" || ns == 0 {
		if sec < 0 {
			return "-" + fmt.Sprintf("%010d", -sec)
		}
		return fmt.Sprintf("%010d", sec)
	}
	if sec >= 0 {
		return fmt.Sprintf("%010d.%09d", sec, ns)
	}
	// t = sec + ns/1e9 with sec < 0: its magnitude is (-sec-1) + (1e9-ns)/1e9.
	if mag := -sec - 1; mag > 0 {
		return fmt.Sprintf("-%010d.%09d", mag, 1e9-ns)
	}
	loc := time.UTC
	if len(n.Args) > 1 && n.Args[1].Kind == columns.ArgString {
		if l, err := time.LoadLocation(n.Args[1].String); err == nil {
			loc = l
		}
	}
	return t.In(loc).Format("2006-01-02 15:04:05.000000000")
}

// durationText writes d as Time/Time64 text: [-]h:mm:ss[.fffffffff].
func durationText(d time.Duration) string {
	sign := ""
	u := uint64(d)
	if d < 0 {
		sign, u = "-", uint64(-d) // -MinInt64 wraps to its magnitude as uint64
	}
	sec, frac := u/1e9, u%1e9
	s := fmt.Sprintf("%s%02d:%02d:%02d", sign, sec/3600, sec/60%60, sec%60)
	if frac != 0 {
		s += fmt.Sprintf(".%09d", frac)
	}
	return s
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

// writeListParam appends a slice or array as [e1,e2]; a string is the list's text.
func writeListParam(b *strings.Builder, n *columns.TypeNode, v any, depth int) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.String {
		b.WriteString(escapeText(rv.String()))
		return nil
	}
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return fmt.Errorf("cannot write %T as %s", v, n.Name)
	}
	elem := elemOf(n)
	b.WriteByte('[')
	for i := range rv.Len() {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := writeParam(b, elem, rv.Index(i).Interface(), true, depth+1); err != nil {
			return err
		}
	}
	b.WriteByte(']')
	return nil
}

// writeTupleParam appends a tuple as (e1,e2) (see tupleItems); a string is the tuple's text.
func writeTupleParam(b *strings.Builder, n *columns.TypeNode, v any, depth int) error {
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.String {
		b.WriteString(escapeText(rv.String()))
		return nil
	}
	items, elems, err := tupleItems(n, v)
	if err != nil {
		return err
	}
	b.WriteByte('(')
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := writeParam(b, elems[i].Type, it, true, depth+1); err != nil {
			return err
		}
	}
	b.WriteByte(')')
	return nil
}

// tupleItems returns the elements of a tuple value of type n (Tuple or Point) and the element
// types: a slice or array, a struct (exported fields in order), or for a named tuple a
// map[string]any (by element name).
func tupleItems(n *columns.TypeNode, v any) ([]any, []columns.TypeArg, error) {
	elems := n.Args
	if n.Name == "Point" {
		f := columns.TypeArg{Kind: columns.ArgType, Type: &columns.TypeNode{Name: "Float64"}}
		elems = []columns.TypeArg{f, f}
	}
	var items []any
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		for i := range rv.Len() {
			items = append(items, rv.Index(i).Interface())
		}
	case reflect.Struct:
		for i := range rv.NumField() {
			if rv.Type().Field(i).IsExported() {
				items = append(items, rv.Field(i).Interface())
			}
		}
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return nil, nil, fmt.Errorf("cannot write %T as a tuple", v)
		}
		for _, e := range elems {
			if e.Field == "" {
				return nil, nil, fmt.Errorf("a map (%T) needs a tuple with named elements", v)
			}
			x := rv.MapIndex(reflect.ValueOf(e.Field).Convert(rv.Type().Key()))
			if !x.IsValid() {
				return nil, nil, fmt.Errorf("map %T has no element %q of the tuple", v, e.Field)
			}
			items = append(items, x.Interface())
		}
		if rv.Len() != len(elems) {
			return nil, nil, fmt.Errorf("map %T has %d keys for a tuple of %d elements", v, rv.Len(), len(elems))
		}
	default:
		return nil, nil, fmt.Errorf("cannot write %T as a tuple", v)
	}
	if len(items) != len(elems) {
		return nil, nil, fmt.Errorf("%d values for a tuple of %d elements", len(items), len(elems))
	}
	return items, elems, nil
}

// writeMapParam appends a Go map as {k:v,...}, entries sorted by key text; a string is the map's
// text.
func writeMapParam(b *strings.Builder, kt, vt *columns.TypeNode, v any, depth int) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.String {
		b.WriteString(escapeText(rv.String()))
		return nil
	}
	if rv.Kind() != reflect.Map {
		return fmt.Errorf("cannot write %T as a map", v)
	}
	entries := make([][2]string, 0, rv.Len())
	for it := rv.MapRange(); it.Next(); {
		var kb, vb strings.Builder
		if err := writeParam(&kb, kt, it.Key().Interface(), true, depth+1); err != nil {
			return err
		}
		if err := writeParam(&vb, vt, it.Value().Interface(), true, depth+1); err != nil {
			return err
		}
		entries = append(entries, [2]string{kb.String(), vb.String()})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i][0] < entries[j][0] })
	b.WriteByte('{')
	for i, e := range entries {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(e[0])
		b.WriteByte(':')
		b.WriteString(e[1])
	}
	b.WriteByte('}')
	return nil
}

// writeKindParam appends v by its Go kind, for types without a rule of their own (Variant,
// Dynamic, a type name that does not parse): strings and times as text (quoted inside
// composites), numbers, bools as true/false, slices as arrays, maps as maps.
func writeKindParam(b *strings.Builder, v any, quoted bool, depth int) error {
	switch x := v.(type) {
	case string, []byte:
		return writeTextParam(b, v, quoted)
	case time.Time:
		writeQuotable(b, x.UTC().Format("2006-01-02 15:04:05.999999999"), quoted)
		return nil
	case columns.Decimal, *big.Int, big.Int:
		return writeNumber(b, v)
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Bool:
		b.WriteString(strconv.FormatBool(rv.Bool()))
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8,
		reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return writeNumber(b, v)
	case reflect.String:
		return writeTextParam(b, v, quoted)
	case reflect.Slice, reflect.Array:
		if rv.Type().Elem().Kind() == reflect.Uint8 {
			return writeTextParam(b, v, quoted)
		}
		b.WriteByte('[')
		for i := range rv.Len() {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeParam(b, nil, rv.Index(i).Interface(), true, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	case reflect.Map:
		return writeMapParam(b, nil, nil, v, depth)
	}
	return fmt.Errorf("cannot write %T as a query parameter", v)
}

// escapeText escapes s as a TabSeparated field: backslash, tab, newline and the other control
// bytes the format escapes.
func escapeText(s string) string {
	if !strings.ContainsAny(s, "\\\t\n\r\x00\b\f\v") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			b.WriteString(`\\`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case 0:
			b.WriteString(`\0`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\v':
			b.WriteString(`\v`)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// unescapeText undoes escapeText: the TabSeparated escapes \b \f \n \r \t \0 \v, and a backslash
// before any other byte stands for that byte (\\ is a backslash, \' a quote).
func unescapeText(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch c = s[i]; c {
		case 'b':
			c = '\b'
		case 'f':
			c = '\f'
		case 'n':
			c = '\n'
		case 'r':
			c = '\r'
		case 't':
			c = '\t'
		case '0':
			c = 0
		case 'v':
			c = '\v'
		}
		b.WriteByte(c)
	}
	return b.String()
}

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
		return quoteLiteral(x), nil
	case []byte:
		return quoteLiteral(string(x)), nil
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
	case driver.Valuer:
		if rv := reflect.ValueOf(x); rv.Kind() == reflect.Pointer && rv.IsNil() {
			return "NULL", nil
		}
		vv, err := x.Value()
		if err != nil {
			return "", err
		}
		return formatLiteral(vv, depth+1)
	}
	if s, ok, err := interfaceText(v); ok || err != nil {
		if err != nil {
			return "", err
		}
		return quoteLiteral(s), nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer:
		if rv.IsNil() {
			return "NULL", nil
		}
		return formatLiteral(rv.Elem().Interface(), depth+1)
	case reflect.String:
		return quoteLiteral(rv.String()), nil
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
			return quoteLiteral(string(b)), nil
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
		return "toDecimal128(" + quoteLiteral(s) + ", " + strconv.Itoa(scale) + ")", nil
	case digits <= 76 && scale <= 76:
		return "toDecimal256(" + quoteLiteral(s) + ", " + strconv.Itoa(scale) + ")", nil
	}
	return "", fmt.Errorf("decimal %s has more than 76 digits", s)
}

// formatBigInt writes x as an integer literal when it fits in 64 bits, else as a 128- or 256-bit
// integer (a longer literal would be read as a Float64, losing digits).
func formatBigInt(x *big.Int) (string, error) {
	if x.IsInt64() || x.IsUint64() {
		return x.String(), nil
	}
	n := x.BitLen()
	switch {
	case x.Sign() > 0 && n <= 128:
		return "toUInt128(" + quoteLiteral(x.String()) + ")", nil
	case x.Sign() > 0 && n <= 256:
		return "toUInt256(" + quoteLiteral(x.String()) + ")", nil
	case x.Sign() < 0 && n <= 127, x.Sign() < 0 && n == 128 && new(big.Int).Neg(x).TrailingZeroBits() == 127:
		return "toInt128(" + quoteLiteral(x.String()) + ")", nil
	case x.Sign() < 0 && (n <= 255 || n == 256 && new(big.Int).Neg(x).TrailingZeroBits() == 255):
		return "toInt256(" + quoteLiteral(x.String()) + ")", nil
	}
	return "", fmt.Errorf("integer %s does not fit in 256 bits", x)
}

// formatTime writes t as a DateTime (whole seconds in its range) or DateTime64(9) literal in UTC.
func formatTime(t time.Time) string {
	u := epochIfZero(t).UTC()
	if u.Nanosecond() == 0 && u.Unix() >= 0 && u.Unix() <= math.MaxUint32 {
		return "toDateTime('" + u.Format("2006-01-02 15:04:05") + "', 'UTC')"
	}
	return "toDateTime64('" + u.Format("2006-01-02 15:04:05.000000000") + "', 9, 'UTC')"
}

// quoteLiteral writes s as a single-quoted ClickHouse string literal. Backslash and quote are
// escaped, and so are control bytes and $, so no argument can end the literal or start a comment
// or heredoc.
func quoteLiteral(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			b.WriteString(`\\`)
		case '\'':
			b.WriteString(`\'`)
		case 0:
			b.WriteString(`\0`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '$':
			// Never let an argument close a heredoc ($$...$$) the server might see.
			b.WriteString(`\x24`)
		default:
			if c < 0x20 || c == 0x7f {
				fmt.Fprintf(&b, `\x%02x`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('\'')
	return b.String()
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
