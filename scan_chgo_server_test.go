package chnative

import (
	"context"
	"database/sql"
	"encoding/json"
	"math/big"
	"net"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/paulmach/orb"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/testenv"
)

// Scanning into the destinations clickhouse-go's database/sql users write (issue 15), on the
// server of CHNATIVE_DSN; a type 18.16 lacks is asserted to be refused there. Where Go 1.27's
// ScanColumn reaches further than Next (chnative's own types, netip.Addr, JSON into structs),
// the test states both behaviours, keyed on whether database/sql calls ScanColumn.

// columnScanner reports whether database/sql calls the driver's ScanColumn (Go 1.27 and later),
// which sees each destination, rather than Next.
func columnScanner() bool {
	_, ok := any((*rows)(nil)).(interface{ NextRow() error })
	return ok
}

// queryRow runs q on db and scans its only row into dest.
func queryRow(t *testing.T, db *sql.DB, q string, dest ...any) error {
	t.Helper()
	return db.QueryRowContext(context.Background(), q).Scan(dest...)
}

// refused asserts that 18.16 refuses q with an error naming what it lacks.
func refused(t *testing.T, db *sql.DB, q, lacks string) {
	t.Helper()
	var v any
	if err := queryRow(t, db, q, &v); err == nil || !strings.Contains(err.Error(), lacks) {
		t.Fatalf("18.16: %s: %v, want an error naming %s", q, err, lacks)
	}
}

func TestScanBigIntServer(t *testing.T) {
	server := testenv.Server(t)
	db := openDB(t)
	q := "SELECT toInt128(-5), toUInt128('340282366920938463463374607431768211455'), toInt256(-7), toUInt256(9)," +
		" CAST(NULL AS Nullable(Int128)), CAST(3 AS Nullable(UInt256))"
	if server == testenv.Legacy {
		refused(t, db, q, "toInt128")
		return
	}
	var a, b, c, d big.Int
	var e, f *big.Int
	if err := queryRow(t, db, q, &a, &b, &c, &d, &e, &f); err != nil {
		t.Fatal(err)
	}
	max128, _ := new(big.Int).SetString("340282366920938463463374607431768211455", 10)
	if a.Int64() != -5 || b.Cmp(max128) != 0 || c.Int64() != -7 || d.Int64() != 9 || e != nil || f == nil || f.Int64() != 3 {
		t.Fatalf("got %v %v %v %v %v %v", &a, &b, &c, &d, e, f)
	}
	var v any
	if err := queryRow(t, db, "SELECT toInt128(-5)", &v); err != nil {
		t.Fatal(err)
	}
	if x, ok := v.(big.Int); !ok || x.Int64() != -5 {
		t.Fatalf("*any: %T %v, want big.Int -5 (clickhouse-go's)", v, v)
	}
	// A string destination: through Go 1.27's ScanColumn; database/sql before it cannot store
	// a big.Int into a string (as with clickhouse-go).
	var s string
	err := queryRow(t, db, "SELECT toUInt256(9)", &s)
	if columnScanner() {
		if err != nil || s != "9" {
			t.Fatalf("Go 1.27: *string: %q, %v", s, err)
		}
	} else if err == nil || !strings.Contains(err.Error(), "big.Int") {
		t.Fatalf("Go 1.26: *string: %q, %v; want database/sql's unsupported Scan of a big.Int", s, err)
	}
}

func TestScanIPServer(t *testing.T) {
	server := testenv.Server(t)
	db := openDB(t)
	q := "SELECT toIPv4('1.2.3.4'), toIPv6('2001:db8::1'), toIPv6('1.2.3.4'), CAST(NULL AS Nullable(IPv4))"
	if server == testenv.Legacy {
		refused(t, db, q, "toIPv4")
		return
	}
	var a, b, c net.IP
	var d *net.IP
	if err := queryRow(t, db, q, &a, &b, &c, &d); err != nil {
		t.Fatal(err)
	}
	if !a.Equal(net.IP{1, 2, 3, 4}) || len(a) != 4 || !b.Equal(net.ParseIP("2001:db8::1")) || len(c) != 16 ||
		c.String() != "1.2.3.4" || d != nil {
		t.Fatalf("got %v (%d bytes) %v %v (%d bytes) %v", a, len(a), b, c, len(c), d)
	}
	var v any
	if err := queryRow(t, db, "SELECT toIPv4('1.2.3.4')", &v); err != nil {
		t.Fatal(err)
	}
	if x, ok := v.(net.IP); !ok || !x.Equal(net.IP{1, 2, 3, 4}) {
		t.Fatalf("*any: %T %v, want net.IP (clickhouse-go's)", v, v)
	}
	var addr netip.Addr
	var s string
	err := queryRow(t, db, "SELECT toIPv6('2001:db8::1'), toIPv4('1.2.3.4')", &addr, &s)
	if columnScanner() {
		if err != nil || addr != netip.MustParseAddr("2001:db8::1") || s != "1.2.3.4" {
			t.Fatalf("Go 1.27: *netip.Addr, *string: %v %q %v", addr, s, err)
		}
	} else if err == nil || !strings.Contains(err.Error(), "net.IP") {
		t.Fatalf("Go 1.26: *netip.Addr: %v, %v; want database/sql's unsupported Scan of a net.IP", addr, err)
	}
}

