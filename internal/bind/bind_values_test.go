package bind

import (
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/chnative/chnative/columns"
)

// rank is a named number with a String method: a ? literal of it is its String(), as in
// clickhouse-go; a parameter of a number type its number.
type rank int

func (l rank) String() string { return "rank" }

// rankPtr has its String method on the pointer.
type rankPtr int

func (l *rankPtr) String() string { return "rankPtr" }

// TestBindValuesLiterals: ? literals of the zero time (the epoch) and of values with a String or
// MarshalText method (their text, quoted, a named number with names too), as clickhouse-go writes them.
func TestBindValuesLiterals(t *testing.T) {
	var z time.Time
	lp := rankPtr(3)
	for _, tc := range []struct {
		v    any
		want string
	}{
		{z, "toDateTime('1970-01-01 00:00:00', 'UTC')"},
		{&z, "toDateTime('1970-01-01 00:00:00', 'UTC')"},
		{z.In(time.FixedZone("X", 7200)), "toDateTime('1970-01-01 00:00:00', 'UTC')"},
		{time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC), "toDateTime64('0001-01-01 00:00:01.000000000', 9, 'UTC')"},
		{&strPtr{"it's"}, `'it\'s'`},
		{textOnly{"a\tb"}, `'a\tb'`},
		{netip.MustParseAddr("::1"), "'::1'"},
		{net.IPv4(1, 2, 3, 4).To4(), "'1.2.3.4'"},
		{valuerStringer{}, "'by Value'"},
		{(*strPtr)(nil), "NULL"},
		{rank(2), "'rank'"},
		{&lp, "'rankPtr'"},
		{shade(1), "'green'"},
		{time.Duration(5), "5"},
		{uint8(1), "1"},
	} {
		got, err := formatLiteral(tc.v, 0)
		if err != nil || got != tc.want {
			t.Errorf("formatLiteral(%T %v) = %s, %v; want %s", tc.v, tc.v, got, err, tc.want)
		}
	}
}

// TestBindValuesParameters: parameter text and CAST literals of the zero time (the epoch) and of
// values with a String or MarshalText method, pointer receivers included.
func TestBindValuesParameters(t *testing.T) {
	var z time.Time
	for _, tc := range []struct {
		typ  string
		v    any
		want string
	}{
		{"Date", z, "1970-01-01"},
		{"Date32", &z, "1970-01-01"},
		{"DateTime", z, "0000000000"},
		{"DateTime64(3)", z, "0000000000"},
		{"Nullable(DateTime('UTC'))", &z, "0000000000"},
		{"Array(Date)", []time.Time{z}, "['1970-01-01']"},
		{"String", &strPtr{"a\tb"}, `a\tb`},
		{"Array(String)", []*strPtr{{"x'y"}}, `['x\'y']`},
		{"UUID", &strPtr{"61f0c404-5cb3-11e7-907b-a6006ad3dba0"}, "61f0c404-5cb3-11e7-907b-a6006ad3dba0"},
		{"String", textOnly{"t"}, "t"},
		{"Enum8('red' = 1, 'green' = 2)", shade(1), "green"},
		{"Enum8('red' = 1, 'green' = 2)", shade(2), "green"}, // "blue" is no name here: its number
		{"Int32", rank(7), "7"},
	} {
		got, err := parameterText(tc.v, tc.typ)
		if err != nil || got != tc.want {
			t.Errorf("parameterText(%T, %s) = %q, %v; want %q", tc.v, tc.typ, got, err, tc.want)
		}
	}
	for _, tc := range []struct {
		typ  string
		v    any
		want string
	}{
		{"Date", z, "CAST('1970-01-01' AS Date)"},
		{"DateTime", z, "CAST(toDateTime('1970-01-01 00:00:00', 'UTC') AS DateTime)"},
		{"String", &strPtr{"s"}, "CAST('s' AS String)"},
		{"UUID", &strPtr{"61f0c404-5cb3-11e7-907b-a6006ad3dba0"}, "CAST('61f0c404-5cb3-11e7-907b-a6006ad3dba0' AS UUID)"},
		{"Enum8('red' = 1, 'green' = 2)", shade(1), "CAST('green' AS Enum8('red' = 1, 'green' = 2))"},
	} {
		got, err := castLiteral(tc.v, tc.typ)
		if err != nil || got != tc.want {
			t.Errorf("castLiteral(%T, %s) = %s, %v; want %s", tc.v, tc.typ, got, err, tc.want)
		}
	}
}

