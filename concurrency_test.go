package chnative

import (
	"context"
	"database/sql"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chnative/chnative/internal/testenv"
)

// TestConcurrencySharedDB runs 64 goroutines of mixed queries and inserts on one *sql.DB for a
// bounded time (CHNATIVE_STRESS_DURATION; 20s in CI, 3s elsewhere): no error, every inserted row
// counted exactly once, and connections and goroutines back to their baseline afterwards.
func TestConcurrencySharedDB(t *testing.T) {
	testenv.Require(t)
	def := 3 * time.Second
	if testenv.CI() {
		def = 20 * time.Second
	}
	dur := durationEnv("CHNATIVE_STRESS_DURATION", def)
	if testing.Short() {
		dur = time.Second
	}
	admin := openDB(t)
	table := createTable(t, admin, "conc", "g UInt32, v UInt64, s String")

	base := runtime.NumGoroutine()
	db := openDB(t, "compress=lz4")
	db.SetMaxOpenConns(24) // fewer than the workers: they also wait for connections
	db.SetMaxIdleConns(24)

	const workers = 64
	var inserted, ops atomic.Int64
	var errOnce sync.Once
	var firstErr error
	fail := func(err error) { errOnce.Do(func() { firstErr = err }) }
	stopAt := time.Now().Add(dur)
	var wg sync.WaitGroup
	for g := 0; g < workers; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; time.Now().Before(stopAt) && i < 1_000_000; i++ {
				if firstErr != nil {
					return
				}
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				err := concurrencyOp(ctx, db, table, g, i, &inserted)
				cancel()
				if err != nil {
					fail(fmt.Errorf("worker %d op %d (kind %d): %w", g, i, (g+i)%5, err))
					return
				}
				ops.Add(1)
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		t.Fatal(firstErr)
	}
	if got := count(t, admin, table); got != inserted.Load() {
		t.Fatalf("%d rows in the table, %d inserted successfully: rows lost or duplicated", got, inserted.Load())
	}
	t.Logf("%d operations in %v, %d rows inserted, stats %+v", ops.Load(), dur, inserted.Load(), db.Stats())

	db.SetMaxIdleConns(0)
	deadline := time.Now().Add(5 * time.Second)
	for db.Stats().OpenConnections != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections still open after SetMaxIdleConns(0)", db.Stats().OpenConnections)
		}
		time.Sleep(20 * time.Millisecond)
	}
	db.Close()
	settleGoroutines(t, base)
}

// concurrencyOp runs operation (g+i)%5 of the mix.
func concurrencyOp(ctx context.Context, db *sql.DB, table string, g, i int, inserted *atomic.Int64) error {
	switch (g + i) % 5 {
	case 0: // a bound point query
		var v uint64
		if err := db.QueryRowContext(ctx, "SELECT toUInt64(?) + 1", uint64(i)).Scan(&v); err != nil {
			return err
		}
		if v != uint64(i)+1 {
			return fmt.Errorf("SELECT %d + 1 returned %d", i, v)
		}
	case 1: // a result of several blocks
		n, err := drainQuery(ctx, db, bigQuery(5_000))
		if err != nil {
			return err
		}
		if n != 5_000 {
			return fmt.Errorf("%d rows, want 5000", n)
		}
	case 2: // a one-row insert
		if _, err := db.ExecContext(ctx, "INSERT INTO "+table+" (g, v, s) VALUES (?, ?, ?)", uint32(g), uint64(i), "one"); err != nil {
			return err
		}
		inserted.Add(1)
	case 3: // a batched insert in a transaction
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		st, err := tx.PrepareContext(ctx, "INSERT INTO "+table+" (g, v, s)")
		if err != nil {
			tx.Rollback()
			return err
		}
		for k := 0; k < 50; k++ {
			if _, err := st.ExecContext(ctx, uint32(g), uint64(k), "batch"); err != nil {
				tx.Rollback()
				return err
			}
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		inserted.Add(50)
	case 4: // a result abandoned early: cancel and drain under load
		rows, err := db.QueryContext(ctx, bigQuery(200_000))
		if err != nil {
			return err
		}
		for k := 0; k < 10 && rows.Next(); k++ {
		}
		if err := rows.Close(); err != nil {
			return err
		}
	}
	return nil
}
