package chnative

import (
	"database/sql"
	"math"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/testenv"
)

func openBindServer(t *testing.T) *sql.DB {
	t.Helper()
	dsn := testenv.DSN(t)
	db, err := sql.Open("chnative", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestBindServerStrings(t *testing.T) {
	db := openBindServer(t)
	var all []byte
	for i := 0; i < 256; i++ {
		all = append(all, byte(i))
	}
	nasty := []string{
		"", "'", "''", `\`, `\'`, `\\'`, "'; SELECT 1; --", "--", "-- comment", "/*", "*/", "/* x */",
		"#", "# x", "//", "?", "$1", "@x", "{x:String}", "$$", "$$ $$", "$a$", "‘", "’", "“", "”",
		"\x00", "a\x00b", "\x00\x00", "\n", "\r\n", "\t", "\x7f", "\x1b[0m", "\xff", "\xc3\x28", "\xed\xa0\x80",
		"ünïcödé ✓ 🙂", string(all), strings.Repeat("x'\\", 20000), strings.Repeat(string(all), 200),
	}
	for _, s := range nasty {
		var gotBytes []byte
		if err := db.QueryRow("SELECT ?", s).Scan(&gotBytes); err != nil {
			t.Errorf("SELECT ? with %.40q: %v", s, err)
			continue
		}
		if string(gotBytes) != s {
			t.Errorf("SELECT ? with %.40q returned %.40q", s, gotBytes)
		}
		var gotString string
		if err := db.QueryRow("SELECT ?", []byte(s)).Scan(&gotString); err != nil {
			t.Errorf("SELECT ? with []byte %.40q: %v", s, err)
			continue
		}
		if gotString != s {
			t.Errorf("SELECT ? with []byte %.40q returned %.40q", s, gotString)
		}
	}
	// Placeholder-like text in the query's own literals and comments stays as it is.
	var a, b string
	err := db.QueryRow("SELECT 'it''s ?' /* ? */, ? -- ?\n", "x").Scan(&a, &b)
	if err != nil || a != "it's ?" || b != "x" {
		t.Errorf("literal with ?: %q, %q, %v", a, b, err)
	}
}

func TestBindServerNumbers(t *testing.T) {
	db := openBindServer(t)
	for _, v := range []int64{0, 1, -1, math.MinInt64, math.MaxInt64, math.MinInt32, math.MaxUint32} {
		var got int64
		if err := db.QueryRow("SELECT ?", v).Scan(&got); err != nil || got != v {
			t.Errorf("SELECT ? with %d: %d, %v", v, got, err)
		}
		// (The server negates in the literal's type: -(-2^31) as Int32 overflows, so only small
		// values here.)
		if err := db.QueryRow("SELECT -?", v).Scan(&got); v > -1000 && v < 1000 && (err != nil || got != -v) {
			t.Errorf("SELECT -? with %d: %d, %v", v, got, err)
		}
	}
	var u uint64
	if err := db.QueryRow("SELECT ?", uint64(math.MaxUint64)).Scan(&u); err != nil || u != math.MaxUint64 {
		t.Errorf("SELECT ? with MaxUint64: %d, %v", u, err)
	}
	for _, v := range []float64{0, 1, -2, 0.1, 1.0 / 3, math.Pi, -1e-300, 1e300, math.MaxFloat64,
		math.SmallestNonzeroFloat64, -0x1p-1050, 0x1p-1022, math.Inf(1), math.Inf(-1)} {
		var got float64
		if err := db.QueryRow("SELECT ?", v).Scan(&got); err != nil || got != v {
			t.Errorf("SELECT ? with %v: %v, %v", v, got, err)
		}
	}
	var typ string
	var got float64
	if err := db.QueryRow("SELECT toTypeName(?), ?", 3.0, math.Copysign(0, -1)).Scan(&typ, &got); err != nil ||
		typ != "Float64" || !math.Signbit(got) {
		t.Errorf("float 3.0 is %s, -0 reads back as %v (%v)", typ, got, err)
	}
	if err := db.QueryRow("SELECT ?", math.NaN()).Scan(&got); err != nil || !math.IsNaN(got) {
		t.Errorf("SELECT ? with NaN: %v, %v", got, err)
	}
	var f32 float32
	if err := db.QueryRow("SELECT toFloat32(?)", float32(0.1)).Scan(&f32); err != nil || f32 != 0.1 {
		t.Errorf("SELECT toFloat32(?) with 0.1: %v, %v", f32, err)
	}
	var bl bool
	if err := db.QueryRow("SELECT ? = 1", true).Scan(&bl); err != nil || !bl {
		t.Errorf("SELECT ? = 1 with true: %v, %v", bl, err)
	}
	var ns sql.NullString
	if err := db.QueryRow("SELECT ?", nil).Scan(&ns); err != nil || ns.Valid {
		t.Errorf("SELECT ? with nil: %+v, %v", ns, err)
	}
	var dec string
	if err := db.QueryRow("SELECT toString(?)", columns.Decimal{Unscaled: big.NewInt(-12345), Scale: 3}).Scan(&dec); err != nil || dec != "-12.345" {
		t.Errorf("decimal: %q, %v", dec, err)
	}
	var arr string
	if err := db.QueryRow("SELECT toString(?)", []any{[]int{1, -2}, []int{}}).Scan(&arr); err != nil || arr != "[[1,-2],[]]" {
		t.Errorf("nested array: %q, %v", arr, err)
	}
}

func TestBindServerTimes(t *testing.T) {
	db := openBindServer(t)
	for _, tm := range []time.Time{
		time.Date(2024, 2, 29, 23, 59, 59, 0, time.UTC),
		time.Date(2024, 2, 29, 23, 59, 59, 0, time.FixedZone("E", 5*3600+1800)),
		time.Date(1970, 1, 1, 0, 0, 1, 0, time.UTC),
		time.Date(2001, 9, 9, 1, 46, 40, 0, time.FixedZone("W", -8*3600)),
		time.Date(2105, 12, 31, 23, 59, 59, 0, time.UTC),
	} {
		var got time.Time
		if err := db.QueryRow("SELECT ?", tm).Scan(&got); err != nil || !got.Equal(tm) {
			t.Errorf("SELECT ? with %v: %v, %v", tm, got.UTC(), err)
		}
		var unix int64
		if err := db.QueryRow("SELECT toUnixTimestamp(?)", tm).Scan(&unix); err != nil || unix != tm.Unix() {
			t.Errorf("SELECT toUnixTimestamp(?) with %v: %d, %v", tm, unix, err)
		}
	}
}
