package chnative

import (
	"strings"
)

// valuesTail returns the text after the VALUES keyword of an INSERT (outside literals and
// comments), and whether the keyword is there.
func insertValuesData(query string) (string, bool) {
	i := 0
	for i < len(query) {
		ch := query[i]
		switch {
		case ch == '\'' || ch == '"' || ch == '`':
			i = skipQuoted(query, i)
			continue
		case ch == '-' && strings.HasPrefix(query[i:], "--"), ch == '#':
			j := strings.IndexByte(query[i:], '\n')
			if j < 0 {
				return "", false
			}
			i += j + 1
			continue
		case ch == '/' && strings.HasPrefix(query[i:], "/*"):
			j := strings.Index(query[i+2:], "*/")
			if j < 0 {
				return "", false
			}
			i += j + 4
			continue
		}
		if (ch == 'V' || ch == 'v') && len(query)-i >= 6 && strings.EqualFold(query[i:i+6], "VALUES") &&
			(i == 0 || !isIdentChar(query[i-1])) && (i+6 == len(query) || !isIdentChar(query[i+6])) {
			return query[i+6:], true
		}
		i++
	}
	return "", false
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
