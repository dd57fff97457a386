package bind

import (
	"database/sql/driver"
	"fmt"
	"strings"
	"testing"
	"time"
)

// unquoteCH reads the ClickHouse single-quoted string literal at the start of s (the escapes
// \\, \', \0, \n, \r, \t, \xHH and a doubled quote) and returns its value and the rest of s.
func unquoteCH(s string) (val, rest string, err error) {
	if s == "" || s[0] != '\'' {
		return "", "", fmt.Errorf("no opening quote in %q", s)
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'':
			if i+1 < len(s) && s[i+1] == '\'' {
				b.WriteByte('\'')
				i++
				continue
			}
			return b.String(), s[i+1:], nil
		case '\\':
			if i+1 >= len(s) {
				return "", "", fmt.Errorf("dangling backslash")
			}
			i++
			switch e := s[i]; e {
			case '\\', '\'':
				b.WriteByte(e)
			case '0':
				b.WriteByte(0)
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'x':
				if i+2 >= len(s) {
					return "", "", fmt.Errorf("short \\x escape")
				}
				var v byte
				if _, err := fmt.Sscanf(s[i+1:i+3], "%02x", &v); err != nil {
					return "", "", fmt.Errorf("bad \\x escape %q", s[i+1:i+3])
				}
				b.WriteByte(v)
				i += 2
			default:
				return "", "", fmt.Errorf("unexpected escape \\%c", e)
			}
		default:
			if c < 0x20 || c == 0x7f {
				return "", "", fmt.Errorf("raw control byte %#x in the literal", c)
			}
			b.WriteByte(c)
		}
	}
	return "", "", fmt.Errorf("unterminated literal")
}

func FuzzBind(f *testing.F) {
	for _, s := range []string{"", "'", "\\", "'; DROP TABLE t; --", "\x00\n\r\t\x7f", "\xff\xfe", "$$", "*/", "‘’“”", "\\'", "''"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, _, err := bindQuery("SELECT ?", []driver.NamedValue{{Ordinal: 1, Value: s}}, oldRev)
		if err != nil {
			t.Fatal(err)
		}
		lit, ok := strings.CutPrefix(got, "SELECT ")
		if !ok {
			t.Fatalf("bound query %q", got)
		}
		val, rest, err := unquoteCH(lit)
		if err != nil {
			t.Fatalf("%q: %v", got, err)
		}
		if rest != "" {
			t.Fatalf("%q: text after the literal: %q", got, rest)
		}
		if val != s {
			t.Fatalf("%q reads back as %q, want %q", got, val, s)
		}
		// The bound query holds no placeholder outside the literal and is one literal to the
		// scanner too.
		if ps := scanPlaceholders(got); len(ps) != 0 {
			t.Fatalf("%q: placeholders %+v in the bound query", got, ps)
		}
		// A placeholder after it is found where it is: the scanner's literal ends where the
		// query's does (earlier, its closing quote would open another that swallows the '?').
		if ps := scanPlaceholders(got + " ?"); len(ps) != 1 || ps[0].Start != len(got)+1 {
			t.Fatalf("%q: placeholders %+v after the literal, want one at %d", got, ps, len(got)+1)
		}
	})
}

func FuzzScanPlaceholders(f *testing.F) {
	for _, q := range []string{"SELECT ?", "SELECT '?' -- ?\n?", "/* /* */ ? */ ?", "$$?$$ $1 @a {a:T}", "{a:Enum('}')} ‘?’ “?", "$a$ $a", "{", "{a:", "$", "@", "'\\", "?- ?", "-?-$1"} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		ps := scanPlaceholders(q)
		last := 0
		for _, p := range ps {
			if p.Start < last || p.End <= p.Start || p.End > len(q) {
				t.Fatalf("%q: placeholder %+v out of order or bounds (previous end %d)", q, p, last)
			}
			last = p.End
			text := q[p.Start:p.End]
			switch p.Kind {
			case '?':
				if text != "?" {
					t.Fatalf("%q: ? placeholder %q", q, text)
				}
			case '$':
				if text != fmt.Sprintf("$%d", p.Index) && !strings.HasPrefix(text, "$0") {
					t.Fatalf("%q: $ placeholder %q index %d", q, text, p.Index)
				}
			case '@':
				if text != "@"+p.Name {
					t.Fatalf("%q: @ placeholder %q name %q", q, text, p.Name)
				}
			case '{':
				if text[0] != '{' || text[len(text)-1] != '}' || !strings.Contains(text, p.Name) {
					t.Fatalf("%q: {} placeholder %q name %q", q, text, p.Name)
				}
			default:
				t.Fatalf("%q: kind %q", q, p.Kind)
			}
		}
		// Binding must not panic either, whatever the arguments.
		args := make([]driver.NamedValue, 0, len(ps))
		for i := range ps {
			args = append(args, driver.NamedValue{Ordinal: i + 1, Value: -int64(i)})
		}
		// Substituted literals never start a comment: "-" in the query followed by a negative
		// number must not become "--".
		if out, _, err := bindQuery(q, args, oldRev); err == nil && strings.Count(out, "--") > strings.Count(q, "--") {
			t.Fatalf("%q: bound as %q, a new -- comment", q, out)
		}
	})
}

