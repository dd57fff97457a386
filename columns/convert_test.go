package columns

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"math"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"
)

type (
	myInt    int
	myUint8  uint8
	myFloat  float64
	myString string
	myBytes  []byte
)

// intRange is the exact range of a ClickHouse integer type.
var intRanges = map[string][2]*big.Int{}

func init() {
	for _, bits := range []uint{8, 16, 32, 64} {
		half := new(big.Int).Lsh(big.NewInt(1), bits-1)
		full := new(big.Int).Lsh(big.NewInt(1), bits)
		n := map[uint]string{8: "8", 16: "16", 32: "32", 64: "64"}[bits]
		intRanges["Int"+n] = [2]*big.Int{new(big.Int).Neg(half), new(big.Int).Sub(half, big.NewInt(1))}
		intRanges["UInt"+n] = [2]*big.Int{big.NewInt(0), new(big.Int).Sub(full, big.NewInt(1))}
	}
}

// Every Go integer type, at its extremes, into every integer column: accepted exactly when the value
// fits, otherwise a *TypeMismatchError naming both types, with nothing appended.
func TestAppendIntegersEveryPair(t *testing.T) {
	goVals := []any{
		int(math.MinInt64), int(math.MaxInt64), int8(math.MinInt8), int8(math.MaxInt8),
		int16(math.MinInt16), int16(math.MaxInt16), int32(math.MinInt32), int32(math.MaxInt32),
		int64(math.MinInt64), int64(math.MaxInt64), uint(math.MaxUint64), uint8(math.MaxUint8),
		uint16(math.MaxUint16), uint32(math.MaxUint32), uint64(math.MaxUint64), uintptr(7),
		int(0), int(-1), uint8(0), myInt(-5), myUint8(200), true, false,
		float64(255), float64(-128), float32(65535), float64(1 << 63), float64(-(1 << 63)),
	}
	for typ, rng := range intRanges {
		for _, v := range goVals {
			c := mustNew(t, typ)
			appendAll(t, c, 1) // a row before, to see nothing is appended on failure
			b := asBig(v)
			fits := b.Cmp(rng[0]) >= 0 && b.Cmp(rng[1]) <= 0
			err := c.AppendValue(v)
			if fits != (err == nil) {
				t.Errorf("%s ← %T(%v): fits=%v, err=%v", typ, v, v, fits, err)
				continue
			}
			if err != nil {
				var tm *TypeMismatchError
				if !errors.As(err, &tm) || tm.Column != typ || tm.GoType != reflect.TypeOf(v).String() {
					t.Errorf("%s ← %T: error %#v", typ, v, err)
				}
				if !strings.Contains(err.Error(), typ) || !strings.Contains(err.Error(), reflect.TypeOf(v).String()) {
					t.Errorf("error text %q names neither", err)
				}
				if c.Rows() != 1 {
					t.Errorf("%s ← %T: failed append changed Rows to %d", typ, v, c.Rows())
				}
				continue
			}
			if got := asBig(c.Value(1)); got.Cmp(b) != 0 {
				t.Errorf("%s ← %T(%v): stored %v", typ, v, v, got)
			}
		}
	}
}

func asBig(v any) *big.Int {
	i, u, f, kind := numOf(v)
	switch kind {
	case 'i':
		return big.NewInt(i)
	case 'u':
		return new(big.Int).SetUint64(u)
	}
	b, _ := new(big.Float).SetFloat64(f).Int(nil)
	return b
}

