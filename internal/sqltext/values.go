package sqltext

import (
	"strconv"
	"strings"
)

// InsertValuesData returns the text after the VALUES keyword of an INSERT (outside literals and
// comments), and whether the keyword is there. A VALUES after SELECT is the values() table
// function of an INSERT ... SELECT, not the data clause.
func InsertValuesData(query string) (string, bool) {
	i := keywordIndex(query, "VALUES")
	if i < 0 {
		return "", false
	}
	if j := keywordIndex(query, "SELECT"); j >= 0 && j < i {
		return "", false
	}
	return query[i+len("VALUES"):], true
}

// PlaceholderRows parses a VALUES tail made only of tuples of ? placeholders, "(?, ?), (?, ?)",
// and returns the number of tuples and of placeholders in each.
func PlaceholderRows(tail string) (tuples, width int, ok bool) {
	ts, ok := ValuesTuples(tail)
	if !ok {
		return 0, 0, false
	}
	for _, t := range ts {
		for _, p := range t {
			if p != "?" {
				return 0, 0, false
			}
		}
	}
	return len(ts), len(ts[0]), true
}

// ValuesTuples splits a VALUES tail of tuples, "(a, b), (c, d)", into the trimmed text of each
// tuple's top-level values. A value may nest parentheses, brackets and braces and hold quoted
// literals, so "({a:Nullable(String)}, {b:Map(String, UInt8)}, [1, 2], 'x,)')" is one tuple of
// four values. ok is false for another shape: unbalanced nesting, a comment, tuples of
// different widths, anything after the last tuple but ";". The values are substrings of tail.
func ValuesTuples(tail string) ([][]string, bool) {
	s := strings.TrimRight(strings.TrimSpace(tail), "; \t\r\n")
	var out [][]string
	for i := 0; ; {
		i = skipBlanks(s, i)
		if i == len(s) {
			return out, len(out) > 0
		}
		if len(out) > 0 {
			if s[i] != ',' {
				return nil, false
			}
			i = skipBlanks(s, i+1)
		}
		if i == len(s) || s[i] != '(' {
			return nil, false
		}
		vals, end, ok := tupleValues(s, i)
		if !ok || len(out) > 0 && len(vals) != len(out[0]) {
			return nil, false
		}
		out = append(out, vals)
		i = end
	}
}

// tupleValues splits the tuple that starts at s[i] == '(' into its trimmed top-level values and
// returns the index after its closing parenthesis.
func tupleValues(s string, i int) (vals []string, end int, ok bool) {
	depth, start := 0, i+1
	for j := i; j < len(s); j++ {
		switch ch := s[j]; {
		case ch == '\'' || ch == '"' || ch == '`':
			k := skipQuoted(s, j)
			if k >= len(s) {
				return nil, 0, false // unterminated, or nothing after it
			}
			j = k - 1
		case ch == '#', ch == '-' && strings.HasPrefix(s[j:], "--"),
			ch == '/' && (strings.HasPrefix(s[j:], "/*") || strings.HasPrefix(s[j:], "//")):
			return nil, 0, false // a comment inside the data: not a shape to map
		case ch == '(' || ch == '[' || ch == '{':
			depth++
		case ch == ')' || ch == ']' || ch == '}':
			depth--
			if depth < 0 {
				return nil, 0, false
			}
			if depth == 0 {
				if ch != ')' {
					return nil, 0, false
				}
				return append(vals, strings.TrimSpace(s[start:j])), j + 1, true
			}
		case ch == ',' && depth == 1:
			vals = append(vals, strings.TrimSpace(s[start:j]))
			start = j + 1
		}
	}
	return nil, 0, false
}

// NamedRows parses a VALUES tail whose every value is a named placeholder, "(@a, @b), (@c, @d)"
// or "({a:String}, {b:Nullable(String)})", into the names by tuple.
func NamedRows(tail string) ([][]string, bool) {
	ts, ok := ValuesTuples(tail)
	if !ok {
		return nil, false
	}
	for _, t := range ts {
		for i, p := range t {
			kind, name, _ := ValuePlaceholder(p)
			if kind != '@' && kind != '{' {
				return nil, false
			}
			t[i] = name
		}
	}
	return ts, true
}

// DollarRows parses a VALUES tail made only of tuples of $N placeholders, "($1, $2), ($3, $4)",
// and returns each tuple's argument numbers. Every argument (1..nargs) must be used.
func DollarRows(tail string, nargs int) ([][]int, bool) {
	ts, ok := ValuesTuples(tail)
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

// ValuesAsSelect rewrites "INSERT INTO t [(cols)] VALUES (a, b), (c, d)" as
// "INSERT INTO t [(cols)] SELECT a, b UNION ALL SELECT c, d" (for servers that ignore the data
// in the text of a native INSERT; the server casts each column to the table's type).
func ValuesAsSelect(query string) (string, bool) {
	tail, ok := InsertValuesData(query)
	if !ok {
		return "", false
	}
	head := strings.TrimRight(query[:len(query)-len(tail)-len("VALUES")], " \t\r\n")
	var b strings.Builder
	b.WriteString(head)
	s := strings.TrimRight(tail, "; \t\r\n")
	i, n := 0, 0
	for {
		i = skipBlanks(s, i)
		if i == len(s) {
			break
		}
		if n > 0 {
			if s[i] != ',' {
				return "", false
			}
			i = skipBlanks(s, i+1)
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
