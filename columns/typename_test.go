package columns

import (
	"errors"
	"strings"
	"testing"
)

// Helpers building expected trees.

func tnT(name string, args ...TypeArg) *TypeNode {
	n := &TypeNode{Name: name}
	if args != nil {
		n.Args = args
	}
	return n
}

// tnT0 is a type with empty parentheses, e.g. Tuple().
func tnT0(name string) *TypeNode { return &TypeNode{Name: name, Args: []TypeArg{}} }

func tnA(n *TypeNode) TypeArg                    { return TypeArg{Kind: ArgType, Type: n} }
func tnF(f string, n *TypeNode) TypeArg          { return TypeArg{Kind: ArgType, Field: f, Type: n} }
func tnN(num string) TypeArg                     { return TypeArg{Kind: ArgNumber, Number: num} }
func tnS(s string) TypeArg                       { return TypeArg{Kind: ArgString, String: s} }
func tnE(name, value string) TypeArg             { return TypeArg{Kind: ArgEnum, String: name, Number: value} }
func tnR(raw string) TypeArg                     { return TypeArg{Kind: ArgRaw, Raw: raw} }
func tnP(name string) TypeArg                    { return tnA(tnT(name)) } // plain type argument
func tnFP(f, name string) TypeArg                { return tnF(f, tnT(name)) }
func tnNested(name string, a ...TypeArg) TypeArg { return tnA(tnT(name, a...)) }

type tnCase struct {
	in    string
	canon string    // expected String(); "" means the input is canonical
	want  *TypeNode // expected tree; nil means not checked
}

