package chnative

import (
	"context"
	"database/sql"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chnative/chnative/dsn"
	"github.com/chnative/chnative/internal/faketest"
	"github.com/chnative/chnative/internal/testenv"
)

// Helpers shared by the fault, hostile, TLS and concurrency tests.

// serverAddr returns host:port of the test server.
func serverAddr(t testing.TB) string {
	t.Helper()
	cfg, err := dsn.Parse(testenv.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Addrs) == 0 {
		return "127.0.0.1:9000"
	}
	return cfg.Addrs[0]
}

// newProxy starts a faketest.Proxy to the test server, closed when the test ends.
func newProxy(t testing.TB) *faketest.Proxy {
	t.Helper()
	p, err := faketest.NewProxy(serverAddr(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// proxyUp brings p back after Down. Another process may have taken the port meanwhile: the test
// then cannot go on, which skips it on a developer's machine and fails it in CI (where a skipped
// fault test would hide a regression).
func proxyUp(t testing.TB, p *faketest.Proxy) {
	t.Helper()
	if err := p.Up(); err != nil {
		msg := "could not listen again on " + p.Addr() + ": " + err.Error()
		if testenv.CI() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
}

// dsnFor builds a DSN for user default on the given addresses with extra parameters.
func dsnFor(addrs []string, params ...string) string {
	s := "clickhouse://default@" + strings.Join(addrs, ",") + "/default"
	if len(params) > 0 {
		s += "?" + strings.Join(params, "&")
	}
	return s
}

// openAt opens a *sql.DB on the given addresses, closed when the test ends.
func openAt(t testing.TB, addrs []string, params ...string) *sql.DB {
	t.Helper()
	db, err := sql.Open("chnative", dsnFor(addrs, params...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// settleGoroutines waits (bounded) for the number of goroutines to come back to base, and fails
// with a dump of the remaining ones otherwise.
func settleGoroutines(t testing.TB, base int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= base {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("goroutines: %d, want <= %d (baseline); stacks:\n%s", n, base, buf)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// selectOne runs SELECT toUInt8(42) on db and checks the answer (a reused connection that was
// left dirty would answer something else).
func selectOne(t testing.TB, db *sql.DB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var v uint8
	if err := db.QueryRowContext(ctx, "SELECT toUInt8(42)").Scan(&v); err != nil {
		t.Fatalf("SELECT 42 after the fault: %v", err)
	}
	if v != 42 {
		t.Fatalf("SELECT 42 after the fault returned %d", v)
	}
}

// bigQuery is a result of n rows that the server streams in many blocks (the LIMIT is inside
// the subquery, as 18.16 requires).
func bigQuery(n int) string {
	return "SELECT number, toString(number) AS s FROM (SELECT number FROM system.numbers LIMIT " +
		strconv.Itoa(n) + ")"
}

// durationEnv returns the duration in env var name, or def.
func durationEnv(name string, def time.Duration) time.Duration {
	if v := os.Getenv(name); v != "" {
		if d, err := time.ParseDuration(v); err == nil {
			return d
		}
	}
	return def
}

// processRunning reports whether the server still runs the query with this id.
func processRunning(t testing.TB, db *sql.DB, id string) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count() FROM system.processes WHERE query_id = ?", id).Scan(&n); err != nil {
		t.Fatalf("system.processes: %v", err)
	}
	return n > 0
}

// waitProcessGone waits (bounded) until the query id leaves system.processes.
func waitProcessGone(t testing.TB, db *sql.DB, id string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for processRunning(t, db, id) {
		if time.Now().After(deadline) {
			t.Fatalf("query %s still in system.processes after %v", id, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
