package chnative

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/chnative/chnative/internal/faketest"
)

// Fault tests: the real server behind a faketest.Proxy that cuts, stalls or drops connections.
// Each checks that the caller gets an error (or, where database/sql may retry, a result), that
// no goroutine is left behind, that the pool recovers, and that an insert is never sent twice.

// TestFaultCutMidResult cuts the server-to-client stream at several points of a large result.
func TestFaultCutMidResult(t *testing.T) {
	serverAddr(t)
	const total = 300_000
	for _, cut := range []int64{0, 1, 40, 200, 5_000, 300_000} {
		t.Run(fmt.Sprintf("after%dB", cut), func(t *testing.T) {
			base := runtime.NumGoroutine()
			p := newProxy(t)
			// read_retries=0: a cut before the first row is the caller's error here, not a read
			// run again on a new connection (retry_test.go and conformance/cluster test those).
			db := openAt(t, []string{p.Addr()}, "read_retries=0")
			db.SetMaxOpenConns(1)
			selectOne(t, db)

			p.CutAfter(faketest.Down, cut)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			n, err := drainQuery(ctx, db, bigQuery(total))
			if err == nil {
				t.Fatalf("read %d rows and no error through a cut connection", n)
			}
			if n >= total {
				t.Fatalf("read all %d rows yet got %v", n, err)
			}
			t.Logf("%d rows, then: %v", n, err)
			selectOne(t, db) // the pool recovers on a new connection
			if p.Accepts() != 2 {
				t.Errorf("%d connections, want 2: the broken one must not be reused", p.Accepts())
			}
			db.Close()
			p.Close()
			settleGoroutines(t, base)
		})
	}
}

// drainQuery reads every row of query and returns how many it read and the error that ended it.
func drainQuery(ctx context.Context, db *sql.DB, query string) (int, error) {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	var a uint64
	var s string
	for rows.Next() {
		if err := rows.Scan(&a, &s); err != nil {
			return n, err
		}
		n++
	}
	return n, rows.Err()
}

// TestFaultCutDuringHandshake cuts the connection inside the Hello exchange, both ways.
func TestFaultCutDuringHandshake(t *testing.T) {
	serverAddr(t)
	cases := []struct {
		dir faketest.Direction
		n   int64
	}{{faketest.Up, 0}, {faketest.Up, 10}, {faketest.Down, 0}, {faketest.Down, 5}, {faketest.Down, 15}}
	for _, c := range cases {
		t.Run(fmt.Sprintf("dir%d_after%dB", c.dir, c.n), func(t *testing.T) {
			base := runtime.NumGoroutine()
			p := newProxy(t)
			p.CutAfter(c.dir, c.n)
			db := openAt(t, []string{p.Addr()}, "dial_timeout=3s")
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			start := time.Now()
			err := db.PingContext(ctx)
			if err == nil {
				t.Fatal("ping through a handshake cut at its start succeeded")
			}
			var de *DialError
			if !errors.As(err, &de) {
				t.Errorf("error %T %v, want a *DialError", err, err)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("error took %v", d)
			}
			selectOne(t, db)
			db.Close()
			p.Close()
			settleGoroutines(t, base)
		})
	}
}

// TestFaultIdleConnsDropped drops every idle pooled connection, as a server restart does: the
// next queries must succeed on new connections (the dead ones are found before anything is sent
// on them, so database/sql retries).
func TestFaultIdleConnsDropped(t *testing.T) {
	serverAddr(t)
	for _, restart := range []bool{false, true} {
		t.Run(fmt.Sprintf("portDown=%v", restart), func(t *testing.T) {
			base := runtime.NumGoroutine()
			p := newProxy(t)
			db := openAt(t, []string{p.Addr()})
			db.SetMaxIdleConns(4)
			fillPool(t, db, 4)
			if st := db.Stats(); st.Idle != 4 {
				t.Fatalf("%d idle connections, want 4", st.Idle)
			}
			if restart {
				p.Down() // server gone: dials are refused
				time.Sleep(50 * time.Millisecond)
				proxyUp(t, p) // and back
			} else {
				p.DropAll()
			}
			time.Sleep(50 * time.Millisecond) // let the FINs arrive
			for i := 0; i < 8; i++ {
				selectOne(t, db)
			}
			db.Close()
			p.Close()
			settleGoroutines(t, base)
		})
	}
}

