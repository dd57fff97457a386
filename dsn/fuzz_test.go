package dsn

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

// FuzzParseFormat checks, for arbitrary input:
//
//   - Parse never panics and fails only with a *Error;
//   - whatever parses is valid, round-trips through FormatDSN unchanged, and
//     FormatDSN is a fixed point;
//   - String does not depend on the password;
//   - a password inserted (correctly encoded) into the input, either as user
//     info or as the tcp:// style password= key, never shows up in an error
//     or in String, whatever else is wrong with the input.
func FuzzParseFormat(f *testing.F) {
	for _, tt := range parseTests {
		f.Add(tt.in, "pw")
	}
	for _, tt := range errorTests {
		f.Add(strings.ReplaceAll(tt.in, "{PW}", "pw"), `p@ss/w?rd#%`)
	}
	for _, tt := range clickHouseGoKeyTests {
		f.Add(tt.in, "pw")
	}
	for _, tt := range mistakeTests {
		f.Add(strings.ReplaceAll(tt.in, "{PW}", "pw"), `p@ss/w?rd#%`)
	}
	f.Add("u:p/ss@h/db", "x")
	f.Add("u:1?a=b@h", "")

	f.Fuzz(func(t *testing.T, s, pw string) {
		c, err := Parse(s)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Parse(%q) error is %T, not *Error: %v", s, err, err)
			}
			if c != nil {
				t.Fatalf("Parse(%q) returned a Config and an error", s)
			}
		} else {
			if err := c.Validate(); err != nil {
				t.Fatalf("Parse(%q) returned an invalid Config: %v\n%s", s, err, dump(c))
			}
			checkRoundTrip(t, c)
			other := c.Clone()
			other.Password = pw + "?"
			if c.Password != "" && c.String() != other.String() {
				t.Fatalf("String depends on the password: %q vs %q", c.String(), other.String())
			}
		}

		// Password leak check. The password is pw between two markers; a
		// decoy uses other markers. A marker in the output of the real run
		// but not of the decoy run is a leak (the decoy rules out markers
		// coming from s itself).
		const m1, m2, d1, d2 = "Zq9", "7Wx", "Kp4", "3Vy"
		real, decoy := m1+pw+m2, d1+pw+d2
		for _, build := range []func(string) string{
			func(p string) string { return "clickhouse://u:" + escapeComponent(p) + "@" + stripScheme(s) },
			func(p string) string {
				sep := "?"
				if strings.Contains(s, "?") {
					sep = "&"
				}
				return s + sep + "password=" + url.QueryEscape(p)
			},
		} {
			outReal, outDecoy := leakSurface(build(real)), leakSurface(build(decoy))
			for _, m := range []string{m1, m2} {
				if strings.Contains(outReal, m) && !strings.Contains(outDecoy, m) {
					t.Fatalf("password leaked (marker %q)\ninput %q\noutput %q", m, build(real), outReal)
				}
			}
		}
	})
}

// leakSurface returns every text Parse(s) exposes that must not contain the
// password: the error text, Key and Value, or String and GoString.
func leakSurface(s string) string {
	c, err := Parse(s)
	if err != nil {
		var e *Error
		errors.As(err, &e)
		return err.Error() + "\x00" + e.Key + "\x00" + e.Value
	}
	return c.String() + "\x00" + c.GoString()
}

// stripScheme removes a leading scheme:// the way Parse would recognise it.
func stripScheme(s string) string {
	if i := strings.Index(s, "://"); i >= 0 && validScheme(s[:i]) {
		return s[i+3:]
	}
	return s
}
