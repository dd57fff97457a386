package sqltext

import "strings"

// isDigit reports whether c is an ASCII digit.
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// IsIdentStart reports whether c may start a bare identifier.
func IsIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// IsIdentChar reports whether c may continue a bare identifier.
func IsIdentChar(c byte) bool { return IsIdentStart(c) || isDigit(c) }

// isWordChar reports whether c continues a bare word for the ClickHouse lexer ($ included).
func isWordChar(c byte) bool { return IsIdentChar(c) || c == '$' }

// IsIdent reports whether s is a bare identifier (one that needs no back quotes to be read as
// one, keywords aside).
func IsIdent(s string) bool {
	if s == "" || !IsIdentStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !IsIdentChar(s[i]) {
			return false
		}
	}
	return true
}

// isSpace reports whether b is white space between tokens: space, tab, CR or LF.
func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\r' || b == '\n' }

// skipBlanks returns the index of the first byte at or after i in s that is not isSpace.
func skipBlanks(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

// skipQuoted returns the index after the quoted literal or identifier starting at q[i] (one of
// ' " `; backslash escapes and doubled quotes both handled); len(q) when it is unterminated.
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

// skipBlockComment returns the index after the (nested) block comment starting at q[i:i+2] ==
// "/*", or -1 when it is not closed.
func skipBlockComment(q string, i int) int {
	depth := 1
	for j := i + 2; j+1 < len(q); {
		switch {
		case q[j] == '/' && q[j+1] == '*':
			depth++
			j += 2
		case q[j] == '*' && q[j+1] == '/':
			depth--
			j += 2
			if depth == 0 {
				return j
			}
		default:
			j++
		}
	}
	return -1
}

// skipHeredoc returns the index after a heredoc string $$...$$ or $tag$...$tag$ starting at
// q[i] == '$', or 0 when there is none. Tags are identifiers, so $1 ... $1 is not a heredoc.
func skipHeredoc(q string, i int) int {
	j := i + 1
	if j < len(q) && IsIdentStart(q[j]) {
		for j < len(q) && IsIdentChar(q[j]) {
			j++
		}
	}
	if j >= len(q) || q[j] != '$' {
		return 0
	}
	tag := q[i : j+1]
	k := strings.Index(q[j+1:], tag)
	if k < 0 {
		return 0
	}
	return j + 1 + k + len(tag)
}

// skipSpaceAndComments returns q after its leading white space and comments (--, #, /* */);
// "" when a comment is not closed.
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

// hasKeyword reports whether word appears as a keyword in query.
func hasKeyword(query, word string) bool { return keywordIndex(query, word) >= 0 }

// keywordIndex returns the position of the first occurrence of word (case-insensitive) as a whole
// word outside literals, quoted identifiers and comments, or -1.
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
			(i == 0 || !IsIdentChar(query[i-1])) && (i+len(word) == len(query) || !IsIdentChar(query[i+len(word)])) {
			return i
		}
		i++
	}
	return -1
}