// fillPool opens n connections at once and returns them to the pool.
func fillPool(t testing.TB, db *sql.DB, n int) {
	t.Helper()
	ctx := context.Background()
	conns := make([]*sql.Conn, n)
	for i := range conns {
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.PingContext(ctx); err != nil {
			t.Fatal(err)
		}
		conns[i] = c
	}
	for _, c := range conns {
		c.Close()
	}
}

// TestFaultCutMidInsert cuts a batched insert between blocks and inside a block, and a
// one-statement insert before and after the server has the data: the caller gets an error and
// the rows are never inserted twice.
func TestFaultCutMidInsert(t *testing.T) {
	serverAddr(t)
	direct := openDB(t)
	for _, tc := range []struct {
		name string
		cut  int64 // bytes of the second block before the cut
	}{{"betweenBlocks", 0}, {"insideBlock", 3_000}} {
		t.Run(tc.name, func(t *testing.T) {
			table := createTable(t, direct, "fault_ins", "id UInt64, s String")
			base := runtime.NumGoroutine()
			p := newProxy(t)
			// insert_retries=0: the cut insert fails rather than being resumed on a new
			// connection, which into this MergeTree table (no deduplication) could insert the
			// first block twice (see InsertUnconfirmedError; insert_retry_test.go tests the retry).
			db := openAt(t, []string{p.Addr()}, "insert_block_rows=1000", "insert_retries=0")
			db.SetMaxOpenConns(1)
			tx, err := db.Begin()
			if err != nil {
				t.Fatal(err)
			}
			st, err := tx.Prepare("INSERT INTO " + table + " (id, s)")
			if err != nil {
				t.Fatal(err)
			}
			var failed error
			for i := 0; i < 3_000 && failed == nil; i++ {
				if i == 1_000 { // the first block is out
					p.CutAfter(faketest.Up, tc.cut)
				}
				_, failed = st.Exec(uint64(i), "some text to make the block longer")
			}
			if err := tx.Commit(); err != nil && failed == nil {
				failed = err
			}
			if failed == nil {
				t.Fatal("insert through a cut connection reported success")
			}
			t.Logf("error: %v", failed)
			selectOne(t, db)
			n := count(t, direct, table)
			if n != 0 && n != 1_000 {
				t.Fatalf("%d rows after the cut insert, want 0 or 1000 (the first block only)", n)
			}
			db.Close()
			p.Close()
			settleGoroutines(t, base)
		})
	}

	t.Run("oneStatement", func(t *testing.T) {
		table := createTable(t, direct, "fault_ins1", "id UInt64")
		base := runtime.NumGoroutine()
		p := newProxy(t)
		db := openAt(t, []string{p.Addr()}, "insert_retries=0") // as above
		db.SetMaxOpenConns(1)
		selectOne(t, db)
		ins := "INSERT INTO " + table + " (id) VALUES (?)"
		up := p.Bytes(faketest.Up)
		if _, err := db.Exec(ins, 1); err != nil {
			t.Fatal(err)
		}
		sent := p.Bytes(faketest.Up) - up // the query, the data block and the empty block ending it
		// The server gets the whole insert, but the connection is closed before its confirmation
		// (EndOfStream) reaches the client: an error, and no retry. The cut is counted in what the
		// client sends, the same bytes for each row here, not in the server's answer: 26.7's
		// confirmation carries ProfileEvents, whose size changes with their counters from one
		// insert to the next (and 18.16's is the EndOfStream byte alone, right after the header).
		p.CutAfter(faketest.Up, sent)
		if _, err := db.Exec(ins, 2); err == nil {
			t.Fatal("insert whose confirmation was cut reported success")
		} else {
			t.Logf("cut before EndOfStream: %v", err)
		}
		// The query never reaches the server: cut on a fresh, established connection.
		if !p.WaitConns(0, 5*time.Second) {
			t.Fatal("the broken connection is still open")
		}
		selectOne(t, db)
		p.CutAfter(faketest.Up, 0)
		if _, err := db.Exec(ins, 3); err == nil {
			t.Fatal("insert whose query was cut reported success")
		} else {
			t.Logf("cut before the query: %v", err)
		}
		selectOne(t, db)
		var n2, n3 int
		if err := direct.QueryRow("SELECT countIf(id = 2), countIf(id = 3) FROM "+table).Scan(&n2, &n3); err != nil {
			t.Fatal(err)
		}
		if n2 > 1 || n3 > 1 {
			t.Fatalf("row 2 inserted %d times, row 3 %d times: an insert was sent twice", n2, n3)
		}
		t.Logf("row 2 inserted %d time(s), row 3 %d time(s)", n2, n3)
		db.Close()
		p.Close()
		settleGoroutines(t, base)
	})
}