var tnCases = []tnCase{
	{in: "UInt8", want: tnT("UInt8")},
	{in: "String", want: tnT("String")},
	{in: "Dynamic", want: tnT("Dynamic")},
	{in: "JSON", want: tnT("JSON")},
	{in: "IntervalSecond", want: tnT("IntervalSecond")},
	{in: "Tuple()", want: tnT0("Tuple")},
	{in: "Array(Nullable(String))", want: tnT("Array", tnNested("Nullable", tnP("String")))},
	{in: "Tuple(a UInt8, b String)", want: tnT("Tuple", tnFP("a", "UInt8"), tnFP("b", "String"))},
	{in: "Tuple(UInt8, String)", want: tnT("Tuple", tnP("UInt8"), tnP("String"))},
	{in: "Tuple(`weird name` UInt8)", want: tnT("Tuple", tnFP("weird name", "UInt8"))},
	{in: "Tuple(`a``b` UInt8)", canon: "Tuple(`a\\`b` UInt8)", want: tnT("Tuple", tnFP("a`b", "UInt8"))},
	{in: "Tuple(`1` UInt8, `null` String, `x.y` Int8)", want: tnT("Tuple", tnFP("1", "UInt8"), tnFP("null", "String"), tnFP("x.y", "Int8"))},
	{in: "Tuple(`plain` UInt8)", canon: "Tuple(plain UInt8)", want: tnT("Tuple", tnFP("plain", "UInt8"))},
	{in: "Tuple(a Nullable(String))", want: tnT("Tuple", tnF("a", tnT("Nullable", tnP("String"))))},
	{in: "Tuple(Nullable(String))", want: tnT("Tuple", tnNested("Nullable", tnP("String")))},
	{in: "Tuple(UInt8 Int8)", want: tnT("Tuple", tnFP("UInt8", "Int8"))},
	{in: "Tuple(a Tuple(b Array(UInt8), c Map(String, UInt64)))", want: tnT("Tuple",
		tnF("a", tnT("Tuple", tnF("b", tnT("Array", tnP("UInt8"))), tnF("c", tnT("Map", tnP("String"), tnP("UInt64"))))))},
	{in: "LowCardinality(Nullable(String))", want: tnT("LowCardinality", tnNested("Nullable", tnP("String")))},
	{in: `Enum8('a' = 1, 'it''s' = 2, 'b\'c' = -3)`, canon: `Enum8('a' = 1, 'it\'s' = 2, 'b\'c' = -3)`,
		want: tnT("Enum8", tnE("a", "1"), tnE("it's", "2"), tnE("b'c", "-3"))},
	{in: `Enum16('x\\y' = -32768, '' = 0, 'tab\there' = 32767)`, want: tnT("Enum16", tnE(`x\y`, "-32768"), tnE("", "0"), tnE("tab\there", "32767"))},
	{in: "Enum8('a'=1,'b'=2)", canon: "Enum8('a' = 1, 'b' = 2)", want: tnT("Enum8", tnE("a", "1"), tnE("b", "2"))},
	{in: `Enum8('\x41\n\0' = 1)`, canon: `Enum8('A\n\0' = 1)`, want: tnT("Enum8", tnE("A\n\x00", "1"))},
	{in: "DateTime('Europe/Moscow')", want: tnT("DateTime", tnS("Europe/Moscow"))},
	{in: "DateTime64(3, 'UTC')", want: tnT("DateTime64", tnN("3"), tnS("UTC"))},
	{in: "DateTime64(9)", want: tnT("DateTime64", tnN("9"))},
	{in: "Decimal(18, 4)", want: tnT("Decimal", tnN("18"), tnN("4"))},
	{in: "Decimal32(4)", want: tnT("Decimal32", tnN("4"))},
	{in: "FixedString(16)", want: tnT("FixedString", tnN("16"))},
	{in: "Map(String, Array(Nullable(UInt64)))", want: tnT("Map", tnP("String"), tnNested("Array", tnNested("Nullable", tnP("UInt64"))))},
	{in: "Nested(a UInt8, b String)", want: tnT("Nested", tnFP("a", "UInt8"), tnFP("b", "String"))},
	{in: "Variant(String, UInt64)", want: tnT("Variant", tnP("String"), tnP("UInt64"))},
	{in: "Dynamic(max_types=10)", want: tnT("Dynamic", tnR("max_types=10"))},
	{in: "Dynamic( max_types = 10 )", canon: "Dynamic(max_types = 10)", want: tnT("Dynamic", tnR("max_types = 10"))},
	{in: "JSON(max_dynamic_paths=10, a.b UInt32, SKIP a.c, SKIP REGEXP 'x.*')",
		canon: "JSON(max_dynamic_paths=10, `a.b` UInt32, SKIP a.c, SKIP REGEXP 'x.*')",
		want:  tnT("JSON", tnR("max_dynamic_paths=10"), tnFP("a.b", "UInt32"), tnR("SKIP a.c"), tnR("SKIP REGEXP 'x.*'"))},
	{in: "JSON(max_dynamic_types=16, max_dynamic_paths=256, `a.b` UInt32, `SKIP` String, SKIP `x,y`, SKIP REGEXP 'a\\'),(b')",
		want: tnT("JSON", tnR("max_dynamic_types=16"), tnR("max_dynamic_paths=256"), tnFP("a.b", "UInt32"),
			tnFP("SKIP", "String"), tnR("SKIP `x,y`"), tnR(`SKIP REGEXP 'a\'),(b'`))},
	{in: "JSON(a.`b c`.d Array(JSON(x Int64)))", canon: "JSON(`a.b c.d` Array(JSON(x Int64)))",
		want: tnT("JSON", tnF("a.b c.d", tnT("Array", tnA(tnT("JSON", tnFP("x", "Int64"))))))},
	{in: "SimpleAggregateFunction(sum, UInt64)", want: tnT("SimpleAggregateFunction", tnR("sum"), tnP("UInt64"))},
	{in: "AggregateFunction(1, sumMap, Array(UInt8), Array(UInt8))",
		want: tnT("AggregateFunction", tnN("1"), tnR("sumMap"), tnNested("Array", tnP("UInt8")), tnNested("Array", tnP("UInt8")))},
	{in: "AggregateFunction(quantiles(0.5, 0.9), UInt64)", want: tnT("AggregateFunction", tnR("quantiles(0.5, 0.9)"), tnP("UInt64"))},
	{in: "AggregateFunction(sequenceMatch('(?1)(?2)'), DateTime, UInt8, UInt8)",
		want: tnT("AggregateFunction", tnR("sequenceMatch('(?1)(?2)')"), tnP("DateTime"), tnP("UInt8"), tnP("UInt8"))},
	{in: "AggregateFunction(uniq, Nullable(String))", want: tnT("AggregateFunction", tnR("uniq"), tnNested("Nullable", tnP("String")))},
	{in: "QBit(Float32, 1024)", want: tnT("QBit", tnP("Float32"), tnN("1024"))},
	{in: "QBit(BFloat16, 8, 4)", want: tnT("QBit", tnP("BFloat16"), tnN("8"), tnN("4"))},
	{in: "Nullable(Nothing)", want: tnT("Nullable", tnP("Nothing"))},
	{in: "Object('json')", want: tnT("Object", tnS("json"))},
	{in: "Object(Nullable('json'))", want: tnT("Object", tnA(tnT("Nullable", tnS("json"))))},
	{in: "Time64(6)", want: tnT("Time64", tnN("6"))},
	{in: "Foo(-1.5e-3, +2, .5)", want: tnT("Foo", tnN("-1.5e-3"), tnN("+2"), tnN(".5"))},
	{in: "  Array ( Tuple ( a  UInt8 ,\n\tb String ) )  ", canon: "Array(Tuple(a UInt8, b String))",
		want: tnT("Array", tnA(tnT("Tuple", tnFP("a", "UInt8"), tnFP("b", "String"))))},
	{in: "Tuple(`a`UInt8)", canon: "Tuple(a UInt8)", want: tnT("Tuple", tnFP("a", "UInt8"))},
	{in: "Tuple(a `Weird Type`)", want: tnT("Tuple", tnFP("a", "Weird Type"))},
	{in: "Tuple(`with\\ttab` `Weird(Type)`(1))", want: tnT("Tuple", tnF("with\ttab", tnT("Weird(Type)", tnN("1"))))},
}

