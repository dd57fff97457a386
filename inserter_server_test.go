package chnative

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chnative/chnative/internal/faketest"
	"github.com/chnative/chnative/internal/testenv"
	"github.com/chnative/chnative/nativeproto"
)

// The Inserter on the test server (18.16 or 26.7, whichever CHNATIVE_DSN names), through a proxy
// that cuts its connections while 16 goroutines append: every row Append accepted and Close
// confirmed is in the table exactly once, per goroutine by count, sum and distinct ids.
//
// On 26.7 the table is a MergeTree with non_replicated_deduplication_window, the proxy drops
// every connection at random moments (also between the server's commit and its answer) and
// stalls once past read_timeout: the resent blocks' tokens make the server drop those it had.
// 18.16 has no token and deduplicates only Replicated tables (the cluster test covers those):
// here the cuts are of the client-to-server direction in the middle of the traffic, so the
// server never got a whole insert that the client did not see confirmed.
func TestInserterExactlyOnceUnderCuts(t *testing.T) {
	kind := testenv.Server(t)
	ctx := context.Background()
	direct, err := sql.Open("chnative", testenv.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	const table = "ins38_cuts"
	engine := "MergeTree ORDER BY (g, i)"
	if kind == testenv.Modern {
		engine += " SETTINGS non_replicated_deduplication_window = 100000"
	}
	for _, q := range []string{"DROP TABLE IF EXISTS " + table,
		"CREATE TABLE " + table + " (g UInt32, i UInt64, s String) ENGINE = " + engine} {
		if _, err := direct.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	defer direct.ExecContext(ctx, "DROP TABLE IF EXISTS "+table)

	base := runtime.NumGoroutine()
	p := newProxy(t)
	db := openAt(t, []string{p.Addr()}, "read_timeout=1s", "dial_timeout=1s")
	var failed atomic.Int64
	ins, err := NewInserter(db, "INSERT INTO "+table+" (g, i, s)", InserterConfig{
		MaxRows: 3000, MaxDelay: 20 * time.Millisecond, Senders: 4, Retries: 100,
		OnError: func(b *nativeproto.Block, err error) { failed.Add(int64(b.Rows())); t.Log(err) },
	})
	if err != nil {
		t.Fatal(err)
	}

	const G = 16
	var count, sum [G]uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := range G {
		wg.Go(func() {
			for i := uint64(1); ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if err := ins.Append(ctx, uint32(g), i, fmt.Sprintf("payload-%d-%d", g, i)); err != nil {
					t.Errorf("goroutine %d row %d: %v", g, i, err)
					return
				}
				count[g]++
				sum[g] += i
			}
		})
	}
	cuts := 0
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); cuts++ {
		time.Sleep(time.Duration(50+rand.IntN(100)) * time.Millisecond)
		if kind == testenv.Modern {
			p.DropAll()
			if cuts == 5 {
				p.Stall(true) // past read_timeout: the sends in flight time out
				time.Sleep(1500 * time.Millisecond)
				p.Stall(false)
			}
		} else {
			p.CutAfter(faketest.Up, int64(rand.IntN(200_000)))
		}
	}
	close(stop)
	wg.Wait()
	if err := ins.Close(ctx); err != nil {
		t.Fatal(err)
	}
	st := ins.Stats()
	t.Logf("%s: %d cuts; stats %+v", kind, cuts, st)
	if failed.Load() != 0 || st.FailedRows != 0 || st.SentRows != st.AppendedRows || st.BufferedRows != 0 {
		t.Fatalf("rows failed or left: %d failed; stats %+v", failed.Load(), st)
	}
	if st.Retried == 0 {
		t.Fatalf("no block was resent: the cuts missed the inserts (stats %+v)", st)
	}
	rows, err := direct.QueryContext(ctx, "SELECT g, count(), sum(i), uniqExact(i) FROM "+table+" GROUP BY g ORDER BY g")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	seen := 0
	for rows.Next() {
		var g uint32
		var n, s, uniq uint64
		if err := rows.Scan(&g, &n, &s, &uniq); err != nil {
			t.Fatal(err)
		}
		if g >= G || n != count[g] || s != sum[g] || uniq != n {
			t.Errorf("goroutine %d: %d rows (%d distinct), sum %d; appended %d rows, sum %d", g, n, uniq, s, count[g], sum[g])
		}
		seen++
	}
	if err := rows.Err(); err != nil || seen != G {
		t.Fatalf("%d goroutines in the table (%v)", seen, err)
	}
	db.Close()
	p.Close()
	settleGoroutines(t, base)
}
