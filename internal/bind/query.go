package bind

import (
	"database/sql/driver"
	"strconv"
	"strings"

	"github.com/chnative/chnative/internal/sqltext"

	"github.com/chnative/chnative/nativeproto"
)

// Arg is one argument of a query, as database/sql hands it over: positional (Name "") or named.
// Ordinal is its position among all the arguments, from 1 (used in error messages).
type Arg = driver.NamedValue

// Query substitutes the arguments into the query text as ClickHouse literals. Server-side
// {name:Type} parameters take named arguments and are returned in params (name to the rendered
// value, see ParameterValue) when the server's revision allows it (else they are substituted as
// CAST(literal AS Type)). params is nil when no parameter is sent; with no arguments text is the
// query itself.
func Query(query string, args []Arg, rev nativeproto.Revision) (text string, params map[string]string, err error) {
	if len(args) == 0 {
		return query, nil, nil
	}
	var pos []Arg
	named := map[string]Arg{}
	for _, a := range args {
		if a.Name != "" {
			named[a.Name] = a
		} else {
			pos = append(pos, a)
		}
	}
	if len(pos) == 0 && len(named) == 0 {
		return query, nil, nil
	}
	phs := sqltext.Placeholders(query)
	var b strings.Builder
	last := 0
	next := 0
	usedNamed := map[string]bool{}
	maxDollar := 0
	for _, p := range phs {
		var v any
		switch p.Kind {
		case '?':
			if next >= len(pos) {
				return "", nil, bindErr("the query has more ? placeholders than the %d arguments", len(pos))
			}
			v = pos[next].Value
			next++
			p.Index = next
		case '$':
			if p.Index < 1 || p.Index > len(pos) {
				return "", nil, bindErr("$%d has no argument (%d given)", p.Index, len(pos))
			}
			v = pos[p.Index-1].Value
			maxDollar = max(maxDollar, p.Index)
		case '@':
			a, ok := named[p.Name]
			if !ok {
				continue // e.g. an e-mail address in the query: not a placeholder we fill
			}
			usedNamed[p.Name] = true
			v = a.Value
		case '{':
			a, ok := named[p.Name]
			if !ok {
				continue
			}
			usedNamed[p.Name] = true
			if rev.Has(nativeproto.RevParameters) {
				if params == nil {
					params = map[string]string{}
				}
				s, err := ParameterValue(a.Value, p.Type)
				if err != nil {
					return "", nil, bindErr("argument %s: %v", describeArg(p), err)
				}
				params[p.Name] = s
				continue
			}
			v = a.Value
		}
		if !rev.Has(revWideIntegers) {
			v = narrowBigInt(v)
		}
		var lit string
		var err error
		if p.Kind == '{' {
			lit, err = castLiteral(v, p.Type)
		} else {
			lit, err = formatLiteral(v, 0)
		}
		if err != nil {
			return "", nil, bindErr("argument %s: %v", describeArg(p), err)
		}
		b.WriteString(query[last:p.Start])
		// A literal after a minus sign would form "--", a comment: keep them apart.
		if strings.HasSuffix(query[:p.Start], "-") && strings.HasPrefix(lit, "-") {
			b.WriteByte(' ')
		}
		b.WriteString(lit)
		last = p.End
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

// revWideIntegers is a revision every server of which has Int128 and Int256 (ClickHouse 20.8
// added them; 18.16, revision 54412, has none): older ones get 64-bit big integers bare.
const revWideIntegers = nativeproto.RevOpenTelemetry

func describeArg(p sqltext.Placeholder) string {
	switch p.Kind {
	case '$':
		return "$" + strconv.Itoa(p.Index)
	case '@':
		return "@" + p.Name
	case '{':
		return "{" + p.Name + ":" + p.Type + "}"
	}
	if p.Index > 0 {
		return "?" + " #" + strconv.Itoa(p.Index)
	}
	return "?"
}
