package columns

import (
	"strings"
	"testing"
)

// The driver's ColumnType answers were computed from the type name; IsNullable, PrecisionScale and
// Length compute them from the column. Both agree on every type here (oldPrecisionScale and
// oldLength are the type-name versions, kept as the reference).
func TestColumnTypeMetadataMatchesTypeName(t *testing.T) {
	types := append([]string{
		"Decimal32(3)", "Decimal64(5)", "Decimal128(7)", "Decimal256(20)", "Decimal(76, 30)",
		"Nullable(Decimal(10, 2))", "Array(Decimal(18, 4))", "Array(Array(Nullable(Decimal(20, 3))))",
		"Array(DateTime64(9))", "Nullable(DateTime64(0, 'UTC'))", "SimpleAggregateFunction(max, Nullable(Decimal(18, 4)))",
		"SimpleAggregateFunction(sum, Decimal(38, 10))", "SimpleAggregateFunction(any, Nullable(String))",
		"SimpleAggregateFunction(any, LowCardinality(Nullable(String)))", "SimpleAggregateFunction(any, String)",
		"LowCardinality(FixedString(4))", "LowCardinality(Nullable(FixedString(2)))", "Nullable(FixedString(5))",
		"LowCardinality(UInt32)", "LowCardinality(Nullable(UInt64))", "LowCardinality(Date)", "Array(String)",
		"Array(FixedString(3))", "Map(String, Decimal(9, 1))", "Tuple(Decimal(9, 1), String)", "Nullable(Int32)",
		"Array(Nullable(String))", "Time64(6)", "Nested(a UInt8, b Decimal(9, 2))",
	}, fastPathTypes...)
	for _, typ := range types {
		c, err := New(typ)
		if err != nil {
			t.Errorf("%s: %v", typ, err)
			continue
		}
		p, s, ok := PrecisionScale(c)
		wp, ws, wok := oldPrecisionScale(c.Type())
		if p != wp || s != ws || ok != wok {
			t.Errorf("%s: PrecisionScale %d, %d, %v; from the type name %d, %d, %v", typ, p, s, ok, wp, ws, wok)
		}
		n, ok := Length(c)
		wn, wok := oldLength(c)
		if n != wn || ok != wok {
			t.Errorf("%s: Length %d, %v; from the type name %d, %v", typ, n, ok, wn, wok)
		}
		inner := typ
		if rest, ok := strings.CutPrefix(typ, "SimpleAggregateFunction("); ok {
			_, inner, _ = strings.Cut(rest, ", ")
		}
		want := strings.HasPrefix(inner, "Nullable(") || strings.HasPrefix(inner, "LowCardinality(Nullable(")
		if got := IsNullable(c); got != want {
			t.Errorf("%s: IsNullable %v, want %v", typ, got, want)
		}
	}
}

// oldPrecisionScale is the driver's ColumnTypePrecisionScale before it asked the column.
func oldPrecisionScale(typ string) (precision, scale int64, ok bool) {
	n, err := ParseType(typ)
	if err != nil {
		return 0, 0, false
	}
	for n.Name == "Nullable" || n.Name == "LowCardinality" || n.Name == "SimpleAggregateFunction" || n.Name == "Array" {
		if n.Name == "SimpleAggregateFunction" { // (f, T): T is the second argument
			if len(n.Args) < 2 || n.Args[1].Type == nil {
				return 0, 0, false
			}
			n = n.Args[1].Type
			continue
		}
		if len(n.Args) != 1 || n.Args[0].Type == nil {
			return 0, 0, false
		}
		n = n.Args[0].Type
	}
	atoi := func(s string) int64 {
		var v int64
		for _, ch := range s {
			v = v*10 + int64(ch-'0')
		}
		return v
	}
	switch n.Name {
	case "Decimal":
		if len(n.Args) == 2 {
			return atoi(n.Args[0].Number), atoi(n.Args[1].Number), true
		}
	case "Decimal32", "Decimal64", "Decimal128", "Decimal256":
		if len(n.Args) == 1 {
			p := map[string]int64{"Decimal32": 9, "Decimal64": 18, "Decimal128": 38, "Decimal256": 76}[n.Name]
			return p, atoi(n.Args[0].Number), true
		}
	case "DateTime64":
		if len(n.Args) >= 1 && n.Args[0].Number != "" {
			return atoi(n.Args[0].Number), 0, true
		}
	}
	return 0, 0, false
}

// oldLength is the driver's ColumnTypeLength before it asked the column.
func oldLength(c Column) (length int64, ok bool) {
	t := c.Type()
	t = strings.TrimSuffix(strings.TrimPrefix(t, "Nullable("), ")")
	if c, ok := c.(*FixedString); ok {
		return int64(c.Size()), true
	}
	if t == "String" || strings.HasPrefix(t, "LowCardinality(") && strings.Contains(t, "String") {
		return 1<<63 - 1, true
	}
	return 0, false
}