func TestParseTypeTable(t *testing.T) {
	for _, tc := range tnCases {
		n, err := ParseType(tc.in)
		if err != nil {
			t.Errorf("ParseType(%q): %v", tc.in, err)
			continue
		}
		if tc.want != nil && !n.Equal(tc.want) {
			t.Errorf("ParseType(%q) tree:\n got %#v\nwant %#v", tc.in, tnDump(n), tnDump(tc.want))
		}
		canon := tc.canon
		if canon == "" {
			canon = tc.in
		}
		got := n.String()
		if got != canon {
			t.Errorf("ParseType(%q).String() = %q, want %q", tc.in, got, canon)
		}
		n2, err := ParseType(got)
		if err != nil {
			t.Errorf("re-parse of %q: %v", got, err)
			continue
		}
		if !n2.Equal(n) {
			t.Errorf("re-parse of %q gives a different tree: %s", got, tnDump(n2))
		}
		if s2 := n2.String(); s2 != got {
			t.Errorf("String not stable: %q -> %q", got, s2)
		}
	}
}

// tnDump renders a tree with kinds, for failure messages.
func tnDump(n *TypeNode) string {
	if n == nil {
		return "<nil>"
	}
	var b strings.Builder
	b.WriteString(n.Name)
	if n.Args == nil {
		return b.String()
	}
	b.WriteByte('[')
	for i, a := range n.Args {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(a.Kind.String())
		b.WriteByte(':')
		switch a.Kind {
		case ArgType:
			if a.Field != "" {
				b.WriteString(strings.ReplaceAll(a.Field, " ", "␠") + "=")
			}
			b.WriteString(tnDump(a.Type))
		case ArgNumber:
			b.WriteString(a.Number)
		case ArgString:
			b.WriteString(a.String)
		case ArgEnum:
			b.WriteString(a.String + "=" + a.Number)
		case ArgRaw:
			b.WriteString(a.Raw)
		}
	}
	b.WriteByte(']')
	return b.String()
}

func TestParseTypeErrors(t *testing.T) {
	cases := []struct {
		in  string
		pos int
		msg string // substring of Msg
	}{
		{"", 0, "expected type name"},
		{"   ", 3, "expected type name"},
		{"Array(", 6, "unclosed '('"},
		{"Array(UInt8", 11, "unclosed '(' opened at offset 5"},
		{"Array(UInt8))", 12, "after type"},
		{"Array(UInt8) x", 13, "after type"},
		{"Array()(", 7, "after type"},
		{"UInt8 UInt8", 6, "after type"},
		{"Tuple(,UInt8)", 6, "empty argument"},
		{"Tuple(UInt8,)", 12, "empty argument"},
		{"Tuple(UInt8,,String)", 12, "empty argument"},
		{"Tuple(UInt8 Int8 Int16)", 17, "expected ',' or ')'"},
		{"Tuple(a.b UInt8)", 7, "expected ',' or ')'"},
		{"DateTime('UTC)", 9, "unterminated quoted string"},
		{"DateTime('UTC\\')", 9, "unterminated quoted string"},
		{"Tuple(`a UInt8)", 6, "unterminated quoted string"},
		{"Enum8('a' = )", 12, "expected a number"},
		{"Enum8('a' = x)", 12, "expected a number"},
		{"Enum8('a' 1)", 10, "expected ',' or ')'"},
		{"Decimal(18 4)", 11, "expected ',' or ')'"},
		{"Decimal(-)", 8, "expected a number"},
		{"FixedString(16x)", 14, "expected ',' or ')'"},
		{"``", 0, "empty type name"},
		{"Tuple(`` UInt8)", 6, "empty name"},
		{"Tuple(a ``)", 8, "empty type name"},
		{"(UInt8)", 0, "expected type name"},
		{"Array(#)", 6, "unexpected '#'"},
		{"1UInt8", 0, "expected type name"},
		{"JSON(a.b)", 8, "expected a type after JSON path"},
		{"JSON(a..b UInt8)", 7, "expected JSON path"},
		{"JSON(SKIP `x)", 10, "unterminated quoted string"},
		{"Dynamic(max_types=(10)", 22, "unclosed '('"},
		{"AggregateFunction(quantiles(0.5, UInt64)", 40, "unclosed '('"},
	}
	for _, tc := range cases {
		n, err := ParseType(tc.in)
		if err == nil {
			t.Errorf("ParseType(%q) = %s, want error", tc.in, n)
			continue
		}
		var te *TypeError
		if !errors.As(err, &te) {
			t.Errorf("ParseType(%q) error %T, want *TypeError", tc.in, err)
			continue
		}
		if te.Type != tc.in {
			t.Errorf("ParseType(%q): TypeError.Type = %q", tc.in, te.Type)
		}
		if te.Pos != tc.pos || !strings.Contains(te.Msg, tc.msg) {
			t.Errorf("ParseType(%q): got pos %d msg %q; want pos %d msg containing %q", tc.in, te.Pos, te.Msg, tc.pos, tc.msg)
		}
		if !strings.HasPrefix(err.Error(), "columns: ") {
			t.Errorf("error text %q lacks package prefix", err.Error())
		}
	}
}

