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
	s := strings.TrimSpace(tail)
	s = strings.TrimRight(s, "; \t\r\n")
	for len(s) > 0 {
		if s[0] != '(' {
			return 0, 0, false
		}
		end := strings.IndexByte(s, ')')
		if end < 0 {
			return 0, 0, false
		}
		parts := strings.Split(s[1:end], ",")
		for _, p := range parts {
			if strings.TrimSpace(p) != "?" {
				return 0, 0, false
			}
		}
		if tuples > 0 && len(parts) != width {
			return 0, 0, false
		}
		width = len(parts)
		tuples++
		s = strings.TrimSpace(s[end+1:])
		if s == "" {
			break
		}
		if s[0] != ',' {
			return 0, 0, false
		}
		s = strings.TrimSpace(s[1:])
	}
	return tuples, width, tuples > 0
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

// splitInsertArgs maps the arguments of "VALUES (?, ?), (?, ?)" or "VALUES ($2, $1), ..." (the
// VALUES tail of an INSERT) to rows in column order.
func splitInsertArgs(tail string, args []driver.NamedValue) ([][]driver.NamedValue, bool) {
	if tuples, width, ok := placeholderRows(tail); ok && tuples*width == len(args) {
		rows := make([][]driver.NamedValue, tuples)
		for i := range rows {
			rows[i] = args[i*width : (i+1)*width]
		}
		return rows, true
	}
	idx, ok := dollarRows(tail, len(args))
	if !ok {
		return nil, false
	}
	rows := make([][]driver.NamedValue, len(idx))
	for i, tuple := range idx {
		rows[i] = make([]driver.NamedValue, len(tuple))
		for j, n := range tuple {
			rows[i][j] = args[n-1]
		}
	}
	return rows, true
}
