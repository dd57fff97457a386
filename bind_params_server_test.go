package chnative

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/testenv"
	"github.com/chnative/chnative/nativeproto"
)

func openParamsServer(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("chnative", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// paramCase is a query parameter of type typ holding v, and lit, the same value as an SQL
// literal written by hand (never by the driver).
type paramCase struct {
	typ string
	v   any
	lit string
	old bool // 18.16 has the type: the case also runs there (sql.Named becomes a CAST literal)
}

func hexLit(s string) string { return "unhex('" + hex.EncodeToString([]byte(s)) + "')" }

func ptr[T any](v T) *T { return &v }

// nastyStrings hold every character the two escapings (Field dump, TabSeparated text, quoted
// elements) treat specially.
var nastyStrings = []string{
	"", "a\nb", "a\tb", "tab\there\nnewline\\back'quote\"dq", `\`, `\\`, `\n`, `\t`, `\'`, "'", "''",
	`\N`, "NULL", "null", "\x00", "a\x00b", "\r\n", "\b\f\v\x01\x1b\x7f", "\xff\xfe", "ünïcødé 日本語 🎉",
	"{x:String}", "$$", "?", "@x", "[1,2]", "{'a':1}", "(1,'x')", "'; SELECT 1; --", "a,b", "a]b", "a}b",
	strings.Repeat("x'\\\t\n", 2000),
}

func paramCases() []paramCase {
	var out []paramCase
	add := func(typ string, v any, lit string) { out = append(out, paramCase{typ: typ, v: v, lit: lit}) }
	old := func(typ string, v any, lit string) { out = append(out, paramCase{typ: typ, v: v, lit: lit, old: true}) }

	for _, s := range nastyStrings {
		old("String", s, hexLit(s))
		old("Nullable(String)", s, hexLit(s))
		add("LowCardinality(String)", s, hexLit(s))
		old("Array(String)", []string{s, "x", s}, "["+hexLit(s)+", 'x', "+hexLit(s)+"]")
		add("Map(String, String)", map[string]string{s: s + "v"}, "map("+hexLit(s)+", "+hexLit(s+"v")+")")
		old("Tuple(String, Int32)", []any{s, 1}, "("+hexLit(s)+", 1)")
		old("String", []byte(s), hexLit(s))
	}
	old("FixedString(5)", "ab\n\t", "toFixedString("+hexLit("ab\n\t")+", 5)")
	old("Nullable(String)", nil, "NULL")
	old("Nullable(String)", (*string)(nil), "NULL")
	old("Nullable(String)", sql.NullString{}, "NULL")
	old("Nullable(String)", sql.NullString{String: "x\ty", Valid: true}, hexLit("x\ty"))
	add("LowCardinality(Nullable(String))", nil, "NULL")
	old("Array(Nullable(String))", []*string{nil, ptr("a\tb"), ptr(`\N`)}, "[NULL, "+hexLit("a\tb")+", "+hexLit(`\N`)+"]")

	// Bool: true/false everywhere, 1/0 for integer types.
	add("Bool", true, "true")
	add("Bool", false, "false")
	add("Bool", 1, "true")
	add("Nullable(Bool)", nil, "NULL")
	add("Array(Bool)", []bool{true, false, true}, "[true, false, true]")
	add("Array(Nullable(Bool))", []*bool{nil, ptr(true), ptr(false)}, "[NULL, true, false]")
	add("Array(Array(Bool))", [][]bool{{}, {false}}, "[[], [false]]")
	add("Map(String, Bool)", map[string]bool{"a": true, "b": false}, "map('a', true, 'b', false)")
	add("Map(String, Array(Nullable(Bool)))", map[string][]*bool{"k": {nil, ptr(true)}}, "map('k', [NULL, true])")
	add("Map(String, Map(String, Bool))", map[string]map[string]bool{"x": {"y": true}}, "map('x', map('y', true))")
	add("Tuple(Bool, UInt8)", []any{true, true}, "(true, 1)")
	old("UInt8", true, "1")
	old("Array(UInt8)", []bool{true, false}, "[1, 0]")

	// Numbers.
	old("Int8", int8(-128), "-128")
	old("Int64", int64(math.MinInt64), "-9223372036854775808")
	old("UInt64", uint64(math.MaxUint64), "18446744073709551615")
	old("Nullable(Int32)", nil, "NULL")
	old("Nullable(Int32)", ptr(int32(-5)), "-5")
	old("Int32", "42", "42")
	max128, _ := new(big.Int).SetString("-170141183460469231731687303715884105728", 10)
	add("Int128", max128, "'-170141183460469231731687303715884105728'")
	u256, _ := new(big.Int).SetString("115792089237316195423570985008687907853269984665640564039457584007913129639935", 10)
	add("UInt256", u256, "'115792089237316195423570985008687907853269984665640564039457584007913129639935'")
	quarter := new(big.Int).Rsh(u256, 2)
	add("Array(Int256)", []*big.Int{big.NewInt(-1), quarter}, "[-1, '"+quarter.String()+"']")
	old("Float64", 0.1, "0.1")
	old("Float64", math.Copysign(0, -1), "-0.")
	old("Float64", math.Inf(-1), "-inf")
	old("Float64", math.NaN(), "nan")
	old("Float64", 5e-324, "(5e-300 * 1e-24)") // 18.16 parses neither 5e-324 nor '5e-324'
	old("Float64", 1e300, "1e300")
	old("Float32", float32(0.1), "0.1")
	old("Array(Float64)", []float64{math.NaN(), math.Inf(1), math.Copysign(0, -1), 1.5}, "[nan, inf, -0., 1.5]")
	add("BFloat16", float32(1.5), "1.5")
	add("SimpleAggregateFunction(sum, UInt64)", uint64(5), "5")

	// Decimals.
	d := func(unscaled int64, scale int) columns.Decimal {
		return columns.Decimal{Unscaled: big.NewInt(unscaled), Scale: scale}
	}
	old("Decimal(9, 2)", d(-150, 2), "'-1.50'")
	old("Decimal(9, 2)", "12.34", "'12.34'")
	old("Decimal(9, 2)", 1.25, "'1.25'")
	big38, _ := new(big.Int).SetString("-99999999999999999999999999999999999999", 10)
	old("Decimal(38, 10)", columns.Decimal{Unscaled: big38, Scale: 10}, "'-9999999999999999999999999999.9999999999'")
	add("Decimal256(10)", d(-15, 1), "'-1.5'")
	old("Array(Decimal(18, 6))", []columns.Decimal{d(1, 6), d(-999999999999999999, 6)}, "['0.000001', '-999999999999.999999']")
	old("Nullable(Decimal(9, 2))", nil, "NULL")
	add("Map(String, Decimal(9, 2))", map[string]columns.Decimal{"a": d(5, 1)}, "map('a', '0.50')")

	// UUID, IPv4, IPv6.
	const u = "61f0c404-5cb3-11e7-907b-a6006ad3dba0"
	ub, _ := hex.DecodeString(strings.ReplaceAll(u, "-", ""))
	old("UUID", u, "'"+u+"'")
	old("UUID", [16]byte(ub), "'"+u+"'")
	old("Array(UUID)", []any{u, [16]byte(ub)}, "['"+u+"', '"+u+"']")
	old("Nullable(UUID)", nil, "NULL")
	add("IPv4", netip.MustParseAddr("1.2.3.4"), "'1.2.3.4'")
	add("IPv4", "255.255.255.255", "'255.255.255.255'")
	add("IPv4", uint32(0x7f000001), "'127.0.0.1'")
	add("Array(IPv4)", []netip.Addr{netip.MustParseAddr("0.0.0.0"), netip.MustParseAddr("10.0.0.1")}, "['0.0.0.0', '10.0.0.1']")
	add("IPv6", netip.MustParseAddr("2001:db8::ff00:42:8329"), "'2001:db8::ff00:42:8329'")
	add("IPv6", netip.MustParseAddr("1.2.3.4"), "'::ffff:1.2.3.4'")
	add("IPv6", net.ParseIP("fe80::1"), "'fe80::1'")
	add("IPv6", [16]byte(netip.MustParseAddr("::1").As16()), "'::1'")
	add("Array(IPv6)", []netip.Addr{netip.MustParseAddr("::"), netip.MustParseAddr("::ffff:1.2.3.4")}, "['::', '::ffff:1.2.3.4']")
	add("Map(String, IPv6)", map[string]netip.Addr{"h": netip.MustParseAddr("::1")}, "map('h', '::1')")
	add("Nullable(IPv6)", nil, "NULL")

	// Dates and times. A DateTime64 with precision keeps its fraction; times before 1970 and
	// around the epoch (whose short Unix digits the text parser would misread) included.
	kolkata := time.FixedZone("IST", 5*3600+1800)
	t0 := time.Unix(0, 0)
	old("Date", time.Date(2024, 2, 29, 23, 0, 0, 0, time.UTC), "toDate('2024-02-29')")
	old("Date", time.Date(2024, 3, 1, 1, 0, 0, 0, kolkata), "toDate('2024-03-01')") // its calendar day
	old("Array(Date)", []time.Time{time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2149, 6, 6, 0, 0, 0, 0, time.UTC)}, "[toDate('1970-01-01'), toDate('2149-06-06')]")
	old("Nullable(Date)", nil, "NULL")
	add("Date32", time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC), "toDate32('1900-01-01')")
	old("DateTime('UTC')", t0, "toDateTime(0, 'UTC')")
	old("DateTime('UTC')", time.Unix(1, 0), "toDateTime(1, 'UTC')")
	old("DateTime('UTC')", time.Unix(9999, 0), "toDateTime(9999, 'UTC')")
	old("DateTime('UTC')", time.Unix(math.MaxUint32, 0), "toDateTime(4294967295, 'UTC')")
	ist := time.Date(2024, 3, 31, 2, 30, 0, 0, kolkata)
	old("DateTime", ist, fmt.Sprintf("toDateTime(%d)", ist.Unix())) // the instant, whatever the server's zone
	old("DateTime('Asia/Kolkata')", time.Unix(1234567890, 0), "toDateTime(1234567890, 'Asia/Kolkata')")
	old("DateTime('UTC')", 0, "toDateTime(0, 'UTC')")
	old("Array(DateTime('UTC'))", []time.Time{t0, time.Unix(100, 0)}, "[toDateTime(0, 'UTC'), toDateTime(100, 'UTC')]")
	old("Nullable(DateTime)", nil, "NULL")
	add("DateTime64(3)", time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.UTC), "toDateTime64('2024-05-06 07:08:09.123', 3)")
	add("DateTime64(9, 'UTC')", time.Date(2262, 4, 11, 23, 47, 16, 854775807, time.UTC), "toDateTime64('2262-04-11 23:47:16.854775807', 9, 'UTC')")
	add("DateTime64(9, 'UTC')", time.Unix(0, 1), "toDateTime64('1970-01-01 00:00:00.000000001', 9, 'UTC')")
	add("DateTime64(6, 'UTC')", time.Unix(-2, 500000000), "toDateTime64('1969-12-31 23:59:58.5', 6, 'UTC')")
	add("DateTime64(6, 'UTC')", time.Unix(-1, 500000000), "toDateTime64('1969-12-31 23:59:59.5', 6, 'UTC')")
	add("DateTime64(3, 'Asia/Kolkata')", time.Unix(-1, 999000000), "toDateTime64('1970-01-01 05:29:59.999', 3, 'Asia/Kolkata')")
	add("DateTime64(3, 'UTC')", time.Unix(-1000, 0), "toDateTime64('1969-12-31 23:43:20', 3, 'UTC')")
	add("DateTime64(0, 'UTC')", time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC), "toDateTime64('1900-01-01 00:00:00', 0, 'UTC')")
	add("DateTime64(3, 'UTC')", time.Unix(1000, 500000000), "toDateTime64('1970-01-01 00:16:40.5', 3, 'UTC')")
	add("Array(DateTime64(3, 'UTC'))", []time.Time{t0, time.Unix(-2, 500000000), time.Unix(1, 1000000)},
		"[toDateTime64(0, 3, 'UTC'), toDateTime64('1969-12-31 23:59:58.5', 3, 'UTC'), toDateTime64('1970-01-01 00:00:01.001', 3, 'UTC')]")
	add("Map(String, DateTime64(3, 'Asia/Kolkata'))", map[string]time.Time{"t": time.Unix(1234567890, 5e8)},
		"map('t', toDateTime64('2009-02-14 05:01:30.5', 3, 'Asia/Kolkata'))")
	add("Nullable(DateTime64(3))", nil, "NULL")
	add("Time", -(time.Hour + time.Second), "CAST('-01:00:01' AS Time)")
	add("Time64(3)", 999*time.Hour+59*time.Minute+59*time.Second+999*time.Millisecond, "CAST('999:59:59.999' AS Time64(3))")
	add("Array(Time64(6))", []time.Duration{0, -time.Microsecond}, "[CAST('00:00:00' AS Time64(6)), CAST('-00:00:00.000001' AS Time64(6))]")

	// Enums, intervals.
	old("Enum8('a' = 1, 'b' = 2, 'it''s\\t' = 3)", "b", "'b'")
	old("Enum8('a' = 1, 'b' = 2, 'it''s\\t' = 3)", 2, "'b'")
	old("Enum8('a' = 1, 'b' = 2, 'it''s\\t' = 3)", "it's\t", "'it''s\\t'")
	old("Array(Enum16('x' = -32768, 'y' = 32767))", []any{"x", 32767}, "['x', 'y']")
	add("IntervalSecond", 5, "toIntervalSecond(5)")
	add("IntervalDay", 48*time.Hour, "toIntervalDay(2)")
	add("IntervalMonth", int64(-3), "toIntervalMonth(-3)")

	// Tuples, maps, nesting, geo.
	add("Tuple(a Int32, b String)", map[string]any{"a": 1, "b": "x'"}, "(1, 'x\\'')")
	add("Tuple(a Int32, b String)", struct {
		A int32
		B string
	}{-1, "y\n"}, "(-1, 'y\\n')")
	add("Tuple(Int32, Array(String), Map(String, Nullable(Int8)))", []any{1, []string{"a"}, map[string]*int8{"k": nil}},
		"(1, ['a'], map('k', NULL))")
	add("Map(Int32, Nullable(String))", map[int32]*string{-1: nil, 20: ptr("x")}, "map(-1, NULL, 20, 'x')")
	add("Map(String, UInt64)", map[string]uint64{"": 0, "z": math.MaxUint64}, "map('', 0, 'z', 18446744073709551615)")
	add("Array(Map(String, Array(Int64)))", []map[string][]int64{{}, {"a": {1, -1}}}, "[map(), map('a', [1, -1])]")
	old("Array(Array(Nullable(Int64)))", [][]*int64{{nil}, {}}, "[[NULL], []]")
	add("Point", [2]float64{1.5, -2}, "(1.5, -2)")
	add("Point", columns.Point{X: 0, Y: math.Inf(1)}, "(0, inf)")
	add("Ring", [][2]float64{{0, 0}, {1, 1}}, "[(0, 0), (1, 1)]")
	add("Polygon", [][][2]float64{{{0, 0}, {1, 0}}}, "[[(0, 0), (1, 0)]]")
	add("Nested(a Int32, b String)", [][]any{{1, "x"}}, "[(1, 'x')]")
	add("QBit(Float32, 2)", []float32{1, -2.5}, "[1, -2.5]")

	// Types whose text follows the value (Variant, Dynamic, JSON).
	add("Variant(String, UInt64)", "x y'z", "'x y\\'z'::Variant(String, UInt64)")
	add("Variant(String, UInt64)", uint64(7), "7::UInt64::Variant(String, UInt64)")
	add("Dynamic", "s", "'s'::Dynamic")
	add("Dynamic", int64(-5), "-5::Int64::Dynamic")
	add("JSON", `{"a":1,"b":"x\ty"}`, `'{"a":1,"b":"x\\ty"}'::JSON`)
	add("JSON", map[string]any{"a": 1, "b": map[string]any{"c": "x\ty"}}, `'{"a":1,"b":{"c":"x\\ty"}}'::JSON`)
	return out
}

