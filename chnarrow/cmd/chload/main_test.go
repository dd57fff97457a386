package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/go-faster/city"
)

// modernEnv returns the 26.7 test server's variable env: a test without it skips, and fails
// when CI is set.
func modernEnv(t *testing.T, env string) string {
	t.Helper()
	v := os.Getenv(env)
	if v == "" {
		msg := env + " not set: run eval \"$(scripts/modern.sh env)\" after scripts/modern.sh start"
		if ci := os.Getenv("CI"); ci == "true" || ci == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return v
}

func httpText(t *testing.T, query string) string {
	t.Helper()
	u := modernEnv(t, "CHNATIVE_MODERN_HTTP_URL") + "?" + url.Values{"session_timezone": {"UTC"}}.Encode()
	resp, err := http.Post(u, "text/plain", strings.NewReader(query))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("HTTP %s: %s", query, b)
	}
	return string(b)
}

// sums are the checks of a table or a file of the test's rows: count, sum(id),
// sum(cityHash64(name)), sum(price), sum of the timestamps in ms, NULL qty, sum(qty).
type sums struct {
	count, ids, nameHashes uint64
	price                  float64
	tsMillis               int64
	nullQty                uint64
	qty                    int64
}

func (s sums) String() string {
	return fmt.Sprintf("%d\t%d\t%d\t%s\t%d\t%d\t%d", s.count, s.ids, s.nameHashes, strconv.FormatFloat(s.price, 'f', -1, 64), s.tsMillis, s.nullQty, s.qty)
}

const sumsSQL = "SELECT count(), sum(id), sum(cityHash64(name)), sum(price), sum(toUnixTimestamp64Milli(ts)), countIf(qty IS NULL), sum(qty) FROM %s FORMAT TabSeparated"

// row i of the test's data.
func rowOf(i int) (id uint64, name string, price float64, tsMillis int64, qty int32, qtyNull bool) {
	return uint64(i) * 7, fmt.Sprintf("name-%d-%s", i, strings.Repeat("x", i%13)), float64(i%1000) / 4,
		1700000000000 + int64(i)*1001, int32(i%5000) - 2500, i%7 == 0
}

