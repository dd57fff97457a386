package chnative_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/chnative/chnative"
	"github.com/chnative/chnative/dsn"
)

// The examples run against the server that CHNATIVE_DSN names, a DSN such as
// clickhouse://default@127.0.0.1:9000/default (scripts/test.sh sets it); their output is the
// same on ClickHouse 18.16 and 26.7.

// Open a database by its DSN and read rows with database/sql.
func Example() {
	db, err := sql.Open("chnative", os.Getenv("CHNATIVE_DSN")) // clickhouse://user:password@host:9000/database?compress=lz4
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	rows, err := db.Query("SELECT number, toString(number * 10) FROM system.numbers WHERE number < ? LIMIT 3", 10)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var n uint64
		var s string
		if err := rows.Scan(&n, &s); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(n, s)
	}
	if err := rows.Err(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// 0 0
	// 1 10
	// 2 20
}

// Build the configuration in code: here two addresses tried in order, the first of which
// refuses, so every connection fails over to the second.
func ExampleNewConnector() {
	cfg, err := dsn.Parse(os.Getenv("CHNATIVE_DSN"))
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg.Addrs = []string{"127.0.0.1:1", cfg.Addrs[0]}
	cfg.ConnOpenStrategy = dsn.ConnOpenInOrder
	cfg.Compress = dsn.CompressionLZ4
	// cfg.Logger = slog.Default() would log each connect, failover and query at debug level.
	c, err := chnative.NewConnector(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	db := sql.OpenDB(c)
	defer db.Close()
	var n uint64
	if err := db.QueryRow("SELECT count() FROM numbers(1000)").Scan(&n); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(n)
	// Output:
	// 1000
}

// OpenDB applies the pool limits of the configuration (clickhouse-go's max_open_conns,
// max_idle_conns, conn_max_lifetime), which sql.Open cannot.
func ExampleOpenDB() {
	cfg, err := dsn.Parse(os.Getenv("CHNATIVE_DSN"))
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg.MaxOpenConns = 4
	db, err := chnative.OpenDB(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	if err := db.Ping(); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(db.Stats().MaxOpenConnections)
	// Output:
	// 4
}

// OpenDSN is OpenDB for a DSN string that names pool keys.
func ExampleOpenDSN() {
	name := os.Getenv("CHNATIVE_DSN")
	sep := "?"
	if strings.Contains(name, "?") {
		sep = "&"
	}
	// sql.Open refuses max_open_conns and max_idle_conns and says how to set them.
	db, err := chnative.OpenDSN(name + sep + "max_open_conns=10&max_idle_conns=5&conn_max_lifetime=1h")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	if err := db.Ping(); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(db.Stats().MaxOpenConnections)
	// Output:
	// 10
}

// For tools that call sql.Open("clickhouse", ...) (golang-migrate URLs, goose's
// OpenDBWithDriver) in a binary that does not link clickhouse-go, which registers that name.
func ExampleRegister() {
	if !slices.Contains(sql.Drivers(), "clickhouse") { // database/sql panics on a name taken twice
		chnative.Register("clickhouse")
	}
	db, err := sql.Open("clickhouse", os.Getenv("CHNATIVE_DSN"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	var s string
	if err := db.QueryRowContext(context.Background(), "SELECT 'registered'").Scan(&s); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s)
	// Output:
	// registered
}
