package chnative

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/testenv"
)

// Values as code written for clickhouse-go expects them (issue 39), on the server of
// CHNATIVE_DSN: big integer arguments, arrays of Nullable wide integers, arrays into slices of
// Scanners, JSON into json.RawMessage, and the texts of errors about values.

// TestBindBigIntTypeServer: a *big.Int argument is bound as the narrowest of Int128, UInt128,
// Int256 and UInt256 that holds it, whatever its size (clickhouse-go's choice); 18.16, which has
// no wide integers, gets one that fits 64 bits as a plain literal.
func TestBindBigIntTypeServer(t *testing.T) {
	server := testenv.Server(t)
	db := openDB(t)
	pow := func(sign int64, n uint) *big.Int { return new(big.Int).Lsh(big.NewInt(sign), n) }
	cases := []struct {
		v    *big.Int
		want string
	}{
		{big.NewInt(5), "Int128"},
		{big.NewInt(-5), "Int128"},
		{pow(-1, 127), "Int128"},
		{pow(1, 127), "UInt128"},
		{new(big.Int).Sub(pow(-1, 127), big.NewInt(1)), "Int256"},
		{pow(1, 200), "Int256"},
		{pow(1, 255), "UInt256"},
	}
	if server == testenv.Legacy {
		var typ string
		if err := queryRowArgs(db, "SELECT toTypeName(?)", []any{big.NewInt(5)}, &typ); err != nil || typ != "UInt8" {
			t.Fatalf("18.16: toTypeName(big 5) = %q, %v; want UInt8 (no wide integers there)", typ, err)
		}
		if err := queryRowArgs(db, "SELECT toTypeName(?)", []any{[]*big.Int{big.NewInt(5), big.NewInt(-1)}}, &typ); err != nil || typ != "Array(Int16)" {
			t.Fatalf("18.16: toTypeName([big 5, big -1]) = %q, %v; want Array(Int16)", typ, err)
		}
		return
	}
	for _, tc := range cases {
		var typ, text string
		if err := queryRowArgs(db, "SELECT toTypeName(?), toString(?)", []any{tc.v, tc.v}, &typ, &text); err != nil {
			t.Fatalf("%v: %v", tc.v, err)
		}
		if typ != tc.want || text != tc.v.String() {
			t.Errorf("%v: toTypeName %q, toString %q; want %s", tc.v, typ, text, tc.want)
		}
	}
	var n uint64
	if err := queryRowArgs(db, "SELECT count() FROM numbers(10) WHERE toInt128(number) IN (?, ?)",
		[]any{big.NewInt(3), *big.NewInt(7)}, &n); err != nil || n != 2 {
		t.Fatalf("IN (big 3, big 7): %d, %v", n, err)
	}
}

func queryRowArgs(db *sql.DB, q string, args []any, dest ...any) error {
	return db.QueryRow(q, args...).Scan(dest...)
}

// TestScanArrayNullableWideServer: Array(Nullable(Int128)) and its kin scan into *[]*big.Int
// (NULL as nil), as from clickhouse-go.
func TestScanArrayNullableWideServer(t *testing.T) {
	server := testenv.Server(t)
	db := openDB(t)
	q := "SELECT CAST([1, NULL, -3] AS Array(Nullable(Int128))), CAST([NULL, 2] AS Array(Nullable(UInt128)))," +
		" CAST([-7, NULL] AS Array(Nullable(Int256))), CAST([9] AS Array(Nullable(UInt256)))"
	if server == testenv.Legacy {
		refused(t, db, q, "Int128")
		return
	}
	var a, b, c, d []*big.Int
	if err := queryRow(t, db, q, &a, &b, &c, &d); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(a, b, c, d); got != "[1 <nil> -3] [<nil> 2] [-7 <nil>] [9]" {
		t.Fatalf("got %s", got)
	}
	var v any
	if err := queryRow(t, db, "SELECT CAST([1, NULL] AS Array(Nullable(Int128)))", &v); err != nil {
		t.Fatal(err)
	}
	if x, ok := v.([]*big.Int); !ok || len(x) != 2 || x[0].Int64() != 1 || x[1] != nil {
		t.Fatalf("*any: %T %v, want []*big.Int [1 <nil>]", v, v)
	}
}

