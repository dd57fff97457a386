package chnative_test

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"log/slog"
	"os"
	"time"

	"github.com/chnative/chnative"
	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/dsn"
	"github.com/chnative/chnative/nativeproto"
)

// These examples need a server at 127.0.0.1:9000; they compile but are not run.

func Example() {
	db, err := sql.Open("chnative", "clickhouse://default@127.0.0.1:9000/default?compress=lz4")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	var version string
	if err := db.QueryRow("SELECT version()").Scan(&version); err != nil {
		log.Fatal(err)
	}
	fmt.Println(version)
}

func ExampleNewConnector() {
	cfg := dsn.NewConfig()
	cfg.Addrs = []string{"ch1:9000", "ch2:9000"}
	cfg.Database = "analytics"
	cfg.Compress = dsn.CompressionLZ4
	cfg.ConnOpenStrategy = dsn.ConnOpenRoundRobin
	// The debug log (connects, failovers, each query's id, blocks, rows and timings, cancels) at
	// debug level; passwords are never logged.
	cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, err := chnative.NewConnector(cfg)
	if err != nil {
		log.Fatal(err)
	}
	db := sql.OpenDB(c)
	defer db.Close()
}

func ExampleRegister() {
	// For tools that call sql.Open("clickhouse", ...) (golang-migrate URLs, goose's
	// OpenDBWithDriver) in a binary that does not link clickhouse-go, which registers that name.
	chnative.Register("clickhouse")
	db, err := sql.Open("clickhouse", "clickhouse://default@127.0.0.1:9000/default")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
}

func ExampleConn_PrepareBatch() {
	db, _ := sql.Open("chnative", "clickhouse://127.0.0.1:9000/default")
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	err = c.Raw(func(dc any) error {
		b, err := dc.(chnative.Conn).PrepareBatch(ctx, "INSERT INTO events (id, name)")
		if err != nil {
			return err
		}
		ids := b.Column(0).(*columns.UInt64)
		names := b.Column(1).(*columns.String)
		for i := range 1000 {
			ids.Append(uint64(i))
			names.Append(fmt.Sprint("event ", i))
		}
		// Or row by row, converting values: b.Append(uint64(1000), "last").
		return b.Send()
	})
	if err != nil {
		log.Fatal(err)
	}
}

