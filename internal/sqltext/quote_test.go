package sqltext

import (
	"strings"
	"testing"
)

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"":           "''",
		"it's":       `'it\'s'`,
		`a\b`:        `'a\\b'`,
		"\x00\n\r\t": `'\0\n\r\t'`,
		"$$":         `'\x24\x24'`,
		"\x01\x7f":   `'\x01\x7f'`,
		"ünï":        "'ünï'",
	} {
		if got := QuoteLiteral(in); got != want {
			t.Errorf("QuoteLiteral(%q) = %s, want %s", in, got, want)
		}
	}
	if got := QuoteIdentifier("my`table"); got != "`my\\`table`" {
		t.Errorf("QuoteIdentifier = %s", got)
	}
	for _, tt := range []struct {
		s    string
		q    byte
		want string
	}{
		{"a'b", '\'', `'a\'b'`},
		{"a`b", '`', "`a\\`b`"},
		{"a'b", '`', "`a'b`"},
		{"\b\f\n\r\t\x00\\$", '\'', `'\b\f\n\r\t\0\\$'`},
	} {
		var b strings.Builder
		WriteQuoted(&b, tt.s, tt.q)
		if b.String() != tt.want {
			t.Errorf("WriteQuoted(%q, %c) = %s, want %s", tt.s, tt.q, b.String(), tt.want)
		}
	}
	for _, tt := range []struct {
		in, val string
		n       int
		ok      bool
	}{
		{"'abc' rest", "abc", 5, true},
		{`'it''s\'x'`, "it's'x", 10, true},
		{"'open", "", 0, false},
		{`'a\`, "", 0, false},
	} {
		val, n, ok := unquoteString(tt.in)
		if val != tt.val || n != tt.n || ok != tt.ok {
			t.Errorf("unquoteString(%q) = %q, %d, %v; want %q, %d, %v", tt.in, val, n, ok, tt.val, tt.n, tt.ok)
		}
	}
	if s := "tab\there\\"; UnescapeText(EscapeText(s)) != s || EscapeText("plain") != "plain" {
		t.Error("EscapeText/UnescapeText")
	}
}

// FuzzLexer: the statement scanners never panic and stay in bounds, and unquoteString reads back
// what QuoteLiteral writes for text without the bytes QuoteLiteral escapes as \x.
func FuzzLexer(f *testing.F) {
	for _, s := range []string{"SET session_timezone = 'UTC'", "INSERT INTO t VALUES (1)", "'", "/*", "--", "$a$", "INSERT INTO t FORMAT Native;", "it's \\ 'x'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = SessionTimezoneOfSet(s)
		_ = InsertWantsData(s)
		_ = nativeInsertBody(InsertBody(s))
		_, _ = ValuesAsSelect(s)
		if i := keywordIndex(s, "VALUES"); i >= len(s) {
			t.Fatalf("keywordIndex %d out of %q", i, s)
		}
		if _, n, ok := unquoteString(s); ok && (n < 2 || n > len(s)) {
			t.Fatalf("unquoteString(%q) length %d", s, n)
		}
		if strings.ContainsAny(s, "$\x7f") || strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 && r != 0 && r != '\n' && r != '\r' && r != '\t' }) {
			return
		}
		q := QuoteLiteral(s)
		val, n, ok := unquoteString(q)
		if !ok || n != len(q) {
			t.Fatalf("unquoteString(QuoteLiteral(%q)) = %q, %d, %v", s, val, n, ok)
		}
	})
}
