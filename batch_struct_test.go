package chnative

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// rtStruct is rtRow as a struct for AppendStructs: tags, names and an ignored field.
type rtStruct struct {
	ID      uint64 `ch:"id"`
	Name    string
	Value   float64   `db:"value"`
	TS      time.Time `ch:"ts"`
	Note    *string
	Tags    []uint32
	Kind    string `ch:"kind,omitempty"`
	Ignored int    `ch:"-"`
	unexp   int
}

func rtStructOf(i int) rtStruct {
	r := rtExpected(i)
	return rtStruct{ID: r.id, Name: r.name, Value: r.value, TS: r.ts, Note: r.note, Tags: r.tags, Kind: r.kind, Ignored: i}
}

func withBatch(t *testing.T, db *sql.DB, ctx context.Context, query string, fn func(b *Batch) error) error {
	t.Helper()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.Raw(func(dc any) error {
		b, err := dc.(Conn).PrepareBatch(ctx, query)
		if err != nil {
			return err
		}
		if err := fn(b); err != nil {
			b.Abort()
			return err
		}
		return b.Send()
	})
}

// TestAppendStructsRoundTrip inserts the round trip's rows from structs (a slice in blocks of
// max_block_size, then row by row) with and without compression, and reads them back value by
// value.
func TestAppendStructsRoundTrip(t *testing.T) {
	n := 250_000
	if testing.Short() || raceEnabled {
		n = 20_000
	}
	for _, comp := range []string{"none", "lz4", "zstd"} {
		t.Run(comp, func(t *testing.T) {
			db := openDB(t, "compress="+comp, fmt.Sprint("insert_block_rows=", n/8))
			table := createTable(t, db, "rt_struct", roundTripColumns)
			src := make([]rtStruct, n)
			for i := range src {
				src[i] = rtStructOf(i)
			}
			ctx := context.Background()
			split := n - 1000
			err := withBatch(t, db, ctx, "INSERT INTO "+table, func(b *Batch) error {
				if err := AppendStructs(b, src[:split/2]); err != nil {
					return err
				}
				if err := AppendStructs(b, src[split/2:split]); err != nil {
					return err
				}
				if b.Sent() == 0 {
					return errors.New("no block was sent at insert_block_rows")
				}
				for i := split; i < n; i++ {
					if err := AppendStruct(b, &src[i]); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			readRows(t, db, table, n)
		})
	}
}

type level uint8

type upper string

func (u upper) Value() (driver.Value, error) { return strings.ToUpper(string(u)), nil }

type kindsRow struct {
	U8  level
	I16 int16
	U32 uint32
	I64 int64
	F32 float32
	B   []byte
	S   upper  // driver.Valuer: converted through Value
	N   *int32 // Nullable from a pointer
	D   int    // int into Int64 through AppendValue
}

// TestAppendStructsKinds covers named types, []byte, driver.Valuer, pointers and converted fields.
func TestAppendStructsKinds(t *testing.T) {
	db := openDB(t)
	table := createTable(t, db, "struct_kinds", "u8 UInt8, i16 Int16, u32 UInt32, i64 Int64, f32 Float32, b String, s String, n Nullable(Int32), d Int64")
	ctx := context.Background()
	seven := int32(7)
	rows := []kindsRow{
		{U8: 1, I16: -2, U32: 3, I64: -4, F32: 5.5, B: []byte("bytes"), S: "abc", N: &seven, D: -9},
		{U8: 255, I16: 32767, U32: 1 << 31, I64: -1 << 63, F32: -0.25, B: nil, S: "", N: nil, D: 1 << 40},
	}
	if err := withBatch(t, db, ctx, "INSERT INTO "+table, func(b *Batch) error { return AppendStructs(b, rows) }); err != nil {
		t.Fatal(err)
	}
	var got []string
	r, err := db.Query("SELECT toString(u8), toString(i16), toString(u32), toString(i64), toString(f32), b, s, ifNull(toString(n), 'NULL'), toString(d) FROM " + table + " ORDER BY u8")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for r.Next() {
		v := make([]string, 9)
		p := make([]any, 9)
		for i := range v {
			p[i] = &v[i]
		}
		if err := r.Scan(p...); err != nil {
			t.Fatal(err)
		}
		got = append(got, strings.Join(v, "|"))
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{"1|-2|3|-4|5.5|bytes|ABC|7|-9", "255|32767|2147483648|-9223372036854775808|-0.25|||NULL|1099511627776"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

type badRow struct {
	A uint64
	B int64 // into UInt8: fails when out of range
	C string
}

// TestAppendStructsErrors checks the error (column, field, row) and that the rows before the
// failing one stay, in one block and across blocks; a column with no field fails before anything
// is appended.
func TestAppendStructsErrors(t *testing.T) {
	db := openDB(t, "insert_block_rows=4")
	table := createTable(t, db, "struct_err", "a UInt64, b UInt8, c String")
	ctx := context.Background()
	rows := make([]badRow, 10)
	for i := range rows {
		rows[i] = badRow{A: uint64(i), B: int64(i), C: fmt.Sprint("c", i)}
	}
	rows[6].B = 300
	rows[8].B = -1
	var calls int
	err := withBatch(t, db, ctx, "INSERT INTO "+table, func(b *Batch) error {
		calls++
		err := AppendStructs(b, rows)
		var ce *ColumnError
		if !errors.As(err, &ce) || ce.Column != "b" || ce.Row != 6 || !strings.Contains(err.Error(), "field B") {
			return fmt.Errorf("want a ColumnError for column b, field B, row 6; got %v", err)
		}
		if b.Rows()+b.Sent() != 6 {
			return fmt.Errorf("%d rows buffered and %d sent, want 6", b.Rows(), b.Sent())
		}
		// The batch goes on after the error.
		return AppendStructs(b, []badRow{{A: 100, B: 1, C: "x"}})
	})
	if err != nil {
		t.Fatal(err)
	}
	var sum, n uint64
	if err := db.QueryRow("SELECT sum(a), count() FROM "+table).Scan(&sum, &n); err != nil {
		t.Fatal(err)
	}
	if n != 7 || sum != 0+1+2+3+4+5+100 {
		t.Fatalf("%d rows summing to %d", n, sum)
	}

	type missing struct{ A uint64 }
	err = withBatch(t, db, ctx, "INSERT INTO "+table, func(b *Batch) error {
		if err := AppendStructs(b, []missing{{1}}); err == nil || !strings.Contains(err.Error(), "column b") {
			return fmt.Errorf("want an error naming column b, got %v", err)
		}
		if err := AppendStructs(b, []int{1}); err == nil {
			return errors.New("no error for a non-struct type")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A later column failing at an earlier row decides the error: the first failing row wins.
func TestAppendStructsFirstFailingRow(t *testing.T) {
	db := openDB(t)
	table := createTable(t, db, "struct_first", "a UInt8, b UInt8")
	type row struct{ A, B int }
	rows := []row{{1, 1}, {2, 2}, {3, -3}, {400, 4}, {5, 5}}
	ctx := context.Background()
	err := withBatch(t, db, ctx, "INSERT INTO "+table, func(b *Batch) error {
		err := AppendStructs(b, rows)
		var ce *ColumnError
		if !errors.As(err, &ce) || ce.Column != "b" || ce.Row != 2 {
			return fmt.Errorf("want column b row 2, got %v", err)
		}
		if b.Rows() != 2 || b.Column(0).Rows() != 2 || b.Column(1).Rows() != 2 {
			return fmt.Errorf("rows %d/%d/%d, want 2", b.Rows(), b.Column(0).Rows(), b.Column(1).Rows())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, table); n != 2 {
		t.Fatalf("%d rows, want 2", n)
	}
}

// TestColumnErrorRow checks that insert errors name the column and the row's number in the insert,
// counting rows already sent, for Batch.Append and the prepared batch.
func TestColumnErrorRow(t *testing.T) {
	db := openDB(t, "insert_block_rows=3")
	table := createTable(t, db, "colerr_row", "a UInt64, b UInt8")
	ctx := context.Background()
	err := withBatch(t, db, ctx, "INSERT INTO "+table, func(b *Batch) error {
		for i := range 5 {
			if err := b.Append(uint64(i), uint8(i)); err != nil {
				return err
			}
		}
		err := b.Append(uint64(5), 256)
		var ce *ColumnError
		if !errors.As(err, &ce) || ce.Column != "b" || ce.Row != 5 || !strings.Contains(err.Error(), "row 5") {
			return fmt.Errorf("want column b row 5, got %v", err)
		}
		if b.Column(0).Rows() != b.Column(1).Rows() {
			return errors.New("the failed row left a value in column a")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	st, err := tx.Prepare("INSERT INTO " + table)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		if _, err := st.Exec(uint64(i), uint8(i)); err != nil {
			t.Fatal(err)
		}
	}
	_, err = st.Exec("x", 1)
	var ce *ColumnError
	if !errors.As(err, &ce) || ce.Column != "a" || ce.Row != 4 {
		t.Fatalf("want column a row 4, got %v", err)
	}
	if _, err := st.Exec(uint64(9), uint8(9)); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, table); n != 10 {
		t.Fatalf("%d rows, want 10", n)
	}
}