func TestAppendValueConversions(t *testing.T) {
	s := "str"
	n := 42
	var nilInt *int
	kolkata, _ := time.LoadLocation("Asia/Kolkata")
	for _, tc := range []struct {
		typ  string
		in   any
		want any // nil: expect an error
	}{
		{"Int32", &n, int32(42)},
		{"Int32", sql.NullInt64{Int64: 7, Valid: true}, int32(7)},
		{"Int32", sql.NullInt64{}, nil},
		{"Int32", nilInt, nil},
		{"Int32", nil, nil},
		{"Int32", "123", int32(123)},
		{"Int32", "1e3", nil},
		{"Int32", 1.5, nil},
		{"Int32", math.NaN(), nil},
		{"UInt8", -1, nil},
		{"UInt8", myUint8(3), uint8(3)},
		{"Int8", "128", nil},
		{"Float32", 1e300, nil},
		{"Float32", math.Inf(-1), float32(math.Inf(-1))},
		{"Float32", myFloat(0.5), float32(0.5)},
		{"Float64", int64(1 << 53), float64(1 << 53)},
		{"Float64", "2.5", 2.5},
		{"Float64", sql.NullFloat64{Float64: -0.25, Valid: true}, -0.25},
		{"Float64", "x", nil},
		{"Float64", []int{1}, nil},
		{"String", &s, "str"},
		{"String", myString("named"), "named"},
		{"String", myBytes("nb"), "nb"},
		{"String", []byte{0xff}, "\xff"},
		{"String", sql.NullString{String: "v", Valid: true}, "v"},
		{"String", sql.NullString{}, nil},
		{"String", 5, nil},
		{"Nullable(String)", sql.NullString{}, "<nil>"},
		{"Nullable(String)", nilInt, "<nil>"},
		{"Nullable(String)", 5, nil},
		{"Nullable(Int8)", 300, nil},
		{"FixedString(2)", "abc", nil},
		{"FixedString(2)", myString("ab"), "ab"},
		{"FixedString(2)", 1, nil},
		{"UUID", "not-a-uuid", nil},
		{"UUID", "{00112233-4455-6677-8899-aabbccddeeff}", "00112233-4455-6677-8899-aabbccddeeff"},
		{"UUID", "00112233445566778899aabbccddeeff", "00112233-4455-6677-8899-aabbccddeeff"},
		{"UUID", []byte{1, 2}, nil},
		{"Enum8('a' = 1)", "b", nil},
		{"Enum8('a' = 1)", 2, nil},
		{"Enum8('a' = 1)", myString("a"), "a"},
		{"Enum8('a' = 1)", 1, "a"},
		{"Int128", "x", nil},
		{"Int128", 1.0, nil},
		{"UInt128", -1, nil},
		{"Int128", *big.NewInt(-3), big.NewInt(-3)},
		{"UInt256", uint64(math.MaxUint64), new(big.Int).SetUint64(math.MaxUint64)},
		{"Int256", Int256{1}, big.NewInt(1)},
		{"Date", time.Date(2024, 3, 1, 23, 0, 0, 0, time.FixedZone("x", -5*3600)), time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)},
		{"Date", time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC), nil},
		{"Date", time.Date(2149, 6, 7, 0, 0, 0, 0, time.UTC), nil},
		{"Date", 70000, nil},
		{"Date", "yesterday", nil},
		{"DateTime", time.Unix(-1, 0), nil},
		{"DateTime", time.Unix(1<<32, 0), nil},
		{"DateTime", "2024-01-01T00:00:00+01:00", time.Date(2023, 12, 31, 23, 0, 0, 0, time.UTC)},
		{"DateTime('Asia/Kolkata')", "1970-01-01 05:30:00", time.Unix(0, 0).In(kolkata)},
		{"DateTime('Asia/Kolkata')", ptr("1970-01-01 05:30:00"), time.Unix(0, 0).In(kolkata)},
		{"DateTime", -1, nil},
		{"Nothing", 1, nil},
		{"Decimal(5, 2)", "999.995", nil}, // rounds to 1000.00: past the precision
		{"Decimal(5, 2)", "999.994", Decimal{big.NewInt(99999), 2}},
		{"Decimal(5, 2)", "-0.005", Decimal{big.NewInt(-1), 2}},
		{"Decimal(5, 2)", "1e5000", nil},
		{"Decimal(5, 2)", "1/3", nil},
		{"Decimal(5, 2)", math.Inf(1), nil},
		{"Decimal(5, 2)", 0.1, Decimal{big.NewInt(10), 2}},
		{"Decimal(5, 2)", Decimal{big.NewInt(5), -2}, Decimal{big.NewInt(50000), 2}},
		{"Decimal(5, 2)", Decimal{}, Decimal{big.NewInt(0), 2}},
		{"Decimal(5, 2)", big.NewRat(1, 8), Decimal{big.NewInt(13), 2}},
		{"Decimal(5, 2)", big.NewInt(-7), Decimal{big.NewInt(-700), 2}},
		{"Decimal(5, 2)", "abc", nil},
		{"Decimal(5, 2)", true, Decimal{big.NewInt(100), 2}},
		{"Array(UInt8)", "abc", nil},
		{"Array(UInt8)", []int{1, 256}, nil},
		{"Array(UInt8)", [2]int{1, 2}, []uint8{1, 2}},
		{"Array(UInt8)", []byte{3}, []uint8{3}},
		{"Array(String)", []myString{"a"}, []string{"a"}},
		{"Tuple(UInt8, String)", []any{1}, nil},
		{"Tuple(UInt8, String)", []any{1, 2}, nil},
		{"Tuple(UInt8, String)", struct {
			A int
			b int
			B string
		}{1, 0, "x"}, []any{uint8(1), "x"}},
		{"Tuple(UInt8, String)", [2]any{1, "y"}, []any{uint8(1), "y"}},
		{"Tuple(UInt8, String)", nil, nil},
		{"Tuple(a UInt8, b String)", map[string]any{"a": 1}, nil},
		{"Map(String, UInt8)", map[string]int{"a": 1, "b": 300}, nil},
		{"Map(String, UInt8)", map[int]int{1: 1}, nil},
		{"Map(String, UInt8)", []int{1}, nil},
		{"LowCardinality(String)", 1, nil},
		{"LowCardinality(String)", myString("x"), "x"},
		{"LowCardinality(String)", nil, nil},
		{"LowCardinality(Nullable(String))", nil, "<nil>"},
		{"LowCardinality(Nullable(String))", 1, nil},
		{"LowCardinality(UInt8)", 256, nil},
		{"LowCardinality(UInt8)", "7", uint8(7)},
	} {
		c := mustNew(t, tc.typ)
		c.AppendDefault()
		err := c.AppendValue(tc.in)
		if tc.want == nil {
			if err == nil {
				t.Errorf("%s ← %T(%v): no error, stored %v", tc.typ, tc.in, tc.in, c.Value(1))
				continue
			}
			if c.Rows() != 1 {
				t.Errorf("%s ← %T: failed append left %d rows", tc.typ, tc.in, c.Rows())
			}
			var tm *TypeMismatchError
			if !errors.As(err, &tm) {
				t.Errorf("%s ← %T: error %T %v is not a TypeMismatchError", tc.typ, tc.in, err, err)
			}
			// The column still encodes and decodes after the failure.
			checkRoundTrip(t, c, nil)
			continue
		}
		if err != nil {
			t.Errorf("%s ← %T(%v): %v", tc.typ, tc.in, tc.in, err)
			continue
		}
		want := tc.want
		if want == "<nil>" {
			want = nil
		}
		if got := c.Value(1); !valueEqual(got, want) {
			t.Errorf("%s ← %T(%v): got %#v, want %#v", tc.typ, tc.in, tc.in, got, want)
		}
		checkRoundTrip(t, c, nil)
	}
}

