package chnarrow

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/chnative/chnative"
)

// record builds a one-record reader of the given fields, filled by fill.
func record(t *testing.T, fields []arrow.Field, fill func(b *array.RecordBuilder)) array.RecordReader {
	t.Helper()
	s := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, s)
	defer b.Release()
	fill(b)
	rec := b.NewRecordBatch()
	defer rec.Release()
	rr, err := array.NewRecordReader(s, []arrow.RecordBatch{rec})
	if err != nil {
		t.Fatal(err)
	}
	return rr
}

// TestInsertConverts: Arrow types other than the column's own convert where the value allows
// (int64 into UInt8, a microsecond timestamp into DateTime64(3) and DateTime, a dictionary of
// strings into LowCardinality(String) and String, NULLs into Nullable), matched by name in
// another order than the table's.
func TestInsertConverts(t *testing.T) {
	db, base := modern(t)
	ctx := ctxT(t)
	httpExec(t, base, "DROP TABLE IF EXISTS chnarrow_conv")
	httpExec(t, base, "CREATE TABLE chnarrow_conv (a UInt8, ts DateTime64(3, 'UTC'), d DateTime('UTC'), lc LowCardinality(String), s String, n Nullable(Int32)) ENGINE = MergeTree ORDER BY a")
	defer httpExec(t, base, "DROP TABLE IF EXISTS chnarrow_conv")
	dictType := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}
	rr := record(t, []arrow.Field{
		{Name: "n", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "s", Type: dictType},
		{Name: "lc", Type: dictType},
		{Name: "d", Type: arrow.FixedWidthTypes.Timestamp_us},
		{Name: "ts", Type: arrow.FixedWidthTypes.Timestamp_us},
		{Name: "a", Type: arrow.PrimitiveTypes.Int64},
	}, func(b *array.RecordBuilder) {
		b.Field(0).(*array.Int32Builder).AppendValues([]int32{7, 0}, []bool{true, false})
		for _, f := range []int{1, 2} {
			dict := b.Field(f).(*array.BinaryDictionaryBuilder)
			_ = dict.AppendString("x")
			_ = dict.AppendString("yz")
		}
		ts := time.Date(2024, 5, 6, 7, 8, 9, 123456000, time.UTC)
		for _, f := range []int{3, 4} {
			b.Field(f).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{arrow.Timestamp(ts.UnixMicro()), arrow.Timestamp(ts.UnixMicro() + 1)}, nil)
		}
		b.Field(5).(*array.Int64Builder).AppendValues([]int64{1, 255}, nil)
	})
	defer rr.Release()
	n, err := Insert(ctx, db, "INSERT INTO chnarrow_conv", rr)
	if err != nil || n != 2 {
		t.Fatalf("Insert = %d, %v", n, err)
	}
	got := httpText(t, base, "SELECT * FROM chnarrow_conv ORDER BY a")
	want := "1\t2024-05-06 07:08:09.123\t2024-05-06 07:08:09\tx\tx\t7\n255\t2024-05-06 07:08:09.123\t2024-05-06 07:08:09\tyz\tyz\t\\N\n"
	if got != want {
		t.Fatalf("table =\n%q\nwant\n%q", got, want)
	}
}

// TestInsertColumnError: a value the column cannot take ends the insert with a
// *chnative.ColumnError naming the column, its type and the row (over all records), and
// nothing is inserted; so does a NULL into a column that is not Nullable; the connection goes
// on.
func TestInsertColumnError(t *testing.T) {
	db, base := modern(t)
	db.SetMaxOpenConns(1)
	ctx := ctxT(t)
	httpExec(t, base, "DROP TABLE IF EXISTS chnarrow_err")
	httpExec(t, base, "CREATE TABLE chnarrow_err (a UInt8, s String) ENGINE = MergeTree ORDER BY a")
	defer httpExec(t, base, "DROP TABLE IF EXISTS chnarrow_err")
	fields := []arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}, {Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}
	for _, tc := range []struct {
		name        string
		a           []int64
		s           []string
		valid       []bool
		col         string
		row         int
		errContains string
	}{
		{"out of range", []int64{1, 2, 300}, []string{"a", "b", "c"}, nil, "a", 2, ""},
		{"NULL into String", []int64{1, 2, 3}, []string{"a", "", "c"}, []bool{true, false, true}, "s", 1, "NULL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rr := record(t, fields, func(b *array.RecordBuilder) {
				b.Field(0).(*array.Int64Builder).AppendValues(tc.a, nil)
				b.Field(1).(*array.StringBuilder).AppendValues(tc.s, tc.valid)
			})
			defer rr.Release()
			n, err := Insert(ctx, db, "INSERT INTO chnarrow_err (a, s)", rr)
			var ce *chnative.ColumnError
			if !errors.As(err, &ce) || ce.Column != tc.col || ce.Row != tc.row || !strings.Contains(err.Error(), tc.errContains) {
				t.Fatalf("Insert = %d, %v; want a *chnative.ColumnError for column %s row %d", n, err, tc.col, tc.row)
			}
			if n != 0 {
				t.Fatalf("Insert reported %d rows after a failure in its only block", n)
			}
		})
	}
	if c := httpText(t, base, "SELECT count() FROM chnarrow_err"); c != "0\n" {
		t.Fatalf("rows after the failed inserts: %s", c)
	}
	// Fields that match no column, by name or count, fail before anything is sent.
	rr := record(t, []arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, func(b *array.RecordBuilder) {
		b.Field(0).(*array.Int64Builder).Append(1)
	})
	defer rr.Release()
	if _, err := Insert(ctx, db, "INSERT INTO chnarrow_err (a, s)", rr); err == nil || !strings.Contains(err.Error(), "1 fields (x)") {
		t.Fatalf("Insert of a record of other fields: %v", err)
	}
	var one int
	if err := db.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		t.Fatalf("the pool's one connection after the failed inserts: %v", err)
	}
}

