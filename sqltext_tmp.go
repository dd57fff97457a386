package chnative

import (
	"regexp"
	"strconv"
	"strings"
)

// TEMPORARY: the lexing functions of the old conn.go, query.go and insert.go, until internal/sqltext.

// isInsert reports whether query is an INSERT statement (after comments and white space).
func isInsert(query string) bool {
	q := skipSpaceAndComments(query)
	return len(q) >= 6 && strings.EqualFold(q[:6], "INSERT")
}

func skipSpaceAndComments(q string) string {
	for {
		q = strings.TrimLeft(q, " \t\r\n")
		switch {
		case strings.HasPrefix(q, "--"), strings.HasPrefix(q, "#"):
			i := strings.IndexByte(q, '\n')
			if i < 0 {
				return ""
			}
			q = q[i+1:]
		case strings.HasPrefix(q, "/*"):
			i := strings.Index(q, "*/")
			if i < 0 {
				return ""
			}
			q = q[i+2:]
		default:
			return q
		}
	}
}

// sessionTimezoneOfSet returns the value a "SET a = 1, session_timezone = 'Zone'" statement
// gives session_timezone: the string literal, or "" for DEFAULT. ok is false when the statement
// is not a SET or does not assign session_timezone a literal this parser reads.
func sessionTimezoneOfSet(stmt string) (tz string, ok bool) {
	q := skipSpaceAndComments(stmt)
	if len(q) < 4 || !strings.EqualFold(q[:3], "SET") || !isSpace(q[3]) {
		return "", false
	}
	q = q[4:]
	for {
		q = skipSpaceAndComments(q)
		name := q
		if i := strings.IndexFunc(q, func(r rune) bool { return r == '=' || r == ' ' || r == '\t' || r == '\r' || r == '\n' }); i >= 0 {
			name = q[:i]
		}
		q = skipSpaceAndComments(q[len(name):])
		if !strings.HasPrefix(q, "=") {
			return "", false
		}
		q = skipSpaceAndComments(q[1:])
		var val string
		isLiteral := false
		switch {
		case strings.HasPrefix(q, "'"):
			v, n, ok := unquoteSQLString(q)
			if !ok {
				return "", false
			}
			val, isLiteral, q = v, true, q[n:]
		default:
			end := strings.IndexAny(q, ", \t\r\n;")
			if end < 0 {
				end = len(q)
			}
			val, q = q[:end], q[end:]
			if strings.EqualFold(val, "DEFAULT") {
				val, isLiteral = "", true
			}
		}
		if name == "session_timezone" {
			if !isLiteral {
				return "", false
			}
			tz, ok = val, true
		}
		q = skipSpaceAndComments(q)
		if !strings.HasPrefix(q, ",") {
			return tz, ok
		}
		q = q[1:]
	}
}

// isSetSessionTimezone reports whether stmt is a SET statement that gives session_timezone a
// value the connection can follow.
func isSetSessionTimezone(stmt string) bool {
	_, ok := sessionTimezoneOfSet(stmt)
	return ok
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\r' || b == '\n' }

// unquoteSQLString reads the single-quoted literal at the start of s (doubled quotes and
// backslash escapes) and returns its value and its length in s.
func unquoteSQLString(s string) (string, int, bool) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch ch := s[i]; ch {
		case '\\':
			if i+1 >= len(s) {
				return "", 0, false
			}
			i++
			b.WriteByte(s[i])
		case '\'':
			if i+1 < len(s) && s[i+1] == '\'' {
				b.WriteByte('\'')
				i++
				continue
			}
			return b.String(), i + 1, true
		default:
			b.WriteByte(ch)
		}
	}
	return "", 0, false
}

// dollarRows parses a VALUES tail made only of tuples of $N placeholders, "($1, $2), ($3, $4)",
// and returns each tuple's argument numbers. Every argument (1..nargs) must be used.
func dollarRows(tail string, nargs int) ([][]int, bool) {
	ts, ok := valuesTuples(tail)
	if !ok {
		return nil, false
	}
	out := make([][]int, len(ts))
	used := make([]bool, nargs+1)
	for k, t := range ts {
		out[k] = make([]int, len(t))
		for i, p := range t {
			n, err := strconv.Atoi(strings.TrimPrefix(p, "$"))
			if !strings.HasPrefix(p, "$") || err != nil || n < 1 || n > nargs {
				return nil, false
			}
			out[k][i] = n
			used[n] = true
		}
	}
	for n := 1; n <= nargs; n++ {
		if !used[n] {
			return nil, false
		}
	}
	return out, true
}

// valuesAsSelect rewrites "INSERT INTO t [(cols)] VALUES (a, b), (c, d)" as
// "INSERT INTO t [(cols)] SELECT a, b UNION ALL SELECT c, d" (for servers that ignore the data
// in the text of a native INSERT; the server casts each column to the table's type).
func valuesAsSelect(query string) (string, bool) {
	tail, ok := insertValuesData(query)
	if !ok {
		return "", false
	}
	head := strings.TrimRight(query[:len(query)-len(tail)-len("VALUES")], " \t\r\n")
	var b strings.Builder
	b.WriteString(head)
	s := strings.TrimRight(tail, "; \t\r\n")
	i, n := 0, 0
	for {
		for i < len(s) && strings.IndexByte(" \t\r\n", s[i]) >= 0 {
			i++
		}
		if i == len(s) {
			break
		}
		if n > 0 {
			if s[i] != ',' {
				return "", false
			}
			i++
			for i < len(s) && strings.IndexByte(" \t\r\n", s[i]) >= 0 {
				i++
			}
		}
		if i == len(s) || s[i] != '(' {
			return "", false
		}
		start, depth := i+1, 0
		for ; i < len(s); i++ {
			switch ch := s[i]; ch {
			case '\'', '"', '`':
				i = skipQuoted(s, i) - 1
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				depth--
			case '-', '/', '#':
				if strings.HasPrefix(s[i:], "--") || strings.HasPrefix(s[i:], "/*") || ch == '#' {
					return "", false // comments inside the data: leave it to the server
				}
			}
			if depth == 0 {
				break
			}
		}
		if i == len(s) {
			return "", false
		}
		if n > 0 {
			b.WriteString(" UNION ALL")
		}
		b.WriteString(" SELECT ")
		b.WriteString(s[start:i])
		i++
		n++
	}
	return b.String(), n > 0
}

var formatClause = regexp.MustCompile(`(?is)\bFORMAT\s+\w+\s*$`)

// insertBody turns "INSERT INTO t [(cols)] [VALUES (?, ...)]" into the query text the server
// expects before native data: everything up to and including VALUES.
func insertBody(query string) string {
	q := strings.TrimSpace(query)
	q = strings.TrimRight(q, "; \t\r\n")
	if tail, ok := insertValuesData(q); ok {
		// The VALUES keyword itself (not one in a literal, a comment or a column name).
		return q[:len(q)-len(tail)-len("VALUES")] + "VALUES"
	}
	if formatClause.MatchString(q) {
		return q
	}
	return q + " VALUES"
}
