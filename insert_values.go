package chnative

import (
	"database/sql/driver"
	"strings"
)

// insertValuesData returns the text after the VALUES keyword of an INSERT (outside literals and
// comments), and whether the keyword is there.
func insertValuesData(query string) (string, bool) {
	i := keywordIndex(query, "VALUES")
	if i < 0 {
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

// valuesTuples splits a VALUES tail of flat tuples, "(a, b), (c, d)", into the trimmed text of
// each tuple's values. ok is false for another shape (nested parentheses, a literal holding a
// comma or parenthesis, tuples of different widths, anything after the last tuple but ";").
func valuesTuples(tail string) ([][]string, bool) {
	s := strings.TrimRight(strings.TrimSpace(tail), "; \t\r\n")
	var out [][]string
	for len(s) > 0 {
		if s[0] != '(' {
			return nil, false
		}
		end := strings.IndexByte(s, ')')
		if end < 0 {
			return nil, false
		}
		parts := strings.Split(s[1:end], ",")
		if len(out) > 0 && len(parts) != len(out[0]) {
			return nil, false
		}
		for k, p := range parts {
			parts[k] = strings.TrimSpace(p)
		}
		out = append(out, parts)
		s = strings.TrimSpace(s[end+1:])
		if s == "" {
			break
		}
		if s[0] != ',' {
			return nil, false
		}
		s = strings.TrimSpace(s[1:])
	}
	return out, len(out) > 0
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
// "VALUES (@b, @a), ..." (named arguments, sql.Named) to rows in column order. ok is false when
// the tail has another shape; err names a named placeholder without an argument, or a named
// argument without a placeholder.
func splitInsertArgs(tail string, args []driver.NamedValue) (rows [][]driver.NamedValue, ok bool, err error) {
	if tuples, width, ok := placeholderRows(tail); ok && tuples*width == len(args) {
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

// namedRows parses a VALUES tail whose every value is a named placeholder, "(@a, @b), (@c, @d)"
// or "({a:String}, {b:UInt8})", into the names by tuple.
func namedRows(tail string) ([][]string, bool) {
	ts, ok := valuesTuples(tail)
	if !ok {
		return nil, false
	}
	for _, t := range ts {
		for i, p := range t {
			if ph, ok := scanParameter(p, 0); ok && ph.end == len(p) {
				t[i] = ph.name
				continue
			}
			if len(p) < 2 || p[0] != '@' || !isIdentStart(p[1]) {
				return nil, false
			}
			for j := 2; j < len(p); j++ {
				if !isWordChar(p[j]) {
					return nil, false
				}
			}
			t[i] = p[1:]
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
