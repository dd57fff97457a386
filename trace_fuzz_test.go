package chnative

import "testing"

// FuzzParseTraceparent: ParseTraceparent never panics, what it accepts is valid, and the
// traceparent of the result parses back to the same TraceContext (a version-00 header is
// written back as it came).
func FuzzParseTraceparent(f *testing.F) {
	f.Add("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	f.Add("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-09-what")
	f.Add("00-00000000000000000000000000000000-00f067aa0ba902b7-01")
	f.Fuzz(func(t *testing.T, s string) {
		tc, err := ParseTraceparent(s, "st")
		if err != nil {
			return
		}
		if !tc.IsValid() || tc.State != "st" {
			t.Fatalf("%q: accepted %+v", s, tc)
		}
		back, err := ParseTraceparent(tc.Traceparent(), "st")
		if err != nil || back != tc {
			t.Fatalf("%q: %+v does not round-trip: %+v, %v", s, tc, back, err)
		}
		if len(s) == 55 && s[:2] == "00" && tc.Traceparent() != s {
			t.Fatalf("%q written back as %q", s, tc.Traceparent())
		}
	})
}