// textScanner is a sql.Scanner of text, as shopspring's decimal.Decimal and google/uuid's UUID
// are (the conformance module's chgo tests use those two).
type textScanner struct{ text string }

func (s *textScanner) Scan(src any) error {
	switch x := src.(type) {
	case string:
		s.text = x
	case []byte:
		s.text = string(x)
	case nil:
		s.text = "NULL"
	default:
		return fmt.Errorf("textScanner: %T", src)
	}
	return nil
}

type uuidBytes [16]byte

// TestScanArrayScannersServer: on Go 1.27, ScanColumn fills a slice whose elements are Scanners
// (or pointers to them) element by element, and a slice of [16]byte-shaped arrays from
// Array(UUID); before it database/sql cannot store a slice into them, and the documented way is
// a struct field (Select, ScanStructs), which fills them on either Go version.
func TestScanArrayScannersServer(t *testing.T) {
	db := openDB(t)
	const id = "6ba7b810-9dad-11d1-80b4-00c04fd430c8"
	q := "SELECT [toDecimal64('1.50', 2), toDecimal64('-3', 2)] AS d, [toNullable(toUUID('" + id + "')), NULL] AS i," +
		" [toUUID('" + id + "')] AS r, [toNullable(toUUID('" + id + "')), NULL] AS p"
	var decs []textScanner
	var ids []*textScanner
	var raw []uuidBytes
	var rawPtr []*uuidBytes
	err := queryRow(t, db, q, &decs, &ids, &raw, &rawPtr)
	if !columnScanner() {
		if err == nil || !strings.Contains(err.Error(), "unsupported Scan") {
			t.Fatalf("Go 1.26: %v; want database/sql's unsupported Scan", err)
		}
		type row struct {
			Decs   []textScanner  `ch:"d"`
			IDs    []*textScanner `ch:"i"`
			Raw    []uuidBytes    `ch:"r"`
			RawPtr []*uuidBytes   `ch:"p"`
		}
		got, err := Select[row](context.Background(), db, q)
		if err != nil {
			t.Fatalf("Go 1.26, Select: %v", err)
		}
		decs, ids, raw, rawPtr = got[0].Decs, got[0].IDs, got[0].Raw, got[0].RawPtr
	} else if err != nil {
		t.Fatalf("Go 1.27: %v", err)
	}
	want := [16]byte{0x6b, 0xa7, 0xb8, 0x10, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8}
	if fmt.Sprint(decs) != "[{1.5} {-3}]" || len(ids) != 2 || ids[0].text != id || ids[1] != nil ||
		len(raw) != 1 || raw[0] != want || len(rawPtr) != 2 || *rawPtr[0] != want || rawPtr[1] != nil {
		t.Fatalf("got %v %v %v %v", decs, ids, raw, rawPtr)
	}
	if columnScanner() { // a NULL into a [16]byte is refused, naming the element
		var bad []uuidBytes
		err := queryRow(t, db, "SELECT [toNullable(toUUID('"+id+"')), NULL]", &bad)
		var se *columns.ScanError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), "element 1") {
			t.Fatalf("NULL into []uuidBytes: %v", err)
		}
	}
}

// TestScanJSONRawMessageServer: a JSON value scans into *json.RawMessage, *string and *[]byte
// on Go 1.26 as on 1.27 (database/sql gets it as []byte, clickhouse-go's form).
func TestScanJSONRawMessageServer(t *testing.T) {
	server := testenv.Server(t)
	db := openDB(t)
	q := `SELECT '{"a":1}'::JSON, '{"a":2}'::JSON, '{"a":3}'::JSON`
	if server == testenv.Legacy {
		refused(t, db, q, "JSON")
		return
	}
	var raw json.RawMessage
	var s string
	var b []byte
	if err := queryRow(t, db, q, &raw, &s, &b); err != nil {
		t.Fatal(err)
	}
	if string(raw) != `{"a":1}` || s != `{"a":2}` || string(b) != `{"a":3}` {
		t.Fatalf("got %s %s %s", raw, s, b)
	}
}

