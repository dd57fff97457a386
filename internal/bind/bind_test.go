package bind

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/nativeproto"
)

const oldRev = nativeproto.RevParameters - 1

func pos(vals ...any) []driver.NamedValue {
	out := make([]driver.NamedValue, len(vals))
	for i, v := range vals {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	return out
}

func TestBindQuery(t *testing.T) {
	tests := []struct {
		q    string
		args []driver.NamedValue
		want string
	}{
		{"SELECT ?", pos(1), "SELECT 1"},
		{"SELECT ?, ?", pos("a", 2), "SELECT 'a', 2"},
		{"SELECT 'it''s ?', ?", pos(1), "SELECT 'it''s ?', 1"},
		{`SELECT 'a\'?', ?`, pos(1), `SELECT 'a\'?', 1`},
		{"SELECT \"?\", `?`, ? -- ?\n# ?\n/* ? */", pos(1), "SELECT \"?\", `?`, 1 -- ?\n# ?\n/* ? */"},
		{"SELECT ? /* ? ", pos(1), "SELECT 1 /* ? "},
		{"SELECT $2, $1, $2", pos("a", "b"), "SELECT 'b', 'a', 'b'"},
		{"SELECT @a, @b, @a", []driver.NamedValue{{Name: "a", Value: 1}, {Name: "b", Value: "x"}}, "SELECT 1, 'x', 1"},
		{"SELECT ?, 'mail@host', a@b", []driver.NamedValue{{Ordinal: 1, Value: 1}}, "SELECT 1, 'mail@host', a@b"},
		{"SELECT @x, @nomatch", []driver.NamedValue{{Name: "x", Value: 1}}, "SELECT 1, @nomatch"},
		{"SELECT -?", pos(-5), "SELECT - -5"},
		{"SELECT 1-?", pos(-5.5), "SELECT 1- -5.5"},
		{"SELECT -?", pos(5), "SELECT -5"},
		{"SELECT -$1", pos(math.Inf(-1)), "SELECT - -inf"},
		{"SELECT {n:UInt8}", []driver.NamedValue{{Name: "n", Value: 5}}, "SELECT CAST(5 AS UInt8)"},
		{"SELECT {s:Nullable(String)}", []driver.NamedValue{{Name: "s", Value: nil}}, "SELECT CAST(NULL AS Nullable(String))"},
		{"SELECT * FROM {t:Identifier}", []driver.NamedValue{{Name: "t", Value: "my`table"}}, "SELECT * FROM `my\\`table`"},
		{"SELECT {n:UInt8}", nil, "SELECT {n:UInt8}"},
		{"SELECT ?", nil, "SELECT ?"},
		{"SELECT $$?$$, ?", pos("$$"), `SELECT $$?$$, '\x24\x24'`},
	}
	for _, tt := range tests {
		got, _, err := bindQuery(tt.q, tt.args, oldRev)
		if err != nil || got != tt.want {
			t.Errorf("bindQuery(%q, %v) = %q, %v; want %q", tt.q, tt.args, got, err, tt.want)
		}
	}
}

func TestBindQueryParameters(t *testing.T) {
	ts := time.Date(2024, 5, 6, 7, 8, 9, 0, time.FixedZone("X", 3600))
	args := []driver.NamedValue{
		{Name: "id", Value: uint64(42)},
		{Name: "s", Value: "a'b\\c\td\ne"},
		{Name: "t", Value: ts},
		{Name: "d", Value: ts},
		{Name: "n", Value: nil},
		{Name: "arr", Value: []string{"x", "y'"}},
		{Name: "m", Value: map[string]int{"b": 2, "a": 1}},
		{Name: "f", Value: 3.0},
	}
	q := "SELECT {id:UInt64}, {s:String}, {t:DateTime}, {d:Date}, {n:Nullable(UInt8)}, {arr:Array(String)}, {m:Map(String, UInt8)}, {f:Float64}"
	body, opts, err := bindQuery(q, args, nativeproto.RevParameters)
	if err != nil {
		t.Fatal(err)
	}
	if body != q {
		t.Errorf("body = %q, want the query unchanged", body)
	}
	want := map[string]string{
		"id":  "'42'",
		"s":   `'a\'b\\\\c\\td\\ne'`,
		"t":   "'" + "1714975689" + "'",
		"d":   "'2024-05-06'",
		"n":   `'\\N'`,
		"arr": `'[\'x\',\'y\\\'\']'`,
		"m":   `'{\'a\':1,\'b\':2}'`,
		"f":   "'3'",
	}
	if opts == nil {
		t.Fatal("no options")
	}
	for k, v := range want {
		if opts[k] != v {
			t.Errorf("parameter %s = %s, want %s", k, opts[k], v)
		}
	}
	if len(opts) != len(want) {
		t.Errorf("parameters = %v", opts)
	}
	// Below RevParameters they are substituted.
	body, opts, err = bindQuery("SELECT {id:UInt64}", args[:1], oldRev)
	if err != nil || opts != nil || body != "SELECT CAST(42 AS UInt64)" {
		t.Errorf("old revision: %q, %+v, %v", body, opts, err)
	}
}

func TestBindQueryErrors(t *testing.T) {
	tests := []struct {
		q    string
		args []driver.NamedValue
		want string
	}{
		{"SELECT ?, $1", pos(1), "mixes"},
		{"SELECT ?, ?", pos(1), "more ? placeholders"},
		{"SELECT ?", pos(1, 2), "2 given"},
		{"SELECT $2", pos(1), "$2 has no argument"},
		{"SELECT $0", pos(1), "$0 has no argument"},
		{"SELECT 1", pos(1), "0 positional arguments, 1 given"},
		{"SELECT @a", []driver.NamedValue{{Name: "a", Value: 1}, {Name: "b", Value: 2}}, `named argument "b"`},
		{"SELECT ?", pos(struct{ A int }{1}), "struct { A int }"},
		{"SELECT ?", pos(make(chan int)), "chan int"},
		{"SELECT ?", pos([]any{struct{}{}}), "struct {}"},
		{"SELECT ?", pos(errValuer{}), "valuer failed"},
		{"SELECT {t:Identifier}", []driver.NamedValue{{Name: "t", Value: 1}}, "Identifier"},
		{"SELECT ?", pos(selfValuer{}), "nested"},
	}
	for _, tt := range tests {
		_, _, err := bindQuery(tt.q, tt.args, oldRev)
		var be *BindError
		if !errors.As(err, &be) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("bindQuery(%q) error = %v, want a *BindError with %q", tt.q, err, tt.want)
		}
	}
	_, _, err := bindQuery("SELECT {t:Identifier}", []driver.NamedValue{{Name: "t", Value: 1}}, nativeproto.RevParameters)
	var be *BindError
	if !errors.As(err, &be) {
		t.Errorf("parameter error %v is not a *BindError", err)
	}
	_, _, err = bindQuery("SELECT ?, ?", pos(1, struct{}{}), oldRev)
	if err == nil || !strings.Contains(err.Error(), "? #2") {
		t.Errorf("error %v does not name the argument", err)
	}
}

