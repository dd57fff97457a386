package chconn

import (
	"regexp"
	"strings"
)

// TEMPORARY: copies of the root lexer, replaced by internal/sqltext.

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

// nativeInsertBody reports whether body is an INSERT whose data follows as Data blocks.
func nativeInsertBody(body string) bool {
	if !isInsert(body) {
		return false
	}
	b := strings.ToUpper(strings.TrimRight(body, "; \t\r\n"))
	return strings.HasSuffix(b, "VALUES") || formatClause.MatchString(body)
}

var formatClause = regexp.MustCompile(`(?is)\bFORMAT\s+\w+\s*$`)

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
	if j < len(q) && isIdentStart(q[j]) {
		for j < len(q) && isIdentChar(q[j]) {
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

// skipQuoted returns the index after the quoted literal or identifier starting at i (backslash
// escapes and doubled quotes both handled); the end of the string when it is unterminated.
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

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isIdentChar(c byte) bool { return isIdentStart(c) || isDigit(c) }

// isWordChar reports whether c continues a bare word for the ClickHouse lexer ($ included).
func isWordChar(c byte) bool { return isIdentChar(c) || c == '$' }

func isIdent(s string) bool {
	if s == "" || !isIdentStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isIdentChar(s[i]) {
			return false
		}
	}
	return true
}

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