// TestParamsServer sends each case as a server-side query parameter, by sql.Named with
// {p:Type}, by WithParameters, and by WithParameters through QueryBlocks, and checks that the
// server's toString and toTypeName of it equal those of the literal, on 26.7 at the driver's
// default revision and at nativeproto.LatestRevision. On 18.16 (no query parameters: sql.Named
// becomes CAST(literal AS Type)) the cases of types it has run too.
func TestParamsServer(t *testing.T) {
	t.Run("26.7", func(t *testing.T) {
		runParamCases(t, openParamsServer(t, testenv.ModernDSN(t)), false)
	})
	t.Run("26.7@LatestRevision", func(t *testing.T) {
		dsn := testenv.ModernDSN(t)
		sep := "?"
		if strings.Contains(dsn, "?") {
			sep = "&"
		}
		runParamCases(t, openParamsServer(t, fmt.Sprintf("%s%sprotocol_revision=%d", dsn, sep, nativeproto.LatestRevision)), false)
	})
	t.Run("18.16", func(t *testing.T) {
		runParamCases(t, openParamsServer(t, testenv.DSN(t)), true)
	})
}

func runParamCases(t *testing.T, db *sql.DB, oldServer bool) {
	settings := ""
	if !oldServer {
		settings = " SETTINGS allow_experimental_variant_type = 1, allow_experimental_dynamic_type = 1," +
			" allow_experimental_json_type = 1, allow_experimental_qbit_type = 1, enable_time_time64_type = 1," +
			" allow_suspicious_low_cardinality_types = 1, allow_suspicious_variant_types = 1"
	}
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var rev uint64
	if err := conn.Raw(func(dc any) error { rev = dc.(Conn).ServerInfo().Negotiated; return nil }); err != nil {
		t.Fatal(err)
	}
	t.Logf("negotiated revision %d", rev)
	n := 0
	for i, k := range paramCases() {
		if oldServer && !k.old {
			continue
		}
		n++
		name := fmt.Sprintf("%d %s %.30q", i, k.typ, fmt.Sprint(k.v))
		var want [2]sql.NullString
		litQ := fmt.Sprintf("SELECT toString(CAST(%s AS %s)), toTypeName(CAST(%s AS %s))%s", k.lit, k.typ, k.lit, k.typ, settings)
		if err := conn.QueryRowContext(ctx, litQ).Scan(&want[0], &want[1]); err != nil {
			t.Errorf("%s: literal %s: %v", name, k.lit, err)
			continue
		}
		q := fmt.Sprintf("SELECT toString({p:%s}), toTypeName({p:%s})%s", k.typ, k.typ, settings)
		check := func(how string, got [2]sql.NullString, err error) {
			t.Helper()
			switch {
			case err != nil:
				t.Errorf("%s, %s: %v", name, how, err)
			case got != want:
				t.Errorf("%s, %s: server reads %+v, the literal %s is %+v", name, how, got, k.lit, want)
			}
		}
		var got [2]sql.NullString
		err := conn.QueryRowContext(ctx, q, sql.Named("p", k.v)).Scan(&got[0], &got[1])
		check("sql.Named", got, err)
		if oldServer {
			continue // no query parameters: WithParameters refuses (see TestOptionsParameters)
		}
		pctx := WithParameters(ctx, map[string]any{"p": k.v})
		got = [2]sql.NullString{}
		err = conn.QueryRowContext(pctx, q).Scan(&got[0], &got[1])
		check("WithParameters", got, err)
		got = [2]sql.NullString{}
		err = conn.Raw(func(dc any) error {
			bl, err := dc.(Conn).QueryBlocks(pctx, q)
			if err != nil {
				return err
			}
			defer bl.Close()
			rows := 0
			for bl.Next() {
				b := bl.Block()
				for c := range 2 {
					if v := b.Column(c).Value(0); v != nil {
						got[c] = sql.NullString{String: fmt.Sprint(v), Valid: true}
					}
				}
				rows += b.Rows()
			}
			if rows != 1 {
				return fmt.Errorf("%d rows", rows)
			}
			return bl.Err()
		})
		check("QueryBlocks with WithParameters", got, err)
	}
	t.Logf("%d cases", n)
}