// TestValueErrorTextsServer: a value an insert column refuses is named in the error (a string
// quoted), and a server exception whose class is not DB::Exception names its class once.
func TestValueErrorTextsServer(t *testing.T) {
	server := testenv.Server(t)
	db := openDB(t)
	table := createTable(t, db, "v39_errtext", "a UInt64, ip String")
	cols := "a"
	if server == testenv.Modern {
		mustExec(t, db, "DROP TABLE "+table)
		table = createTable(t, db, "v39_errtext", "a UInt64, ip IPv4")
		cols = "a, ip"
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	stmt, err := tx.Prepare("INSERT INTO " + table + " (" + cols + ")")
	if err != nil {
		t.Fatal(err)
	}
	args := []any{"abc"}
	if cols != "a" {
		args = append(args, "1.2.3.4")
	}
	_, err = stmt.Exec(args...)
	if err == nil || !strings.Contains(err.Error(), `string "abc" to UInt64`) {
		t.Fatalf(`"abc" into UInt64: %v; want the value quoted`, err)
	}
	if cols != "a" {
		_, err = stmt.Exec(1, "2001:db8::1")
		var tm *columns.TypeMismatchError
		if !errors.As(err, &tm) || tm.Value != `"2001:db8::1"` || !strings.Contains(err.Error(), `string "2001:db8::1" to IPv4`) {
			t.Fatalf("IPv6 into IPv4: %v; want the address named", err)
		}
	}
	// A NetException (code 519 or 279 on 26.7, 210 on 18.16): its class once, at the front.
	_, err = db.Exec("SELECT * FROM remote('127.0.0.1:1', system.one)")
	var ex *Exception
	if !errors.As(err, &ex) || ex.Name != "DB::NetException" || strings.Count(err.Error(), "NetException") < 1 ||
		strings.Contains(err.Error(), "(DB::NetException): DB::NetException:") {
		t.Fatalf("remote to a closed port: %v", err)
	}
}

// decimalValuer is a Valuer of decimal text, as shopspring's decimal.Decimal is.
type decimalValuer string

func (d decimalValuer) Value() (driver.Value, error) { return string(d), nil }

// TestInsertDecimalTextServer: decimal text (and Valuers of it) inserted into Decimal columns of
// each width arrives rounded half away from zero at the column's scale, as the server reads it.
func TestInsertDecimalTextServer(t *testing.T) {
	server := testenv.Server(t)
	db := openDB(t)
	cols := "d9 Decimal(9, 2), d18 Decimal(18, 4), d38 Decimal(38, 10)"
	if server == testenv.Modern {
		cols += ", d76 Decimal(76, 20)"
	}
	table := createTable(t, db, "v39_dec", cols)
	vals := []any{"-1234.565", decimalValuer("1234.56789"), "0.00005", "99999999999999999999999999.9999999999"}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	stmt, err := tx.Prepare("INSERT INTO " + table)
	if err != nil {
		t.Fatal(err)
	}
	n := strings.Count(cols, "Decimal(")
	for i := range 3 {
		args := make([]any, n)
		for j := range args {
			args[j] = vals[(i+j)%3]
		}
		if _, err := stmt.Exec(args...); err != nil {
			t.Fatal(err)
		}
	}
	args := []any{"1", "1", vals[3]}
	if n == 4 {
		args = append(args, vals[3])
	}
	if _, err := stmt.Exec(args...); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	sel := "SELECT d9, d18, d38"
	if n == 4 {
		sel += ", d76"
	}
	rows, err := db.Query(sel + " FROM " + table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		row := make([]string, n)
		dest := make([]any, n)
		for i := range row {
			dest[i] = &row[i]
		}
		if err := rows.Scan(dest...); err != nil {
			t.Fatal(err)
		}
		got = append(got, strings.Join(row, " "))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{"-1234.57 1234.5679 0.00005", "1234.57 0.0001 -1234.565", "0 -1234.565 1234.56789",
		"1 1 99999999999999999999999999.9999999999"}
	if n == 4 {
		want = []string{want[0] + " -1234.565", want[1] + " 1234.56789", want[2] + " 0.00005",
			want[3] + " 99999999999999999999999999.9999999999"}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The server reads the same numbers.
	var c uint64
	if err := queryRow(t, db, "SELECT count() FROM "+table+" WHERE d9 = toDecimal32('-1234.57', 2) OR d18 = toDecimal64('1234.5679', 4)"+
		" OR d38 = toDecimal128('0.00005', 10)", &c); err != nil || c != 1 {
		t.Fatalf("server-side comparison: %d, %v", c, err)
	}
}
