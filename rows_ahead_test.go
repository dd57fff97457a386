package chnative

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"
)

// Closing rows while the read-ahead waits for a slow next block (the server sleeps 1.5 s per
// block) cancels the query instead of waiting for the block, leaves no goroutine behind, and
// the connection serves the next query.
func TestRowsCloseDuringSlowReadAhead(t *testing.T) {
	monitor := openDB(t)
	db := openDB(t)
	db.SetMaxOpenConns(1)
	base := runtime.NumGoroutine()
	id := fmt.Sprintf("chnative-ahead-%d", time.Now().UnixNano())
	ctx := WithBlockSize(WithQueryID(context.Background(), id), 1500)
	rows, err := db.QueryContext(ctx, "SELECT number, sleepEachRow(0.001) AS s FROM (SELECT number FROM system.numbers LIMIT 30000)")
	if err != nil {
		t.Fatal(err)
	}
	var n, sum uint64
	for i := 0; i < 1200 && rows.Next(); i++ { // inside the first block: the read-ahead waits
		var v uint64
		var s uint8
		if err := rows.Scan(&v, &s); err != nil {
			t.Fatal(err)
		}
		n, sum = n+1, sum+v
	}
	if n != 1200 || sum != 1199*1200/2 {
		t.Fatalf("read %d rows (sum %d), want 1200 in order", n, sum)
	}
	start := time.Now()
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	d := time.Since(start)
	t.Logf("Close took %v (18.16 reacts to Cancel after the block it is computing)", d)
	if d > 5*time.Second {
		t.Errorf("Close took %v", d)
	}
	waitProcessGone(t, monitor, id, 10*time.Second)
	selectOne(t, db)
	settleGoroutines(t, base)
}

// A result of many blocks read through the read-ahead comes back whole and in order, also when
// the caller reads slower than the server sends.
func TestRowsReadAheadOrder(t *testing.T) {
	db := openDB(t)
	ctx := WithBlockSize(context.Background(), 2000)
	rows, err := db.QueryContext(ctx, bigQuery(100_000))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var want uint64
	for rows.Next() {
		var v uint64
		var s string
		if err := rows.Scan(&v, &s); err != nil {
			t.Fatal(err)
		}
		if v != want || s != fmt.Sprint(want) {
			t.Fatalf("row %d: %d %q", want, v, s)
		}
		if want%25_000 == 0 {
			time.Sleep(5 * time.Millisecond) // the read-ahead finishes first
		}
		want++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if want != 100_000 {
		t.Fatalf("%d rows, want 100000", want)
	}
}
