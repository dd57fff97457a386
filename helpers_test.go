package chnative

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chnative/chnative/internal/chconn"
	"github.com/chnative/chnative/internal/testenv"
)

// openDB opens a *sql.DB on the test server with extra DSN parameters ("compress=lz4").
func openDB(t testing.TB, params ...string) *sql.DB {
	t.Helper()
	dsn := testenv.DSN(t)
	for _, p := range params {
		if strings.Contains(dsn, "?") {
			dsn += "&" + p
		} else {
			dsn += "?" + p
		}
	}
	db, err := sql.Open("chnative", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

var tableSeq atomic.Int64

// tableName returns a table name unique to this test run.
func tableName(prefix string) string {
	return fmt.Sprintf("%s_%d_%d", prefix, time.Now().UnixNano()%1_000_000_000, tableSeq.Add(1))
}

func mustExec(t testing.TB, db interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, query string, args ...any) {
	t.Helper()
	if _, err := db.ExecContext(context.Background(), query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// createTable creates a Memory table and drops it when the test ends.
func createTable(t testing.TB, db *sql.DB, prefix, columns string) string {
	t.Helper()
	name := tableName(prefix)
	mustExec(t, db, "CREATE TABLE "+name+" ("+columns+") ENGINE = Memory")
	t.Cleanup(func() { _, _ = db.Exec("DROP TABLE IF EXISTS " + name) })
	return name
}

func count(t testing.TB, db *sql.DB, table string) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRow("SELECT count() FROM " + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Names the tests used when the connection lived in this package.
var newQueryID = chconn.NewQueryID

const (
	clientMajor  = chconn.ClientMajor
	clientMinor  = chconn.ClientMinor
	clientPatch  = chconn.ClientPatch
	closeGrace   = chconn.CloseGrace
	drainTimeout = chconn.DrainTimeout
)