type errValuer struct{}

func (errValuer) Value() (driver.Value, error) { return nil, errors.New("valuer failed") }

type selfValuer struct{}

func (selfValuer) Value() (driver.Value, error) { return selfValuer{}, nil }

type upperValuer string

func (u upperValuer) Value() (driver.Value, error) { return strings.ToUpper(string(u)), nil }

type ptrValuer struct{ s string }

func (p *ptrValuer) Value() (driver.Value, error) { return p.s, nil }

type myFloat32 float32
type myString string
type myBool bool

func TestFormatLiteral(t *testing.T) {
	s := "x"
	var nilStr *string
	var nilTime *time.Time
	var nilPV *ptrValuer
	tm := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	ny := time.FixedZone("NY", -5*3600)
	huge, _ := new(big.Int).SetString("123456789012345678901234567890", 10)
	tests := []struct {
		v    any
		want string
	}{
		{nil, "NULL"},
		{true, "1"},
		{false, "0"},
		{myBool(true), "1"},
		{int(-1), "-1"},
		{int8(math.MinInt8), "-128"},
		{int16(math.MinInt16), "-32768"},
		{int32(math.MinInt32), "-2147483648"},
		{int64(math.MinInt64), "-9223372036854775808"},
		{int64(math.MaxInt64), "9223372036854775807"},
		{uint(7), "7"},
		{uint8(255), "255"},
		{uint16(65535), "65535"},
		{uint32(math.MaxUint32), "4294967295"},
		{uint64(math.MaxUint64), "18446744073709551615"},
		{1.5, "1.5"},
		{3.0, "3.0"},
		{-2.0, "-2.0"},
		{math.Copysign(0, -1), "-0.0"},
		{0.0, "0.0"},
		{1e21, "1e+21"},
		{1e-7, "1e-07"},
		{math.MaxFloat64, "1.7976931348623157e+308"},
		{math.SmallestNonzeroFloat64, "(6.26302612502804e-294 * 7.888609052210118e-31)"},
		{math.NaN(), "nan"},
		{math.Inf(1), "inf"},
		{math.Inf(-1), "-inf"},
		{float32(0.1), "0.1"},
		{myFloat32(0.1), "0.1"},
		{float32(2), "2.0"},
		{tm, "toDateTime('2024-01-02 03:04:05', 'UTC')"},
		{tm.In(ny), "toDateTime('2024-01-02 03:04:05', 'UTC')"},
		{tm.Add(123 * time.Nanosecond), "toDateTime64('2024-01-02 03:04:05.000000123', 9, 'UTC')"},
		{tm.In(ny).Add(time.Millisecond), "toDateTime64('2024-01-02 03:04:05.001000000', 9, 'UTC')"},
		{time.Date(1969, 12, 31, 23, 59, 59, 0, time.UTC), "toDateTime64('1969-12-31 23:59:59.000000000', 9, 'UTC')"},
		{&tm, "toDateTime('2024-01-02 03:04:05', 'UTC')"},
		{nilTime, "NULL"},
		{[]byte("a'b"), `'a\'b'`},
		{"", "''"},
		{"it's", `'it\'s'`},
		{`back\slash`, `'back\\slash'`},
		{"nul\x00nl\ncr\rtab\tbel\x07del\x7f", `'nul\0nl\ncr\rtab\tbel\x07del\x7f'`},
		{"bad\xff\xfeutf8 ünï", "'bad\xff\xfeutf8 ünï'"},
		{"-- /* # */ $$", `'-- /* # */ \x24\x24'`},
		{myString("m"), "'m'"},
		{[]int{1, -2}, "[1, -2]"},
		{[]string{"a", "b'"}, `['a', 'b\'']`},
		{[][]int{{1}, {}, nil}, "[[1], [], []]"},
		{[]any{nil, 1, "x"}, "[NULL, 1, 'x']"},
		{[2]float64{1, 2.5}, "[1.0, 2.5]"},
		{map[string]int{"b": 2, "a": 1}, "map('a', 1, 'b', 2)"},
		{map[int][]string{1: {"x"}}, "map(1, ['x'])"},
		{sql.NullString{String: "v", Valid: true}, "'v'"},
		{sql.NullString{}, "NULL"},
		{sql.NullInt64{Int64: -3, Valid: true}, "-3"},
		{upperValuer("abc"), "'ABC'"},
		{&ptrValuer{"p"}, "'p'"},
		{nilPV, "NULL"},
		{&s, "'x'"},
		{nilStr, "NULL"},
		{columns.Decimal{Unscaled: big.NewInt(-150), Scale: 2}, "toDecimal128('-1.50', 2)"},
		{columns.Decimal{Unscaled: big.NewInt(5), Scale: -2}, "toDecimal128('500', 0)"},
		{columns.Decimal{Unscaled: new(big.Int).Exp(big.NewInt(10), big.NewInt(40), nil), Scale: 3}, "toDecimal256('10000000000000000000000000000000000000.000', 3)"},
		// big integers: the narrowest of Int128, UInt128, Int256, UInt256 (clickhouse-go's choice).
		{big.NewInt(-7), "toInt128('-7')"},
		{big.NewInt(5), "toInt128('5')"},
		{new(big.Int).SetUint64(math.MaxUint64), "toInt128('18446744073709551615')"},
		{huge, "toInt128('123456789012345678901234567890')"},
		{new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 127), big.NewInt(1)), "toInt128('170141183460469231731687303715884105727')"},
		{new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(-1), 127), big.NewInt(1)), "toInt256('-170141183460469231731687303715884105729')"},
		{new(big.Int).Lsh(big.NewInt(-1), 255), "toInt256('-57896044618658097711785492504343953926634992332820282019728792003956564819968')"},
		{new(big.Int).Lsh(big.NewInt(1), 255), "toUInt256('57896044618658097711785492504343953926634992332820282019728792003956564819968')"},
		{new(big.Int).Neg(huge), "toInt128('-123456789012345678901234567890')"},
		{new(big.Int).Lsh(big.NewInt(-1), 127), "toInt128('-170141183460469231731687303715884105728')"},
		{new(big.Int).Lsh(big.NewInt(1), 127), "toUInt128('170141183460469231731687303715884105728')"},
		{new(big.Int).Lsh(big.NewInt(1), 200), "toInt256('1606938044258990275541962092341162602522202993782792835301376')"},
		{(*big.Int)(nil), "NULL"},
	}
	for _, tt := range tests {
		got, err := formatLiteral(tt.v, 0)
		if err != nil || got != tt.want {
			t.Errorf("formatLiteral(%#v) = %q, %v; want %q", tt.v, got, err, tt.want)
		}
	}
	if _, err := formatLiteral(new(big.Int).Lsh(big.NewInt(1), 256), 0); err == nil {
		t.Error("2^256 accepted")
	}
	if _, err := formatLiteral(new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(-1), 255), big.NewInt(1)), 0); err == nil {
		t.Error("-2^255-1 accepted")
	}
}