func ptr[T any](v T) *T { return &v }

type failingValuer struct{}

func (failingValuer) Value() (driver.Value, error) { return nil, errors.New("valuer failed") }

// A failing AppendValue deep inside a composite appends nothing anywhere.
func TestAppendValueAtomic(t *testing.T) {
	for _, tc := range []struct {
		typ      string
		good     any
		bad      []any
		rowsSeen func(Column) []int
	}{
		{"Array(Nullable(UInt8))", []any{1, nil}, []any{[]any{1, nil, 300}, []any{failingValuer{}}, 5}, nil},
		{"Array(Array(String))", [][]string{{"a"}}, []any{[]any{[]string{"x"}, []any{"y", 1}}}, nil},
		{"Tuple(String, Array(UInt8), LowCardinality(String))", []any{"a", []int{1}, "x"},
			[]any{[]any{"b", []int{2}, 3}, []any{"b", []int{256}, "x"}, []any{failingValuer{}, nil, "x"}}, nil},
		{"Map(String, Array(Nullable(UInt64)))", map[string]any{"a": []any{nil}},
			[]any{map[string]any{"a": []any{1}, "b": []any{-1}}, map[string]any{"a": "x"}}, nil},
		{"Map(LowCardinality(String), UInt8)", map[string]int{"k": 1}, []any{map[string]int{"new": 1, "z": 999}}, nil},
		{"LowCardinality(Nullable(UInt16))", 5, []any{70000, "x", failingValuer{}}, nil},
		{"Nullable(Decimal(9, 2))", "1.5", []any{"1e10", failingValuer{}}, nil},
		{"Tuple(a Nullable(String), b Map(String, String))", map[string]any{"a": nil, "b": map[string]string{"x": "y"}},
			[]any{map[string]any{"a": "s", "b": map[string]int{"x": 1}}}, nil},
	} {
		c := mustNew(t, tc.typ)
		appendAll(t, c, tc.good)
		before := encode(c)
		for _, bad := range tc.bad {
			if err := c.AppendValue(bad); err == nil {
				t.Fatalf("%s ← %#v: no error", tc.typ, bad)
			}
			if c.Rows() != 1 {
				t.Fatalf("%s ← %#v: Rows() = %d", tc.typ, bad, c.Rows())
			}
			if got := encode(c); !sameBytes(got, before) && !strings.HasPrefix(tc.typ, "LowCardinality") && !strings.Contains(tc.typ, "LowCardinality") {
				t.Fatalf("%s ← %#v: encoding changed\n got % x\nwant % x", tc.typ, bad, got, before)
			}
			checkRoundTrip(t, c, nil)
		}
		appendAll(t, c, tc.good)
		checkRoundTrip(t, c, nil)
	}
}

func sameBytes(a, b []byte) bool { return string(a) == string(b) }

func TestTypeMismatchErrorText(t *testing.T) {
	c := mustNew(t, "Array(UInt8)")
	err := c.AppendValue([]int{1, 300})
	var tm *TypeMismatchError
	if !errors.As(err, &tm) || tm.Column != "Array(UInt8)" {
		t.Fatalf("%#v", err)
	}
	if !strings.Contains(err.Error(), "UInt8") || !strings.Contains(err.Error(), "int") {
		t.Fatalf("%v", err)
	}
	if err := mustNew(t, "UInt8").AppendValue(failingValuer{}); err == nil || err.Error() != "valuer failed" {
		t.Fatalf("Valuer error not returned: %v", err)
	}
}
