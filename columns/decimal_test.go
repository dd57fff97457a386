package columns

import (
	"math/big"
	"testing"
)

func TestDecimalString(t *testing.T) {
	for _, tc := range []struct {
		d    Decimal
		want string
	}{
		{Decimal{}, "0"},
		{Decimal{big.NewInt(0), 2}, "0.00"},
		{Decimal{big.NewInt(5), 2}, "0.05"},
		{Decimal{big.NewInt(-5), 2}, "-0.05"},
		{Decimal{big.NewInt(-12345), 2}, "-123.45"},
		{Decimal{big.NewInt(12345), 0}, "12345"},
		{Decimal{big.NewInt(12), -2}, "1200"},
		{Decimal{big.NewInt(-1), 5}, "-0.00001"},
	} {
		if got := tc.d.String(); got != tc.want {
			t.Errorf("%#v: %q, want %q", tc.d, got, tc.want)
		}
		if v, err := tc.d.Value(); err != nil || v != tc.want {
			t.Errorf("Value() = %v, %v", v, err)
		}
	}
	if f := (Decimal{big.NewInt(-125), 2}).Float64(); f != -1.25 {
		t.Errorf("Float64 = %v", f)
	}
}

func TestParseDecimal(t *testing.T) {
	for _, tc := range []struct {
		in    string
		scale int
		want  string
		ok    bool
	}{
		{"1.005", 2, "1.01", true}, // half away from zero
		{"-1.005", 2, "-1.01", true},
		{"1.004", 2, "1.00", true},
		{" 2 ", 1, "2.0", true},
		{"1e-3", 3, "0.001", true},
		{"-1.5e2", 0, "-150", true},
		{"1e4097", 0, "", false},
		{"1e-4097", 0, "", false},
		{"1e99999999999999999999", 0, "", false},
		{"1/3", 2, "", false},
		{"abc", 2, "", false},
		{"", 2, "", false},
	} {
		d, err := ParseDecimal(tc.in, tc.scale)
		if (err == nil) != tc.ok {
			t.Errorf("ParseDecimal(%q): %v", tc.in, err)
			continue
		}
		if tc.ok && d.String() != tc.want {
			t.Errorf("ParseDecimal(%q, %d) = %s, want %s", tc.in, tc.scale, d, tc.want)
		}
	}
}

// Full precision at each width, negative, and the stored unscaled integer.
func TestDecimalWidths(t *testing.T) {
	for _, tc := range []struct{ typ, v string }{
		{"Decimal(9, 9)", "-0.999999999"},
		{"Decimal(18, 9)", "-999999999.999999999"},
		{"Decimal(38, 19)", "-9999999999999999999.9999999999999999999"},
		{"Decimal(76, 38)", "-99999999999999999999999999999999999999.99999999999999999999999999999999999999"},
		{"Decimal(76, 0)", "-9999999999999999999999999999999999999999999999999999999999999999999999999999"},
	} {
		c := mustNew(t, tc.typ)
		appendAll(t, c, tc.v, tc.v[1:])
		if got := c.Value(0).(Decimal).String(); got != tc.v {
			t.Errorf("%s: %s, want %s", tc.typ, got, tc.v)
		}
		if got := c.Value(1).(Decimal).String(); got != tc.v[1:] {
			t.Errorf("%s: %s, want %s", tc.typ, got, tc.v[1:])
		}
		if err := c.AppendValue("1" + tc.v[1:]); err == nil {
			t.Errorf("%s: past the precision accepted", tc.typ)
		}
		checkRoundTrip(t, c, nil)
	}
}