// TestBindBigIntOldServer: a server without wide integers (18.16) gets a big integer that fits
// 64 bits as the bare literal it can read; a newer one gets Int128.
func TestBindBigIntOldServer(t *testing.T) {
	args := []Arg{{Ordinal: 1, Value: big.NewInt(-7)}, {Ordinal: 2, Value: *new(big.Int).SetUint64(math.MaxUint64)},
		{Ordinal: 3, Value: []*big.Int{big.NewInt(1), nil}}, {Ordinal: 4, Value: []big.Int{*big.NewInt(2)}}}
	for _, tt := range []struct {
		rev  nativeproto.Revision
		want string
	}{
		{54412, "SELECT -7, 18446744073709551615, [1, NULL], [2]"},
		{nativeproto.LatestRevision, "SELECT toInt128('-7'), toInt128('18446744073709551615'), [toInt128('1'), NULL], [toInt128('2')]"},
	} {
		got, _, err := Query("SELECT ?, ?, ?, ?", args, tt.rev)
		if err != nil || got != tt.want {
			t.Errorf("revision %d: %q, %v; want %q", tt.rev, got, err, tt.want)
		}
	}
}

// Float literals must read back as the same float64 (the server parses with strtod).
func TestFormatFloatRoundTrip(t *testing.T) {
	for _, f := range []float64{0.1, 1.0 / 3, math.Pi, -1e-300, 123456789012345678, math.SmallestNonzeroFloat64 * 3, -0x1p-1050} {
		lit := formatFloat(f, 64)
		var got float64
		if strings.HasPrefix(lit, "(") {
			parts := strings.Split(strings.Trim(lit, "()"), " * ")
			a, b := mustParse(t, parts[0]), mustParse(t, parts[1])
			got = a * b
		} else {
			got = mustParse(t, lit)
		}
		if got != f {
			t.Errorf("%v: literal %s reads back as %v", f, lit, got)
		}
	}
}

func mustParse(t *testing.T, s string) float64 {
	t.Helper()
	var f float64
	if _, err := fmtSscan(s, &f); err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	return f
}

func fmtSscan(s string, f *float64) (int, error) {
	v, err := strconv.ParseFloat(s, 64)
	*f = v
	return 1, err
}
