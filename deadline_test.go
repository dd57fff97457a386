package chnative

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/chnative/chnative/internal/testenv"
)

// A query under a context deadline returns at the deadline; the Cancel and the drain of the
// rest of the query happen off the caller's path, and the connection goes back to the pool
// only in a known state (drained, or dropped).
//
// The server is kept busy well past the deadline and well past the drain bound: sleepEachRow(1)
// over rows sent one per block means the server only looks at the Cancel between rows, a second
// apart. A driver that drains on the caller's path returns at deadline + drainTimeout (700 ms)
// at the earliest; the bound below (deadline + 500 ms) is generous for a loaded machine and is
// a behaviour, not a speed: the caller must not wait for the server.

const (
	slowQuery       = "SELECT sleepEachRow(1) FROM numbers(10) SETTINGS max_block_size = 1"
	testDeadline    = 100 * time.Millisecond
	deadlineSlack   = 500 * time.Millisecond
	afterDrainQuery = "SELECT 42"
)

func checkReturnedAtDeadline(t *testing.T, what string, start time.Time, err error) {
	t.Helper()
	elapsed := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("%s: got %v, want an error wrapping context.DeadlineExceeded", what, err)
	}
	t.Logf("%s returned %v after the start (deadline %v): %v", what, elapsed, testDeadline, err)
	if elapsed > testDeadline+deadlineSlack {
		t.Errorf("%s returned %v after the start, more than %v after its %v deadline: the caller waited for the cancelled query",
			what, elapsed, deadlineSlack, testDeadline)
	}
}

func checkPoolWorks(t *testing.T, db *sql.DB) {
	t.Helper()
	var n int
	if err := db.QueryRowContext(context.Background(), afterDrainQuery).Scan(&n); err != nil || n != 42 {
		t.Fatalf("the next query on the pool: %d, %v", n, err)
	}
}

func TestDeadlineExecReturnsAtDeadline(t *testing.T) {
	db := openDB(t)
	db.SetMaxOpenConns(1) // the next query gets the cancelled query's connection (or a new one if it was dropped)
	checkPoolWorks(t, db)
	for range 2 {
		ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
		start := time.Now()
		_, err := db.ExecContext(ctx, slowQuery)
		cancel()
		checkReturnedAtDeadline(t, "ExecContext", start, err)
		checkPoolWorks(t, db)
	}
}

func TestDeadlineQueryReturnsAtDeadline(t *testing.T) {
	db := openDB(t)
	db.SetMaxOpenConns(1)
	checkPoolWorks(t, db)
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	start := time.Now()
	rows, err := db.QueryContext(ctx, slowQuery)
	if err == nil {
		// 26.7 sends the header block first: the deadline passes in Next.
		for rows.Next() {
		}
		err = rows.Err()
		rows.Close()
	}
	checkReturnedAtDeadline(t, "QueryContext and Next", start, err)
	checkPoolWorks(t, db)
}

// TestDeadlinePinnedConnWaitsForDrain: on a pinned sql.Conn the next query waits for the
// background drain of the cancelled one (never interleaving with it) and then runs, on the same
// connection when the drain finished in time or with driver.ErrBadConn when it did not.
func TestDeadlinePinnedConnWaitsForDrain(t *testing.T) {
	db := openDB(t)
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// A session setting shows that the query after the drain runs on the same connection.
	if _, err := c.ExecContext(context.Background(), "SET max_threads = 3"); err != nil {
		t.Fatal(err)
	}
	// A query the server ends soon after the Cancel: the drain succeeds and the connection stays.
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	start := time.Now()
	_, err = c.ExecContext(ctx, "SELECT sleepEachRow(0.05) FROM numbers(40) SETTINGS max_block_size = 1")
	cancel()
	checkReturnedAtDeadline(t, "ExecContext on a pinned conn", start, err)
	var v string
	if err := c.QueryRowContext(context.Background(), "SELECT value FROM system.settings WHERE name = 'max_threads'").Scan(&v); err != nil || v != "3" {
		t.Fatalf("the next query on the pinned connection: max_threads %q, %v (want the session's 3)", v, err)
	}
}

