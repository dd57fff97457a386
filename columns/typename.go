package columns

import (
	"fmt"
	"strings"

	"github.com/chnative/chnative/internal/sqltext"
)

// Limits enforced by ParseType.
const (
	// MaxTypeNameLength is the longest type name, in bytes, that ParseType
	// accepts.
	MaxTypeNameLength = 1 << 20
	// MaxTypeDepth is the deepest nesting of types that ParseType accepts;
	// a type without arguments is depth 1, Array(UInt8) is depth 2.
	MaxTypeDepth = 128
)

// TypeNode is one parsed ClickHouse type name, such as
// "Array(Nullable(String))" or "DateTime64(3, 'UTC')".
type TypeNode struct {
	// Name is the type name as written, e.g. "Array", "Tuple", "UInt8".
	Name string
	// Args holds the parenthesized arguments. It is nil when the type has
	// no parentheses and non-nil but empty for "Name()" (e.g. "Tuple()").
	Args []TypeArg
}

// ArgKind says which kind of argument a TypeArg holds.
type ArgKind uint8

const (
	// ArgType is a nested type in Type. Field is the element name for
	// named Tuple/Nested elements and JSON typed paths ("a UInt8"), and ""
	// for unnamed elements. A JSON path written a.b or `a`.b is stored
	// joined with dots ("a.b").
	ArgType ArgKind = iota + 1
	// ArgNumber is a numeric literal in Number, as written ("18", "-3",
	// "0.5", "1e3").
	ArgNumber
	// ArgString is a single-quoted string literal in String, unescaped
	// (time zones, Object('json')).
	ArgString
	// ArgEnum is an enum element 'name' = value: the unescaped name is in
	// String and the numeric value, as written, in Number.
	ArgEnum
	// ArgRaw is any other argument, kept verbatim (trimmed) in Raw: the
	// aggregate function of AggregateFunction/SimpleAggregateFunction
	// ("sum", "quantiles(0.5, 0.9)"), settings such as "max_types=10", and
	// JSON "SKIP a.c" / "SKIP REGEXP 'x.*'" clauses.
	ArgRaw
)

// String returns the name of the kind.
func (k ArgKind) String() string {
	switch k {
	case ArgType:
		return "type"
	case ArgNumber:
		return "number"
	case ArgString:
		return "string"
	case ArgEnum:
		return "enum"
	case ArgRaw:
		return "raw"
	}
	return fmt.Sprintf("ArgKind(%d)", uint8(k))
}

// TypeArg is one argument of a TypeNode. Kind says which fields are set;
// the others are zero.
type TypeArg struct {
	Kind   ArgKind
	Type   *TypeNode // ArgType
	Field  string    // ArgType: element name or JSON path; "" if unnamed
	Number string    // ArgNumber, ArgEnum (value)
	String string    // ArgString, ArgEnum (name)
	Raw    string    // ArgRaw
}

// TypeError reports a malformed type name.
type TypeError struct {
	Type string // the input, truncated if long
	Pos  int    // byte offset in the input where the problem was found
	Msg  string
}

func (e *TypeError) Error() string {
	return fmt.Sprintf("columns: bad type name %q at offset %d: %s", e.Type, e.Pos, e.Msg)
}

const tnErrTypeMax = 200

// ParseType parses a ClickHouse type name as sent by the server in block
// headers. Whitespace between tokens is ignored. Errors are *TypeError.
//
// An argument of the form `ident Type` (identifier or backquoted name,
// whitespace, type) is a named element (Field set), so
// Tuple(a Nullable(String)) has an element named "a", while
// Tuple(Nullable(String)) has an unnamed one. Inside JSON(...) the element
// name may be a dotted path.
func ParseType(s string) (*TypeNode, error) {
	p := &tnParser{s: s}
	if len(s) > MaxTypeNameLength {
		return nil, p.errf(0, "type name is %d bytes, longer than the limit of %d", len(s), MaxTypeNameLength)
	}
	p.skipSpace()
	n, err := p.parseType(1)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos < len(s) {
		return nil, p.errf(p.pos, "unexpected %s after type", p.describe(p.pos))
	}
	return n, nil
}

// String returns the canonical form of the type as ClickHouse prints it:
// arguments separated by ", ", enum elements as 'name' = value, strings
// single-quoted with backslash escapes, names that need quoting
// backquoted. Raw arguments are written as they were parsed.
func (n *TypeNode) String() string {
	var b strings.Builder
	n.write(&b)
	return b.String()
}