// TestFaultStalledServer stalls the proxy: read_timeout and context deadlines must end the wait,
// and a stuck handshake (TLS or native) must time out with dial_timeout.
func TestFaultStalledServer(t *testing.T) {
	serverAddr(t)
	t.Run("readTimeout", func(t *testing.T) {
		base := runtime.NumGoroutine()
		p := newProxy(t)
		// read_retries=0: the timeout is the caller's error, not retried on a new connection
		// through the same stalled proxy (which would time out again).
		db := openAt(t, []string{p.Addr()}, "read_timeout=500ms", "read_retries=0")
		db.SetMaxOpenConns(1)
		selectOne(t, db)
		p.Stall(true)
		start := time.Now()
		_, err := drainQuery(context.Background(), db, bigQuery(10))
		d := time.Since(start)
		if err == nil {
			t.Fatal("query through a stalled server succeeded")
		}
		if d > 3*time.Second {
			t.Fatalf("read_timeout=500ms fired after %v", d)
		}
		t.Logf("after %v: %v", d, err)
		p.Stall(false)
		selectOne(t, db)
		db.Close()
		p.Close()
		settleGoroutines(t, base)
	})
	t.Run("contextDeadline", func(t *testing.T) {
		base := runtime.NumGoroutine()
		p := newProxy(t)
		db := openAt(t, []string{p.Addr()})
		db.SetMaxOpenConns(1)
		selectOne(t, db)
		p.Stall(true)
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := drainQuery(ctx, db, bigQuery(10))
		d := time.Since(start)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("error %v, want context.DeadlineExceeded", err)
		}
		if d > 3*time.Second {
			t.Fatalf("a 300ms deadline fired after %v", d)
		}
		p.Stall(false)
		selectOne(t, db)
		db.Close()
		p.Close()
		settleGoroutines(t, base)
	})
	for _, secure := range []bool{false, true} {
		t.Run(fmt.Sprintf("stuckHandshake/secure=%v", secure), func(t *testing.T) {
			base := runtime.NumGoroutine()
			p := newProxy(t)
			p.SetMode(faketest.Blackhole)
			params := []string{"dial_timeout=500ms"}
			if secure {
				params = append(params, "secure=true", "skip_verify=true")
			}
			db := openAt(t, []string{p.Addr()}, params...)
			start := time.Now()
			err := db.Ping()
			d := time.Since(start)
			if err == nil {
				t.Fatal("ping of a server that never answers succeeded")
			}
			if d > 3*time.Second {
				t.Fatalf("dial_timeout=500ms fired after %v", d)
			}
			t.Logf("after %v: %v", d, err)
			db.Close()
			p.Close()
			settleGoroutines(t, base)
		})
	}
}