func TestScanGeoServer(t *testing.T) {
	server := testenv.Server(t)
	db := openDB(t)
	q := "SELECT CAST((1.5, 2) AS Point), CAST([(0, 0), (1, 0), (0, 0)] AS Ring), CAST([(0, 0), (1, 1)] AS LineString)," +
		" CAST([[(0, 0)], []] AS MultiLineString), CAST([[(0, 0), (1, 0), (0, 0)]] AS Polygon)," +
		" CAST([[[(0, 0), (1, 0), (0, 0)]], []] AS MultiPolygon)"
	if server == testenv.Legacy {
		refused(t, db, q, "Point")
		return
	}
	var p orb.Point
	var r orb.Ring
	var l orb.LineString
	var ml orb.MultiLineString
	var pg orb.Polygon
	var mp orb.MultiPolygon
	if err := queryRow(t, db, q, &p, &r, &l, &ml, &pg, &mp); err != nil {
		t.Fatal(err)
	}
	tri := orb.Ring{{0, 0}, {1, 0}, {0, 0}}
	if p != (orb.Point{1.5, 2}) || !reflect.DeepEqual(r, tri) || !reflect.DeepEqual(l, orb.LineString{{0, 0}, {1, 1}}) ||
		!reflect.DeepEqual(ml, orb.MultiLineString{{{0, 0}}, {}}) || !reflect.DeepEqual(pg, orb.Polygon{tri}) ||
		!reflect.DeepEqual(mp, orb.MultiPolygon{{tri}, {}}) {
		t.Fatalf("orb: %v %v %v %v %v %v", p, r, l, ml, pg, mp)
	}
	// chnative's own geo types keep scanning, on every Go version.
	var cp columns.Point
	var cr columns.Ring
	var cl columns.LineString
	var cml columns.MultiLineString
	var cpg columns.Polygon
	var cmp columns.MultiPolygon
	if err := queryRow(t, db, q, &cp, &cr, &cl, &cml, &cpg, &cmp); err != nil {
		t.Fatal(err)
	}
	ctri := columns.Ring{{X: 0, Y: 0}, {X: 1, Y: 0}, {X: 0, Y: 0}}
	if cp != (columns.Point{X: 1.5, Y: 2}) || !reflect.DeepEqual(cr, ctri) || len(cl) != 2 || len(cml) != 2 ||
		!reflect.DeepEqual(cpg, columns.Polygon{ctri}) || !reflect.DeepEqual(cmp, columns.MultiPolygon{{ctri}, {}}) {
		t.Fatalf("columns: %v %v %v %v %v %v", cp, cr, cl, cml, cpg, cmp)
	}
	var v any
	if err := queryRow(t, db, "SELECT CAST((1.5, 2) AS Point)", &v); err != nil {
		t.Fatal(err)
	}
	if v != (orb.Point{1.5, 2}) {
		t.Fatalf("*any: %T %v, want orb.Point (clickhouse-go's)", v, v)
	}
}

