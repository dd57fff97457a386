package sqltext

import (
	"strconv"
	"strings"
)

// Placeholder is one placeholder found in a query.
type Placeholder struct {
	Start, End int    // byte range in the query
	Kind       byte   // '?', '$', '@', '{'
	Index      int    // $N: N (0 for ?, which the binder numbers by position)
	Name       string // @name, {name:Type}
	Type       string // {name:Type}: Type
}

// Placeholders finds ?, $N, @name and {name:Type} outside string literals, quoted identifiers
// and comments, in the order of the text. It follows the ClickHouse lexer conservatively:
// whatever a server (old or new) may read as a literal, identifier or comment is skipped, so no
// argument is ever substituted where its text could change the meaning of the surrounding token.
func Placeholders(q string) []Placeholder {
	var out []Placeholder
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
					out = append(out, Placeholder{Start: i, End: j, Kind: '$', Index: n})
				}
			}
			i = j
		case ch == '?':
			out = append(out, Placeholder{Start: i, End: i + 1, Kind: '?'})
			i++
		case ch == '@' && i+1 < len(q) && IsIdentStart(q[i+1]) && (i == 0 || !isWordChar(q[i-1])):
			j := i + 1
			for j < len(q) && IsIdentChar(q[j]) {
				j++
			}
			out = append(out, Placeholder{Start: i, End: j, Kind: '@', Name: q[i+1 : j]})
			i = j
		case ch == '{':
			if p, ok := scanParameter(q, i); ok {
				out = append(out, p)
				i = p.End
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
func scanParameter(q string, i int) (Placeholder, bool) {
	k := strings.IndexByte(q[i:], ':')
	if k < 0 {
		return Placeholder{}, false
	}
	name := strings.TrimSpace(q[i+1 : i+k])
	if !IsIdent(name) {
		return Placeholder{}, false
	}
	for j := i + k + 1; j < len(q); {
		switch q[j] {
		case '\'', '"', '`':
			j = skipQuoted(q, j)
		case '{':
			return Placeholder{}, false
		case '}':
			typ := strings.TrimSpace(q[i+k+1 : j])
			if typ == "" {
				return Placeholder{}, false
			}
			return Placeholder{Start: i, End: j + 1, Kind: '{', Name: name, Type: typ}, true
		default:
			j++
		}
	}
	return Placeholder{}, false
}

// HasPlaceholders reports whether query has placeholders that take arguments: ?, $N, @name, and
// server-side {name:Type} too (named arguments fill them), so that the arguments of INSERT ...
// SELECT {name:Type} are not taken for a row to insert.
func HasPlaceholders(query string) bool {
	return len(Placeholders(query)) > 0
}

// ValuePlaceholder classifies one (trimmed) value of a VALUES tuple: '?', '$' (index N), '@' or
// '{' (name), or 0 for anything else (a literal, an expression).
func ValuePlaceholder(v string) (kind byte, name string, index int) {
	switch {
	case v == "?":
		return '?', "", 0
	case len(v) > 1 && v[0] == '$':
		n, err := strconv.Atoi(v[1:])
		if err != nil || n < 1 || !isDigit(v[1]) {
			return 0, "", 0
		}
		return '$', "", n
	case len(v) > 1 && v[0] == '@' && IsIdentStart(v[1]):
		for j := 2; j < len(v); j++ {
			if !IsIdentChar(v[j]) {
				return 0, "", 0
			}
		}
		return '@', v[1:], 0
	case len(v) > 0 && v[0] == '{':
		if ph, ok := scanParameter(v, 0); ok && ph.End == len(v) {
			return '{', ph.Name, 0
		}
	}
	return 0, "", 0
}
