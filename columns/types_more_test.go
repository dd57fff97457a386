package columns

import (
	"bytes"
	"errors"
	"math"
	"math/big"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"
)

// bf16EdgeValues are BFloat16 edge values: zero and -0, ±Inf, NaNs, the largest finite value, the
// smallest subnormal, and values that round.
func bf16EdgeValues() []any {
	return []any{
		float32(0), math.Float32frombits(0x80000000), float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.NaN()), math.Float32frombits(0xffc10000), // negative NaN with a payload
		math.Float32frombits(0x7f7f0000), math.Float32frombits(0xff7f0000), // ±largest finite
		math.Float32frombits(0x00010000), math.Float32frombits(0x80010000), // ±smallest subnormal
		float32(1), -1.5, 3, "0.1", uint64(math.MaxUint64),
	}
}

func TestBFloat16Rounding(t *testing.T) {
	for _, tc := range []struct {
		in   uint32 // float32 bits
		want uint16
	}{
		{0x3f800000, 0x3f80}, // 1
		{0x3f808000, 0x3f80}, // tie, even stays
		{0x3f818000, 0x3f82}, // tie, odd rounds up
		{0x3f808001, 0x3f81}, // above the tie
		{0x3f807fff, 0x3f80}, // below the tie
		{0x80000000, 0x8000}, // -0
		{0x7f800000, 0x7f80}, // +Inf
		{0xff800000, 0xff80}, // -Inf
		{0x7f7fffff, 0x7f80}, // MaxFloat32 rounds to +Inf
		{0x7f800001, 0x7fc0}, // signalling NaN with only low payload bits stays a NaN
		{0xffc00000, 0xffc0}, // negative quiet NaN
		{0x7fc12345, 0x7fc1},
		{0x00008000, 0x0000}, // tie at the smallest subnormal, even
		{0x00018000, 0x0002},
	} {
		if got := BFloat16Bits(math.Float32frombits(tc.in)); got != tc.want {
			t.Errorf("BFloat16Bits(%#08x) = %#04x, want %#04x", tc.in, got, tc.want)
		}
	}
	// float64 values round once: 1 + 2^-8 + 2^-30 is just above a tie, which a float32 step would
	// round onto the tie and then down to even.
	c := NewBFloat16()
	appendAll(t, c, 1+1.0/256+1.0/(1<<30), 1+1.0/256, int64(257), int64(259), uint64(1<<63+1<<55))
	if got, want := c.Values(), []uint16{0x3f81, 0x3f80, 0x4380, 0x4382, 0x5f00}; !reflect.DeepEqual(got, want) {
		t.Fatalf("values %#04x, want %#04x", got, want)
	}
	for _, v := range []any{math.MaxFloat32, -math.MaxFloat64, "1e39"} {
		var tm *TypeMismatchError
		if err := c.AppendValue(v); !errors.As(err, &tm) {
			t.Errorf("AppendValue(%v): %v, want a *TypeMismatchError", v, err)
		}
	}
	// Decoding keeps every bit pattern, NaN payloads and -0 included.
	raw := []byte{0x81, 0x7f, 0x00, 0x80, 0xc1, 0xff, 0x01, 0x00}
	d := NewBFloat16()
	if err := decodeInto(d, NewBytesReader(raw), 4); err != nil {
		t.Fatal(err)
	}
	if got := encode(d); !bytes.Equal(got, raw) {
		t.Fatalf("re-encoded % x", got)
	}
	if f := d.Value(1).(float32); math.Float32bits(f) != 0x80000000 {
		t.Fatalf("-0 read as %#x", math.Float32bits(f))
	}
}

