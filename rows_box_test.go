package chnative

import (
	"database/sql/driver"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/boxing"
	"github.com/chnative/chnative/nativeproto"
)

// Values kept from Rows.Scan into *any stay intact after later rows and blocks are read: the
// windows they are boxed in are never reused.
func TestScannedValuesSurviveLaterBlocks(t *testing.T) {
	db := openDB(t)
	rows, err := db.Query("SELECT number, toString(number), toDateTime(number, 'UTC'), toFloat32(number / 2) " +
		"FROM system.numbers LIMIT 5000 SETTINGS max_block_size = 700")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var kept [][4]any
	for rows.Next() {
		var r [4]any
		if err := rows.Scan(&r[0], &r[1], &r[2], &r[3]); err != nil {
			t.Fatal(err)
		}
		kept = append(kept, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(kept) != 5000 {
		t.Fatalf("%d rows", len(kept))
	}
	for i, r := range kept {
		if r[0].(uint64) != uint64(i) || r[1].(string) != strconv.Itoa(i) ||
			!r[2].(time.Time).Equal(time.Unix(int64(i), 0)) || r[3].(float32) != float32(i)/2 {
			t.Fatalf("row %d kept as %v", i, r)
		}
	}
}

// benchBoxRows measures Next's boxing alone: every row of a block boxed into a reused dest.
func benchBoxRows(b *testing.B, blk *nativeproto.Block) {
	var bx boxing.Boxer
	dest := make([]driver.Value, blk.NumColumns())
	n := blk.Rows()
	b.ReportAllocs()
	for b.Loop() {
		bx.Reset()
		for row := 0; row < n; row++ {
			if row >= bx.Hi {
				if _, err := bx.Fill(blk, row, min(row+boxing.Window, n)); err != nil {
					b.Fatal(err)
				}
			}
			if err := bx.Row(dest, blk, row); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/row")
}

// benchBlocks runs bench over 65536-row blocks of (UInt64) and of (UInt64, String, Float64).
func benchBlocks(b *testing.B, bench func(*testing.B, *nativeproto.Block)) {
	const n = 65536
	u := columns.NewFixed[uint64]("")
	s := columns.NewString()
	f := columns.NewFixed[float64]("")
	for i := 0; i < n; i++ {
		u.Append(uint64(i))
		s.Append("name-" + strconv.Itoa(i%1000) + "-xxxxxx")
		f.Append(float64(i) / 3)
	}
	b.Run("u64", func(b *testing.B) {
		blk := nativeproto.NewBlock()
		blk.Add("u", u)
		bench(b, blk)
	})
	b.Run("usf", func(b *testing.B) {
		blk := nativeproto.NewBlock()
		blk.Add("u", u)
		blk.Add("s", s)
		blk.Add("f", f)
		bench(b, blk)
	})
}

func BenchmarkBoxRows(b *testing.B) { benchBlocks(b, benchBoxRows) }

// Strings scanned into *string and *any share per-window buffers instead of one allocation each:
// they must stay intact after later Next calls, after Close, and after the connection is reused
// for another query (whose blocks are decoded into the same column buffers). Long strings
// (windows cut short by boxing.WindowBytes) and empty strings are included.
func TestScannedStringsStayIntact(t *testing.T) {
	db := openDB(t)
	db.SetMaxOpenConns(1)
	want := func(i int) string {
		switch {
		case i%97 == 5:
			return strings.Repeat("y", boxing.WindowBytes/3+i-1)
		case i%7 == 0:
			return ""
		}
		return "s" + strconv.Itoa(i)
	}
	const n = 3000
	query := "SELECT number, multiIf(number % 97 = 5, arrayStringConcat(arrayResize(emptyArrayString(), (" +
		strconv.Itoa(boxing.WindowBytes/3) + " + number) * (number % 97 = 5)), 'y'), number % 7 = 0, '', concat('s', toString(number))), " +
		"toLowCardinality(concat('lc', toString(number % 37))) " +
		"FROM system.numbers LIMIT " + strconv.Itoa(n) + " SETTINGS max_block_size = 700"
	rows, err := db.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	var strs, lcs []string
	var anys []any
	var raws [][]byte
	for rows.Next() {
		var id uint64
		var s, lc string
		var a, alc any
		if err := rows.Scan(&id, &s, &lc); err != nil {
			t.Fatal(err)
		}
		if err := rows.Scan(&id, &a, &alc); err != nil {
			t.Fatal(err)
		}
		var b []byte
		if err := rows.Scan(&id, &b, &alc); err != nil {
			t.Fatal(err)
		}
		if s != want(int(id)) || lc != "lc"+strconv.Itoa(int(id)%37) {
			t.Fatalf("row %d: got %.20q %q", id, s, lc)
		}
		strs, lcs, anys, raws = append(strs, s), append(lcs, lc), append(anys, a), append(raws, b)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	// A caller owns scanned []byte: writing to it changes no string.
	for _, b := range raws {
		for j := range b {
			b[j] = '!'
		}
	}
	// Reuse the connection: its column buffers are overwritten by other text.
	other, err := db.Query("SELECT concat('overwrite-', toString(number)), number FROM system.numbers LIMIT 5000 SETTINGS max_block_size = 650")
	if err != nil {
		t.Fatal(err)
	}
	for other.Next() {
		var s string
		var u uint64
		if err := other.Scan(&s, &u); err != nil {
			t.Fatal(err)
		}
	}
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	if len(strs) != n {
		t.Fatalf("%d rows", len(strs))
	}
	for i := range strs {
		if strs[i] != want(i) || anys[i].(string) != want(i) || lcs[i] != "lc"+strconv.Itoa(i%37) {
			t.Fatalf("row %d changed: %.20q / %.20q", i, strs[i], anys[i])
		}
	}
}

// benchNext measures rows.Next over a decoded block: the driver's own per-row cost in the row tier
// (the windows boxed as Next goes, as for a block the read-ahead has not boxed).
func benchNext(b *testing.B, blk *nativeproto.Block) {
	r := &rows{block: blk, nrows: blk.Rows()}
	dest := make([]driver.Value, blk.NumColumns())
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		r.row = 0
		r.box.Reset()
		for r.Next(dest) == nil {
			n++
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/row")
}

func BenchmarkRowsNext(b *testing.B) { benchBlocks(b, benchNext) }