func ExampleConn_QueryBlocks() {
	db, _ := sql.Open("chnative", "clickhouse://127.0.0.1:9000/default")
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	var sum uint64
	err = c.Raw(func(dc any) error {
		bs, err := dc.(chnative.Conn).QueryBlocks(ctx, "SELECT number FROM system.numbers LIMIT ?", 1000000)
		if err != nil {
			return err
		}
		defer bs.Close()
		for bs.Next() {
			for _, v := range bs.Block().Column(0).(*columns.UInt64).Values() {
				sum += v
			}
		}
		return bs.Err()
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(sum)
}

func ExampleConn_ServerInfo() {
	db, _ := sql.Open("chnative", "clickhouse://127.0.0.1:9000/default")
	c, _ := db.Conn(context.Background())
	defer c.Close()
	_ = c.Raw(func(dc any) error {
		info := dc.(chnative.Conn).ServerInfo()
		fmt.Println(info.Name, info.Version(), info.Timezone, dc.(chnative.Conn).Location())
		return nil
	})
}

func ExampleWithSettings() {
	db, _ := sql.Open("chnative", "clickhouse://127.0.0.1:9000/default")
	ctx := chnative.WithSettings(context.Background(), chnative.Settings{"max_threads": "2", "max_memory_usage": "1000000000"})
	rows, err := db.QueryContext(ctx, "SELECT count() FROM events")
	if err != nil {
		log.Fatal(err)
	}
	rows.Close()
}

func ExampleWithQueryID() {
	db, _ := sql.Open("chnative", "clickhouse://127.0.0.1:9000/default")
	ctx := chnative.WithQueryID(context.Background(), "report-2024-06-01")
	// The query can be found (or killed) by its id: KILL QUERY WHERE query_id = 'report-2024-06-01'.
	_, _ = db.ExecContext(ctx, "INSERT INTO daily SELECT * FROM events WHERE day = today()")
}

func ExampleWithQuotaKey() {
	db, _ := sql.Open("chnative", "clickhouse://127.0.0.1:9000/default")
	ctx := chnative.WithQuotaKey(context.Background(), "customer-42")
	_, _ = db.QueryContext(ctx, "SELECT 1")
}

func ExampleWithParameters() {
	// Server-side parameters ({name:Type}) need ClickHouse 22.x or newer (protocol revision 54459).
	db, _ := sql.Open("chnative", "clickhouse://127.0.0.1:9000/default")
	ctx := chnative.WithParameters(context.Background(), map[string]any{"id": 42, "table": "events"})
	var name string
	_ = db.QueryRowContext(ctx, "SELECT name FROM {table:Identifier} WHERE id = {id:UInt64}").Scan(&name)
	// sql.Named arguments do the same per query, and work on older servers as CAST literals:
	_ = db.QueryRow("SELECT name FROM events WHERE id = {id:UInt64}", sql.Named("id", 42)).Scan(&name)
}

func ExampleWithProgress() {
	db, _ := sql.Open("chnative", "clickhouse://127.0.0.1:9000/default")
	ctx := chnative.WithProgress(context.Background(), func(p chnative.Progress) {
		fmt.Printf("read %d of ~%d rows (%d bytes)\n", p.ReadRows, p.TotalRows, p.ReadBytes)
	})
	ctx = chnative.WithProfileInfo(ctx, func(p chnative.ProfileInfo) {
		fmt.Println("rows before limit:", p.RowsBeforeLimit)
	})
	ctx = chnative.WithProfileEvents(ctx, func(events []chnative.ProfileEvent) {
		for _, e := range events {
			fmt.Println(e.Name, e.Value)
		}
	})
	var n uint64
	_ = db.QueryRowContext(ctx, "SELECT count() FROM events").Scan(&n)
}

func ExampleWithLogs() {
	db, _ := sql.Open("chnative", "clickhouse://127.0.0.1:9000/default")
	ctx := chnative.WithLogs(context.Background(), func(l chnative.Log) {
		fmt.Println(l.Time.Format(time.TimeOnly), l.Source, l.Text)
	})
	// Or into a *slog.Logger, with more detail than the default "information":
	ctx = chnative.WithServerLogger(context.Background(), slog.Default())
	ctx = chnative.WithSettings(ctx, chnative.Settings{"send_logs_level": "debug"})
	_, _ = db.ExecContext(ctx, "OPTIMIZE TABLE events FINAL")
}

func ExampleWithExternalTable() {
	db, _ := sql.Open("chnative", "clickhouse://127.0.0.1:9000/default")
	ids := columns.NewFixed[uint64]("")
	for _, id := range []uint64{3, 14, 15, 92} {
		ids.Append(id)
	}
	block := nativeproto.NewBlock()
	block.Add("id", ids)
	ctx := chnative.WithExternalTable(context.Background(), "wanted", block)
	rows, err := db.QueryContext(ctx, "SELECT id, name FROM events WHERE id IN wanted")
	if err != nil {
		log.Fatal(err)
	}
	rows.Close()
}

func ExampleWithBlockSize() {
	db, _ := sql.Open("chnative", "clickhouse://127.0.0.1:9000/default")
	// Read blocks of at most 10,000 rows and send inserts in blocks of 10,000 rows.
	ctx := chnative.WithBlockSize(context.Background(), 10_000)
	_ = chnative.StreamBlocks(ctx, db, "SELECT * FROM events", nil, func(b *nativeproto.Block) error {
		fmt.Println(b.Rows())
		return nil
	})
}

func ExampleInsertRows() {
	db, _ := sql.Open("chnative", "clickhouse://127.0.0.1:9000/default")
	// One batch through the Batch extension; with go-sqlmock a transaction with one prepared
	// INSERT ... VALUES (?, ?) and one Exec per row.
	err := chnative.InsertRows(context.Background(), db, "INSERT INTO events (id, name)", [][]any{
		{1, "signup"},
		{2, "login"},
	})
	if err != nil {
		log.Fatal(err)
	}
}

func ExampleStreamRows() {
	db, _ := sql.Open("chnative", "clickhouse://127.0.0.1:9000/default")
	err := chnative.StreamRows(context.Background(), db, "SELECT id, name FROM events WHERE id > ?", []any{10},
		func(row []any) error {
			fmt.Println(row[0], row[1])
			return nil
		})
	if err != nil {
		log.Fatal(err)
	}
}

func ExampleWithSettings_totalsAndExtremes() {
	db, _ := sql.Open("chnative", "clickhouse://127.0.0.1:9000/default")
	ctx := chnative.WithSettings(context.Background(), chnative.Settings{"extremes": "1"})
	rows, err := db.QueryContext(ctx, "SELECT name, count() FROM events GROUP BY name WITH TOTALS")
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	for set := 0; ; set++ { // 0: the rows, 1: totals, 2: extremes
		for rows.Next() {
			var name string
			var n uint64
			_ = rows.Scan(&name, &n)
			fmt.Println(set, name, n)
		}
		if !rows.NextResultSet() {
			break
		}
	}
}
