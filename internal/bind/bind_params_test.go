package bind

import (
	"database/sql"
	"database/sql/driver"
	"math"
	"math/big"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/nativeproto"
)

// TestParameterText checks the text of query parameters by type (the server's answers to these
// texts are checked in TestParamsServer).
func TestParameterText(t *testing.T) {
	kolkata := time.FixedZone("IST", 5*3600+1800)
	tests := []struct {
		typ  string
		v    any
		want string
	}{
		{"String", "a\tb\nc\\d'e", `a\tb\nc\\d'e`},
		{"String", []byte("\x00\r"), `\0\r`},
		{"Nullable(String)", nil, `\N`},
		{"Nullable(String)", `\N`, `\\N`},
		{"Nullable(String)", (*string)(nil), `\N`},
		{"Array(String)", []string{"a\tb", "it's", `\`}, `['a\tb','it\'s','\\']`},
		{"Array(Nullable(String))", []*string{nil}, `[NULL]`},
		{"Bool", true, "true"},
		{"Bool", 0, "false"},
		{"Array(Bool)", []bool{true, false}, "[true,false]"},
		{"Map(String, Bool)", map[string]bool{"b": false, "a": true}, "{'a':true,'b':false}"},
		{"Map(String, Array(Nullable(Bool)))", map[string][]*bool{"k": {nil}}, "{'k':[NULL]}"},
		{"UInt8", true, "1"},
		{"Array(UInt8)", []bool{true}, "[1]"},
		{"Int32", "-42", "-42"},
		{"Float64", math.Copysign(0, -1), "-0"},
		{"Float64", math.NaN(), "nan"},
		{"Decimal(9, 2)", columns.Decimal{Unscaled: big.NewInt(-150), Scale: 2}, "-1.50"},
		{"Int128", new(big.Int).Lsh(big.NewInt(1), 100), "1267650600228229401496703205376"},
		{"UUID", [16]byte{0x61, 0xf0, 0xc4, 0x04, 0x5c, 0xb3, 0x11, 0xe7, 0x90, 0x7b, 0xa6, 0x00, 0x6a, 0xd3, 0xdb, 0xa0},
			"61f0c404-5cb3-11e7-907b-a6006ad3dba0"},
		{"IPv6", netip.MustParseAddr("1.2.3.4"), "::ffff:1.2.3.4"},
		{"IPv4", uint32(0x7f000001), "127.0.0.1"},
		{"Array(IPv6)", []netip.Addr{netip.MustParseAddr("::1")}, "['::1']"},
		{"Date", time.Date(2024, 3, 1, 1, 0, 0, 0, kolkata), "2024-03-01"},
		{"Array(Date)", []time.Time{time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)}, "['2024-03-01']"},
		{"DateTime", time.Unix(0, 0), "0000000000"},
		{"DateTime('UTC')", time.Unix(1234567890, 999), "1234567890"},
		{"DateTime", 5, "0000000005"},
		{"Array(DateTime)", []time.Time{time.Unix(1, 0)}, "['0000000001']"},
		{"DateTime64(3)", time.Unix(1, 5e8), "0000000001.500000000"},
		{"DateTime64(3)", time.Unix(-2, 5e8), "-0000000001.500000000"},
		{"DateTime64(3)", time.Unix(-5, 0), "-0000000005"},
		{"DateTime64(3, 'Asia/Kolkata')", time.Unix(-1, 5e8), "1970-01-01 05:29:59.500000000"},
		{"DateTime64(3)", time.Unix(-1, 5e8), "1969-12-31 23:59:59.500000000"},
		{"Nullable(DateTime64(3))", (*time.Time)(nil), `\N`},
		{"Time", -(time.Hour + time.Second), "-01:00:01"},
		{"Time64(9)", time.Nanosecond, "00:00:00.000000001"},
		{"Time64(9)", time.Duration(math.MinInt64), "-2562047:47:16.854775808"},
		{"Enum8('a' = 1, 'b' = 2)", 2, "b"},
		{"Array(Enum8('a' = 1, 'it''s' = 2))", []any{2, "a"}, `['it\'s','a']`},
		{"IntervalDay", 48 * time.Hour, "2"},
		{"Tuple(a Int32, b String)", map[string]any{"b": "x", "a": 1}, "(1,'x')"},
		{"Tuple(Int32, String)", struct {
			A int
			b int
			B string
		}{1, 2, "y"}, "(1,'y')"},
		{"Point", columns.Point{X: 1, Y: -2.5}, "(1,-2.5)"},
		{"Ring", [][2]float64{{0, 1}}, "[(0,1)]"},
		{"Nested(a Int32, b String)", [][]any{{1, "x"}}, "[(1,'x')]"},
		{"Map(Int32, Nullable(String))", map[int32]*string{20: nil, -1: nil}, "{-1:NULL,20:NULL}"},
		{"Array(String)", "['a','b']", "['a','b']"}, // a string is the value's text
		{"Dynamic", int64(-5), "-5"},
		{"Dynamic", []any{true, "x"}, "[true,'x']"},
		{"Variant(String, UInt64)", "a\tb", `a\tb`},
		{"Not A Type(", true, "true"},
		{"SimpleAggregateFunction(sum, UInt64)", uint64(3), "3"},
		{"JSON", map[string]any{"b": "x\ty", "a": 1}, `{"a":1,"b":"x\\ty"}`},
		{"JSON", []byte(`{"a":1}`), `{"a":1}`},
		{"LowCardinality(Nullable(String))", sql.NullString{String: "q", Valid: true}, "q"},
	}
	for _, tt := range tests {
		got, err := parameterText(tt.v, tt.typ)
		if err != nil || got != tt.want {
			t.Errorf("parameterText(%#v, %q) = %q, %v; want %q", tt.v, tt.typ, got, err, tt.want)
		}
	}
}

func TestParameterTextErrors(t *testing.T) {
	tests := []struct {
		typ  string
		v    any
		want string
	}{
		{"Int32", "1,2", "not a number"},
		{"Array(Int32)", []string{"1]"}, "not a number"},
		{"Enum8('a' = 1)", 7, "no element 7"},
		{"IntervalDay", time.Hour, "whole number"},
		{"Tuple(Int32, String)", []any{1}, "1 values for a tuple of 2"},
		{"Tuple(Int32, String)", map[string]any{"a": 1}, "named elements"},
		{"Tuple(a Int32)", map[string]any{"b": 1}, `no element "a"`},
		{"Map(String, Int32)", []int{1}, "as a map"},
		{"Array(Int32)", 5, "as Array"},
		{"UUID", make(chan int), "chan int"},
		{"String", errValuer{}, "valuer failed"},
	}
	for _, tt := range tests {
		_, err := parameterText(tt.v, tt.typ)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("parameterText(%#v, %q): %v, want an error with %q", tt.v, tt.typ, err, tt.want)
		}
	}
	// Nesting is bounded.
	var deep any = 1
	typ := "Int32"
	for range maxLiteralDepth + 2 {
		deep, typ = []any{deep}, "Array("+typ+")"
	}
	if _, err := parameterText(deep, typ); err == nil || !strings.Contains(err.Error(), "nested") {
		t.Errorf("deep array: %v", err)
	}
}

// TestCastLiteralTyped: below revision 54459 {name:Type} becomes CAST(literal AS Type), the
// literal following the type.
func TestCastLiteralTyped(t *testing.T) {
	kolkata := time.FixedZone("IST", 5*3600+1800)
	tests := []struct {
		typ  string
		v    any
		want string
	}{
		{"Tuple(String, Int32)", []any{"a", 1}, "CAST(tuple('a', 1) AS Tuple(String, Int32))"},
		{"Array(Tuple(UInt8))", [][]any{{1}}, "CAST([tuple(1)] AS Array(Tuple(UInt8)))"},
		{"Date", time.Date(2024, 3, 1, 1, 0, 0, 0, kolkata), "CAST('2024-03-01' AS Date)"},
		{"UUID", [16]byte{15: 1}, "CAST('00000000-0000-0000-0000-000000000001' AS UUID)"},
		{"Array(Enum8('a' = 1, 'b' = 2))", []any{"a", 2}, "CAST(['a', 'b'] AS Array(Enum8('a' = 1, 'b' = 2)))"},
		{"Map(String, Array(UInt8))", map[string][]int{"k": {1}}, "CAST(map('k', [1]) AS Map(String, Array(UInt8)))"},
		{"Nullable(String)", nil, "CAST(NULL AS Nullable(String))"},
		{"UInt8", true, "CAST(1 AS UInt8)"},
		{"Array(String)", "['a']", `CAST('[\'a\']' AS Array(String))`},
		{"Bad(", []int{1}, "CAST([1] AS Bad()"},
	}
	for _, tt := range tests {
		got, err := castLiteral(tt.v, tt.typ)
		if err != nil || got != tt.want {
			t.Errorf("castLiteral(%#v, %q) = %q, %v; want %q", tt.v, tt.typ, got, err, tt.want)
		}
	}
}

// TestBindQueryParametersTyped: sql.Named values for {name:Type} are rendered by the type.
func TestBindQueryParametersTyped(t *testing.T) {
	args := []driver.NamedValue{
		{Name: "b", Value: []bool{true, false}},
		{Name: "m", Value: map[string]bool{"a": true}},
		{Name: "s", Value: "x\ty\n"},
	}
	_, opts, err := bindQuery("SELECT {b:Array(Bool)}, {m:Map(String, Bool)}, {s:String}", args, nativeproto.RevParameters)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"b": `'[true,false]'`, "m": `'{\'a\':true}'`, "s": `'x\\ty\\n'`}
	for k, v := range want {
		if opts[k] != v {
			t.Errorf("parameter %s = %s, want %s", k, opts[k], v)
		}
	}
}

// TestServerPlaceholdersTakeArguments: {name:Type} placeholders take (named) arguments, so an
// INSERT holding one is not a row insert, and VALUES of them map arguments by name.
func TestServerPlaceholdersTakeArguments(t *testing.T) {
	for q, want := range map[string]bool{
		"INSERT INTO t SELECT {a:String}": true,
		"INSERT INTO t VALUES (?)":        true,
		"INSERT INTO t VALUES":            false,
		"INSERT INTO t SELECT '{a:b}'":    false,
	} {
		if got := hasPlaceholders(q); got != want {
			t.Errorf("hasPlaceholders(%q) = %v, want %v", q, got, want)
		}
	}
	names, ok := namedRows("({b:UInt8}, { a : String }), (@c, {d:Date})")
	if !ok || len(names) != 2 || strings.Join(names[0], ",") != "b,a" || strings.Join(names[1], ",") != "c,d" {
		t.Errorf("namedRows: %v, %v", names, ok)
	}
	// Types with parentheses and commas are one value each.
	if names, ok := namedRows("({d:Nullable(String)}, {e:Map(String, UInt8)})"); !ok || strings.Join(names[0], ",") != "d,e" {
		t.Errorf("namedRows with parenthesized types: %v, %v", names, ok)
	}
}