// Equal reports whether n and m are the same tree. A nil Args and an
// empty one differ ("Tuple" vs "Tuple()").
func (n *TypeNode) Equal(m *TypeNode) bool {
	if n == nil || m == nil {
		return n == m
	}
	if n.Name != m.Name || len(n.Args) != len(m.Args) || (n.Args == nil) != (m.Args == nil) {
		return false
	}
	for i := range n.Args {
		a, b := &n.Args[i], &m.Args[i]
		if a.Kind != b.Kind || a.Field != b.Field || a.Number != b.Number ||
			a.String != b.String || a.Raw != b.Raw || !a.Type.Equal(b.Type) {
			return false
		}
	}
	return true
}

func (n *TypeNode) write(b *strings.Builder) {
	if n == nil {
		return
	}
	if tnIsIdent(n.Name) {
		b.WriteString(n.Name)
	} else {
		tnWriteQuoted(b, n.Name, '`')
	}
	if n.Args == nil {
		return
	}
	json := tnIsJSON(n.Name)
	b.WriteByte('(')
	for i := range n.Args {
		if i > 0 {
			b.WriteString(", ")
		}
		a := &n.Args[i]
		switch a.Kind {
		case ArgType:
			if a.Field != "" {
				if tnFieldNeedsQuote(a.Field, json) {
					tnWriteQuoted(b, a.Field, '`')
				} else {
					b.WriteString(a.Field)
				}
				b.WriteByte(' ')
			}
			a.Type.write(b)
		case ArgNumber:
			b.WriteString(a.Number)
		case ArgString:
			tnWriteQuoted(b, a.String, '\'')
		case ArgEnum:
			tnWriteQuoted(b, a.String, '\'')
			b.WriteString(" = ")
			b.WriteString(a.Number)
		case ArgRaw:
			b.WriteString(a.Raw)
		}
	}
	b.WriteByte(')')
}

// tnParser is a recursive-descent parser over a type name.
type tnParser struct {
	s   string
	pos int
}