func TestParseTypeLimits(t *testing.T) {
	nest := func(n int) string {
		return strings.Repeat("Array(", n-1) + "UInt8" + strings.Repeat(")", n-1)
	}
	if _, err := ParseType(nest(MaxTypeDepth)); err != nil {
		t.Fatalf("depth %d: %v", MaxTypeDepth, err)
	}
	_, err := ParseType(nest(MaxTypeDepth + 1))
	var te *TypeError
	if !errors.As(err, &te) || !strings.Contains(te.Msg, "nesting deeper") {
		t.Fatalf("depth %d: err = %v", MaxTypeDepth+1, err)
	}
	if len(te.Type) > tnErrTypeMax+3 {
		t.Errorf("TypeError.Type not truncated: %d bytes", len(te.Type))
	}
	// Named elements count towards depth too.
	named := strings.Repeat("Tuple(a ", MaxTypeDepth) + "UInt8" + strings.Repeat(")", MaxTypeDepth)
	if _, err := ParseType(named); err == nil {
		t.Errorf("named nesting of depth %d accepted", MaxTypeDepth+1)
	}
	// Deeply nested raw text is not recursion and is fine.
	raw := "AggregateFunction(f" + strings.Repeat("(", 10000) + strings.Repeat(")", 10000) + ", UInt8)"
	if _, err := ParseType(raw); err != nil {
		t.Errorf("deep raw argument: %v", err)
	}

	long := "Tuple(" + strings.Repeat("UInt8, ", MaxTypeNameLength/7) + "UInt8)"
	_, err = ParseType(long)
	if !errors.As(err, &te) || !strings.Contains(te.Msg, "longer than the limit") || te.Pos != 0 {
		t.Fatalf("long input: err = %v", err)
	}
	ok := "Tuple(" + strings.Repeat("UInt8, ", (MaxTypeNameLength-20)/7) + "UInt8)"
	n, err := ParseType(ok)
	if err != nil {
		t.Fatalf("input of %d bytes: %v", len(ok), err)
	}
	if n.String() != ok {
		t.Errorf("large tuple does not round-trip")
	}
}

func TestTypeNodeStringEdgeCases(t *testing.T) {
	// Trees built by hand, including ones the parser would not produce.
	cases := []struct {
		n    *TypeNode
		want string
	}{
		{tnT("Tuple", tnFP("distinct", "UInt8"), tnFP("Select", "UInt8"), tnFP("skip", "UInt8")), "Tuple(`distinct` UInt8, `Select` UInt8, skip UInt8)"},
		{tnT("JSON", tnFP("skip", "UInt8"), tnFP("a", "UInt8")), "JSON(`skip` UInt8, a UInt8)"},
		{tnT("Enum8", tnE("a\\b'\n", "1")), `Enum8('a\\b\'\n' = 1)`},
		{tnT("Tuple", tnFP("q`", "UInt8")), "Tuple(`q\\`` UInt8)"},
		{tnT("weird name"), "`weird name`"},
		{tnT("X", TypeArg{Kind: ArgType}), "X()"},
		{tnT("X", TypeArg{}), "X()"},
	}
	for _, tc := range cases {
		if got := tc.n.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
	var nilNode *TypeNode
	if nilNode.String() != "" {
		t.Errorf("nil String")
	}
	if !nilNode.Equal(nil) || nilNode.Equal(tnT("A")) || tnT("A").Equal(tnT0("A")) {
		t.Errorf("Equal mishandles nil / empty args")
	}
}