// TestParamsServerStrings checks strings byte for byte: each one comes back unchanged from
// {p:String} and equals the hex literal of it on the server.
func TestParamsServerStrings(t *testing.T) {
	db := openParamsServer(t, testenv.ModernDSN(t))
	for _, s := range nastyStrings {
		for _, arg := range []any{s, []byte(s)} {
			var got string
			var eq bool
			err := db.QueryRow("SELECT {p:String}, {p:String} = "+hexLit(s), sql.Named("p", arg)).Scan(&got, &eq)
			if err != nil || got != s || !eq {
				t.Errorf("{p:String} with %T %.40q: got %.40q, equal to the literal %v, %v", arg, s, got, eq, err)
			}
			var gotArr []string
			err = db.QueryRowContext(WithParameters(context.Background(), map[string]any{"p": []any{arg, arg}}),
				"SELECT {p:Array(String)}").Scan(&gotArr)
			if err != nil || len(gotArr) != 2 || gotArr[0] != s || gotArr[1] != s {
				t.Errorf("{p:Array(String)} with %T %.40q: got %.40q, %v", arg, s, gotArr, err)
			}
		}
	}
}

// TestParamsServerIdentifier: an Identifier parameter names a column.
func TestParamsServerIdentifier(t *testing.T) {
	db := openParamsServer(t, testenv.ModernDSN(t))
	var got string
	err := db.QueryRow("SELECT {c:Identifier} FROM (SELECT 'x' AS `we\"ird col`)", sql.Named("c", "we\"ird col")).Scan(&got)
	if err != nil || got != "x" {
		t.Errorf("Identifier: %q, %v", got, err)
	}
}