// undumpParameter reverses nativeproto.QuoteParameter: the server's readQuoted of the Field dump.
func undumpParameter(s string) (string, error) {
	if len(s) < 2 || s[0] != '\'' || s[len(s)-1] != '\'' {
		return "", fmt.Errorf("dump %q is not quoted", s)
	}
	var b strings.Builder
	for i := 1; i < len(s)-1; i++ {
		c := s[i]
		if c == '\\' {
			i++
			if i >= len(s)-1 || s[i] != '\\' && s[i] != '\'' {
				return "", fmt.Errorf("dump %q: unexpected escape", s)
			}
			c = s[i]
		} else if c == '\'' {
			return "", fmt.Errorf("dump %q: unescaped quote", s)
		}
		b.WriteByte(c)
	}
	return b.String(), nil
}

// unescapeTSV reverses escapeText (the TabSeparated escapes the server reads).
func unescapeTSV(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\t' || c == '\n':
			return "", fmt.Errorf("raw %q in a TabSeparated field", c)
		case c != '\\':
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(s) {
			return "", fmt.Errorf("dangling backslash")
		}
		e, ok := map[byte]byte{'\\': '\\', 't': '\t', 'n': '\n', 'r': '\r', '0': 0, 'b': '\b', 'f': '\f', 'v': '\v'}[s[i]]
		if !ok {
			return "", fmt.Errorf("unexpected escape \\%c", s[i])
		}
		b.WriteByte(e)
	}
	return b.String(), nil
}

// FuzzParameterText: a string parameter reads back as itself through both of the server's
// unescapings (the Field dump, then TabSeparated at the top level or quoted elements in an
// array), and no value or type name makes rendering panic.
func FuzzParameterText(f *testing.F) {
	for _, s := range nastyStrings {
		f.Add(s, "Array(Nullable(String))")
	}
	f.Add("x", "Map(String, Tuple(a Bool, b DateTime64(3)))")
	f.Add("", "Enum8('a' = 1)")
	f.Fuzz(func(t *testing.T, s, typ string) {
		dump, err := parameterValue(s, "String")
		if err != nil {
			t.Fatal(err)
		}
		text, err := undumpParameter(dump)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := unescapeTSV(text); err != nil || got != s {
			t.Fatalf("%q: dump %q reads back as %q, %v", s, dump, got, err)
		}
		dump, err = parameterValue([]string{s, s}, "Array(String)")
		if err != nil {
			t.Fatal(err)
		}
		text, err = undumpParameter(dump)
		if err != nil {
			t.Fatal(err)
		}
		rest, ok := strings.CutPrefix(text, "[")
		for i := range 2 {
			var got string
			if got, rest, err = unquoteCH(rest); err != nil || got != s {
				t.Fatalf("%q: array dump %q element %d reads back as %q, %v", s, dump, i, got, err)
			}
			if i == 0 {
				rest, ok = strings.CutPrefix(rest, ",")
			}
		}
		if !ok || rest != "]" {
			t.Fatalf("%q: array text %q", s, text)
		}
		// Any type with any of these values: an error or a text, never a panic.
		for _, v := range []any{s, []byte(s), 1, -1.5, true, nil, []any{s, 2, nil, false}, map[string]any{s: s},
			[]*string{&s, nil}, time.Unix(int64(len(s))-5, 5e8), time.Duration(len(s))} {
			_, _ = parameterText(v, typ)
			_, _ = castLiteral(v, typ)
		}
	})
}