// TestDeadlinePoolGetsDrainedConnection: through the pool (one connection), the query after a
// cancelled one waits in ResetSession for the background drain: it gets the same connection
// when the server ended the query within the drain bound, and a new one when it did not (the
// old one is closed, never handed out mid-stream).
func TestDeadlinePoolGetsDrainedConnection(t *testing.T) {
	db, logs := logDB(t, testenv.DSN(t))
	db.SetMaxOpenConns(1)
	checkPoolWorks(t, db)
	connects := func() int { return strings.Count(logs.String(), "chnative: connected") }

	// The server looks at the Cancel every 50 ms: the drain ends well within its bound.
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	start := time.Now()
	_, err := db.ExecContext(ctx, "SELECT sleepEachRow(0.05) FROM numbers(40) SETTINGS max_block_size = 1")
	cancel()
	checkReturnedAtDeadline(t, "ExecContext (quick drain)", start, err)
	checkPoolWorks(t, db)
	if n := connects(); n != 1 {
		t.Errorf("after a drained cancel the pool opened %d connections, want 1 (the drained one reused)\n%s", n, logs)
	}
	if !strings.Contains(logs.String(), "connection_kept=true") {
		t.Errorf("no drain that kept the connection in the log\n%s", logs)
	}

	// The server looks at the Cancel only after a second: the drain gives up and the next query
	// runs on a new connection.
	ctx, cancel = context.WithTimeout(context.Background(), testDeadline)
	start = time.Now()
	_, err = db.ExecContext(ctx, slowQuery)
	cancel()
	checkReturnedAtDeadline(t, "ExecContext (drain gives up)", start, err)
	checkPoolWorks(t, db)
	if n := connects(); n != 2 {
		t.Errorf("after a drain that gave up the pool opened %d connections in all, want 2\n%s", n, logs)
	}
	if !strings.Contains(logs.String(), "connection_kept=false") {
		t.Errorf("no drain that dropped the connection in the log\n%s", logs)
	}
}

// TestDeadlineWhileScanning: the deadline passes while the caller is between two rows (database/sql
// then closes the rows on its own goroutine, holding the lock the caller's next Next waits for):
// that Next returns at once too, not after a drain of the cancelled query.
func TestDeadlineWhileScanning(t *testing.T) {
	db := openDB(t)
	db.SetMaxOpenConns(1)
	checkPoolWorks(t, db)
	const deadline = 3 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	began := time.Now()
	// One row per block, the server sleeping 2.5 s before each: the first row comes at 2.5 s, the
	// second would at 5 s, so at the deadline (3 s) the server is busy for 2 s more.
	rows, err := db.QueryContext(ctx, "SELECT number, sleepEachRow(2.5) FROM numbers(4) SETTINGS max_block_size = 1")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if !rows.Next() {
		t.Fatalf("no first row: %v", rows.Err())
	}
	time.Sleep(time.Until(began.Add(deadline + 50*time.Millisecond))) // the caller is slow: the deadline passes
	start := time.Now()
	more := rows.Next()
	waited := time.Since(start)
	t.Logf("Next after the deadline returned %v in %v: %v", more, waited, rows.Err())
	if more {
		t.Fatal("a row after the deadline")
	}
	if waited > 300*time.Millisecond {
		t.Errorf("Next after the deadline waited %v for the cancelled query's drain", waited)
	}
	start = time.Now()
	rows.Close()
	waited = time.Since(start)
	t.Logf("Close after the deadline took %v", waited)
	if waited > 300*time.Millisecond {
		t.Errorf("Close after the deadline waited %v for the cancelled query's drain", waited)
	}
	checkPoolWorks(t, db)
}
