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
	index      int    // $N: N
	name       string // @name, {name:Type}
}

// scanPlaceholders finds ?, $N, @name and {name:Type} outside string literals, quoted identifiers
// and comments.
func scanPlaceholders(q string) []placeholder {
	var out []placeholder
	for i := 0; i < len(q); {
		ch := q[i]
		switch {
		case ch == '\'' || ch == '"' || ch == '`':
			i = skipQuoted(q, i)
		case ch == '-' && strings.HasPrefix(q[i:], "--"), ch == '#':
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				return out
			}
			i += j + 1
		case ch == '/' && strings.HasPrefix(q[i:], "/*"):
			j := strings.Index(q[i+2:], "*/")
			if j < 0 {
				return out
			}
			i += j + 4
		case ch == '?':
			out = append(out, placeholder{start: i, end: i + 1, kind: '?'})
			i++
		case ch == '$' && i+1 < len(q) && isDigit(q[i+1]) && (i == 0 || !isIdentChar(q[i-1])):
			j := i + 1
			for j < len(q) && isDigit(q[j]) {
				j++
			}
			n, err := strconv.Atoi(q[i+1 : j])
			if err == nil {
				out = append(out, placeholder{start: i, end: j, kind: '$', index: n})
			}
			i = j
		case ch == '@' && i+1 < len(q) && isIdentStart(q[i+1]) && (i == 0 || !isIdentChar(q[i-1])):
			j := i + 1
			for j < len(q) && isIdentChar(q[j]) {
				j++
			}
			out = append(out, placeholder{start: i, end: j, kind: '@', name: q[i+1 : j]})
			i = j
		case ch == '{':
			j := strings.IndexByte(q[i:], '}')
			if j > 0 {
				inner := q[i+1 : i+j]
				if k := strings.IndexByte(inner, ':'); k > 0 && isIdent(strings.TrimSpace(inner[:k])) {
					out = append(out, placeholder{start: i, end: i + j + 1, kind: '{', name: strings.TrimSpace(inner[:k])})
					i += j + 1
					continue
				}
			}
			i++
		default:
			i++
		}
	}
	return out
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
// revision allows it (else they are substituted as literals).
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
				s, err := parameterValue(a.Value)
				if err != nil {
					return "", nil, err
				}
				opts.parameters[p.name] = s
				continue
			}
			v = a.Value
		}
		lit, err := formatLiteral(v, 0)
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
		return "{" + p.name + "}"
	}
	return "?"
}

// parameterValue renders a server-side query parameter: the value's text form as a quoted Field
// dump.
func parameterValue(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return nativeproto.QuoteParameter(x), nil
	case []byte:
		return nativeproto.QuoteParameter(string(x)), nil
	case time.Time:
		return nativeproto.QuoteParameter(x.UTC().Format("2006-01-02 15:04:05.999999999")), nil
	}
	lit, err := formatLiteral(v, 0)
	if err != nil {
		return "", err
	}
	return nativeproto.QuoteParameter(lit), nil
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
		return x.String(), nil
	case *big.Int:
		if x == nil {
			return "NULL", nil
		}
		return x.String(), nil
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
	case reflect.Float32, reflect.Float64:
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
		var sb strings.Builder
		sb.WriteByte('[')
		for i := 0; i < rv.Len(); i++ {
			if i > 0 {
				sb.WriteString(", ")
			}
			s, err := formatLiteral(rv.Index(i).Interface(), depth+1)
			if err != nil {
				return "", err
			}
			sb.WriteString(s)
		}
		sb.WriteByte(']')
		return sb.String(), nil
	case reflect.Map:
		keys := rv.MapKeys()
		lits := make([][2]string, 0, len(keys))
		for _, k := range keys {
			ks, err := formatLiteral(k.Interface(), depth+1)
			if err != nil {
				return "", err
			}
			vs, err := formatLiteral(rv.MapIndex(k).Interface(), depth+1)
			if err != nil {
				return "", err
			}
			lits = append(lits, [2]string{ks, vs})
		}
		sort.Slice(lits, func(a, b int) bool { return lits[a][0] < lits[b][0] })
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

func formatFloat(f float64, bits int) string {
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

// formatTime writes t as a DateTime (whole seconds) or DateTime64(9) literal in UTC.
func formatTime(t time.Time) string {
	u := t.UTC()
	if u.Nanosecond() == 0 {
		return "toDateTime('" + u.Format("2006-01-02 15:04:05") + "', 'UTC')"
	}
	return "toDateTime64('" + u.Format("2006-01-02 15:04:05.000000000") + "', 9, 'UTC')"
}

// quoteLiteral writes s as a single-quoted ClickHouse string literal. Backslash and quote are
// escaped, and so are control bytes, so no argument can end the literal or start a comment.
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