func TestMoreKnownVectors(t *testing.T) {
	for _, tc := range []struct {
		typ  string
		vals []any
		hex  string
	}{
		{"Bool", []any{true, false}, "01 00"},
		{"BFloat16", []any{float32(1), float32(-2), float32(math.Inf(1))}, "80 3f 00 c0 80 7f"},
		{"Date32", []any{"1900-01-01", "1970-01-02", "2299-12-31"}, "21 9c ff ff 01 00 00 00 d1 d6 01 00"},
		{"DateTime64(3)", []any{time.Unix(0, 1e6), time.Unix(-1, 999e6)}, "01 00 00 00 00 00 00 00 ff ff ff ff ff ff ff ff"},
		{"DateTime64(0, 'Asia/Kolkata')", []any{"1970-01-01 05:30:01"}, "01 00 00 00 00 00 00 00"},
		{"DateTime64(9)", []any{"1970-01-01 00:00:00.000000258"}, "02 01 00 00 00 00 00 00"},
		{"Time", []any{-time.Second, "1:00:00"}, "ff ff ff ff 10 0e 00 00"},
		{"Time64(3)", []any{"-0:00:00.001"}, "ff ff ff ff ff ff ff ff"},
		{"IPv4", []any{"127.0.0.1", "1.2.3.4"}, "01 00 00 7f 04 03 02 01"},
		{"IPv6", []any{"::1", "1.2.3.4"}, "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 01  00 00 00 00 00 00 00 00 00 00 ff ff 01 02 03 04"},
		{"IntervalSecond", []any{10}, "0a 00 00 00 00 00 00 00"},
		// Point: the X column, then the Y column.
		{"Point", []any{Point{1, 2}, Point{-1, 0}}, "00 00 00 00 00 00 f0 3f  00 00 00 00 00 00 f0 bf  00 00 00 00 00 00 00 40  00 00 00 00 00 00 00 00"},
		{"Ring", []any{Ring{{1, 2}}}, "01 00 00 00 00 00 00 00  00 00 00 00 00 00 f0 3f  00 00 00 00 00 00 00 40"},
		{"SimpleAggregateFunction(sum, UInt64)", []any{5}, "05 00 00 00 00 00 00 00"},
		{"Nested(a UInt8, b UInt8)", []any{[]any{[]any{1, 2}, []any{3, 4}}}, "02 00 00 00 00 00 00 00 01 03 02 04"},
		{"Int256", []any{big1Test("-1")}, strings.Repeat("ff ", 32)},
		{"Decimal(76, 0)", []any{"-1"}, strings.Repeat("ff ", 32)},
	} {
		c := mustNew(t, tc.typ)
		appendAll(t, c, tc.vals...)
		want := hexBytes(t, tc.hex)
		if got := encode(c); !bytes.Equal(got, want) {
			t.Errorf("%s: encoded\n got % x\nwant % x", tc.typ, got, want)
			continue
		}
		checkRoundTrip(t, c, nil)
	}
}

func big1Test(s string) *big.Int { b, _ := new(big.Int).SetString(s, 10); return b }

func TestMoreValues(t *testing.T) {
	kol, _ := time.LoadLocation("Asia/Kolkata")
	ktm, _ := time.LoadLocation("Asia/Kathmandu")
	stj, _ := time.LoadLocation("America/St_Johns")
	for _, tc := range []struct {
		typ  string
		in   any
		want any
	}{
		{"Bool", "false", false},
		{"Bool", 1.0, true},
		{"BFloat16", "0.1", math.Float32frombits(0x3dcd0000)},
		{"Date32", time.Date(2000, 1, 1, 23, 0, 0, 0, kol), time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"Date32", -25567, time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"DateTime64(3, 'Asia/Kolkata')", "1970-01-01 05:30:00.25", time.Unix(0, 25e7).In(kol)},
		{"DateTime64(3, 'Asia/Kathmandu')", time.Unix(-1, 999999999), time.Unix(-1, 999e6).In(ktm)},
		{"DateTime64(6, 'America/St_Johns')", "1969-12-31 20:29:59.999999", time.Unix(-1, 999999e3).In(stj)},
		{"DateTime64(9, 'Asia/Kathmandu')", int64(-1), time.Unix(-1, 999999999).In(ktm)},
		{"DateTime64(2)", int64(-150), time.Unix(-2, 5e8).UTC()},
		{"DateTime64(3)", "2024-01-02T03:04:05.678+05:45", time.Date(2024, 1, 1, 21, 19, 5, 678e6, time.UTC)},
		{"Time", "-999:59:59", -MaxTime},
		{"Time", 90 * time.Minute, 90 * time.Minute},
		{"Time", -1500 * time.Millisecond, -time.Second},
		{"Time64(3)", "-000:00:01.0015", -1001 * time.Millisecond},
		{"Time64(6)", int64(-1), -time.Microsecond},
		{"IPv4", "::ffff:10.1.2.3", netip.MustParseAddr("10.1.2.3")},
		{"IPv4", uint32(0xffffffff), netip.MustParseAddr("255.255.255.255")},
		{"IPv6", "1.2.3.4", netip.MustParseAddr("::ffff:1.2.3.4")},
		{"IPv6", [16]byte{0: 0x20, 1: 0x01, 15: 1}, netip.MustParseAddr("2001::1")},
		{"IntervalMillisecond", 1500 * time.Microsecond * 1000, int64(1500)},
		{"IntervalQuarter", int8(-3), int64(-3)},
		{"UInt256", Int128{Lo: 5}, big.NewInt(5)},
		{"Point", [2]float64{1, 2}, Point{1, 2}},
		{"Ring", []Point{{1, 2}}, Ring{{1, 2}}},
		{"Polygon", [][][2]float64{{{1, 2}, {3, 4}}, {}}, Polygon{{{1, 2}, {3, 4}}, {}}},
		{"MultiPolygon", []Polygon{{{{1, 2}}}}, MultiPolygon{{{{1, 2}}}}},
		{"MultiLineString", [][]Point{{{1, 2}}}, MultiLineString{{{1, 2}}}},
		{"SimpleAggregateFunction(sum, Decimal(76, 2))", "-1.5", Decimal{Unscaled: big.NewInt(-150), Scale: 2}},
		{"Nested(a UInt8, b String)", []any{[]any{1, "x"}}, [][]any{{uint8(1), "x"}}},
	} {
		c := mustNew(t, tc.typ)
		if err := c.AppendValue(tc.in); err != nil {
			t.Errorf("%s: AppendValue(%T %v): %v", tc.typ, tc.in, tc.in, err)
			continue
		}
		if got := c.Value(0); !valueEqual(got, tc.want) {
			t.Errorf("%s: AppendValue(%T %v) reads back %#v, want %#v", tc.typ, tc.in, tc.in, got, tc.want)
		}
	}
}

