//go:build unix

package chnarrow

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// The benchmarks compare chnarrow with the server's own Arrow over HTTP (FORMAT ArrowStream,
// read and written with arrow-go's IPC reader and writer) on the 26.7 server, on benchRows rows
// of the five columns below (BENCH_ROWS, default 10M). Each reports wall time and the client
// process's CPU time (user + system, getrusage: the server is another process) per row, and
// allocations and bytes per row. `make bench` runs them (its Arrow step) into
// conformance/bench/results/arrow.txt and BENCHMARKS.md.

const benchColumns = "u UInt64, s String, f Float64, ts DateTime64(3, 'UTC'), n Nullable(Int32)"

const benchFill = "SELECT number, concat('row-', toString(number)), number / 3, " +
	"toDateTime64(1700000000 + number / 1000, 3, 'UTC'), if(number %% 5 = 0, NULL, toInt32(number %% 100000)) FROM numbers(%d)"

func benchRows() int {
	if n, err := strconv.Atoi(os.Getenv("BENCH_ROWS")); err == nil && n > 0 {
		return n
	}
	return 10_000_000
}

// benchTable makes (once per row count) a MergeTree table of n benchmark rows on the server.
func benchTable(b *testing.B, base string, n int) string {
	b.Helper()
	table := fmt.Sprintf("chnarrow_bench_%d", n)
	if strings.TrimSpace(httpText(b, base, "SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = '"+table+"'")) == "1" &&
		strings.TrimSpace(httpText(b, base, "SELECT count() FROM "+table)) == strconv.Itoa(n) {
		return table
	}
	httpExec(b, base, "DROP TABLE IF EXISTS "+table)
	httpExec(b, base, "CREATE TABLE "+table+" ("+benchColumns+") ENGINE = MergeTree ORDER BY u")
	httpExec(b, base, "INSERT INTO "+table+" "+fmt.Sprintf(benchFill, n))
	return table
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// measure runs op b.N times and reports per row: wall ns, client CPU ns, allocations, bytes.
func measure(b *testing.B, rows int, op func() int64) {
	b.Helper()
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	cpu0, wall0 := cpuNow(), time.Now()
	b.ResetTimer()
	for range b.N {
		if got := op(); got != int64(rows) {
			b.Fatalf("%d rows, want %d", got, rows)
		}
	}
	b.StopTimer()
	wall, cpu := time.Since(wall0), cpuNow()-cpu0
	runtime.ReadMemStats(&m1)
	per := float64(b.N) * float64(rows)
	b.ReportMetric(float64(wall.Nanoseconds())/per, "ns/row")
	b.ReportMetric(float64(cpu.Nanoseconds())/per, "cpu-ns/row")
	b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/per, "allocs/row")
	b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/per, "B/row")
}

// sumRecords touches every record (its rows and one value buffer) the way a consumer would.
func sumRecords(rr array.RecordReader) (int64, error) {
	var rows int64
	var sum uint64
	for rr.Next() {
		rec := rr.RecordBatch()
		rows += rec.NumRows()
		if u, ok := rec.Column(0).(*array.Uint64); ok {
			for _, v := range u.Uint64Values() {
				sum += v
			}
		}
	}
	_ = sum
	return rows, rr.Err()
}

// BenchmarkArrowQuery: SELECT * of the table as Arrow records. chnarrow: Query over the native
// protocol (no compression, the DSN's default). http-arrowstream: FORMAT ArrowStream over HTTP
// read with ipc.NewReader, with the server's default buffer compression (lz4_frame) and with
// none.
func BenchmarkArrowQuery(b *testing.B) {
	db, base := modern(b)
	n := benchRows()
	table := benchTable(b, base, n)
	query := "SELECT u, s, f, ts, n FROM " + table
	ctx := context.Background()
	b.Run("chnarrow", func(b *testing.B) {
		measure(b, n, func() int64 {
			r, err := Query(ctx, db, query)
			if err != nil {
				b.Fatal(err)
			}
			rows, err := sumRecords(r)
			if err := r.Close(); err != nil {
				b.Fatal(err)
			}
			if err != nil {
				b.Fatal(err)
			}
			return rows
		})
	})
	for _, compression := range []string{"lz4_frame", "none"} {
		b.Run("http-arrowstream-"+compression, func(b *testing.B) {
			u := base + "&" + url.Values{"output_format_arrow_compression_method": {compression}}.Encode()
			measure(b, n, func() int64 {
				resp, err := http.Post(u, "text/plain", strings.NewReader(query+" FORMAT ArrowStream"))
				if err != nil {
					b.Fatal(err)
				}
				defer resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					msg, _ := io.ReadAll(resp.Body)
					b.Fatalf("HTTP %d: %s", resp.StatusCode, msg)
				}
				r, err := ipc.NewReader(resp.Body)
				if err != nil {
					b.Fatal(err)
				}
				defer r.Release()
				rows, err := sumRecords(r)
				if err != nil {
					b.Fatal(err)
				}
				return rows
			})
		})
	}
}

// BenchmarkArrowInsert: the same records (read once with chnarrow.Query) inserted into a Null
// table. chnarrow: Insert over the native protocol. http-arrowstream: INSERT ... FORMAT
// ArrowStream over HTTP, the records written by ipc.NewWriter into the request body as it is
// sent.
func BenchmarkArrowInsert(b *testing.B) {
	db, base := modern(b)
	n := benchRows()
	src := benchTable(b, base, n)
	recs := readAll(b, db, "SELECT u, s, f, ts, n FROM "+src)
	defer releaseRecs(recs)
	schema := recs[0].Schema()
	const dst = "chnarrow_bench_sink"
	httpExec(b, base, "DROP TABLE IF EXISTS "+dst)
	httpExec(b, base, "CREATE TABLE "+dst+" ("+benchColumns+") ENGINE = Null")
	defer httpExec(b, base, "DROP TABLE IF EXISTS "+dst)
	ctx := context.Background()
	b.Run("chnarrow", func(b *testing.B) {
		measure(b, n, func() int64 {
			rr, err := array.NewRecordReader(schema, recs)
			if err != nil {
				b.Fatal(err)
			}
			defer rr.Release()
			got, err := Insert(ctx, db, "INSERT INTO "+dst, rr)
			if err != nil {
				b.Fatal(err)
			}
			return got
		})
	})
	b.Run("http-arrowstream", func(b *testing.B) {
		u := base + "&" + url.Values{"query": {"INSERT INTO " + dst + " FORMAT ArrowStream"}}.Encode()
		measure(b, n, func() int64 {
			pr, pw := io.Pipe()
			go func() {
				w := ipc.NewWriter(pw, ipc.WithSchema(schema))
				for _, rec := range recs {
					if err := w.Write(rec); err != nil {
						pw.CloseWithError(err)
						return
					}
				}
				pw.CloseWithError(w.Close())
			}()
			resp, err := http.Post(u, "application/octet-stream", pr)
			if err != nil {
				b.Fatal(err)
			}
			msg, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Fatalf("HTTP %d: %s", resp.StatusCode, msg)
			}
			var rows int64
			for _, rec := range recs {
				rows += rec.NumRows()
			}
			return rows
		})
	})
}

func readAll(b *testing.B, db *sql.DB, query string) []arrow.RecordBatch {
	b.Helper()
	r, err := Query(context.Background(), db, query)
	if err != nil {
		b.Fatal(err)
	}
	return collect(b, r)
}