// TestFaultCancelMidStream cancels a running SELECT: the server must stop it and the connection
// must come back clean or not at all.
func TestFaultCancelMidStream(t *testing.T) {
	monitor := openDB(t)
	for _, how := range []string{"cancel", "close"} {
		t.Run(how, func(t *testing.T) {
			base := runtime.NumGoroutine()
			db := openDB(t)
			db.SetMaxOpenConns(1)
			id := fmt.Sprintf("chnative-fault-%s-%d", how, time.Now().UnixNano())
			ctx, cancel := context.WithCancel(WithQueryID(context.Background(), id))
			defer cancel()
			rows, err := db.QueryContext(ctx, bigQuery(200_000_000))
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for n < 20_000 && rows.Next() {
				n++
			}
			if !processRunning(t, monitor, id) {
				t.Fatalf("query %s not in system.processes while streaming", id)
			}
			start := time.Now()
			if how == "cancel" {
				cancel()
				for rows.Next() { // database/sql closes the rows once it sees ctx done
					n++
				}
				if err := rows.Err(); !errors.Is(err, context.Canceled) {
					t.Errorf("rows.Err() = %v, want context.Canceled", err)
				}
			}
			rows.Close()
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("cancel took %v", d)
			}
			waitProcessGone(t, monitor, id, 10*time.Second)
			selectOne(t, db)
			db.Close()
			settleGoroutines(t, base)
		})
	}
}

// TestFaultCancelMidInsert cancels the context of a batched insert while blocks are flowing.
func TestFaultCancelMidInsert(t *testing.T) {
	monitor := openDB(t)
	table := createTable(t, monitor, "fault_cins", "id UInt64")
	base := runtime.NumGoroutine()
	db := openDB(t, "insert_block_rows=1000")
	db.SetMaxOpenConns(1)
	id := fmt.Sprintf("chnative-fault-insert-%d", time.Now().UnixNano())
	ctx, cancel := context.WithCancel(WithQueryID(context.Background(), id))
	defer cancel()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := tx.PrepareContext(ctx, "INSERT INTO "+table+" (id)")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3_500; i++ {
		if _, err := st.ExecContext(ctx, uint64(i)); err != nil {
			t.Fatal(err)
		}
	}
	if !processRunning(t, monitor, id) {
		t.Fatalf("insert %s not in system.processes", id)
	}
	cancel() // database/sql rolls the transaction back: the insert is cancelled
	if _, err := st.ExecContext(ctx, uint64(99_999)); err == nil {
		t.Error("exec after cancel succeeded")
	}
	if err := tx.Commit(); err == nil {
		t.Error("commit after cancel succeeded")
	}
	waitProcessGone(t, monitor, id, 10*time.Second)
	selectOne(t, db)
	n := count(t, monitor, table)
	if n != 0 && n != 3_000 {
		t.Fatalf("%d rows, want the 3000 sent in blocks (or none), never the buffered 500", n)
	}
	t.Logf("%d rows kept after the cancelled insert", n)
	db.Close()
	settleGoroutines(t, base)
}

// TestFaultMultiHostFailover runs queries on a two-host DSN while one host is down.
func TestFaultMultiHostFailover(t *testing.T) {
	serverAddr(t)
	base := runtime.NumGoroutine()
	p1, p2 := newProxy(t), newProxy(t)
	for _, strategy := range []string{"in_order", "round_robin"} {
		t.Run(strategy, func(t *testing.T) {
			db := openAt(t, []string{p1.Addr(), p2.Addr()}, "connection_open_strategy="+strategy, "dial_timeout=2s")
			db.SetMaxIdleConns(4)
			fillPool(t, db, 4)
			run := func(phase string, n int) {
				var wg sync.WaitGroup
				errs := make(chan error, n)
				for i := 0; i < n; i++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						var v uint8
						if err := db.QueryRow("SELECT toUInt8(42)").Scan(&v); err != nil {
							errs <- fmt.Errorf("%s: %w", phase, err)
						}
					}()
					if i%4 == 3 {
						wg.Wait()
					}
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					t.Error(err)
				}
			}
			run("both up", 8)
			p1.Down()
			run("first down", 16)
			proxyUp(t, p1)
			p2.Down()
			run("second down", 16)
			proxyUp(t, p2)
			db.Close()
		})
	}
	p1.Close()
	p2.Close()
	settleGoroutines(t, base)
}
