package chnative_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/chnative/chnative"
	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/nativeproto"
)

func ExampleWithSettings() {
	db, err := sql.Open("chnative", os.Getenv("CHNATIVE_DSN"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	ctx := chnative.WithSettings(context.Background(), chnative.Settings{"max_execution_time": "60", "max_memory_usage": "1000000000"})
	rows, err := db.QueryContext(ctx, "SELECT name, value FROM system.settings WHERE name IN ('max_execution_time', 'max_memory_usage') ORDER BY name")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var name, value string
		if err := rows.Scan(&name, &value); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(name, value)
	}
	if err := rows.Err(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// max_execution_time 60
	// max_memory_usage 1000000000
}

// Rows, then the WITH TOTALS row, then the extremes (setting extremes=1), as three result sets.
func ExampleWithSettings_totalsAndExtremes() {
	db, err := sql.Open("chnative", os.Getenv("CHNATIVE_DSN"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	ctx := chnative.WithSettings(context.Background(), chnative.Settings{"extremes": "1"})
	rows, err := db.QueryContext(ctx, "SELECT number % 2 AS odd, count() FROM numbers(10) GROUP BY odd WITH TOTALS ORDER BY odd")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rows.Close()
	for _, set := range []string{"rows", "totals", "extremes"} {
		for rows.Next() {
			var odd uint8
			var n uint64
			if err := rows.Scan(&odd, &n); err != nil {
				fmt.Println(err)
				return
			}
			fmt.Println(set, odd, n)
		}
		if !rows.NextResultSet() {
			break
		}
	}
	if err := rows.Err(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// rows 0 5
	// rows 1 5
	// totals 0 10
	// extremes 0 5
	// extremes 1 5
}

// The query can be found, or killed, by its id: KILL QUERY WHERE query_id = 'example-query-id'.
func ExampleWithQueryID() {
	db, err := sql.Open("chnative", os.Getenv("CHNATIVE_DSN"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	ctx := chnative.WithQueryID(context.Background(), "example-query-id")
	var id string
	if err := db.QueryRowContext(ctx, "SELECT query_id FROM system.processes WHERE query_id = 'example-query-id'").Scan(&id); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(id)
	// Output:
	// example-query-id
}

// The query is accounted to the quota key given instead of the DSN's quota_key.
func ExampleWithQuotaKey() {
	db, err := sql.Open("chnative", os.Getenv("CHNATIVE_DSN"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	ctx := chnative.WithQuotaKey(context.Background(), "customer-42")
	ctx = chnative.WithQueryID(ctx, "example-quota-key")
	var key string
	if err := db.QueryRowContext(ctx, "SELECT quota_key FROM system.processes WHERE query_id = 'example-quota-key'").Scan(&key); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(key)
	// Output:
	// customer-42
}

// Server-side parameters ({name:Type}) need ClickHouse 22.x or newer (protocol revision
// 54459); sql.Named arguments do the same per query and work on older servers too, as CAST
// literals.
func ExampleWithParameters() {
	db, err := sql.Open("chnative", os.Getenv("CHNATIVE_DSN"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	const query = "SELECT {greeting:String} || ', ' || toString({n:UInt64} * 2)"
	ctx := chnative.WithParameters(context.Background(), map[string]any{"greeting": "hello", "n": 21})
	var s string
	err = db.QueryRowContext(ctx, query).Scan(&s)
	var unsupported *chnative.UnsupportedError
	if errors.As(err, &unsupported) { // a server without query parameters: nothing was sent
		err = db.QueryRow(query, sql.Named("greeting", "hello"), sql.Named("n", 21)).Scan(&s)
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s)
	// Output:
	// hello, 42
}

// Progress and the profile info arrive while the result is read; the last Progress holds the
// totals. (WithProfileEvents gets the server's counters, from ClickHouse 21.12 on.)
func ExampleWithProgress() {
	db, err := sql.Open("chnative", os.Getenv("CHNATIVE_DSN"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	var last chnative.Progress
	ctx := chnative.WithProgress(context.Background(), func(p chnative.Progress) { last = p })
	var info chnative.ProfileInfo
	ctx = chnative.WithProfileInfo(ctx, func(p chnative.ProfileInfo) { info = p })
	rows, err := db.QueryContext(ctx, "SELECT number FROM numbers(1000) WHERE number % 10 = 0 ORDER BY number DESC LIMIT 3")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
	}
	if err := rows.Err(); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("rows:", n)
	fmt.Println("read:", last.ReadRows)
	fmt.Println("before limit:", info.RowsBeforeLimit)
	// Output:
	// rows: 3
	// read: 1000
	// before limit: 100
}

// The server's log lines for a query, each carrying its query id. (WithServerLogger writes them
// into a *slog.Logger.)
func ExampleWithLogs() {
	db, err := sql.Open("chnative", os.Getenv("CHNATIVE_DSN"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	var lines []chnative.Log
	ctx := chnative.WithLogs(context.Background(), func(l chnative.Log) {
		lines = append(lines, l) // l.Time, l.Host, l.QueryID, l.ThreadID, l.Priority, l.Source, l.Text
	})
	ctx = chnative.WithSettings(ctx, chnative.Settings{"send_logs_level": "trace"}) // more than the default "information"
	ctx = chnative.WithQueryID(ctx, "example-logs")
	var n uint64
	if err := db.QueryRowContext(ctx, "SELECT count() FROM numbers(10)").Scan(&n); err != nil {
		fmt.Println(err)
		return
	}
	ours := 0
	for _, l := range lines {
		if l.QueryID == "example-logs" {
			ours++
		}
	}
	fmt.Println(n, len(lines) > 0, ours == len(lines))
	// Output:
	// 10 true true
}

// Send a block as a temporary table the query reads (ClickHouse "external data").
func ExampleWithExternalTable() {
	db, err := sql.Open("chnative", os.Getenv("CHNATIVE_DSN"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	ids := columns.NewFixed[uint64]("")
	for _, id := range []uint64{3, 14, 15, 92} {
		ids.Append(id)
	}
	block := nativeproto.NewBlock()
	block.Add("id", ids)
	ctx := chnative.WithExternalTable(context.Background(), "wanted", block)
	rows, err := db.QueryContext(ctx, "SELECT number FROM numbers(100) WHERE number IN wanted ORDER BY number")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var n uint64
		if err := rows.Scan(&n); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Print(n, " ")
	}
	if err := rows.Err(); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println()
	// Output:
	// 3 14 15 92
}

// Queries read blocks of at most n rows (the max_block_size setting); inserts send a block
// every n rows.
func ExampleWithBlockSize() {
	db, err := sql.Open("chnative", os.Getenv("CHNATIVE_DSN"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	ctx := chnative.WithBlockSize(context.Background(), 10)
	err = chnative.StreamBlocks(ctx, db, "SELECT number FROM system.numbers LIMIT 25", nil, func(b *nativeproto.Block) error {
		fmt.Println(b.Rows(), "rows")
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// 10 rows
	// 10 rows
	// 5 rows
}

// Carry the caller's W3C trace context to the server as the query's parent span (ClickHouse
// 20.11 and newer record it; older servers take the query without it).
func ExampleWithTraceContext() {
	db, err := sql.Open("chnative", os.Getenv("CHNATIVE_DSN"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	tc, err := chnative.ParseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "vendor=value")
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := chnative.WithTraceContext(context.Background(), tc)
	var n uint8
	if err := db.QueryRowContext(ctx, "SELECT 1").Scan(&n); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tc.Traceparent(), tc.State, n)
	// Output:
	// 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 vendor=value 1
}

// DateTime values without a time zone of their own come in the given location instead of the
// server's (the same instants), Date values as midnight there.
func ExampleWithUserLocation() {
	db, err := sql.Open("chnative", os.Getenv("CHNATIVE_DSN"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	ctx := chnative.WithUserLocation(context.Background(), time.FixedZone("UTC+9", 9*60*60))
	var at, day time.Time
	if err := db.QueryRowContext(ctx, "SELECT toDateTime(1717243200), toDate('2024-06-01')").Scan(&at, &day); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(at)
	fmt.Println(day)
	// Output:
	// 2024-06-01 21:00:00 +0900 UTC+9
	// 2024-06-01 00:00:00 +0900 UTC+9
}
