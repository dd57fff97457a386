package sqltext

import (
	"regexp"
	"strings"
)

// IsInsert reports whether query is an INSERT statement (after comments and white space).
func IsInsert(query string) bool {
	q := skipSpaceAndComments(query)
	return len(q) >= 6 && strings.EqualFold(q[:6], "INSERT")
}

// IsReadOnly reports whether query is a statement that only reads: its first word (after
// comments, white space and opening parentheses) is SELECT, WITH, SHOW, DESCRIBE, DESC, EXISTS
// or EXPLAIN. Running it again changes nothing on the server, so a read whose connection broke
// before its first row may be retried.
func IsReadOnly(query string) bool {
	q := skipSpaceAndComments(query)
	for len(q) > 0 && q[0] == '(' {
		q = skipSpaceAndComments(q[1:])
	}
	n := 0
	for n < len(q) && IsIdentChar(q[n]) {
		n++
	}
	switch strings.ToUpper(q[:n]) {
	case "SELECT", "WITH", "SHOW", "DESCRIBE", "DESC", "EXISTS", "EXPLAIN":
		return true
	}
	return false
}

var formatClause = regexp.MustCompile(`(?is)\bFORMAT\s+\w+\s*$`)

// hasFormatClause reports whether s ends with a FORMAT clause, "FORMAT Name" and white space
// (the caller trims a trailing ";" when it should not count).
func hasFormatClause(s string) bool { return formatClause.MatchString(s) }

// InsertWantsData reports whether the server waits for client data blocks after this INSERT:
// INSERT ... VALUES, INSERT ... FORMAT f and a bare INSERT INTO t (cols) do; INSERT ... SELECT
// (or WITH ... SELECT) does not, and an empty block sent to it would be read as the next packet.
func InsertWantsData(query string) bool {
	if !IsInsert(query) {
		return false
	}
	if _, ok := InsertValuesData(query); ok {
		return true
	}
	if hasFormatClause(strings.TrimRight(query, "; \t\r\n")) {
		return true
	}
	return !hasKeyword(query, "SELECT")
}

// InsertBody turns "INSERT INTO t [(cols)] [VALUES (?, ...)]" into the query text the server
// expects before native data: everything up to and including VALUES (or a FORMAT clause).
func InsertBody(query string) string {
	q := strings.TrimSpace(query)
	q = strings.TrimRight(q, "; \t\r\n")
	if tail, ok := InsertValuesData(q); ok {
		// The VALUES keyword itself (not one in a literal, a comment or a column name).
		return q[:len(q)-len(tail)-len("VALUES")] + "VALUES"
	}
	if hasFormatClause(q) {
		return q
	}
	return q + " VALUES"
}

// nativeInsertBody reports whether body is an INSERT whose data follows as Data blocks (it ends
// with VALUES or a FORMAT clause, as InsertBody leaves it).
func nativeInsertBody(body string) bool {
	if !IsInsert(body) {
		return false
	}
	b := strings.ToUpper(strings.TrimRight(body, "; \t\r\n"))
	return strings.HasSuffix(b, "VALUES") || hasFormatClause(body)
}

// SessionTimezoneOfSet returns the value a "SET a = 1, session_timezone = 'Zone'" statement
// gives session_timezone: the string literal, or "" for DEFAULT. ok is false when the statement
// is not a SET or does not assign session_timezone a literal this parser reads.
func SessionTimezoneOfSet(stmt string) (tz string, ok bool) {
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
			v, n, ok := unquoteString(q)
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

// IsSetSessionTimezone reports whether stmt is a SET statement that gives session_timezone a
// value the connection can follow.
func IsSetSessionTimezone(stmt string) bool {
	_, ok := SessionTimezoneOfSet(stmt)
	return ok
}
