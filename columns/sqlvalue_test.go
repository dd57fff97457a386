package columns

import (
	"encoding/json"
	"errors"
	"math/big"
	"net"
	"net/netip"
	"reflect"
	"testing"

	"github.com/paulmach/orb"
)

// checkSQLValues checks the database/sql values of every row of a decoded column: SQLValue is
// nil or of the type SQLScanType names (or, for the big integers, its element; for JSON, a []byte
// where the scan type is clickhouse-go's string: database/sql stores one into the other), and ScanValue
// stores every non-NULL row into a variable of Value's own type.
func checkSQLValues(t *testing.T, c Column) {
	t.Helper()
	st := SQLScanType(c)
	for i := range c.Rows() {
		v := SQLValue(c, i)
		if v != nil {
			vt := reflect.TypeOf(v)
			if vt != st && !(st.Kind() == reflect.Pointer && vt == st.Elem()) && st.Kind() != reflect.Interface &&
				!(st == reflect.TypeFor[string]() && vt == reflect.TypeFor[[]byte]()) {
				t.Fatalf("%s: row %d: SQLValue %T, SQLScanType %v", c.Type(), i, v, st)
			}
		}
		own := c.ScanType()
		if own.Kind() == reflect.Interface || c.Value(i) == nil {
			continue
		}
		d := reflect.New(own)
		// ScanValue leaves SQLValue's own type (and a pointer to it) to database/sql.
		sqlOwn := sqlTypeOf(c, true)
		left := sqlOwn != nil && (own == sqlOwn || own.Kind() == reflect.Pointer && own.Elem() == sqlOwn)
		if ok, err := ScanValue(c, i, d.Interface()); err != nil || !ok && !left {
			t.Fatalf("%s: row %d: ScanValue into *%v: %v, %v", c.Type(), i, own, ok, err)
		}
		_, _ = ScanValue(c, i, new(string))
	}
}

// sqlCol returns a column of typ holding vals.
func sqlCol(t *testing.T, typ string, vals ...any) Column {
	t.Helper()
	c, err := New(typ)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vals {
		if err := c.AppendValue(v); err != nil {
			t.Fatalf("%s: append %#v: %v", typ, v, err)
		}
	}
	return c
}

