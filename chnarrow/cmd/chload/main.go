// Command chload loads a Parquet, CSV or NDJSON file into a ClickHouse table, and exports a
// query's result to a Parquet file, through Arrow record batches over the native protocol
// (chnarrow.Insert and chnarrow.Query).
//
//	chload -dsn clickhouse://default@127.0.0.1:9000/default -table events -file events.parquet
//	chload -dsn ... -table events -file events.csv            (a header line names the columns)
//	chload -dsn ... -table events -file events.ndjson         (one JSON object a line)
//	chload -dsn ... -query 'SELECT * FROM events' -out events.parquet
//
// The format is the file's extension (.parquet, .csv, .ndjson or .jsonl) unless -format says.
// Parquet columns are matched to the table's by name. CSV and NDJSON are read with the table's
// own column types as the schema (a column of a type arrow-go's reader does not parse is read as
// text, which the column converts: dates, times, UUIDs, IPs, enums, ...); an empty CSV field or
// \N is NULL, except in a text column, where it is that text. It prints the rows loaded or
// written.
package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/csv"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/chnative/chnative/chnarrow"

	_ "github.com/chnative/chnative"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "chload:", err)
		os.Exit(1)
	}
}

// run is the command with its arguments, printing its result to out.
func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("chload", flag.ContinueOnError)
	dsn := fs.String("dsn", os.Getenv("CHNATIVE_DSN"), "the server's DSN (default $CHNATIVE_DSN)")
	table := fs.String("table", "", "load: the table to insert into")
	path := fs.String("file", "", "load: the file to read")
	format := fs.String("format", "", "load: parquet, csv or ndjson (default: the file's extension)")
	query := fs.String("query", "", "export: the query whose result is written")
	outPath := fs.String("out", "", "export: the Parquet file to write")
	batch := fs.Int("batch", 64<<10, "rows per record read from CSV and NDJSON files")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dsn == "" {
		return errors.New("no -dsn (nor CHNATIVE_DSN)")
	}
	db, err := sql.Open("chnative", *dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	switch {
	case *query != "" && *outPath != "" && *table == "" && *path == "":
		n, err := export(ctx, db, *query, *outPath)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "%d rows written to %s\n", n, *outPath)
		return nil
	case *table != "" && *path != "" && *query == "" && *outPath == "":
		n, err := load(ctx, db, *table, *path, *format, *batch)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "%d rows loaded into %s\n", n, *table)
		return nil
	}
	return errors.New("give -table and -file to load, or -query and -out to export")
}

// load inserts the file's records into table.
func load(ctx context.Context, db *sql.DB, table, path, format string, batch int) (int64, error) {
	if format == "" {
		format = strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	}
	var rr array.RecordReader
	switch format {
	case "parquet":
		pf, err := file.OpenParquetFile(path, false)
		if err != nil {
			return 0, err
		}
		defer pf.Close()
		fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: int64(batch)}, memory.DefaultAllocator)
		if err != nil {
			return 0, err
		}
		prr, err := fr.GetRecordReader(ctx, nil, nil)
		if err != nil {
			return 0, err
		}
		rr = prr
	case "csv", "ndjson", "jsonl", "json":
		f, err := os.Open(path)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		schema, err := tableSchema(ctx, db, table)
		if err != nil {
			return 0, err
		}
		if format == "csv" {
			rr = csv.NewReader(f, readable(schema, csvReadable), csv.WithHeader(true), csv.WithChunk(batch),
				csv.WithNullReader(false, "", `\N`))
		} else {
			rr = array.NewJSONReader(f, readable(schema, jsonReadable), array.WithChunk(batch))
		}
	default:
		return 0, fmt.Errorf("unknown format %q: give -format parquet, csv or ndjson", format)
	}
	defer rr.Release()
	return chnarrow.Insert(ctx, db, "INSERT INTO "+table, rr)
}

// tableSchema is the Arrow schema of the table's columns (chnarrow's mapping).
func tableSchema(ctx context.Context, db *sql.DB, table string) (*arrow.Schema, error) {
	r, err := chnarrow.Query(ctx, db, "SELECT * FROM "+table+" LIMIT 0")
	if err != nil {
		return nil, err
	}
	defer r.Release()
	return r.Schema(), nil
}

// readable returns the schema with every field whose type ok refuses read as text (the column
// converts text), and dictionaries read as their values.
func readable(s *arrow.Schema, ok func(arrow.DataType) bool) *arrow.Schema {
	fields := make([]arrow.Field, s.NumFields())
	for i, f := range s.Fields() {
		if d, isDict := f.Type.(*arrow.DictionaryType); isDict {
			f.Type = d.ValueType
		}
		if !ok(f.Type) {
			f.Type = arrow.BinaryTypes.String
		}
		f.Nullable = true
		fields[i] = f
	}
	return arrow.NewSchema(fields, nil)
}

// csvReadable: the types arrow-go's CSV reader parses as chnarrow maps them.
func csvReadable(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.BOOL, arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16,
		arrow.UINT32, arrow.UINT64, arrow.FLOAT32, arrow.FLOAT64, arrow.STRING, arrow.DECIMAL128,
		arrow.DECIMAL256:
		return true
	}
	return false
}

// jsonReadable: the types arrow-go's JSON reader parses as chnarrow maps them (nested lists,
// maps and structs of such types too).
func jsonReadable(t arrow.DataType) bool {
	switch tt := t.(type) {
	case *arrow.ListType:
		return jsonReadable(tt.Elem())
	case *arrow.MapType:
		return jsonReadable(tt.KeyType()) && jsonReadable(tt.ItemType())
	case *arrow.StructType:
		for _, f := range tt.Fields() {
			if !jsonReadable(f.Type) {
				return false
			}
		}
		return true
	}
	return csvReadable(t) || t.ID() == arrow.DATE32
}

// export writes the query's result to a Parquet file (zstd, the Arrow schema stored with it).
func export(ctx context.Context, db *sql.DB, query, path string) (n int64, err error) {
	r, err := chnarrow.Query(ctx, db, query)
	if err != nil {
		return 0, err
	}
	defer r.Release()
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer func() { // the Parquet writer's Close closes f; after an error it may not have
		if cerr := f.Close(); err == nil && !errors.Is(cerr, os.ErrClosed) {
			err = cerr
		}
	}()
	w, err := pqarrow.NewFileWriter(r.Schema(), f,
		parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd)),
		pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return 0, err
	}
	for r.Next() {
		rec := r.RecordBatch()
		if err := w.Write(rec); err != nil {
			w.Close()
			return n, err
		}
		n += rec.NumRows()
	}
	if err := r.Err(); err != nil {
		w.Close()
		return n, err
	}
	return n, w.Close()
}