// TestParamsServerVariantTab records how 26.7 reads Variant and Dynamic parameters holding a
// tab: the driver sends the TabSeparated-escaped text (x\ty, as for String), and the server ends
// the value at the tab it unescapes: Variant refuses it (code 117), Dynamic keeps what precedes
// the tab. A {p:String} parameter CAST to the type carries such a string whole.
func TestParamsServerVariantTab(t *testing.T) {
	dsn := testenv.ModernDSN(t)
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	db := openParamsServer(t, dsn+sep+"allow_experimental_variant_type=1&allow_experimental_dynamic_type=1")
	arg := sql.Named("p", "x\ty")
	var s string
	err := db.QueryRow("SELECT toString({p:Variant(String, UInt64)})", arg).Scan(&s)
	var se *Exception
	if !errors.As(err, &se) || se.Code != 117 {
		t.Errorf("Variant parameter with a tab: %q, %v; 26.7 refused it with code 117", s, err)
	}
	if err := db.QueryRow("SELECT toString({p:Dynamic})", arg).Scan(&s); err != nil || s != "x" {
		t.Errorf("Dynamic parameter with a tab: %q, %v; 26.7 kept \"x\"", s, err)
	}
	if err := db.QueryRow("SELECT toString(CAST({p:String} AS Variant(String, UInt64)))", arg).Scan(&s); err != nil || s != "x\ty" {
		t.Errorf("CAST of a String parameter: %q, %v", s, err)
	}
}