func TestSQLValue(t *testing.T) {
	s := func(v string) *string { return &v }
	i8 := func(v int8) *int8 { return &v }
	for _, tc := range []struct {
		typ      string
		in       any
		want     any
		scanType reflect.Type
	}{
		{"Int128", big.NewInt(-5), *big.NewInt(-5), reflect.TypeFor[*big.Int]()},
		{"UInt256", "115792089237316195423570985008687907853269984665640564039457584007913129639935",
			*new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1)), reflect.TypeFor[*big.Int]()},
		{"Nullable(Int128)", nil, nil, reflect.TypeFor[*big.Int]()},
		{"Nullable(Int128)", 7, *big.NewInt(7), reflect.TypeFor[*big.Int]()},
		{"Array(Int128)", []any{1, nil}[:1], []*big.Int{big.NewInt(1)}, reflect.TypeFor[[]*big.Int]()},
		{"IPv4", "1.2.3.4", net.IP{1, 2, 3, 4}, reflect.TypeFor[net.IP]()},
		{"IPv6", "::ffff:1.2.3.4", net.IP(netip.MustParseAddr("::ffff:1.2.3.4").AsSlice()), reflect.TypeFor[net.IP]()},
		{"LowCardinality(Nullable(IPv4))", "1.2.3.4", net.IP{1, 2, 3, 4}, reflect.TypeFor[net.IP]()},
		{"Array(IPv4)", []string{"1.2.3.4"}, []net.IP{{1, 2, 3, 4}}, reflect.TypeFor[[]net.IP]()},
		{"Array(Nullable(IPv4))", []any{nil, "1.2.3.4"}, []*net.IP{nil, {1, 2, 3, 4}}, reflect.TypeFor[[]*net.IP]()},
		{"Map(String, IPv6)", map[string]string{"a": "::1"}, map[string]net.IP{"a": net.IPv6loopback}, reflect.TypeFor[map[string]net.IP]()},
		{"Decimal(9, 4)", "-1.5000", "-1.5", reflect.TypeFor[string]()},
		{"Decimal(38, 10)", "0", "0", reflect.TypeFor[string]()},
		{"Decimal(76, 2)", "100", "100", reflect.TypeFor[string]()},
		{"Nullable(Decimal(18, 3))", "2.250", "2.25", reflect.TypeFor[string]()},
		{"Array(Decimal(9, 2))", []string{"1.50"}, []Decimal{{big.NewInt(150), 2}}, reflect.TypeFor[[]Decimal]()},
		{"Point", Point{1, 2}, orb.Point{1, 2}, reflect.TypeFor[orb.Point]()},
		{"Ring", nil, orb.Ring{}, reflect.TypeFor[orb.Ring]()},
		{"LineString", []Point{{1, 2}}, orb.LineString{{1, 2}}, reflect.TypeFor[orb.LineString]()},
		{"MultiLineString", [][]Point{{{1, 2}}, {}}, orb.MultiLineString{{{1, 2}}, {}}, reflect.TypeFor[orb.MultiLineString]()},
		{"Polygon", [][]Point{{{1, 2}, {3, 4}}}, orb.Polygon{{{1, 2}, {3, 4}}}, reflect.TypeFor[orb.Polygon]()},
		{"MultiPolygon", [][][]Point{{{{1, 2}}}, {}}, orb.MultiPolygon{{{{1, 2}}}, {}}, reflect.TypeFor[orb.MultiPolygon]()},
		{"Array(Point)", []Point{{1, 2}}, []orb.Point{{1, 2}}, reflect.TypeFor[[]orb.Point]()},
		{"Tuple(a UInt8, b Nullable(String))", []any{1, nil}, map[string]any{"a": uint8(1), "b": (*string)(nil)}, reflect.TypeFor[map[string]any]()},
		{"Tuple(a UInt8, b Nullable(String))", []any{1, "x"}, map[string]any{"a": uint8(1), "b": s("x")}, reflect.TypeFor[map[string]any]()},
		{"Tuple(UInt8, String)", []any{1, "x"}, []any{uint8(1), "x"}, reflect.TypeFor[[]any]()},
		{"Tuple(String, Nullable(Int8))", []any{"a", nil}, []any{"a", (*int8)(nil)}, reflect.TypeFor[[]any]()},
		{"Array(Tuple(String, Nullable(Int8)))", [][]any{{"", -1}}, [][]any{{"", i8(-1)}}, reflect.TypeFor[[][]any]()},
		{"Tuple(IPv4, UInt8)", []any{"1.2.3.4", 1}, []any{net.IP{1, 2, 3, 4}, uint8(1)}, reflect.TypeFor[[]any]()},
		{"Nested(a UInt8, b String)", [][]any{{1, "x"}}, []map[string]any{{"a": uint8(1), "b": "x"}}, reflect.TypeFor[[]map[string]any]()},
		{"Nested(a UInt8, b String)", nil, []map[string]any{}, reflect.TypeFor[[]map[string]any]()},
		{"Array(UInt32)", nil, []uint32{}, reflect.TypeFor[[]uint32]()},
		{"Array(Array(UInt8))", [][]uint8{{}}, [][]uint8{{}}, reflect.TypeFor[[][]uint8]()},
		{"Map(String, UInt64)", map[string]uint64{"a": 1}, map[string]uint64{"a": 1}, reflect.TypeFor[map[string]uint64]()},
		{"JSON", `{"a":1}`, []byte(`{"a":1}`), reflect.TypeFor[string]()}, // clickhouse-go's []byte
		{"Nullable(JSON)", nil, nil, reflect.TypeFor[string]()},
		{"UInt64", uint64(1), uint64(1), reflect.TypeFor[uint64]()},
	} {
		c := sqlCol(t, tc.typ, tc.in)
		if got := SQLValue(c, 0); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: SQLValue(%#v) = %#v, want %#v", tc.typ, tc.in, got, tc.want)
		}
		if got := SQLScanType(c); got != tc.scanType {
			t.Errorf("%s: SQLScanType %v, want %v", tc.typ, got, tc.scanType)
		}
		checkSQLValues(t, c)
	}
}

