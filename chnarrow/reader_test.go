package chnarrow

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/chnative/chnative"
)

// TestRecordKeptPastNextUnchanged: a record retained by the caller keeps its values while the
// reader goes on through later blocks, whose columns the driver decodes into the same column
// objects (the fixed-width and String memory was taken by the record, not aliased).
func TestRecordKeptPastNextUnchanged(t *testing.T) {
	db, _ := modern(t)
	ctx := chnative.WithBlockSize(ctxT(t), 1000)
	const q = "SELECT number AS u, toString(number) AS s, toFloat64(number) / 2 AS f, " +
		"toDateTime64(number, 3, 'UTC') AS ts, if(number % 3 = 0, NULL, toInt32(number)) AS n " +
		"FROM numbers(10000)"
	r, err := Query(ctx, db, q)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	if !r.Next() {
		t.Fatalf("no first record: %v", r.Err())
	}
	first := r.RecordBatch()
	first.Retain()
	defer first.Release()
	if first.NumRows() >= 10000 {
		t.Fatalf("one record of %d rows: the test needs several blocks", first.NumRows())
	}
	records, rows := 1, first.NumRows()
	for r.Next() {
		records++
		rows += r.RecordBatch().NumRows()
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if rows != 10000 || records < 3 {
		t.Fatalf("%d rows in %d records, want 10000 in several", rows, records)
	}
	u := first.Column(0).(*array.Uint64)
	s := first.Column(1).(*array.String)
	f := first.Column(2).(*array.Float64)
	ts := first.Column(3).(*array.Timestamp)
	n := first.Column(4).(*array.Int32)
	for i := range int(first.NumRows()) {
		if u.Value(i) != uint64(i) || s.Value(i) != itoa(i) || f.Value(i) != float64(i)/2 ||
			int64(ts.Value(i)) != int64(i)*1000 || n.IsNull(i) != (i%3 == 0) || (!n.IsNull(i) && n.Value(i) != int32(i)) {
			t.Fatalf("row %d of the kept record changed after later blocks: %d %q %v %d %v", i, u.Value(i), s.Value(i), f.Value(i), ts.Value(i), n.Value(i))
		}
	}
	want := arrow.NewSchema([]arrow.Field{
		{Name: "u", Type: arrow.PrimitiveTypes.Uint64},
		{Name: "s", Type: arrow.BinaryTypes.String},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}},
		{Name: "n", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	}, nil)
	for i, fw := range want.Fields() {
		if got := r.Schema().Field(i); got.Name != fw.Name || !arrow.TypeEqual(got.Type, fw.Type) || got.Nullable != fw.Nullable {
			t.Errorf("field %d = %s, want %s", i, got, fw)
		}
	}
}

func itoa(i int) string {
	var b [20]byte
	p := len(b)
	for {
		p--
		b[p] = byte('0' + i%10)
		i /= 10
		if i == 0 {
			return string(b[p:])
		}
	}
}

// TestReleaseEarlyCancelsAndFreesConn: releasing the reader after one record of a long result
// ends the query and gives the connection back in step: with a pool of one connection, the next
// query runs and answers.
func TestReleaseEarlyCancelsAndFreesConn(t *testing.T) {
	db, _ := modern(t)
	db.SetMaxOpenConns(1)
	ctx := ctxT(t)
	r, err := Query(ctx, db, "SELECT number FROM system.numbers_mt LIMIT 100000000")
	if err != nil {
		t.Fatal(err)
	}
	if !r.Next() {
		t.Fatalf("no first record: %v", r.Err())
	}
	if err := r.Close(); err != nil {
		t.Fatalf("Close after one record: %v", err)
	}
	var one int
	if err := db.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("the next query on the pool's one connection: %d, %v", one, err)
	}
}

// TestEmptyResultHasSchema: a result without rows still has its schema (from DESCRIBE), and
// Next reports false without an error.
func TestEmptyResultHasSchema(t *testing.T) {
	db, _ := modern(t)
	r, err := Query(ctxT(t), db, "SELECT number AS a, toString(number) AS b, toNullable(toDate(number)) AS c FROM numbers(10) WHERE a > ?", 100)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	if r.Next() || r.Err() != nil {
		t.Fatalf("Next = true or Err = %v on an empty result", r.Err())
	}
	s := r.Schema()
	if s.NumFields() != 3 || s.Field(0).Name != "a" || s.Field(0).Type.ID() != arrow.UINT64 ||
		s.Field(1).Type.ID() != arrow.STRING || s.Field(2).Type.ID() != arrow.DATE32 || !s.Field(2).Nullable {
		t.Fatalf("schema of the empty result = %s", s)
	}
	if md, _ := s.Field(2).Metadata.GetValue(TypeMetadataKey); md != "Nullable(Date)" {
		t.Fatalf("%s metadata = %q, want Nullable(Date)", TypeMetadataKey, md)
	}
}