// TestInsertSlicedRecord: a record that is a slice of a bigger one (arrays with an offset)
// inserts its own rows, on the bulk paths (UInt64, String, Nullable(Int32)) and the per-row
// ones (Array, a conversion).
func TestInsertSlicedRecord(t *testing.T) {
	db, base := modern(t)
	httpExec(t, base, "DROP TABLE IF EXISTS chnarrow_slice")
	httpExec(t, base, "CREATE TABLE chnarrow_slice (u UInt64, s String, n Nullable(Int32), a Array(UInt8), c UInt16) ENGINE = MergeTree ORDER BY u")
	defer httpExec(t, base, "DROP TABLE IF EXISTS chnarrow_slice")
	s := arrow.NewSchema([]arrow.Field{
		{Name: "u", Type: arrow.PrimitiveTypes.Uint64},
		{Name: "s", Type: arrow.BinaryTypes.String},
		{Name: "n", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "a", Type: arrow.ListOf(arrow.PrimitiveTypes.Uint8)},
		{Name: "c", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, s)
	defer b.Release()
	for i := range 10 {
		b.Field(0).(*array.Uint64Builder).Append(uint64(i))
		b.Field(1).(*array.StringBuilder).Append(strings.Repeat("s", i))
		if i%2 == 0 {
			b.Field(2).(*array.Int32Builder).AppendNull()
		} else {
			b.Field(2).(*array.Int32Builder).Append(int32(i))
		}
		lb := b.Field(3).(*array.ListBuilder)
		lb.Append(true)
		for j := range i % 3 {
			lb.ValueBuilder().(*array.Uint8Builder).Append(uint8(i*10 + j))
		}
		b.Field(4).(*array.Int64Builder).Append(int64(i * 100))
	}
	full := b.NewRecordBatch()
	defer full.Release()
	part := full.NewSlice(3, 7)
	defer part.Release()
	rr, err := array.NewRecordReader(s, []arrow.RecordBatch{part})
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	if n, err := Insert(ctxT(t), db, "INSERT INTO chnarrow_slice", rr); err != nil || n != 4 {
		t.Fatalf("Insert = %d, %v", n, err)
	}
	got := httpText(t, base, "SELECT * FROM chnarrow_slice ORDER BY u")
	want := "3\tsss\t3\t[]\t300\n4\tssss\t\\N\t[40]\t400\n5\tsssss\t5\t[50,51]\t500\n6\tssssss\t\\N\t[]\t600\n"
	if got != want {
		t.Fatalf("table =\n%q\nwant\n%q", got, want)
	}
}

// failingReader hands out its records, then fails.
type failingReader struct {
	array.RecordReader
	err error
}

func (f *failingReader) Next() bool {
	if f.RecordReader.Next() {
		return true
	}
	f.err = errors.New("the source broke")
	return false
}

func (f *failingReader) Err() error { return f.err }

// TestInsertSourceError: a reader that fails part way cancels the insert: its error is
// Insert's, the rows of its earlier records are not inserted, and the connection goes on.
func TestInsertSourceError(t *testing.T) {
	db, base := modern(t)
	db.SetMaxOpenConns(1)
	ctx := ctxT(t)
	httpExec(t, base, "DROP TABLE IF EXISTS chnarrow_srcerr")
	httpExec(t, base, "CREATE TABLE chnarrow_srcerr (a Int64) ENGINE = MergeTree ORDER BY a")
	defer httpExec(t, base, "DROP TABLE IF EXISTS chnarrow_srcerr")
	rr := record(t, []arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}}, func(b *array.RecordBuilder) {
		b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, nil)
	})
	defer rr.Release()
	n, err := Insert(ctx, db, "INSERT INTO chnarrow_srcerr", &failingReader{RecordReader: rr})
	if err == nil || !strings.Contains(err.Error(), "the source broke") || n != 0 {
		t.Fatalf("Insert = %d, %v; want 0 and the reader's error", n, err)
	}
	if c := httpText(t, base, "SELECT count() FROM chnarrow_srcerr"); c != "0\n" {
		t.Fatalf("rows after the failed insert: %s", c)
	}
	var one int
	if err := db.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		t.Fatalf("the pool's one connection after the failed insert: %v", err)
	}
}