// TestParamsServerInsertNamed: sql.Named arguments of {name:Type} placeholders in an INSERT go
// to their placeholders by name, whatever their order: in VALUES (mapped to the columns, through
// the native insert) and in INSERT ... SELECT (sent as query parameters), by Exec, by a
// statement prepared outside a transaction, and (VALUES) by one prepared in a transaction.
func TestParamsServerInsertNamed(t *testing.T) {
	for _, srv := range []struct{ name, dsn string }{{"26.7", testenv.ModernDSN(t)}, {"18.16", testenv.DSN(t)}} {
		t.Run(srv.name, func(t *testing.T) {
			db := openParamsServer(t, srv.dsn)
			if _, err := db.Exec("DROP TABLE IF EXISTS chnative_params_insert"); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec("CREATE TABLE chnative_params_insert (a String, b String, n UInt8) ENGINE = Memory"); err != nil {
				t.Fatal(err)
			}
			defer db.Exec("DROP TABLE chnative_params_insert")
			// b and a are both strings: arguments taken in their own order would swap them.
			args := []any{sql.Named("n", 7), sql.Named("b", "B\tb"), sql.Named("a", "A'a")}
			queries := []string{
				"INSERT INTO chnative_params_insert (a, b, n) VALUES ({a:String}, {b:String}, {n:UInt8})",
				"INSERT INTO chnative_params_insert (n, b, a) VALUES ({n:UInt8}, {b:String}, {a:String})",
				"INSERT INTO chnative_params_insert SELECT {a:String}, {b:String}, {n:UInt8}",
			}
			want := 0
			for _, q := range queries {
				if _, err := db.Exec(q, args...); err != nil {
					t.Errorf("Exec %s: %v", q, err)
				}
				st, err := db.Prepare(q)
				if err == nil {
					_, err = st.Exec(args...)
					st.Close()
				}
				if err != nil {
					t.Errorf("prepared %s: %v", q, err)
				}
				want += 2
			}
			for _, q := range queries[:2] {
				tx, err := db.Begin()
				if err != nil {
					t.Fatal(err)
				}
				st, err := tx.Prepare(q)
				if err == nil {
					_, err = st.Exec(args...)
				}
				if err == nil {
					err = tx.Commit()
				} else {
					tx.Rollback()
				}
				if err != nil {
					t.Errorf("prepared in a transaction %s: %v", q, err)
				}
				want++
			}
			var n, bad int
			err := db.QueryRow("SELECT count(), countIf(NOT (a = 'A\\'a' AND b = 'B\\tb' AND n = 7)) FROM chnative_params_insert").Scan(&n, &bad)
			if err != nil || n != want || bad != 0 {
				t.Errorf("%d rows (want %d), %d of them wrong, %v", n, want, bad, err)
			}
		})
	}
}
