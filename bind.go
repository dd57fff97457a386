package chnative

import (
	"database/sql/driver"
	"fmt"
	"math"
	"math/big"
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

// hasPlaceholders reports whether query has client-side placeholders.
func hasPlaceholders(query string) bool {
	for _, p := range scanPlaceholders(query) {
		if p.kind != '{' {
			return true
		}
	}
	return false
}

// bindQuery substitutes the arguments into the query text as ClickHouse literals. Server-side
// {name:Type} parameters take named arguments and are sent as query parameters when the server's
// revision allows it (else they are substituted as CAST(literal AS Type)).
func bindQuery(query string, args []driver.NamedValue, rev nativeproto.Revision) (string, *queryOptions, error) {
	var opts *queryOptions
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
		return query, opts, nil
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
				if opts == nil {
					opts = &queryOptions{}
				}
				if opts.parameters == nil {
					opts.parameters = map[string]string{}
				}
				s, err := parameterValue(a.Value, p.typ)
				if err != nil {
					return "", nil, bindErr("argument %s: %v", describeArg(p), err)
				}
				opts.parameters[p.name] = s
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
	return b.String(), opts, nil
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
	if typ == "Identifier" {
		s, ok := v.(string)
		if !ok {
			return "", fmt.Errorf("an Identifier parameter takes a string, not %T", v)
		}
		return quoteIdentifier(s), nil
	}
	lit, err := formatLiteral(v, 0)
	if err != nil {
		return "", err
	}
	return "CAST(" + lit + " AS " + typ + ")", nil
}

// quoteIdentifier writes s as a back-quoted identifier.
func quoteIdentifier(s string) string {
	q := quoteLiteral(s)
	return "`" + strings.ReplaceAll(q[1:len(q)-1], "`", "\\`") + "`"
}

// parameterValue renders a server-side query parameter: the value's text form, which the server
// reads as an escaped (TabSeparated) field of the parameter's type, sent as a quoted Field dump.
func parameterValue(v any, typ string) (string, error) {
	if typ == "Identifier" {
		s, ok := v.(string)
		if !ok {
			return "", fmt.Errorf("an Identifier parameter takes a string, not %T", v)
		}
		return nativeproto.QuoteParameter(s), nil
	}
	text, err := parameterText(v, typ, 0)
	if err != nil {
		return "", err
	}
	return nativeproto.QuoteParameter(text), nil
}

// parameterText writes v in the escaped text format of type typ.
func parameterText(v any, typ string, depth int) (string, error) {
	if depth > maxLiteralDepth {
		return "", fmt.Errorf("nested more than %d levels", maxLiteralDepth)
	}
	switch x := v.(type) {
	case nil:
		return `\N`, nil
	case string:
		return escapeText(x), nil
	case []byte:
		return escapeText(string(x)), nil
	case time.Time:
		return timeText(x, typ), nil
	case *time.Time:
		if x == nil {
			return `\N`, nil
		}
		return timeText(*x, typ), nil
	case columns.Decimal:
		return x.String(), nil
	case driver.Valuer:
		if rv := reflect.ValueOf(x); rv.Kind() == reflect.Pointer && rv.IsNil() {
			return `\N`, nil
		}
		vv, err := x.Value()
		if err != nil {
			return "", err
		}
		return parameterText(vv, typ, depth+1)
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer:
		if rv.IsNil() {
			return `\N`, nil
		}
		return parameterText(rv.Elem().Interface(), typ, depth+1)
	case reflect.String:
		return escapeText(rv.String()), nil
	}
	return quotedText(v, depth)
}

// quotedText writes v in the quoted text form of arrays and maps elements (also the text form of
// numbers, arrays and maps): like formatLiteral, but times as quoted UTC text and maps as
// {key:value}.
func quotedText(v any, depth int) (string, error) {
	if depth > maxLiteralDepth {
		return "", fmt.Errorf("nested more than %d levels", maxLiteralDepth)
	}
	switch x := v.(type) {
	case time.Time:
		return quoteLiteral(x.UTC().Format("2006-01-02 15:04:05.999999999")), nil
	case []byte, columns.Decimal, *big.Int, driver.Valuer:
		return formatLiteral(v, depth)
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Float32:
		return floatText(rv.Float(), 32), nil
	case reflect.Float64:
		return floatText(rv.Float(), 64), nil
	case reflect.Pointer:
		if rv.IsNil() {
			return "NULL", nil
		}
		return quotedText(rv.Elem().Interface(), depth+1)
	case reflect.Slice, reflect.Array:
		if rv.Type().Elem().Kind() == reflect.Uint8 {
			return formatLiteral(v, depth)
		}
		return listOf(rv, depth, quotedText, ",")
	case reflect.Map:
		lits, err := mapEntries(rv, depth, quotedText)
		if err != nil {
			return "", err
		}
		var sb strings.Builder
		sb.WriteByte('{')
		for i, kv := range lits {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(kv[0])
			sb.WriteByte(':')
			sb.WriteString(kv[1])
		}
		sb.WriteByte('}')
		return sb.String(), nil
	}
	return formatLiteral(v, depth)
}

// timeText writes t for a parameter of type typ: a Unix timestamp for DateTime and DateTime64
// (their text parsers take one, and it does not depend on the server's time zone), the date in
// t's location for Date and Date32, else UTC text.
func timeText(t time.Time, typ string) string {
	base := strings.TrimSpace(typ)
	for _, w := range []string{"Nullable(", "LowCardinality("} {
		base = strings.TrimPrefix(base, w)
	}
	switch {
	case strings.HasPrefix(base, "DateTime"):
		s := strconv.FormatInt(t.Unix(), 10)
		if ns := t.Nanosecond(); ns != 0 {
			if t.Unix() < 0 {
				// The fraction adds to the (negative) seconds: keep both parts as written.
				return t.UTC().Format("2006-01-02 15:04:05.000000000")
			}
			s += "." + fmt.Sprintf("%09d", ns)
		}
		return s
	case strings.HasPrefix(base, "Date"):
		return t.Format("2006-01-02")
	}
	return escapeText(t.UTC().Format("2006-01-02 15:04:05.999999999"))
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
	u := t.UTC()
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
