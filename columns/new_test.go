package columns

import (
	"errors"
	"math/big"
	"reflect"
	"testing"
	"time"
)

func TestNewColumnTypes(t *testing.T) {
	for _, tc := range []struct {
		typ, canonical string
		col            Column
		scan           reflect.Type
	}{
		{"Int8", "Int8", &Int8{}, reflect.TypeFor[int8]()},
		{"UInt64", "UInt64", &UInt64{}, reflect.TypeFor[uint64]()},
		{"Float32", "Float32", &Float32{}, reflect.TypeFor[float32]()},
		{"Int128", "Int128", &Wide[Int128]{}, reflect.TypeFor[*big.Int]()},
		{"UInt256", "UInt256", &Wide[UInt256]{}, reflect.TypeFor[*big.Int]()},
		{"String", "String", &String{}, reflect.TypeFor[string]()},
		{"FixedString(16)", "FixedString(16)", &FixedString{}, reflect.TypeFor[string]()},
		{"Date", "Date", &Date{}, reflect.TypeFor[time.Time]()},
		{"DateTime", "DateTime", &DateTime{}, reflect.TypeFor[time.Time]()},
		{"DateTime('Europe/Moscow')", "DateTime('Europe/Moscow')", &DateTime{}, reflect.TypeFor[time.Time]()},
		{"Decimal(9, 2)", "Decimal(9, 2)", &Decimal32{}, reflect.TypeFor[Decimal]()},
		{"Decimal(10,2)", "Decimal(10, 2)", &Decimal64{}, reflect.TypeFor[Decimal]()},
		{"Decimal(38, 38)", "Decimal(38, 38)", &Decimal128{}, reflect.TypeFor[Decimal]()},
		{"Decimal(39, 0)", "Decimal(39, 0)", &Decimal256{}, reflect.TypeFor[Decimal]()},
		{"Decimal32(4)", "Decimal(9, 4)", &Decimal32{}, reflect.TypeFor[Decimal]()},
		{"Decimal64(4)", "Decimal(18, 4)", &Decimal64{}, reflect.TypeFor[Decimal]()},
		{"Decimal128(4)", "Decimal(38, 4)", &Decimal128{}, reflect.TypeFor[Decimal]()},
		{"Decimal256(4)", "Decimal(76, 4)", &Decimal256{}, reflect.TypeFor[Decimal]()},
		{"UUID", "UUID", &UUID{}, reflect.TypeFor[string]()},
		{"Enum8('a'=1,'b'=-2)", "Enum8('b' = -2, 'a' = 1)", &Enum8{}, reflect.TypeFor[string]()},
		{"Enum16('a' = 1000)", "Enum16('a' = 1000)", &Enum16{}, reflect.TypeFor[string]()},
		{"Nothing", "Nothing", &Nothing{}, reflect.TypeFor[any]()},
		{"Nullable(Nothing)", "Nullable(Nothing)", &Nullable{}, reflect.TypeFor[any]()},
		{"Nullable(Int32)", "Nullable(Int32)", &Nullable{}, reflect.TypeFor[int32]()},
		{"Array(Nullable(String))", "Array(Nullable(String))", &Array{}, reflect.TypeFor[[]*string]()},
		{"Array(Array(UInt8))", "Array(Array(UInt8))", &Array{}, reflect.TypeFor[[][]uint8]()},
		{"Array(LowCardinality(Nullable(String)))", "Array(LowCardinality(Nullable(String)))", &Array{}, reflect.TypeFor[[]*string]()},
		{"Tuple(UInt8, String)", "Tuple(UInt8, String)", &Tuple{}, reflect.TypeFor[[]any]()},
		{"Tuple(a UInt8, `b c` String)", "Tuple(a UInt8, `b c` String)", &Tuple{}, reflect.TypeFor[[]any]()},
		{"Map(String, UInt64)", "Map(String, UInt64)", &Map{}, reflect.TypeFor[map[string]uint64]()},
		{"Map(String, Array(Nullable(UInt64)))", "Map(String, Array(Nullable(UInt64)))", &Map{}, reflect.TypeFor[map[string][]*uint64]()},
		{"Map(String, Nullable(UInt64))", "Map(String, Nullable(UInt64))", &Map{}, reflect.TypeFor[map[string]*uint64]()},
		{"LowCardinality(String)", "LowCardinality(String)", &LowCardinality{}, reflect.TypeFor[string]()},
		{"LowCardinality(Nullable(String))", "LowCardinality(Nullable(String))", &LowCardinality{}, reflect.TypeFor[string]()},
	} {
		c, err := New(tc.typ)
		if err != nil {
			t.Errorf("New(%q): %v", tc.typ, err)
			continue
		}
		if c.Type() != tc.canonical {
			t.Errorf("New(%q).Type() = %q, want %q", tc.typ, c.Type(), tc.canonical)
		}
		if reflect.TypeOf(c) != reflect.TypeOf(tc.col) {
			t.Errorf("New(%q) is %T, want %T", tc.typ, c, tc.col)
		}
		if c.ScanType() != tc.scan {
			t.Errorf("New(%q).ScanType() = %v, want %v", tc.typ, c.ScanType(), tc.scan)
		}
		if c.Rows() != 0 {
			t.Errorf("New(%q) has rows", tc.typ)
		}
	}
}

func TestNewErrors(t *testing.T) {
	for _, typ := range []string{
		"", "Foo", "Int8(1)", "String(1)", "FixedString(0)", "FixedString(x)", "FixedString(99999999999)",
		"DateTime('No/Such_Zone')", "DateTime(1)", "DateTime('UTC', 'x')", "Decimal(0, 0)", "Decimal(77, 0)",
		"Decimal(5, 6)", "Decimal(5)", "Decimal32(10)", "Nullable(Array(UInt8))", "Nullable(Nullable(UInt8))",
		"Nullable(LowCardinality(String))", "Nullable(Tuple(UInt8))", "Nullable(Map(String, String))",
		"Array()", "Array(UInt8, UInt8)", "Tuple()", "Tuple(a UInt8, String)", "Tuple(UInt8, b String)",
		"Map(String)", "Map(Array(UInt8), String)", "Map(Tuple(UInt8), String)", "Map(Map(String, String), String)",
		"LowCardinality(Array(String))", "LowCardinality(LowCardinality(String))", "LowCardinality(Decimal(9, 2))",
		"LowCardinality(String, String)", "Enum8()", "Enum8('a' = 128)", "Enum8('a' = 1, 'a' = 2)",
		"Enum8('a' = 1, 'b' = 1)", "Enum16('a' = 40000)", "Enum8(1)", "UUID(1)", "Nothing(1)",
		"Array(Foo)", "Int8)", "Array(UInt8",
	} {
		c, err := New(typ)
		if err == nil {
			t.Errorf("New(%q) = %s, want an error", typ, c.Type())
			continue
		}
		var te *TypeError
		var ue *UnsupportedTypeError
		var tm *TypeMismatchError
		if !errors.As(err, &te) && !errors.As(err, &ue) && !errors.As(err, &tm) {
			t.Errorf("New(%q): error %T %v", typ, err, err)
		}
	}
}

// The dictionary factory of a LowCardinality made by New gives independent columns.
func TestNewLowCardinalityFactory(t *testing.T) {
	c := mustNew(t, "LowCardinality(String)").(*LowCardinality)
	a, b := c.newDict(), c.newDict()
	if a == b || a == c.dict {
		t.Fatal("dictionary factory returned a shared column")
	}
}
