package columns

import (
	"math"
	"math/big"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// roundTripCases lists every family New supports with edge values appended through AppendValue.
// want is nil when the values read back equal the column's own Value results.
func roundTripCases() []struct {
	typ  string
	vals []any
} {
	big1 := func(s string) *big.Int { b, _ := new(big.Int).SetString(s, 10); return b }
	long := strings.Repeat("long string ", 300) // spans small reader buffers; string_test.go has longer
	nonUTF8 := "\xff\xfe\x00\x80abc"
	msk, _ := time.LoadLocation("Europe/Moscow")
	return []struct {
		typ  string
		vals []any
	}{
		{"Int8", []any{int8(math.MinInt8), int8(math.MaxInt8), 0, -1}},
		{"Int16", []any{int16(math.MinInt16), int16(math.MaxInt16), 0}},
		{"Int32", []any{int32(math.MinInt32), int32(math.MaxInt32), 0}},
		{"Int64", []any{int64(math.MinInt64), int64(math.MaxInt64), 0}},
		{"UInt8", []any{uint8(0), uint8(math.MaxUint8), 1}},
		{"UInt16", []any{uint16(0), uint16(math.MaxUint16)}},
		{"UInt32", []any{uint32(0), uint32(math.MaxUint32)}},
		{"UInt64", []any{uint64(0), uint64(math.MaxUint64)}},
		{"Int128", []any{big1("-170141183460469231731687303715884105728"), big1("170141183460469231731687303715884105727"), 0, -1}},
		{"UInt128", []any{0, big1("340282366920938463463374607431768211455"), uint64(math.MaxUint64)}},
		{"Int256", []any{big1("-57896044618658097711785492504343953926634992332820282019728792003956564819968"), big1("57896044618658097711785492504343953926634992332820282019728792003956564819967"), -1, "12345678901234567890123456789"}},
		{"UInt256", []any{0, big1("115792089237316195423570985008687907853269984665640564039457584007913129639935")}},
		{"Float32", []any{float32(math.MaxFloat32), float32(-math.MaxFloat32), float32(math.SmallestNonzeroFloat32), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), math.Float32frombits(0x80000000), math.Float32frombits(0x7fc00001)}},
		{"Float64", []any{math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, math.Inf(1), math.Inf(-1), math.NaN(), math.Copysign(0, -1), math.Float64frombits(0x7ff8000000000001)}},
		{"String", []any{"", "a", nonUTF8, long, []byte("bytes"), strings.Repeat("x", 127), strings.Repeat("y", 128)}},
		{"FixedString(4)", []any{"", "abcd", "\x00\xff", []byte{1, 2, 3, 4}, [4]byte{9, 8, 7, 6}}},
		{"FixedString(1)", []any{"a", ""}},
		{"Date", []any{time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2149, 6, 6, 0, 0, 0, 0, time.UTC), "2024-02-29", 19000}},
		{"DateTime", []any{time.Unix(0, 0), time.Unix(math.MaxUint32, 0), "2024-01-02 03:04:05", uint32(1700000000)}},
		{"DateTime('Europe/Moscow')", []any{time.Unix(0, 0).In(msk), time.Unix(math.MaxUint32, 0), "2024-01-02 03:04:05"}},
		{"DateTime('Asia/Kolkata')", []any{time.Unix(1, 0), time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)}},
		{"Decimal(9, 2)", []any{"-9999999.99", "9999999.99", 0, "-0.01", 1.5}},
		{"Decimal32(3)", []any{"-999999.999", "0.001"}},
		{"Decimal(18, 4)", []any{"-99999999999999.9999", "99999999999999.9999", int64(-5)}},
		{"Decimal64(0)", []any{"-999999999999999999", uint64(999999999999999999)}},
		{"Decimal(38, 10)", []any{"-9999999999999999999999999999.9999999999", "9999999999999999999999999999.9999999999", "-0.0000000001"}},
		{"Decimal128(38)", []any{"-0.99999999999999999999999999999999999999"}},
		{"Decimal(76, 20)", []any{"-" + strings.Repeat("9", 56) + "." + strings.Repeat("9", 20), strings.Repeat("9", 56) + "." + strings.Repeat("9", 20), "-1e-20"}},
		{"Decimal256(5)", []any{"-12345.6789", Decimal{Unscaled: big.NewInt(-42), Scale: 1}}},
		{"UUID", []any{"00112233-4455-6677-8899-aabbccddeeff", "ffffffff-ffff-ffff-ffff-ffffffffffff", [16]byte{}, []byte("0123456789abcdef")}},
		{"Enum8('a' = -128, 'it\\'s' = 0, 'b\\\\' = 127)", []any{"a", "it's", "b\\", int8(127), -128}},
		{"Enum16('x' = -32768, 'y' = 32767, '' = 5)", []any{"x", "y", "", 5}},
		{"Nothing", []any{nil, nil}},
		{"Nullable(Nothing)", []any{nil, nil, nil}},
		{"Nullable(String)", []any{nil, "", "a", nil, nonUTF8}},
		{"Nullable(UInt64)", []any{nil, uint64(math.MaxUint64), 0}},
		{"Nullable(Float64)", []any{math.NaN(), nil, math.Copysign(0, -1)}},
		{"Nullable(Decimal(18, 4))", []any{nil, "-1.2345"}},
		{"Nullable(DateTime('Europe/Moscow'))", []any{nil, time.Unix(86400, 0)}},
		{"Nullable(UUID)", []any{nil, "00112233-4455-6677-8899-aabbccddeeff"}},
		{"Nullable(FixedString(2))", []any{nil, "ab"}},
		{"Nullable(Enum8('a' = 1))", []any{nil, "a"}},
		{"Array(UInt8)", []any{[]uint8{}, []uint8{1, 2, 3}, nil, []int{255}}},
		{"Array(String)", []any{[]string{"a", "", nonUTF8}, []string{}, []any{"x"}}},
		{"Array(Nullable(String))", []any{[]any{nil, "a"}, []*string{nil}, []string{}}},
		{"Array(Array(UInt8))", []any{[][]uint8{{1}, {}, {2, 3}}, [][]uint8{}, []any{[]int{4}}}},
		{"Array(Nothing)", []any{[]any{}, []any{nil, nil}}},
		{"Array(Decimal(9, 2))", []any{[]string{"1.25", "-3"}}},
		{"Array(DateTime('Asia/Kolkata'))", []any{[]time.Time{time.Unix(5, 0)}}},
		{"Array(Tuple(String, Nullable(UInt8)))", []any{[]any{[]any{"a", nil}, []any{"b", 1}}, []any{}}},
		{"Tuple(String, Int64)", []any{[]any{"a", -1}, []any{"", int64(math.MinInt64)}}},
		{"Tuple(a String, `b c` Array(Nullable(UInt8)))", []any{map[string]any{"a": "x", "b c": []any{nil, 1}}, []any{"y", []uint8{}}}},
		{"Map(String, UInt64)", []any{map[string]uint64{"a": 1, "b": math.MaxUint64}, map[string]uint64{}, nil}},
		{"Map(String, Array(Nullable(UInt64)))", []any{map[string]any{"k": []any{nil, 5}, "": []uint64{}}, map[string][]uint64{}}},
		{"Map(UInt8, String)", []any{map[int]string{1: "a", 255: "b"}}},
		{"LowCardinality(String)", []any{"", "a", "b", "a", nonUTF8, "", long}},
		{"LowCardinality(Nullable(String))", []any{nil, "", "a", nil, "a", "b"}},
		{"LowCardinality(FixedString(2))", []any{"ab", "ab", "cd"}},
		{"LowCardinality(Float64)", []any{0.0, math.Copysign(0, -1), math.NaN(), 0.0, math.Inf(-1)}},
		{"LowCardinality(Nullable(UInt32))", []any{nil, 7, 7, 0}},
		{"LowCardinality(Date)", []any{"2024-01-01", "2024-01-01"}},
		{"LowCardinality(UUID)", []any{"00112233-4455-6677-8899-aabbccddeeff"}},
		{"Array(LowCardinality(String))", []any{[]string{"foo", "bar"}, []string{}, []string{"foo"}}},
		{"Array(LowCardinality(String))", []any{[]string{}, []string{}}},
		{"Tuple(LowCardinality(String), Array(LowCardinality(String)))", []any{[]any{"a", []string{"b", "a"}}, []any{"c", []string{}}}},
		{"Map(LowCardinality(String), LowCardinality(Nullable(String)))", []any{map[string]any{"a": nil, "b": "x"}}},
		// The wider type set: edge values of each (see types_more_test.go for the helpers).
		{"Bool", []any{false, true, 1, 0, "true", uint8(1)}},
		{"BFloat16", bf16EdgeValues()},
		{"Date32", []any{time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2299, 12, 31, 0, 0, 0, 0, time.UTC), "1969-12-31", 0, -1, int32(Date32Max)}},
		{"DateTime64(0)", []any{time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2299, 12, 31, 23, 59, 59, 0, time.UTC), int64(-1), "1969-12-31 23:59:59"}},
		{"DateTime64(3)", []any{time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2299, 12, 31, 23, 59, 59, 999e6, time.UTC), time.Unix(-1, 1e6), int64(-1), "1969-12-31 23:59:59.999"}},
		{"DateTime64(6, 'Asia/Kathmandu')", []any{time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2299, 12, 31, 23, 59, 59, 999999e3, time.UTC), time.Unix(-1, 1e3), "1969-12-31 23:59:59.000001", int64(-1)}},
		{"DateTime64(9, 'America/St_Johns')", []any{time.Date(1677, 9, 21, 0, 12, 44, 0, time.UTC), time.Date(2262, 4, 11, 23, 47, 16, 854775807, time.UTC), time.Unix(-1, 1), int64(math.MinInt64), int64(math.MaxInt64), "2024-03-10 02:30:00.123456789"}},
		{"DateTime64(3, 'Asia/Kolkata')", []any{time.Unix(-86400*365, 5e8), "1970-01-01 05:29:59.999"}},
		{"Time", []any{MaxTime, -MaxTime, time.Duration(0), "-12:34:56", "999:59:59", 1, -3599999, 1500 * time.Millisecond}},
		{"Time64(0)", []any{MaxTime, -MaxTime, "-1:00:00"}},
		{"Time64(3)", []any{MaxTime + 999*time.Millisecond, -(MaxTime + 999*time.Millisecond), "-000:00:00.001", "12:00:00.5", int64(-1)}},
		{"Time64(9)", []any{MaxTime + 999999999, -(MaxTime + 999999999), time.Duration(-1), "1:02:03.000000004"}},
		{"IPv4", []any{"0.0.0.0", "255.255.255.255", netip.MustParseAddr("127.0.0.1"), net.IPv4(1, 2, 3, 4), [4]byte{10, 0, 0, 1}, uint32(0x7f000001), "::ffff:1.2.3.4", []byte{192, 168, 0, 1}}},
		{"IPv6", []any{"::", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "::ffff:1.2.3.4", net.ParseIP("2001:db8::1"), [16]byte{15: 1}, netip.MustParseAddr("10.0.0.1"), net.IPv4(1, 2, 3, 4).To4()}},
		{"IntervalSecond", []any{int64(math.MinInt64), int64(math.MaxInt64), 0, 5 * time.Second}},
		{"IntervalNanosecond", []any{time.Duration(-1), 7}},
		{"IntervalWeek", []any{-2, 14 * 24 * time.Hour}},
		{"IntervalYear", []any{1, -1, "2000"}},
		{"Decimal(76, 0)", []any{"-" + strings.Repeat("9", 76), strings.Repeat("9", 76), -1, big1("-" + strings.Repeat("9", 76))}},
		{"Decimal256(76)", []any{"-0." + strings.Repeat("9", 76), "0." + strings.Repeat("9", 76), "-1e-76"}},
		{"Decimal(76, 38)", []any{"-" + strings.Repeat("9", 38) + "." + strings.Repeat("9", 38), "-12345678901234567890123456789012345678.12345678901234567890123456789012345678"}},
		{"Int256", []any{Int128{Lo: math.MaxUint64, Hi: math.MaxUint64}, UInt128{Lo: 1}, int8(-128)}},
		{"Point", []any{Point{1, 2}, [2]float64{-1.5, math.Inf(1)}, Point{math.NaN(), math.Copysign(0, -1)}, []float64{math.MaxFloat64, -math.MaxFloat64}}},
		{"Ring", []any{Ring{{0, 0}, {1, 0}, {1, 1}, {0, 0}}, Ring{}, nil, [][2]float64{{1, 2}}}},
		{"LineString", []any{LineString{{0, 0}, {1.5, -2.25}}, []Point{}}},
		{"MultiLineString", []any{MultiLineString{{{0, 0}, {1, 1}}, {{2, 2}}}, MultiLineString{{}}, nil}},
		{"Polygon", []any{Polygon{{{0, 0}, {10, 0}, {10, 10}, {0, 0}}, {{1, 1}, {2, 1}, {1, 2}, {1, 1}}}, Polygon{}, [][]Point{{}}}},
		{"MultiPolygon", []any{MultiPolygon{{{{0, 0}, {1, 0}, {0, 1}, {0, 0}}}, {{{5, 5}, {6, 5}}}}, MultiPolygon{{{}}}, MultiPolygon{}}},
		{"Array(Point)", []any{[]Point{{1, 2}}, []Point{}}},
		{"Array(Polygon)", []any{[]Polygon{{{{1, 2}}}, {}}, nil}},
		{"Tuple(Point, Ring)", []any{[]any{Point{1, 2}, Ring{{3, 4}}}}},
		{"SimpleAggregateFunction(sum, UInt64)", []any{uint64(math.MaxUint64), 0, 7}},
		{"SimpleAggregateFunction(anyLast, Nullable(String))", []any{nil, "a", ""}},
		{"SimpleAggregateFunction(groupUniqArrayArray, Array(String))", []any{[]string{"a", "b"}, nil}},
		{"SimpleAggregateFunction(any, LowCardinality(String))", []any{"x", "y", "x"}},
		{"SimpleAggregateFunction(max, DateTime64(3, 'UTC'))", []any{time.Unix(-1, 0), "2024-01-02 03:04:05.678"}},
		{"Array(SimpleAggregateFunction(anyLast, Nullable(UInt8)))", []any{[]any{nil, 1}, []any{}}},
		{"Nested(a UInt8, `b c` String)", []any{[]any{[]any{1, "x"}, []any{2, "y"}}, nil, []struct {
			A uint8
			B string
		}{{3, "z"}}, []map[string]any{{"a": 4, "b c": "q"}}}},
		{"Nested(ts DateTime64(3, 'Asia/Kolkata'), ip Nullable(IPv6))", []any{[]any{[]any{"2024-01-01 00:00:00.001", nil}}}},
		{"Nullable(Bool)", []any{nil, true, false}},
		{"Nullable(BFloat16)", []any{nil, float32(math.Inf(-1)), 1.5}},
		{"Nullable(Date32)", []any{nil, "1900-01-01"}},
		{"Nullable(DateTime64(6, 'Asia/Kathmandu'))", []any{nil, time.Unix(-1, 5000)}},
		{"Nullable(Time)", []any{nil, -MaxTime}},
		{"Nullable(Time64(3))", []any{nil, "-1:00:00.5"}},
		{"Nullable(IPv4)", []any{nil, "1.2.3.4", "0.0.0.0"}},
		{"Nullable(IPv6)", []any{nil, "::1"}},
		{"Nullable(IntervalDay)", []any{nil, 3}},
		{"Nullable(SimpleAggregateFunction(sum, Int64))", []any{nil, -1}},
		{"Array(Nullable(Int32))", []any{[]any{nil, int32(math.MinInt32), int32(math.MaxInt32)}, []int32{}, nil}},
		{"Array(Nullable(IPv4))", []any{[]any{nil, "10.0.0.1"}}},
		{"Array(Bool)", []any{[]bool{true, false}, []any{1, 0}}},
		{"Array(DateTime64(9))", []any{[]time.Time{time.Unix(-1, 1)}}},
		{"Map(String, Array(Nullable(UInt64)))", []any{map[string]any{"a": []any{nil, uint64(math.MaxUint64)}}}},
		{"Map(IPv4, Bool)", []any{map[string]bool{"1.2.3.4": true, "0.0.0.0": false}}},
		{"Map(Date32, Nullable(Time64(6)))", []any{map[string]any{"1900-01-01": nil, "2299-12-31": "-999:59:59.999999"}}},
		{"Tuple(Bool, IPv6, Date32, BFloat16)", []any{[]any{true, "::1", "2000-01-01", float32(2)}}},
		{"LowCardinality(Bool)", []any{true, true, false}},
		{"LowCardinality(BFloat16)", []any{float32(1), float32(math.NaN()), math.Copysign(0, -1), 0.0, float32(1)}},
		{"LowCardinality(Date32)", []any{"1900-01-01", "1900-01-01", "2299-12-31"}},
		{"LowCardinality(Nullable(IPv4))", []any{nil, "1.2.3.4", "1.2.3.4", "0.0.0.0"}},
		{"LowCardinality(IPv6)", []any{"::1", "::1", "::"}},
		{"LowCardinality(Int256)", []any{big1("-57896044618658097711785492504343953926634992332820282019728792003956564819968"), 1, 1, "1"}},
		{"LowCardinality(UInt128)", []any{0, 0, uint64(math.MaxUint64)}},
		{"LowCardinality(IntervalDay)", []any{1, 1, 2}},
		{"LowCardinality(Time)", []any{"-1:00:00", "-1:00:00"}},
		{"LowCardinality(Nullable(Date32))", []any{nil, "2000-01-01", nil}},
		{"Array(LowCardinality(Nullable(IPv6)))", []any{[]any{nil, "::1", "::1"}, []any{}}},
	}
}