// TestBindValuesTyped: a VariantValue or DynamicValue is a literal of its own type (a CAST), and
// a parameter's text in its type.
func TestBindValuesTyped(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{columns.VariantValue{Type: "UInt64", Value: 5}, "CAST(5 AS UInt64)"},
		{columns.DynamicValue{Type: "LowCardinality(String)", Value: "x'"}, `CAST('x\'' AS LowCardinality(String))`},
		{columns.DynamicValue{Type: "Array(Date)", Value: []time.Time{{}}}, "CAST(['1970-01-01'] AS Array(Date))"},
		{&columns.VariantValue{Type: "Int8", Value: -1}, "CAST(-1 AS Int8)"},
		{columns.VariantValue{}, "NULL"},
		{[]any{columns.VariantValue{Type: "String", Value: "a"}, nil}, "[CAST('a' AS String), NULL]"},
	} {
		got, err := formatLiteral(tc.v, 0)
		if err != nil || got != tc.want {
			t.Errorf("formatLiteral(%#v) = %s, %v; want %s", tc.v, got, err, tc.want)
		}
	}
	for _, v := range []any{columns.VariantValue{Value: 1}, columns.DynamicValue{Type: "Nope(", Value: 1}} {
		if got, err := formatLiteral(v, 0); err == nil {
			t.Errorf("formatLiteral(%#v) = %s, want an error", v, got)
		}
	}
	at := time.Unix(1700000000, 0)
	for _, tc := range []struct {
		typ  string
		v    any
		want string
	}{
		{"Variant(DateTime, String)", columns.VariantValue{Type: "DateTime", Value: at}, "1700000000"},
		{"Dynamic", columns.DynamicValue{Type: "Array(String)", Value: []string{"a\tb"}}, `['a\tb']`},
		{"UInt64", columns.VariantValue{Type: "UInt64", Value: 5}, "5"},
		{"Variant(String, UInt64)", columns.VariantValue{}, `\N`},
	} {
		got, err := parameterText(tc.v, tc.typ)
		if err != nil || got != tc.want {
			t.Errorf("parameterText(%#v, %s) = %q, %v; want %q", tc.v, tc.typ, got, err, tc.want)
		}
	}
}

// TestBindValuesParameterText: a ParameterText is sent as it is (quoted as a Field dump), inside
// composites as it is too, and unescaped into a CAST literal for servers without parameters.
func TestBindValuesParameterText(t *testing.T) {
	for _, tc := range []struct{ typ, in, want string }{
		{"String", `line 1\nline 2`, `'line 1\\nline 2'`},
		{"Array(String)", `['a', 'b']`, `'[\'a\', \'b\']'`},
		{"Nullable(String)", `\N`, `'\\N'`},
		{"Identifier", "x", "'x'"},
	} {
		got, err := parameterValue(ParameterText(tc.in), tc.typ)
		if err != nil || got != tc.want {
			t.Errorf("parameterValue(ParameterText(%q), %s) = %s, %v; want %s", tc.in, tc.typ, got, err, tc.want)
		}
	}
	if got, err := parameterText([]any{ParameterText(`'x'`), "y"}, "Array(String)"); err != nil || got != `['x','y']` {
		t.Errorf("ParameterText in an array: %s, %v", got, err)
	}
	for _, tc := range []struct{ typ, in, want string }{
		{"String", `a\tb\\c\'d\x`, `CAST('a\tb\\c\'dx' AS String)`},
		{"Nullable(String)", `\N`, "CAST(NULL AS Nullable(String))"},
		{"Array(String)", `['a']`, `CAST('[\'a\']' AS Array(String))`},
	} {
		got, err := castLiteral(ParameterText(tc.in), tc.typ)
		if err != nil || got != tc.want {
			t.Errorf("castLiteral(ParameterText(%q), %s) = %s, %v; want %s", tc.in, tc.typ, got, err, tc.want)
		}
	}
}

// FuzzUnescapeText: unescapeText takes any text without panicking and undoes escapeText.
func FuzzUnescapeText(f *testing.F) {
	for _, s := range []string{"", `\`, `a\`, `\\`, `\N`, "a\tb\n\\c\x00", `\x\y\'`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_ = unescapeText(s)
		if got := unescapeText(escapeText(s)); got != s {
			t.Fatalf("unescapeText(escapeText(%q)) = %q", s, got)
		}
	})
}