// writeParquet generates the test's rows into a Parquet file (row groups of 100k rows) and
// returns their sums, computed in Go (cityHash64 is ClickHouse's CityHash64 v1.0.2).
func writeParquet(t *testing.T, path string, rows int) sums {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Uint64},
		{Name: "name", Type: arrow.BinaryTypes.String},
		{Name: "price", Type: arrow.PrimitiveTypes.Float64},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}},
		{Name: "qty", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	}, nil)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(schema, f, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	var s sums
	for lo := 0; lo < rows; lo += 100_000 {
		for i := lo; i < min(rows, lo+100_000); i++ {
			id, name, price, ts, qty, null := rowOf(i)
			b.Field(0).(*array.Uint64Builder).Append(id)
			b.Field(1).(*array.StringBuilder).Append(name)
			b.Field(2).(*array.Float64Builder).Append(price)
			b.Field(3).(*array.TimestampBuilder).Append(arrow.Timestamp(ts))
			if null {
				b.Field(4).(*array.Int32Builder).AppendNull()
				s.nullQty++
			} else {
				b.Field(4).(*array.Int32Builder).Append(qty)
				s.qty += int64(qty)
			}
			s.count++
			s.ids += id
			s.nameHashes += city.CH64([]byte(name))
			s.price += price
			s.tsMillis += ts
		}
		rec := b.NewRecordBatch()
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return s
}

// readParquetSums reads a Parquet file written by export back and sums it as the server does.
func readParquetSums(t *testing.T, path string) sums {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1 << 16}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var s sums
	for rr.Next() {
		rec := rr.RecordBatch()
		id := rec.Column(0).(*array.Uint64)
		name := rec.Column(1).(*array.String)
		price := rec.Column(2).(*array.Float64)
		ts := rec.Column(3).(*array.Timestamp)
		qty := rec.Column(4).(*array.Int32)
		for i := range int(rec.NumRows()) {
			s.count++
			s.ids += id.Value(i)
			s.nameHashes += city.CH64([]byte(name.Value(i)))
			s.price += price.Value(i)
			s.tsMillis += int64(ts.Value(i))
			if qty.IsNull(i) {
				s.nullQty++
			} else {
				s.qty += int64(qty.Value(i))
			}
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestLoadParquet1M: chload loads a generated Parquet file of loadRows rows (1M; fewer under
// -race) into a table on the 26.7 server, which then has the file's count and sums; chload's
// export of the table to Parquet reads back with the same.
func TestLoadParquet1M(t *testing.T) {
	dsn := modernEnv(t, "CHNATIVE_MODERN_DSN")
	dir := t.TempDir()
	in := filepath.Join(dir, "in.parquet")
	start := time.Now()
	want := writeParquet(t, in, loadRows)
	t.Logf("generated %d rows into %s in %v", loadRows, in, time.Since(start))
	const table = "chnarrow_chload"
	httpText(t, "DROP TABLE IF EXISTS "+table)
	httpText(t, "CREATE TABLE "+table+" (id UInt64, name String, price Float64, ts DateTime64(3, 'UTC'), qty Nullable(Int32)) ENGINE = MergeTree ORDER BY id")
	defer httpText(t, "DROP TABLE IF EXISTS "+table)
	ctx := context.Background()
	var out bytes.Buffer
	start = time.Now()
	if err := run(ctx, []string{"-dsn", dsn, "-table", table, "-file", in}, &out); err != nil {
		t.Fatal(err)
	}
	t.Logf("chload: %s in %v", strings.TrimSpace(out.String()), time.Since(start))
	if want := fmt.Sprintf("%d rows loaded into %s\n", loadRows, table); out.String() != want {
		t.Fatalf("chload printed %q, want %q", out.String(), want)
	}
	if got := strings.TrimSpace(httpText(t, fmt.Sprintf(sumsSQL, table))); got != want.String() {
		t.Fatalf("table sums\n got  %s\n want %s (count, sum(id), sum(cityHash64(name)), sum(price), ts, NULL qty, sum(qty))", got, want)
	}

	exported := filepath.Join(dir, "out.parquet")
	out.Reset()
	if err := run(ctx, []string{"-dsn", dsn, "-query", "SELECT id, name, price, ts, qty FROM " + table, "-out", exported}, &out); err != nil {
		t.Fatal(err)
	}
	if got := readParquetSums(t, exported); got != want {
		t.Fatalf("exported file sums\n got  %s\n want %s", got, want)
	}
}

// TestLoadCSVAndNDJSON: the text formats load through the table's types, NULLs included.
func TestLoadCSVAndNDJSON(t *testing.T) {
	dsn := modernEnv(t, "CHNATIVE_MODERN_DSN")
	dir := t.TempDir()
	const table = "chnarrow_chload_text"
	httpText(t, "DROP TABLE IF EXISTS "+table)
	httpText(t, "CREATE TABLE "+table+" (id UInt32, name String, d Date, u UUID, q Nullable(Float64), lc LowCardinality(String)) ENGINE = MergeTree ORDER BY id")
	defer httpText(t, "DROP TABLE IF EXISTS "+table)
	csvPath := filepath.Join(dir, "a.csv")
	ndPath := filepath.Join(dir, "b.ndjson")
	must(t, os.WriteFile(csvPath, []byte("id,name,d,u,q,lc\n1,one,2024-01-02,61f0c404-5cb3-11e7-907b-a6006ad3dba0,1.5,x\n2,,2024-01-03,61f0c404-5cb3-11e7-907b-a6006ad3dba1,,y\n"), 0o600))
	must(t, os.WriteFile(ndPath, []byte(`{"id":3,"name":"three","d":"2024-01-04","u":"61f0c404-5cb3-11e7-907b-a6006ad3dba2","q":null,"lc":"x"}`+"\n"+
		`{"id":4,"name":"four","d":"2024-01-05","u":"61f0c404-5cb3-11e7-907b-a6006ad3dba3","q":2.25,"lc":"z"}`+"\n"), 0o600))
	for _, p := range []string{csvPath, ndPath} {
		var out bytes.Buffer
		if err := run(context.Background(), []string{"-dsn", dsn, "-table", table, "-file", p}, &out); err != nil {
			t.Fatalf("%s: %v", filepath.Base(p), err)
		}
		if out.String() != "2 rows loaded into "+table+"\n" {
			t.Fatalf("%s: chload printed %q", filepath.Base(p), out.String())
		}
	}
	got := httpText(t, "SELECT * FROM "+table+" ORDER BY id FORMAT TabSeparated")
	want := "1\tone\t2024-01-02\t61f0c404-5cb3-11e7-907b-a6006ad3dba0\t1.5\tx\n" +
		"2\t\t2024-01-03\t61f0c404-5cb3-11e7-907b-a6006ad3dba1\t\\N\ty\n" +
		"3\tthree\t2024-01-04\t61f0c404-5cb3-11e7-907b-a6006ad3dba2\t\\N\tx\n" +
		"4\tfour\t2024-01-05\t61f0c404-5cb3-11e7-907b-a6006ad3dba3\t2.25\tz\n"
	if got != want {
		t.Fatalf("table =\n%s\nwant\n%s", got, want)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