func TestRoundTripEveryType(t *testing.T) {
	for _, tc := range roundTripCases() {
		t.Run(tc.typ, func(t *testing.T) {
			c := mustNew(t, tc.typ)
			appendAll(t, c, tc.vals...)
			if c.Rows() != len(tc.vals) {
				t.Fatalf("Rows() = %d, want %d", c.Rows(), len(tc.vals))
			}
			checkRoundTrip(t, c, nil)
			// Defaults round-trip too.
			d := mustNew(t, tc.typ)
			for range 3 {
				d.AppendDefault()
			}
			checkRoundTrip(t, d, nil)
			// Truncate then append keeps the column consistent.
			c.Truncate(1)
			appendAll(t, c, tc.vals[len(tc.vals)-1])
			checkRoundTrip(t, c, nil)
			c.Reset()
			if c.Rows() != 0 {
				t.Fatalf("Rows() after Reset = %d", c.Rows())
			}
			appendAll(t, c, tc.vals...)
			checkRoundTrip(t, c, nil)
		})
	}
}

// TestTypeNameRoundTrip checks Type() parses back to the same type.
func TestTypeNameRoundTrip(t *testing.T) {
	for _, tc := range roundTripCases() {
		c := mustNew(t, tc.typ)
		c2 := mustNew(t, c.Type())
		if c2.Type() != c.Type() {
			t.Errorf("%q: Type() %q reparses as %q", tc.typ, c.Type(), c2.Type())
		}
		if c.ScanType() != c2.ScanType() {
			t.Errorf("%q: ScanType differs", tc.typ)
		}
	}
}

// TestScanTypeMatchesValue checks Value returns ScanType for every non-NULL value.
func TestScanTypeMatchesValue(t *testing.T) {
	for _, tc := range roundTripCases() {
		c := mustNew(t, tc.typ)
		appendAll(t, c, tc.vals...)
		for i := range c.Rows() {
			v := c.Value(i)
			if v == nil {
				continue
			}
			if got, want := typeOf(v), c.ScanType(); got != want && want.Kind() != 20 /* interface */ {
				t.Errorf("%s: Value(%d) is %v, ScanType %v", tc.typ, i, got, want)
			}
		}
	}
}
