package sqltext

import (
	"fmt"
	"strings"
)

// QuoteLiteral writes s as a single-quoted ClickHouse string literal for a query the driver
// builds. Backslash and quote are escaped, and so are control bytes and $, so no argument can
// end the literal or start a comment or heredoc.
func QuoteLiteral(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			b.WriteString(`\\`)
		case '\'':
			b.WriteString(`\'`)
		case 0:
			b.WriteString(`\0`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '$':
			// Never let an argument close a heredoc ($$...$$) the server might see.
			b.WriteString(`\x24`)
		default:
			if c < 0x20 || c == 0x7f {
				fmt.Fprintf(&b, `\x%02x`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// QuoteIdentifier writes s as a back-quoted identifier, escaped as QuoteLiteral escapes.
func QuoteIdentifier(s string) string {
	q := QuoteLiteral(s)
	return "`" + strings.ReplaceAll(q[1:len(q)-1], "`", "\\`") + "`"
}

// WriteQuoted appends s quoted with q (' or `) the way the server writes quoted strings and
// back-quoted names in its canonical text (writeAnyQuotedString): the escapes \b \f \n \r \t \0,
// a doubled backslash and an escaped quote; other bytes as they are. Type names (columns) use
// it, so that a name round-trips to the server's spelling.
func WriteQuoted(b *strings.Builder, s string, q byte) {
	b.WriteByte(q)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case 0:
			b.WriteString(`\0`)
		case '\\':
			b.WriteString(`\\`)
		case q:
			b.WriteByte('\\')
			b.WriteByte(q)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte(q)
}

// unquoteString reads the single-quoted literal at the start of s (doubled quotes and
// backslash escapes: a backslash stands for the byte after it) and returns its value and its
// length in s. ok is false when s does not hold a whole literal.
func unquoteString(s string) (val string, n int, ok bool) {
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

// EscapeText escapes s as a TabSeparated field: backslash, tab, newline and the other control
// bytes the format escapes. It returns s itself when nothing needs escaping.
func EscapeText(s string) string {
	if !strings.ContainsAny(s, "\\\t\n\r\x00\b\f\v") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			b.WriteString(`\\`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case 0:
			b.WriteString(`\0`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\v':
			b.WriteString(`\v`)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// UnescapeText undoes EscapeText: the TabSeparated escapes \b \f \n \r \t \0 \v, and a backslash
// before any other byte stands for that byte (\\ is a backslash, \' a quote).
func UnescapeText(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch c = s[i]; c {
		case 'b':
			c = '\b'
		case 'f':
			c = '\f'
		case 'n':
			c = '\n'
		case 'r':
			c = '\r'
		case 't':
			c = '\t'
		case '0':
			c = 0
		case 'v':
			c = '\v'
		}
		b.WriteByte(c)
	}
	return b.String()
}