// TestQueryErrors: a server error is Query's error (or Next's, as the server sends it), and a
// type without a mapping names itself.
func TestQueryErrors(t *testing.T) {
	db, _ := modern(t)
	ctx := ctxT(t)
	r, err := Query(ctx, db, "SELECT throwIf(number = 5000, 'boom') FROM numbers(100000)")
	if err == nil {
		for r.Next() {
		}
		err = r.Close()
	}
	var ex *chnative.Exception
	if !errors.As(err, &ex) {
		t.Fatalf("err = %v, want a *chnative.Exception", err)
	}
	_, err = Query(ctx, db, "SELECT CAST('a' AS Dynamic) AS v")
	var ute *UnsupportedTypeError
	if !errors.As(err, &ute) || ute.Type != "Dynamic" {
		t.Fatalf("err = %v, want an *UnsupportedTypeError naming Dynamic", err)
	}
	var one int
	if err := db.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		t.Fatalf("the pool after the errors: %v", err)
	}
}

// TestSchemaTypes: the Arrow types of the package doc's table where the values alone (as
// TestRoundTripTypes compares them) do not show the type: zones, units, dictionaries,
// extension types, metadata.
func TestSchemaTypes(t *testing.T) {
	db, _ := modern(t)
	r, err := Query(ctxT(t), db, "SELECT toDateTime(0, 'Asia/Kolkata') AS a, toDateTime(0) AS b, "+
		"toDateTime64(0, 6, 'Asia/Kathmandu') AS c, toDateTime64(1.23, 2) AS d, toLowCardinality('x') AS e, "+
		"toUUID('61f0c404-5cb3-11e7-907b-a6006ad3dba0') AS f, CAST(1 AS Enum8('a' = 1)) AS g, "+
		"CAST('00:00:01' AS Time64(3)) AS h, [toNullable(1)] AS i, map('k', 1) AS j, tuple(1, 'x') AS k")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	want := []string{
		"timestamp[s, tz=Asia/Kolkata]",
		"timestamp[s, tz=UTC]", // the session's zone (session_timezone = UTC in the DSN)
		"timestamp[us, tz=Asia/Kathmandu]",
		"timestamp[ms, tz=UTC]", // precision 2 scaled to milliseconds
		"dictionary<values=utf8, indices=uint32, ordered=false>",
		"extension<arrow.uuid>",
		"int8",
		"duration[ms]",
		"list<item: uint8, nullable>",
		"map<utf8, uint8, items_non_nullable>",
		"struct<1: uint8, 2: utf8>",
	}
	for i, w := range want {
		if got := r.Schema().Field(i).Type.String(); got != w {
			t.Errorf("field %s: %s, want %s", r.Schema().Field(i).Name, got, w)
		}
	}
	if md, _ := r.Schema().Field(6).Metadata.GetValue(TypeMetadataKey); md != "Enum8('a' = 1)" {
		t.Errorf("Enum8 field metadata %q", md)
	}
	if !r.Next() {
		t.Fatal(r.Err())
	}
	if d := r.RecordBatch().Column(3).(*array.Timestamp).Value(0); d != 1230 {
		t.Errorf("DateTime64(2) 1.23 = %d ms, want 1230", d)
	}
}

// TestSparseColumnsAcrossBlocks: columns the server sends sparse (a MergeTree table that stores
// them so, read at the driver's revision) become the same Arrow values as dense ones, block after
// block, with every record kept to the end: the sums of all records equal the server's.
func TestSparseColumnsAcrossBlocks(t *testing.T) {
	db, base := modern(t)
	httpExec(t, base, "DROP TABLE IF EXISTS chnarrow_sparse")
	httpExec(t, base, "CREATE TABLE chnarrow_sparse (k UInt64, u UInt64, s String, n Nullable(Int64)) ENGINE = MergeTree ORDER BY k "+
		"SETTINGS ratio_of_defaults_for_sparse_serialization = 0, nullable_serialization_version = 'allow_sparse'")
	defer httpExec(t, base, "DROP TABLE IF EXISTS chnarrow_sparse")
	httpExec(t, base, "INSERT INTO chnarrow_sparse SELECT number, if(number % 10 = 0, number, 0), "+
		"if(number % 7 = 0, toString(number), ''), if(number % 3 = 0, toInt64(number), NULL) FROM numbers(100000)")
	if kinds := httpText(t, base, "SELECT groupUniqArray(serialization_kind) FROM system.parts_columns WHERE table = 'chnarrow_sparse' AND active AND column = 'u'"); !strings.Contains(kinds, "Sparse") {
		t.Fatalf("column u is stored as %s, not sparse: the test does not test sparse columns", kinds)
	}
	r, err := Query(chnative.WithBlockSize(ctxT(t), 8192), db, "SELECT u, s, n FROM chnarrow_sparse ORDER BY k")
	if err != nil {
		t.Fatal(err)
	}
	recs := collect(t, r)
	defer releaseRecs(recs)
	var sumU, lenS, sumN, nulls int64
	for _, rec := range recs {
		u := rec.Column(0).(*array.Uint64)
		s := rec.Column(1).(*array.String)
		n := rec.Column(2).(*array.Int64)
		for i := range int(rec.NumRows()) {
			sumU += int64(u.Value(i))
			lenS += int64(len(s.Value(i)))
			if n.IsNull(i) {
				nulls++
			} else {
				sumN += n.Value(i)
			}
		}
	}
	got := fmt.Sprintf("%d\t%d\t%d\t%d\n", sumU, lenS, sumN, nulls)
	if want := httpText(t, base, "SELECT sum(u), sum(length(s)), sum(n), countIf(n IS NULL) FROM chnarrow_sparse"); got != want || len(recs) < 3 {
		t.Fatalf("sums of %d records %q, the server's %q", len(recs), got, want)
	}
}