func TestScanValue(t *testing.T) {
	type obj struct {
		A int    `json:"a"`
		B string `json:"b"`
	}
	for _, tc := range []struct {
		typ  string
		in   any
		dest any // a pointer to a zero value
		want any // what *dest becomes; nil: ScanValue reports false
		err  bool
	}{
		{"Int128", -5, new(big.Int), nil, false},  // SQLValue's own type: database/sql stores it
		{"Int128", -5, new(*big.Int), nil, false}, // and a pointer to it
		{"UInt256", "340282366920938463463374607431768211456", new(string), "340282366920938463463374607431768211456", false},
		{"Int256", -7, new([]byte), []byte("-7"), false},
		{"Int128", -7, new(int16), int16(-7), false},
		{"UInt128", 300, new(uint8), nil, true},
		{"UInt128", "18446744073709551616", new(int64), nil, true},
		{"Int128", 3, new(float64), float64(3), false},
		{"IPv4", "1.2.3.4", new(netip.Addr), netip.MustParseAddr("1.2.3.4"), false},
		{"IPv4", "1.2.3.4", new(string), "1.2.3.4", false},
		{"IPv4", "1.2.3.4", new(uint32), uint32(0x01020304), false},
		{"IPv4", "1.2.3.4", new(net.IP), nil, false}, // SQLValue's own type: database/sql stores it
		{"IPv6", "::1", new(string), "::1", false},
		{"IPv6", "::1", new([16]byte), [16]byte(net.IPv6loopback), false},
		{"Nullable(IPv6)", "::1", new(*netip.Addr), func() *netip.Addr { a := netip.IPv6Loopback(); return &a }(), false},
		{"Nullable(IPv6)", nil, new(*netip.Addr), (*netip.Addr)(nil), false},
		{"Nullable(IPv6)", nil, new(netip.Addr), nil, false}, // NULL into a non-pointer: database/sql's error
		{"Point", Point{1, 2}, new(Point), Point{1, 2}, false},
		{"Polygon", [][]Point{{{1, 2}}}, new(Polygon), Polygon{{{1, 2}}}, false},
		{"Nested(a UInt8)", [][]any{{1}}, new([][]any), [][]any{{uint8(1)}}, false},
		{"Tuple(a UInt8)", []any{1}, new([]any), []any{uint8(1)}, false},
		{"Decimal(9, 2)", "1.50", new(Decimal), Decimal{big.NewInt(150), 2}, false},
		{"Decimal(9, 2)", "1.50", new(big.Rat), *big.NewRat(3, 2), false},
		{"Decimal(9, 2)", "1.50", new(string), nil, false},
		{"JSON", `{"a":1,"b":"x"}`, new(obj), obj{1, "x"}, false},
		{"JSON", `{"a":1}`, new(map[string]any), map[string]any{"a": float64(1)}, false},
		{"JSON", `{"a":1}`, new(json.RawMessage), json.RawMessage(`{"a":1}`), false},
		{"JSON", `{"a":"x"}`, new(obj), nil, true},
		{"JSON", `{"a":1}`, new(string), `{"a":1}`, false},
		{"LowCardinality(Nullable(String))", "x", new(string), "x", false},
		{"UInt8", 1, new(Decimal), nil, false},
	} {
		c := sqlCol(t, tc.typ, tc.in)
		ok, err := ScanValue(c, 0, tc.dest)
		switch {
		case tc.err:
			var se *ScanError
			if err == nil || !ok || tc.typ != "JSON" && !errors.As(err, &se) {
				t.Errorf("%s: ScanValue(%#v into %T) = %v, %v; want an error", tc.typ, tc.in, tc.dest, ok, err)
			}
		case err != nil:
			t.Errorf("%s: ScanValue(%#v into %T): %v", tc.typ, tc.in, tc.dest, err)
		case tc.want == nil && ok:
			t.Errorf("%s: ScanValue(%#v into %T) stored %#v, want no store", tc.typ, tc.in, tc.dest, reflect.ValueOf(tc.dest).Elem())
		case tc.want != nil && !ok:
			t.Errorf("%s: ScanValue(%#v into %T) stored nothing, want %#v", tc.typ, tc.in, tc.dest, tc.want)
		case tc.want != nil:
			if got := reflect.ValueOf(tc.dest).Elem().Interface(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s: ScanValue(%#v into %T) stored %#v, want %#v", tc.typ, tc.in, tc.dest, got, tc.want)
			}
		}
	}
}

// The package's own types scan from SQLValue through their Scan methods (database/sql before
// Go 1.27 calls them with what Rows.Next handed over).
func TestOwnTypesScan(t *testing.T) {
	var p Point
	var r Ring
	var l LineString
	var ml MultiLineString
	var pg Polygon
	var mp MultiPolygon
	var d Decimal
	var vv VariantValue
	var dv DynamicValue
	for _, tc := range []struct {
		dest interface{ Scan(any) error }
		src  any
		want any
	}{
		{&p, orb.Point{1, 2}, Point{1, 2}},
		{&p, Point{3, 4}, Point{3, 4}},
		{&r, orb.Ring{{1, 2}}, Ring{{1, 2}}},
		{&l, orb.LineString{{1, 2}, {3, 4}}, LineString{{1, 2}, {3, 4}}},
		{&l, orb.LineString{}, LineString{}},
		{&ml, orb.MultiLineString{{{1, 2}}, {}}, MultiLineString{{{1, 2}}, {}}},
		{&pg, orb.Polygon{{{1, 2}}}, Polygon{{{1, 2}}}},
		{&mp, orb.MultiPolygon{{{{1, 2}}}}, MultiPolygon{{{{1, 2}}}}},
		{&d, "-1.50", Decimal{big.NewInt(-150), 2}},
		{&d, []byte("7"), Decimal{big.NewInt(7), 0}},
		{&d, "1.5e-2", Decimal{big.NewInt(15), 3}},
		{&d, "12e3", Decimal{big.NewInt(12000), 0}},
		{&d, int64(-3), Decimal{big.NewInt(-3), 0}},
		{&d, 0.25, Decimal{big.NewInt(25), 2}},
		{&d, Decimal{Scale: 2}, Decimal{big.NewInt(0), 2}},
		{&vv, nil, VariantValue{}},
		{&vv, VariantValue{"String", "x"}, VariantValue{"String", "x"}},
		{&dv, nil, DynamicValue{}},
		{&dv, DynamicValue{"Int64", int64(1)}, DynamicValue{"Int64", int64(1)}},
	} {
		if err := tc.dest.Scan(tc.src); err != nil {
			t.Errorf("%T.Scan(%#v): %v", tc.dest, tc.src, err)
			continue
		}
		if got := reflect.ValueOf(tc.dest).Elem().Interface(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%T.Scan(%#v): %#v, want %#v", tc.dest, tc.src, got, tc.want)
		}
	}
	for _, tc := range []struct {
		dest interface{ Scan(any) error }
		src  any
	}{
		{&p, orb.Ring{}}, {&r, orb.Point{}}, {&pg, orb.Ring{}}, {&mp, orb.Polygon{}}, {&ml, 1},
		{&d, nil}, {&d, "x"}, {&d, "1e99999"}, {&d, true}, {&vv, 1}, {&dv, "x"},
	} {
		var se *ScanError
		if err := tc.dest.Scan(tc.src); !errors.As(err, &se) {
			t.Errorf("%T.Scan(%#v): %v, want a *ScanError", tc.dest, tc.src, err)
		}
	}
}
