package chnative

import (
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"
)

// upperScanner is a sql.Scanner of our own.
type upperScanner string

func (u *upperScanner) Scan(v any) error {
	s, ok := v.(string)
	if !ok {
		return errors.New("not a string")
	}
	*u = upperScanner(strings.ToUpper(s))
	return nil
}

// Rows.Scan takes the destinations users expect, and refuses integers that do not fit.
func TestScanDestinations(t *testing.T) {
	db := openDB(t)
	row := db.QueryRow("SELECT toUInt16(300), toInt64(-5), toFloat32(1.5), 'abc', toFixedString('xy', 2), " +
		"toDateTime('2024-03-04 05:06:07', 'Asia/Kolkata'), toNullable('n'), CAST(NULL AS Nullable(Int32)), " +
		"toNullable(toInt64(7)), 'low'")
	var (
		u16     int
		i64     int8
		f       float64
		s       []byte
		fs      string
		ts      time.Time
		ns      sql.NullString
		nullP   *int32
		generic sql.Null[int64]
		up      upperScanner
	)
	if err := row.Scan(&u16, &i64, &f, &s, &fs, &ts, &ns, &nullP, &generic, &up); err != nil {
		t.Fatal(err)
	}
	if u16 != 300 || i64 != -5 || f != 1.5 || string(s) != "abc" || fs != "xy" {
		t.Fatalf("got %v %v %v %q %q", u16, i64, f, s, fs)
	}
	if ts.Location().String() != "Asia/Kolkata" || ts.UTC().Format(time.DateTime) != "2024-03-03 23:36:07" {
		t.Fatalf("time %v", ts)
	}
	if !ns.Valid || ns.String != "n" || nullP != nil || !generic.Valid || generic.V != 7 || up != "LOW" {
		t.Fatalf("got %v %v %v %v", ns, nullP, generic, up)
	}
	var any1 any
	if err := db.QueryRow("SELECT toUInt64(18446744073709551615)").Scan(&any1); err != nil || any1 != uint64(1<<64-1) {
		t.Fatalf("any: %v %v", any1, err)
	}
	// A value that does not fit the destination is an error, not a wrapped number.
	var small int8
	if err := db.QueryRow("SELECT toUInt16(300)").Scan(&small); err == nil {
		t.Fatalf("300 scanned into int8 as %d without an error", small)
	}
	var signed int64
	if err := db.QueryRow("SELECT toUInt64(18446744073709551615)").Scan(&signed); err == nil {
		t.Fatalf("max UInt64 scanned into int64 as %d without an error", signed)
	}
}
