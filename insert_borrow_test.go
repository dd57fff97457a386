package chnative

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestInsertBorrowedColumns inserts the same rows of fixed-width types (sent from the columns'
// memory when a block's column has at least nativeproto.MinBorrow bytes and compression is off)
// mixed with String and Nullable columns (always encoded into the buffer) in large blocks without
// compression, in small blocks (every column copied), and with LZ4 and with ZSTD (1 MiB frames
// cut across columns, fixed-width ones compressed from their own memory), and checks that the
// server holds the same data for all four.
func TestInsertBorrowedColumns(t *testing.T) {
	const cols = "u8 UInt8, i16 Int16, s String, i32 Int32, i64 Int64, f32 Float32, e Enum8('a' = 1, 'b' = 2), " +
		"d Decimal(18, 4), ts DateTime, day Date, n Nullable(String), f64 Float64"
	const n = 50_000
	ctx := context.Background()
	day := time.Date(2020, 3, 4, 0, 0, 0, 0, time.UTC)
	insert := func(params ...string) string {
		db := openDB(t, params...)
		table := createTable(t, db, "borrow", cols)
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		st, err := tx.PrepareContext(ctx, "INSERT INTO "+table)
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			var note any
			if i%5 != 0 {
				note = fmt.Sprint("note ", i)
			}
			e := "a"
			if i%2 == 1 {
				e = "b"
			}
			_, err := st.ExecContext(ctx, uint8(i), int16(-i), fmt.Sprint("s", i*31), int32(i*1000), int64(i)<<33,
				float32(i)/7, e, fmt.Sprintf("%d.%04d", i, i%10000), day.Add(time.Duration(i)*time.Second), day.AddDate(0, 0, i%1000), note, float64(i)/3)
			if err != nil {
				t.Fatalf("row %d: %v", i, err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		var sum uint64
		var rows uint64
		q := "SELECT count(), sum(cityHash64(u8, i16, s, i32, i64, f32, e, toString(d), ts, day, ifNull(n, 'NULL'), f64)) FROM " + table
		if err := db.QueryRow(q).Scan(&rows, &sum); err != nil {
			t.Fatal(err)
		}
		if rows != n {
			t.Fatalf("%d rows, want %d", rows, n)
		}
		return fmt.Sprint(rows, sum)
	}
	borrowed := insert("compress=none")
	copied := insert("compress=none", "insert_block_rows=1000")
	lz4 := insert("compress=lz4")
	zstd := insert("compress=zstd")
	if borrowed != copied || borrowed != lz4 || borrowed != zstd {
		t.Fatalf("checksums differ: borrowed %s, copied %s, lz4 %s, zstd %s", borrowed, copied, lz4, zstd)
	}
}