func (p *tnParser) errf(pos int, format string, args ...any) error {
	t := p.s
	if len(t) > tnErrTypeMax {
		t = t[:tnErrTypeMax] + "..."
	}
	return &TypeError{Type: t, Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// describe names the byte at pos for error messages.
func (p *tnParser) describe(pos int) string {
	if pos >= len(p.s) {
		return "end of input"
	}
	return fmt.Sprintf("%q", p.s[pos])
}

func tnIsSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// The identifier rule is the SQL lexer's (internal/sqltext).
func tnIsIdentStart(c byte) bool { return sqltext.IsIdentStart(c) }

func tnIsIdentChar(c byte) bool { return sqltext.IsIdentChar(c) }

func tnIsDigit(c byte) bool { return '0' <= c && c <= '9' }

// tnIsIdent reports whether s can be written without backquotes.
func tnIsIdent(s string) bool { return sqltext.IsIdent(s) }

// tnFieldNeedsQuote mirrors ClickHouse's backQuoteIfNeed for element names,
// plus JSON's rule that a path named SKIP is always quoted.
func tnFieldNeedsQuote(s string, json bool) bool {
	if !tnIsIdent(s) {
		return true
	}
	switch strings.ToLower(s) {
	case "null", "distinct", "all", "table", "select":
		return true
	case "skip":
		return json
	}
	return false
}

func tnIsJSON(name string) bool { return strings.EqualFold(name, "JSON") }

func tnIsAggregate(name string) bool {
	return name == "AggregateFunction" || name == "SimpleAggregateFunction"
}

func (p *tnParser) skipSpace() int {
	start := p.pos
	for p.pos < len(p.s) && tnIsSpace(p.s[p.pos]) {
		p.pos++
	}
	return p.pos - start
}

func (p *tnParser) peek() (byte, bool) {
	if p.pos < len(p.s) {
		return p.s[p.pos], true
	}
	return 0, false
}

// parseType parses a type name with optional arguments at p.pos.
func (p *tnParser) parseType(depth int) (*TypeNode, error) {
	start := p.pos
	name, _, err := p.ident("type name")
	if err != nil {
		return nil, err
	}
	return p.typeRest(name, start, depth)
}

// typeRest finishes a type whose name has been read.
func (p *tnParser) typeRest(name string, start, depth int) (*TypeNode, error) {
	if depth > MaxTypeDepth {
		return nil, p.errf(start, "type nesting deeper than the limit of %d", MaxTypeDepth)
	}
	n := &TypeNode{Name: name}
	save := p.pos
	p.skipSpace()
	if c, ok := p.peek(); !ok || c != '(' {
		p.pos = save
		return n, nil
	}
	open := p.pos
	p.pos++
	n.Args = []TypeArg{}
	p.skipSpace()
	if c, ok := p.peek(); ok && c == ')' {
		p.pos++
		return n, nil
	}
	for {
		a, err := p.parseArg(n, open, depth)
		if err != nil {
			return nil, err
		}
		n.Args = append(n.Args, a)
		p.skipSpace()
		c, ok := p.peek()
		switch {
		case !ok:
			return nil, p.errf(p.pos, "unclosed '(' opened at offset %d", open)
		case c == ')':
			p.pos++
			return n, nil
		case c == ',':
			p.pos++
		default:
			return nil, p.errf(p.pos, "expected ',' or ')' in arguments of %s, found %s", name, p.describe(p.pos))
		}
	}
}

// parseArg parses one argument of parent, starting at p.pos (before any
// whitespace). open is the offset of the parent's '('.
func (p *tnParser) parseArg(parent *TypeNode, open, depth int) (TypeArg, error) {
	p.skipSpace()
	start := p.pos
	c, ok := p.peek()
	if !ok {
		return TypeArg{}, p.errf(p.pos, "unclosed '(' opened at offset %d", open)
	}
	if c == ',' || c == ')' {
		return TypeArg{}, p.errf(p.pos, "empty argument in %s", parent.Name)
	}
	idx := len(parent.Args)
	number := c == '-' || c == '+' || c == '.' || tnIsDigit(c)
	if tnIsAggregate(parent.Name) &&
		((idx == 0 && !number) || (idx == 1 && parent.Args[0].Kind == ArgNumber)) {
		return p.rawArg(start, open)
	}
	switch {
	case number:
		num, err := p.number()
		if err != nil {
			return TypeArg{}, err
		}
		return TypeArg{Kind: ArgNumber, Number: num}, nil
	case c == '\'':
		str, err := p.quoted()
		if err != nil {
			return TypeArg{}, err
		}
		save := p.pos
		p.skipSpace()
		if c, ok := p.peek(); ok && c == '=' {
			p.pos++
			p.skipSpace()
			num, err := p.number()
			if err != nil {
				return TypeArg{}, err
			}
			return TypeArg{Kind: ArgEnum, String: str, Number: num}, nil
		}
		p.pos = save
		return TypeArg{Kind: ArgString, String: str}, nil
	case c == '`' || tnIsIdentStart(c):
		return p.identArg(parent, start, open, depth)
	}
	return TypeArg{}, p.errf(p.pos, "unexpected %s in arguments of %s", p.describe(p.pos), parent.Name)
}

// identArg parses an argument that starts with an identifier: a type, a
// named element, a setting (name=value) or a JSON SKIP clause.
func (p *tnParser) identArg(parent *TypeNode, start, open, depth int) (TypeArg, error) {
	json := tnIsJSON(parent.Name)
	var name string
	var bare, dotted bool
	var err error
	if json {
		name, bare, dotted, err = p.path()
	} else {
		name, bare, err = p.ident("name")
	}
	if err != nil {
		return TypeArg{}, err
	}
	afterName := p.pos
	space := p.skipSpace()
	c, ok := p.peek()
	if bare && !dotted {
		if ok && c == '=' {
			return p.rawArg(start, open)
		}
		if json && space > 0 && ok && c != ',' && c != ')' && strings.EqualFold(name, "SKIP") {
			return p.rawArg(start, open)
		}
	}
	if ok && (c == '`' || tnIsIdentStart(c)) {
		typ, err := p.parseType(depth + 1)
		if err != nil {
			return TypeArg{}, err
		}
		return TypeArg{Kind: ArgType, Field: name, Type: typ}, nil
	}
	if dotted {
		return TypeArg{}, p.errf(p.pos, "expected a type after JSON path %q, found %s", name, p.describe(p.pos))
	}
	p.pos = afterName
	typ, err := p.typeRest(name, start, depth+1)
	if err != nil {
		return TypeArg{}, err
	}
	return TypeArg{Kind: ArgType, Type: typ}, nil
}

// ident reads a bare or backquoted identifier. bare reports which.
func (p *tnParser) ident(what string) (name string, bare bool, err error) {
	start := p.pos
	c, ok := p.peek()
	switch {
	case !ok:
		return "", false, p.errf(p.pos, "expected %s, found end of input", what)
	case c == '`':
		name, err = p.quoted()
		if err != nil {
			return "", false, err
		}
		if name == "" {
			return "", false, p.errf(start, "empty %s", what)
		}
		return name, false, nil
	case tnIsIdentStart(c):
		p.pos++
		for p.pos < len(p.s) && tnIsIdentChar(p.s[p.pos]) {
			p.pos++
		}
		return p.s[start:p.pos], true, nil
	}
	return "", false, p.errf(p.pos, "expected %s, found %s", what, p.describe(p.pos))
}

// path reads a JSON path: identifiers joined by '.' with no spaces.
func (p *tnParser) path() (name string, bare, dotted bool, err error) {
	var b strings.Builder
	bare = true
	for {
		part, partBare, err := p.ident("JSON path")
		if err != nil {
			return "", false, false, err
		}
		bare = bare && partBare
		b.WriteString(part)
		if c, ok := p.peek(); !ok || c != '.' {
			break
		}
		p.pos++
		dotted = true
		b.WriteByte('.')
	}
	return b.String(), bare, dotted, nil
}

// number reads a numeric literal: [+-] digits [. digits] [e [+-] digits].
func (p *tnParser) number() (string, error) {
	start := p.pos
	i := p.pos
	if i < len(p.s) && (p.s[i] == '-' || p.s[i] == '+') {
		i++
	}
	digits := 0
	for i < len(p.s) && tnIsDigit(p.s[i]) {
		i++
		digits++
	}
	if i < len(p.s) && p.s[i] == '.' {
		i++
		for i < len(p.s) && tnIsDigit(p.s[i]) {
			i++
			digits++
		}
	}
	if digits == 0 {
		return "", p.errf(start, "expected a number, found %s", p.describe(start))
	}
	if i < len(p.s) && (p.s[i] == 'e' || p.s[i] == 'E') {
		j := i + 1
		if j < len(p.s) && (p.s[j] == '-' || p.s[j] == '+') {
			j++
		}
		if j < len(p.s) && tnIsDigit(p.s[j]) {
			for j < len(p.s) && tnIsDigit(p.s[j]) {
				j++
			}
			i = j
		}
	}
	p.pos = i
	return p.s[start:i], nil
}

// quoted reads a string quoted with the byte at p.pos (' or `), handling
// doubled quotes and ClickHouse backslash escapes.
func (p *tnParser) quoted() (string, error) {
	start := p.pos
	q := p.s[start]
	i := start + 1
	// Fast path: no escapes.
	for i < len(p.s) && p.s[i] != q && p.s[i] != '\\' {
		i++
	}
	if i < len(p.s) && p.s[i] == q && (i+1 >= len(p.s) || p.s[i+1] != q) {
		p.pos = i + 1
		return p.s[start+1 : i], nil
	}
	var b strings.Builder
	b.WriteString(p.s[start+1 : i])
	for {
		if i >= len(p.s) {
			return "", p.errf(start, "unterminated quoted string")
		}
		c := p.s[i]
		switch {
		case c == q:
			if i+1 < len(p.s) && p.s[i+1] == q {
				b.WriteByte(q)
				i += 2
				continue
			}
			p.pos = i + 1
			return b.String(), nil
		case c == '\\':
			if i+1 >= len(p.s) {
				return "", p.errf(start, "unterminated quoted string")
			}
			e := p.s[i+1]
			i += 2
			switch e {
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'a':
				b.WriteByte('\a')
			case 'v':
				b.WriteByte('\v')
			case '0':
				b.WriteByte(0)
			case 'x':
				if i+1 < len(p.s) && tnHex(p.s[i]) >= 0 && tnHex(p.s[i+1]) >= 0 {
					b.WriteByte(byte(tnHex(p.s[i])<<4 | tnHex(p.s[i+1])))
					i += 2
				} else {
					b.WriteByte('x')
				}
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
			i++
		}
	}
}

func tnHex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// rawArg reads an argument verbatim from start up to the ',' or ')' that
// ends it, skipping over quoted strings and balanced parentheses.
func (p *tnParser) rawArg(start, open int) (TypeArg, error) {
	p.pos = start
	depth := 0
	for {
		c, ok := p.peek()
		if !ok {
			return TypeArg{}, p.errf(p.pos, "unclosed '(' opened at offset %d", open)
		}
		switch c {
		case '\'', '`', '"':
			if _, err := p.quoted(); err != nil {
				return TypeArg{}, err
			}
			continue
		case '(':
			depth++
		case ')':
			if depth == 0 {
				return p.rawDone(start)
			}
			depth--
		case ',':
			if depth == 0 {
				return p.rawDone(start)
			}
		}
		p.pos++
	}
}

func (p *tnParser) rawDone(start int) (TypeArg, error) {
	raw := strings.TrimRight(p.s[start:p.pos], " \t\n\r\f\v")
	if raw == "" {
		return TypeArg{}, p.errf(start, "empty argument")
	}
	return TypeArg{Kind: ArgRaw, Raw: raw}, nil
}

// tnWriteQuoted writes s quoted with q the way ClickHouse's
// writeAnyQuotedString does.
func tnWriteQuoted(b *strings.Builder, s string, q byte) { sqltext.WriteQuoted(b, s, q) }