// Named tuples scan into map[string]any, Nested into []map[string]any (as clickhouse-go). 18.16
// has named tuples; its CAST AS Nested makes an Array(Tuple(a T, b U)), which scans the same.
func TestScanTupleNestedServer(t *testing.T) {
	server := testenv.Server(t)
	db := openDB(t)
	var m map[string]any
	var nested []map[string]any
	var typ string
	q := "SELECT CAST((1, 'x') AS Tuple(a UInt8, b String)), CAST([(1, 'x'), (2, '')] AS Nested(a UInt8, b String)), " +
		"toTypeName(CAST([(1, 'x')] AS Nested(a UInt8, b String)))"
	if err := queryRow(t, db, q, &m, &nested, &typ); err != nil {
		t.Fatal(err)
	}
	wantType := map[testenv.Kind]string{testenv.Legacy: "Array(Tuple(a UInt8, b String))", testenv.Modern: "Nested(a UInt8, b String)"}[server]
	if !reflect.DeepEqual(m, map[string]any{"a": uint8(1), "b": "x"}) || typ != wantType ||
		!reflect.DeepEqual(nested, []map[string]any{{"a": uint8(1), "b": "x"}, {"a": uint8(2), "b": ""}}) {
		t.Fatalf("%v: %#v %#v %s", server, m, nested, typ)
	}
	// Value's []any for a named tuple: through ScanColumn; before Go 1.27 database/sql cannot
	// store the map into a []any (as with clickhouse-go).
	var s []any
	err := queryRow(t, db, "SELECT CAST((1, 'x') AS Tuple(a UInt8, b String))", &s)
	if columnScanner() {
		if err != nil || !reflect.DeepEqual(s, []any{uint8(1), "x"}) {
			t.Fatalf("Go 1.27: *[]any: %#v, %v", s, err)
		}
	} else if err == nil {
		t.Fatalf("Go 1.26: *[]any: %#v, want database/sql's unsupported Scan of a map", s)
	}
}

func TestScanJSONServer(t *testing.T) {
	server := testenv.Server(t)
	db := openDB(t)
	q := `SELECT CAST('{"a":1,"b":"x"}' AS JSON), CAST(['{"a":1}', NULL] AS Array(Nullable(JSON))), CAST(NULL AS Nullable(JSON))`
	if server == testenv.Legacy {
		refused(t, db, q, "JSON")
		return
	}
	var s string
	var arr any
	var null sql.NullString
	if err := queryRow(t, db, q, &s, &arr, &null); err != nil {
		t.Fatal(err)
	}
	a, ok := arr.([]*string)
	if s != `{"a":1,"b":"x"}` || !ok || len(a) != 2 || a[0] == nil || *a[0] != `{"a":1}` || a[1] != nil || null.Valid {
		t.Fatalf("%q %#v %v", s, arr, null)
	}
	var b []byte
	if err := queryRow(t, db, `SELECT CAST('{"a":1}' AS JSON)`, &b); err != nil || string(b) != `{"a":1}` {
		t.Fatalf("*[]byte: %q, %v", b, err)
	}
	type obj struct {
		A int    `json:"a"`
		B string `json:"b"`
	}
	var o obj
	var mp map[string]any
	var raw json.RawMessage
	err := queryRow(t, db, `SELECT CAST('{"a":1,"b":"x"}' AS JSON), CAST('{"a":2}' AS JSON), CAST('{"c":[1]}' AS JSON)`, &o, &mp, &raw)
	if columnScanner() {
		if err != nil || o != (obj{1, "x"}) || !reflect.DeepEqual(mp, map[string]any{"a": float64(2)}) || string(raw) != `{"c":[1]}` {
			t.Fatalf("Go 1.27: struct, map, RawMessage: %+v %v %s %v", o, mp, raw, err)
		}
	} else if err == nil {
		t.Fatalf("Go 1.26: JSON into a struct: %+v, want database/sql's unsupported Scan of a string", o)
	}
}

