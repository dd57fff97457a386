package chnative

import (
	"database/sql/driver"
	"strconv"
	"strings"
)

// insertValuesData returns the text after the VALUES keyword of an INSERT (outside literals and
// comments), and whether the keyword is there. A VALUES after SELECT is the values() table
// function of an INSERT ... SELECT, not the data clause.
func insertValuesData(query string) (string, bool) {
	i := keywordIndex(query, "VALUES")
	if i < 0 {
		return "", false
	}
	if j := keywordIndex(query, "SELECT"); j >= 0 && j < i {
		return "", false
	}
	return query[i+len("VALUES"):], true
}

// placeholderRows parses a VALUES tail made only of tuples of ? placeholders, "(?, ?), (?, ?)",
// and returns the number of tuples and of placeholders in each.
func placeholderRows(tail string) (tuples, width int, ok bool) {
	ts, ok := valuesTuples(tail)
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

// valuesTuples splits a VALUES tail of tuples, "(a, b), (c, d)", into the trimmed text of each
// tuple's top-level values. A value may nest parentheses, brackets and braces and hold quoted
// literals, so "({a:Nullable(String)}, {b:Map(String, UInt8)}, [1, 2], 'x,)')" is one tuple of
// four values. ok is false for another shape: unbalanced nesting, a comment, tuples of
// different widths, anything after the last tuple but ";".
func valuesTuples(tail string) ([][]string, bool) {
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

func skipBlanks(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
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

// valuePlaceholder classifies one value of a VALUES tuple: '?', '$' (index N), '@' or '{'
// (name), or 0 for anything else (a literal, an expression).
func valuePlaceholder(v string) (kind byte, name string, index int) {
	switch {
	case v == "?":
		return '?', "", 0
	case len(v) > 1 && v[0] == '$':
		n, err := strconv.Atoi(v[1:])
		if err != nil || n < 1 || !isDigit(v[1]) {
			return 0, "", 0
		}
		return '$', "", n
	case len(v) > 1 && v[0] == '@' && isIdentStart(v[1]):
		for j := 2; j < len(v); j++ {
			if !isIdentChar(v[j]) {
				return 0, "", 0
			}
		}
		return '@', v[1:], 0
	case len(v) > 0 && v[0] == '{':
		if ph, ok := scanParameter(v, 0); ok && ph.end == len(v) {
			return '{', ph.name, 0
		}
	}
	return 0, "", 0
}

// valuesMappingError says why the arguments of a VALUES tail cannot be mapped to columns and
// rows: not a list of tuples, a value that is not a placeholder, or placeholders of more than one
// style (? with $N, positional with named). nil when they can: every value a ?, every value a
// $N, or every value named (@name or {name:Type}).
func valuesMappingError(tail string) error {
	ts, ok := valuesTuples(tail)
	if !ok {
		return bindErr("VALUES %s is not a list of tuples of one width without comments", shortText(tail))
	}
	var style byte
	for r, t := range ts {
		for c, v := range t {
			kind, _, _ := valuePlaceholder(v)
			if kind == 0 {
				return bindErr("VALUES tuple %d, value %d (%s) is not a placeholder: a prepared insert takes every column from the arguments (give this column a placeholder, or leave it out of the column list for its default)", r+1, c+1, shortText(v))
			}
			if kind == '{' {
				kind = '@'
			}
			if style == 0 {
				style = kind
			} else if kind != style {
				return bindErr("VALUES mixes placeholder styles (%s with %s): use one of ?, $N or named (@name, {name:Type})", styleName(style), styleName(kind))
			}
		}
	}
	return nil
}

func styleName(kind byte) string {
	switch kind {
	case '?':
		return "?"
	case '$':
		return "$N"
	}
	return "named"
}

// shortText quotes s for an error, cut to 60 bytes.
func shortText(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 60 {
		s = s[:60] + "..."
	}
	return strconv.Quote(s)
}

// insertWantsData reports whether the server waits for client data blocks after this INSERT:
// INSERT ... VALUES, INSERT ... FORMAT f and a bare INSERT INTO t (cols) do; INSERT ... SELECT
// (or WITH ... SELECT) does not, and an empty block sent to it would be read as the next packet.
func insertWantsData(query string) bool {
	if !isInsert(query) {
		return false
	}
	if _, ok := insertValuesData(query); ok {
		return true
	}
	if formatClause.MatchString(strings.TrimRight(query, "; \t\r\n")) {
		return true
	}
	return !hasKeyword(query, "SELECT")
}

// hasKeyword reports whether word appears as a keyword in query.
func hasKeyword(query, word string) bool { return keywordIndex(query, word) >= 0 }

// keywordIndex returns the position of the first occurrence of word as a whole word outside
// literals, quoted identifiers and comments, or -1.
func keywordIndex(query, word string) int {
	for i := 0; i < len(query); {
		ch := query[i]
		switch {
		case ch == '\'' || ch == '"' || ch == '`':
			i = skipQuoted(query, i)
			continue
		case ch == '-' && strings.HasPrefix(query[i:], "--"), ch == '#':
			j := strings.IndexByte(query[i:], '\n')
			if j < 0 {
				return -1
			}
			i += j + 1
			continue
		case ch == '/' && strings.HasPrefix(query[i:], "/*"):
			j := strings.Index(query[i+2:], "*/")
			if j < 0 {
				return -1
			}
			i += j + 4
			continue
		}
		if len(query)-i >= len(word) && strings.EqualFold(query[i:i+len(word)], word) &&
			(i == 0 || !isIdentChar(query[i-1])) && (i+len(word) == len(query) || !isIdentChar(query[i+len(word)])) {
			return i
		}
		i++
	}
	return -1
}

// splitInsertArgs maps the arguments of "VALUES (?, ?), (?, ?)", "VALUES ($2, $1), ..." or
// "VALUES (@b, @a), ..." / "VALUES ({b:String}, {a:Nullable(String)})" (named arguments,
// sql.Named; a placeholder's position in its tuple is its column, its name the argument's) to
// rows in column order. ok is false when the tail has another shape (see valuesMappingError);
// err names a placeholder without an argument, an argument without a placeholder, or a count of
// arguments that does not fit the ? placeholders.
func splitInsertArgs(tail string, args []driver.NamedValue) (rows [][]driver.NamedValue, ok bool, err error) {
	if tuples, width, ok := placeholderRows(tail); ok {
		if tuples*width != len(args) {
			return nil, false, bindErr("VALUES has %d ? placeholders (%d tuples of %d), %d arguments given", tuples*width, tuples, width, len(args))
		}
		rows := make([][]driver.NamedValue, tuples)
		for i := range rows {
			rows[i] = args[i*width : (i+1)*width]
		}
		return rows, true, nil
	}
	if names, ok := namedRows(tail); ok {
		return namedArgs(names, args)
	}
	idx, ok := dollarRows(tail, len(args))
	if !ok {
		return nil, false, nil
	}
	rows = make([][]driver.NamedValue, len(idx))
	for i, tuple := range idx {
		rows[i] = make([]driver.NamedValue, len(tuple))
		for j, n := range tuple {
			rows[i][j] = args[n-1]
		}
	}
	return rows, true, nil
}

// mapInsertArgs is splitInsertArgs for a prepared insert, which has no other way to send the
// values: a tail it cannot map is an error saying why, never arguments taken in order.
func mapInsertArgs(tail string, args []driver.NamedValue) ([][]driver.NamedValue, error) {
	rows, ok, err := splitInsertArgs(tail, args)
	if err != nil || ok {
		return rows, err
	}
	if err := valuesMappingError(tail); err != nil {
		return nil, err
	}
	// Every value is a $N: the numbers do not fit the arguments.
	return nil, bindErr("the $N placeholders of VALUES must use each of the %d arguments, $1 to $%d", len(args), len(args))
}

// namedRows parses a VALUES tail whose every value is a named placeholder, "(@a, @b), (@c, @d)"
// or "({a:String}, {b:Nullable(String)})", into the names by tuple.
func namedRows(tail string) ([][]string, bool) {
	ts, ok := valuesTuples(tail)
	if !ok {
		return nil, false
	}
	for _, t := range ts {
		for i, p := range t {
			kind, name, _ := valuePlaceholder(p)
			if kind != '@' && kind != '{' {
				return nil, false
			}
			t[i] = name
		}
	}
	return ts, true
}

// namedArgs arranges args (sql.Named) in the order of the placeholders' names.
func namedArgs(names [][]string, args []driver.NamedValue) ([][]driver.NamedValue, bool, error) {
	byName := make(map[string]driver.NamedValue, len(args))
	for _, a := range args {
		if a.Name == "" {
			return nil, false, bindErr("argument %d has no name, and the VALUES placeholders are named (@name): pass sql.Named values", a.Ordinal)
		}
		byName[a.Name] = a
	}
	used := make(map[string]bool, len(args))
	rows := make([][]driver.NamedValue, len(names))
	for i, tuple := range names {
		rows[i] = make([]driver.NamedValue, len(tuple))
		for j, n := range tuple {
			a, ok := byName[n]
			if !ok {
				return nil, false, bindErr("placeholder @%s has no argument named %q", n, n)
			}
			rows[i][j] = a
			used[n] = true
		}
	}
	for _, a := range args {
		if !used[a.Name] {
			return nil, false, bindErr("named argument %q has no @%s placeholder", a.Name, a.Name)
		}
	}
	return rows, true, nil
}