func TestMoreMismatches(t *testing.T) {
	for _, tc := range []struct {
		typ string
		in  any
	}{
		{"Bool", 2},
		{"Bool", "maybe"},
		{"Bool", nil},
		{"BFloat16", "x"},
		{"BFloat16", math.MaxFloat64},
		{"Date32", "1899-12-31"},
		{"Date32", time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"Date32", Date32Max + 1},
		{"DateTime64(9)", time.Date(2263, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"DateTime64(9)", time.Date(1677, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"DateTime64(3)", "yesterday"},
		{"DateTime64(3)", 1.5},
		{"Time", 1000 * time.Hour},
		{"Time", "1000:00:00"},
		{"Time", "1:60:00"},
		{"Time", "1:00"},
		{"Time", 3600000},
		{"Time64(3)", -1000 * time.Hour},
		{"Time64(3)", int64(3600000000)},
		{"IPv4", "::1"},
		{"IPv4", "300.1.1.1"},
		{"IPv4", []byte{1, 2, 3}},
		{"IPv4", netip.Addr{}},
		{"IPv6", "fe80::1%eth0"},
		{"IPv6", 1},
		{"IntervalMonth", time.Hour},
		{"IntervalSecond", 1500 * time.Millisecond},
		{"Int128", big1Test("170141183460469231731687303715884105728")},
		{"UInt128", Int128{Lo: math.MaxUint64, Hi: math.MaxUint64}}, // -1
		{"Point", []float64{1}},
		{"Ring", []any{"x"}},
		{"Nested(a UInt8)", []any{[]any{300}}},
		{"SimpleAggregateFunction(sum, UInt8)", -1},
	} {
		c := mustNew(t, tc.typ)
		err := c.AppendValue(tc.in)
		var tm *TypeMismatchError
		if !errors.As(err, &tm) {
			t.Errorf("%s: AppendValue(%T %v) = %v, want a *TypeMismatchError", tc.typ, tc.in, tc.in, err)
			continue
		}
		if c.Rows() != 0 {
			t.Errorf("%s: failed AppendValue left %d rows", tc.typ, c.Rows())
		}
		if !strings.Contains(err.Error(), c.Type()) {
			t.Errorf("%s: error %q does not name the type", tc.typ, err)
		}
	}
	w := mustNew(t, "Int256").(*Wide[Int256])
	if err := w.AppendBig(nil); err == nil {
		t.Error("AppendBig(nil) succeeded")
	}
	if err := w.AppendBig(big1Test("-57896044618658097711785492504343953926634992332820282019728792003956564819969")); err == nil {
		t.Error("AppendBig below Int256 min succeeded")
	}
}

func TestMoreNewTypes(t *testing.T) {
	for _, tc := range []struct {
		typ, canonical string
		col            Column
		scan           reflect.Type
	}{
		{"Bool", "Bool", &Bool{}, reflect.TypeFor[bool]()},
		{"BFloat16", "BFloat16", &BFloat16{}, reflect.TypeFor[float32]()},
		{"Date32", "Date32", &Date32{}, reflect.TypeFor[time.Time]()},
		{"DateTime64(3)", "DateTime64(3)", &DateTime64{}, reflect.TypeFor[time.Time]()},
		{"DateTime64(9,'UTC')", "DateTime64(9, 'UTC')", &DateTime64{}, reflect.TypeFor[time.Time]()},
		{"Time", "Time", &Time{}, reflect.TypeFor[time.Duration]()},
		{"Time64(6)", "Time64(6)", &Time64{}, reflect.TypeFor[time.Duration]()},
		{"IPv4", "IPv4", &IPv4{}, reflect.TypeFor[netip.Addr]()},
		{"IPv6", "IPv6", &IPv6{}, reflect.TypeFor[netip.Addr]()},
		{"IntervalHour", "IntervalHour", &Interval{}, reflect.TypeFor[int64]()},
		{"Point", "Point", &Geo{}, reflect.TypeFor[Point]()},
		{"MultiPolygon", "MultiPolygon", &Geo{}, reflect.TypeFor[MultiPolygon]()},
		{"SimpleAggregateFunction(anyLast, Nullable(IPv4))", "SimpleAggregateFunction(anyLast, Nullable(IPv4))", &SimpleAggregateFunction{}, reflect.TypeFor[netip.Addr]()},
		{"SimpleAggregateFunction(quantiles(0.5, 0.9), Array(Float64))", "SimpleAggregateFunction(quantiles(0.5, 0.9), Array(Float64))", &SimpleAggregateFunction{}, reflect.TypeFor[[]float64]()},
		{"SimpleAggregateFunction(sumMap, Tuple(Array(UInt8), Array(UInt64)))", "SimpleAggregateFunction(sumMap, Tuple(Array(UInt8), Array(UInt64)))", &SimpleAggregateFunction{}, reflect.TypeFor[[]any]()},
		{"Nested(a UInt8,b Array(String))", "Nested(a UInt8, b Array(String))", &Nested{}, reflect.TypeFor[[][]any]()},
		{"Array(Nullable(IPv6))", "Array(Nullable(IPv6))", &Array{}, reflect.TypeFor[[]*netip.Addr]()},
		{"Array(SimpleAggregateFunction(any, Nullable(String)))", "Array(SimpleAggregateFunction(any, Nullable(String)))", &Array{}, reflect.TypeFor[[]*string]()},
		{"Array(Ring)", "Array(Ring)", &Array{}, reflect.TypeFor[[]Ring]()},
		{"Map(IPv6, Date32)", "Map(IPv6, Date32)", &Map{}, reflect.TypeFor[map[netip.Addr]time.Time]()},
		{"LowCardinality(Nullable(IPv6))", "LowCardinality(Nullable(IPv6))", &LowCardinality{}, reflect.TypeFor[netip.Addr]()},
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
	}
	for _, typ := range []string{
		"Bool(1)", "BFloat16(2)", "Date32(1)", "IPv4(1)", "Point(1)", "IntervalFortnight", "Time(1)",
		"DateTime64", "DateTime64(10)", "DateTime64(-1)", "DateTime64('UTC')", "DateTime64(3, 'No/Such_Zone')",
		"DateTime64(3, 'UTC', 1)", "Time64", "Time64(10)", "Time64(3, 'UTC')",
		"Nullable(Point)", "Nullable(Ring)", "Nullable(Nested(a UInt8))", "Nullable(SimpleAggregateFunction(any, Array(UInt8)))",
		"LowCardinality(DateTime64(3))", "LowCardinality(Time64(3))", "LowCardinality(Decimal(76, 0))",
		"LowCardinality(Point)", "LowCardinality(Enum8('a' = 1))", "LowCardinality(Nullable(Ring))",
		"Nested()", "Nested(UInt8)", "Nested(a UInt8, String)", "SimpleAggregateFunction(sum)",
		"SimpleAggregateFunction(sum, a UInt8)", "SimpleAggregateFunction(sum, Foo)",
	} {
		if c, err := New(typ); err == nil {
			t.Errorf("New(%q) = %s, want an error", typ, c.Type())
		}
	}
	for _, typ := range []string{"AggregateFunction(sum, UInt64)", "AggregateFunction(1, quantiles(0.5, 0.9), Nullable(Float64))", "Array(AggregateFunction(uniq, String))"} {
		_, err := New(typ)
		var ue *UnsupportedTypeError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "finalizeAggregation()") || !strings.HasPrefix(ue.Type, "AggregateFunction(") {
			t.Errorf("New(%q): %v, want an *UnsupportedTypeError naming the type and finalizeAggregation()", typ, err)
		}
	}
}

func TestSetLocationDeep(t *testing.T) {
	msk, _ := time.LoadLocation("Europe/Moscow")
	c := mustNew(t, "Tuple(DateTime64(3), Array(Nullable(DateTime)), Map(String, DateTime64(6, 'UTC')), "+
		"SimpleAggregateFunction(max, DateTime64(0)), Nested(t DateTime64(9)), LowCardinality(DateTime))")
	SetLocation(c, msk)
	tu := c.(*Tuple)
	check := func(name string, got *time.Location, want string) {
		t.Helper()
		if got.String() != want {
			t.Errorf("%s: location %v, want %s", name, got, want)
		}
	}
	check("DateTime64", tu.Elem(0).(*DateTime64).Location(), "Europe/Moscow")
	check("Array(Nullable(DateTime))", tu.Elem(1).(*Array).Elem().(*Nullable).Inner().(*DateTime).Location(), "Europe/Moscow")
	check("zoned", tu.Elem(2).(*Map).Values().(*DateTime64).Location(), "UTC")
	check("SimpleAggregateFunction", tu.Elem(3).(*SimpleAggregateFunction).Inner().(*DateTime64).Location(), "Europe/Moscow")
	check("Nested", tu.Elem(4).(*Nested).Tuple().Elem(0).(*DateTime64).Location(), "Europe/Moscow")
	check("LowCardinality", tu.Elem(5).(*LowCardinality).Dictionary().(*DateTime).Location(), "Europe/Moscow")
	appendAll(t, c, []any{"2024-06-01 12:00:00.5", nil, nil, "2024-06-01 12:00:00", nil, "2024-06-01 12:00:00"})
	if got := tu.Elem(0).(*DateTime64).Time(0); !got.Equal(time.Date(2024, 6, 1, 9, 0, 0, 5e8, time.UTC)) {
		t.Errorf("server-zone DateTime64 parsed %v", got)
	}
}

// Later LowCardinality granules merge into the dictionary bit for bit: a Bool byte of 2 and a
// BFloat16 signalling NaN survive.
func TestLowCardinalityGranulesRaw(t *testing.T) {
	for _, tc := range []struct{ typ, dict1, dict2 string }{
		{"LowCardinality(Bool)", "01 00 00 00 00 00 00 00 01", "01 00 00 00 00 00 00 00 02"},
		{"LowCardinality(BFloat16)", "01 00 00 00 00 00 00 00 80 3f", "01 00 00 00 00 00 00 00 81 7f"},
	} {
		data := hexBytes(t, "01 00 00 00 00 00 00 00"+
			"00 06 00 00 00 00 00 00"+tc.dict1+"01 00 00 00 00 00 00 00 00"+
			"00 06 00 00 00 00 00 00"+tc.dict2+"01 00 00 00 00 00 00 00 00")
		c := mustNew(t, tc.typ).(*LowCardinality)
		if err := decodeInto(c, NewBytesReader(data), 2); err != nil {
			t.Fatalf("%s: %v", tc.typ, err)
		}
		want := hexBytes(t, tc.dict1[24:]+tc.dict2[24:])
		var w Writer
		c.Dictionary().Write(&w)
		if !bytes.Equal(w.Buf, want) {
			t.Errorf("%s: dictionary % x, want % x", tc.typ, w.Buf, want)
		}
	}
}

func TestTimeFormatParse(t *testing.T) {
	for _, tc := range []struct {
		s    string
		prec int
		d    time.Duration
	}{
		{"0:00:00", 0, 0},
		{"999:59:59", 0, MaxTime},
		{"-999:59:59.999999999", 9, -MaxTime - 999999999},
		{"-1:02:03.040", 3, -(time.Hour + 2*time.Minute + 3*time.Second + 40*time.Millisecond)},
		{"12:00:00.5", 1, 12*time.Hour + 500*time.Millisecond},
	} {
		d, ok := ParseTime(tc.s)
		if !ok || d != tc.d {
			t.Errorf("ParseTime(%q) = %v, %v; want %v", tc.s, d, ok, tc.d)
		}
		if got := FormatTime(tc.d, tc.prec); got != tc.s {
			t.Errorf("FormatTime(%v, %d) = %q, want %q", tc.d, tc.prec, got, tc.s)
		}
	}
	for _, s := range []string{"", "1", "1:2:3", "1:00", "1234:00:00", "1:00:00.", "1:00:00.1234567890", "a:00:00", "1:00:0x", "--1:00:00", "+1:00:00"} {
		if d, ok := ParseTime(s); ok {
			t.Errorf("ParseTime(%q) = %v, want failure", s, d)
		}
	}
}