// WithUserLocation: zone-less DateTime values come back in the caller's zone (the same
// instants), at any depth and in blocks boxed by the read-ahead; a column's own zone stays.
func TestUserLocationServer(t *testing.T) {
	server := testenv.Server(t)
	db := openDB(t)
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	ctx := WithUserLocation(context.Background(), tokyo)
	var plain, utc, day time.Time
	var arr []time.Time
	q := "SELECT toDateTime(0), toDateTime(0, 'UTC'), [toDateTime(60)], toDate('2020-02-29')"
	if err := db.QueryRowContext(ctx, q).Scan(&plain, &utc, &arr, &day); err != nil {
		t.Fatal(err)
	}
	if plain.Location() != tokyo || plain.Unix() != 0 || utc.Location().String() != "UTC" || len(arr) != 1 ||
		arr[0].Location() != tokyo || arr[0].Unix() != 60 || !day.Equal(time.Date(2020, 2, 29, 0, 0, 0, 0, tokyo)) ||
		day.Location() != tokyo {
		t.Fatalf("%v: %v %v %v %v", server, plain, utc, arr, day)
	}
	// The next query on the same connection, without the option, is in the server's zone and
	// its dates at midnight UTC again (the connection reuses the blocks' columns).
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var other time.Time
	for _, c := range []context.Context{ctx, context.Background()} {
		if err := conn.QueryRowContext(c, "SELECT toDateTime(0), toDate('2020-02-29')").Scan(&other, &day); err != nil {
			t.Fatal(err)
		}
	}
	if other.Location() == tokyo || other.Location().String() != "Etc/UTC" || day != time.Date(2020, 2, 29, 0, 0, 0, 0, time.UTC) {
		t.Fatalf("%v: without WithUserLocation: %v %v, want the server's zone Etc/UTC and a UTC date", server, other, day)
	}
	// Many blocks: the read-ahead decodes and boxes the next ones in the same zone.
	rows, err := db.QueryContext(ctx, "SELECT toDateTime(number) FROM numbers(300000)")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var ts time.Time
		if err := rows.Scan(&ts); err != nil {
			t.Fatal(err)
		}
		if ts.Location() != tokyo || ts.Unix() != int64(n) {
			t.Fatalf("row %d: %v", n, ts)
		}
		n++
	}
	if err := rows.Err(); err != nil || n != 300000 {
		t.Fatalf("%d rows, %v", n, err)
	}
	if server == testenv.Modern {
		var t64 time.Time
		if err := db.QueryRowContext(ctx, "SELECT toDateTime64(1.5, 3)").Scan(&t64); err != nil {
			t.Fatal(err)
		}
		if t64.Location() != tokyo || t64.UnixMilli() != 1500 {
			t.Fatalf("DateTime64: %v", t64)
		}
	}
}

// DecimalSize of an Array is its element's; of DateTime64 (26.7) its precision, scale 0 (as
// clickhouse-go). Decimals scan into strings without trailing zeros, as clickhouse-go's, and
// into their scan type.
func TestDecimalScanServer(t *testing.T) {
	server := testenv.Server(t)
	db := openDB(t)
	q := "SELECT CAST([1.5] AS Array(Decimal(15, 3))), CAST([[1]] AS Array(Array(Nullable(Decimal(9, 2))))), toDecimal64(1.5, 4), toDecimal32(0, 2)"
	if server == testenv.Modern {
		q += ", toDateTime64(0, 6)"
	}
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		t.Fatal(err)
	}
	want := [][3]int64{{15, 3, 1}, {9, 2, 1}, {18, 4, 1}, {9, 2, 1}, {6, 0, 1}}
	for i, ct := range cts {
		p, s, ok := ct.DecimalSize()
		if p != want[i][0] || s != want[i][1] || !ok {
			t.Errorf("%v: %s: DecimalSize %d, %d, %v; want %v", server, ct.DatabaseTypeName(), p, s, ok, want[i])
		}
	}
	if !rows.Next() {
		t.Fatal(rows.Err())
	}
	dec := reflect.New(cts[2].ScanType())
	var s string
	var arr, arr2 any
	dest := []any{&arr, &arr2, dec.Interface(), &s}
	if server == testenv.Modern {
		dest = append(dest, new(time.Time))
	}
	if err := rows.Scan(dest...); err != nil {
		t.Fatal(err)
	}
	if got := dec.Elem().Interface(); got != "1.5" || s != "0" {
		t.Fatalf("%v: Decimal into its scan type %v: %#v; into *string %q; want 1.5 and 0", server, cts[2].ScanType(), got, s)
	}
	// chnative's own Decimal: exact on Go 1.27 (ScanColumn), from the text before.
	var d columns.Decimal
	if err := queryRow(t, db, "SELECT toDecimal64(1.5, 4)", &d); err != nil {
		t.Fatal(err)
	}
	wantScale := 1
	if columnScanner() {
		wantScale = 4
	}
	if d.String() != "1.5000"[:2+wantScale] || d.Scale != wantScale {
		t.Fatalf("*columns.Decimal: %v (scale %d), want scale %d", d, d.Scale, wantScale)
	}
}

// An empty array is an empty slice, not nil, as from clickhouse-go: encoding/json writes [].
func TestEmptyArrayServer(t *testing.T) {
	db := openDB(t)
	var v any
	if err := queryRow(t, db, "SELECT CAST([] AS Array(UInt32))", &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if s, ok := v.([]uint32); !ok || s == nil || err != nil || string(b) != "[]" {
		t.Fatalf("%#v: %s %v", v, b, err)
	}
}
