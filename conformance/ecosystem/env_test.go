package ecosystem

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/chnative/chnative" // registers "chnative"
)

// dsn returns CHNATIVE_DSN. Without it the test is skipped, except in CI (CI=true or 1), where
// a missing server is a failure (the rule of internal/testenv).
func dsn(t testing.TB) string {
	t.Helper()
	d := os.Getenv("CHNATIVE_DSN")
	if d == "" {
		msg := "CHNATIVE_DSN not set: run scripts/test.sh (or see scripts/clickhouse.sh)"
		switch os.Getenv("CI") {
		case "true", "TRUE", "True", "1":
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return d
}

// openDB opens the test server through chnative.
func openDB(t testing.TB) *sql.DB {
	t.Helper()
	db, err := sql.Open("chnative", dsn(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.PingContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

var seq atomic.Int64

// tableName returns a table name unique to this run.
func tableName(prefix string) string {
	return fmt.Sprintf("eco_%s_%d_%d", prefix, time.Now().UnixNano()%1_000_000_000, seq.Add(1))
}

func exec(t testing.TB, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func dropLater(t testing.TB, db *sql.DB, table string) {
	t.Cleanup(func() { _, _ = db.Exec("DROP TABLE IF EXISTS " + table) })
}
