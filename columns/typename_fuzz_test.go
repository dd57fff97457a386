package columns

import (
	"errors"
	"testing"
)

func FuzzParseType(f *testing.F) {
	for _, tc := range tnCases {
		f.Add(tc.in)
	}
	for _, s := range []string{"", "Array(", "Tuple(`a", "Enum8('a' = ", "JSON(SKIP", "AggregateFunction(f(", "Tuple(a b c)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseType(s)
		if err != nil {
			var te *TypeError
			if !errors.As(err, &te) {
				t.Fatalf("error is %T, want *TypeError", err)
			}
			if te.Pos < 0 || te.Pos > len(s) {
				t.Fatalf("error position %d outside input of %d bytes", te.Pos, len(s))
			}
			return
		}
		out := n.String()
		n2, err := ParseType(out)
		if err != nil {
			t.Fatalf("ParseType(%q) ok, but its String %q does not parse: %v", s, out, err)
		}
		if !n2.Equal(n) {
			t.Fatalf("ParseType(%q).String() = %q re-parses to a different tree:\n%s\n%s", s, out, tnDump(n), tnDump(n2))
		}
		if out2 := n2.String(); out2 != out {
			t.Fatalf("String not stable: %q -> %q", out, out2)
		}
	})
}
