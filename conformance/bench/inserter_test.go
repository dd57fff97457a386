//go:build !benchcompare

package bench

import (
	"context"
	"database/sql"
	"fmt"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/chnative/chnative"
)

// BenchmarkInserter is a service's ingestion on the 26.7 server: 16 goroutines each write
// BENCH_INSERTER_ROWS events (default 1M; rowsN scales it) of (UInt64, DateTime64(3),
// LowCardinality(String), a String of ~100 bytes, Float64), by three clients:
//
//   - inserter: one chnative.Inserter shared by the 16 goroutines (its defaults: blocks of 100,000
//     rows, 2 senders), each goroutine calling Append per event; inserter-4MiB the same with
//     MaxBytes 4 MiB; inserter-struct and inserter-struct-4MiB the same with AppendStruct of one
//     event struct per goroutine, reused (as a service handing over its events would);
//   - clickhouse-go-batch: clickhouse-go's pattern, each goroutine PrepareBatch / Append /
//     Send every 10,000 rows on its own connection;
//   - chnative-batch: chnative's PrepareBatch used the same way.
//
// into a MergeTree table (what a service writes to; each insert is a part the server writes)
// and a Null table (the server keeps nothing: the clients' own costs). One op is the whole
// workload; it reports wall time per row, client CPU per row (this process's user+system), the
// server's CPU per row (serverCPU), the rows per second and the peak heap above the heap in use
// before (live heap objects, sampled every 2 ms). The async arms send with async_insert=1 and
// wait_for_async_insert=1: the server buffers the 10,000-row inserts and confirms once it wrote
// them.
//
// It runs only with BENCH_INSERTER=1 (run.sh's inserter step, into results/inserter.txt): one op
// writes 16M rows, too long for every round of the suite.
func BenchmarkInserter(b *testing.B) {
	if getenv("BENCH_INSERTER") != "1" {
		b.Skip("BENCH_INSERTER=1 runs it (conformance/bench/run.sh's inserter step)")
	}
	tg := modernT(b)
	per := rowsN(1_000_000)
	if v, err := strconv.Atoi(getenv("BENCH_INSERTER_ROWS")); err == nil && v > 0 {
		per = v
	}
	const G = 16
	db := openChnative(b, tg.addr, tg.user, tg.password, "none")
	db.SetMaxOpenConns(G + 2)
	db.SetMaxIdleConns(G + 2)
	chg := openClickhouseGo(b, tg.addr, tg.user, tg.password, "none", G)
	ctx := context.Background()
	for _, engine := range []string{"MergeTree", "Null"} {
		table := "chnative_bench.events_" + engine
		ddl := "CREATE TABLE " + table + " (id UInt64, ts DateTime64(3), kind LowCardinality(String), payload String, value Float64) ENGINE = " + engine
		if engine == "MergeTree" {
			ddl += " ORDER BY id"
		}
		for _, q := range []string{"CREATE DATABASE IF NOT EXISTS chnative_bench", "DROP TABLE IF EXISTS " + table, ddl} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				b.Fatal(err)
			}
		}
		query := "INSERT INTO " + table + " (id, ts, kind, payload, value)"
		arms := []struct {
			name string
			run  func() error
		}{
			{"inserter", func() error { return inserterArm(ctx, db, query, G, per, inserterConfig) }},
			{"inserter-4MiB", func() error { return inserterArm(ctx, db, query, G, per, leanConfig) }},
			{"inserter-struct", func() error { return inserterStructArm(ctx, db, query, G, per, inserterConfig) }},
			{"inserter-struct-4MiB", func() error { return inserterStructArm(ctx, db, query, G, per, leanConfig) }},
			{"clickhouse-go-batch", func() error { return chgoBatchArm(ctx, chg, query, G, per) }},
			{"chnative-batch", func() error { return chnativeBatchArm(ctx, db, query, G, per, chnative.Settings{"async_insert": "0"}) }},
			{"chnative-batch-async", func() error {
				return chnativeBatchArm(ctx, db, query, G, per, chnative.Settings{"async_insert": "1", "wait_for_async_insert": "1"})
			}},
			{"inserter-async", func() error {
				cfg := inserterConfig
				cfg.Async = true
				return inserterArm(ctx, db, query, G, per, cfg)
			}},
		}
		for _, arm := range arms {
			if engine == "Null" && (arm.name == "chnative-batch-async" || arm.name == "inserter-async") {
				continue // the async arms measure the server's buffering into a real table
			}
			b.Run(engine+"/"+arm.name, func(b *testing.B) {
				rows := G * per
				var wall, cpu, srv time.Duration
				var peak uint64
				n := 0
				for b.Loop() {
					b.StopTimer()
					if _, err := db.ExecContext(ctx, "TRUNCATE TABLE "+table); err != nil && engine != "Null" {
						b.Fatal(err)
					}
					runtime.GC()
					srv0 := serverCPU(b, db)
					b.StartTimer()
					w, c, p, err := measureIngest(arm.run)
					if err != nil {
						b.Fatal(err)
					}
					srv += serverCPU(b, db) - srv0
					wall, cpu, peak, n = wall+w, cpu+c, max(peak, p), n+1
					if engine == "MergeTree" {
						var got int
						if err := db.QueryRowContext(ctx, "SELECT count() FROM "+table).Scan(&got); err != nil || got != rows {
							b.Fatalf("%d rows in the table (%v), want %d", got, err, rows)
						}
					}
				}
				total := float64(n) * float64(rows)
				b.ReportMetric(float64(wall.Nanoseconds())/total, "ns/row")
				b.ReportMetric(float64(cpu.Nanoseconds())/total, "cpu-ns/row")
				b.ReportMetric(float64(srv.Nanoseconds())/total, "server-cpu-ns/row")
				b.ReportMetric(total/wall.Seconds(), "rows/s")
				b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
			})
		}
	}
}

// serverCPU returns the CPU time the server spent so far, its threads' user and system time
// (the inserts' and the merges' alike): the server shares this host's cores with the clients, so
// its CPU per row bounds every arm's throughput at cores / (server + client CPU per row).
func serverCPU(b *testing.B, db *sql.DB) time.Duration {
	var us int64
	err := db.QueryRowContext(context.Background(), "SELECT sum(value) FROM system.events WHERE event IN ('UserTimeMicroseconds', 'SystemTimeMicroseconds')").Scan(&us)
	if err != nil {
		b.Fatal(err)
	}
	return time.Duration(us) * time.Microsecond
}

// inserterConfig is the Inserter of issue 38's example (its defaults): a block every 100,000
// rows, 64 MiB or second. leanConfig bounds its blocks at 4 MiB of values (about 28,000 of these
// events): a third of the memory for four times the inserts.
var (
	inserterConfig = chnative.InserterConfig{MaxRows: 100_000, MaxBytes: 64 << 20, MaxDelay: time.Second}
	leanConfig     = chnative.InserterConfig{MaxRows: 100_000, MaxBytes: 4 << 20, MaxDelay: time.Second}
)

// measureIngest runs op and returns its wall time, this process's CPU time, and the peak of the
// live heap above what was live before.
func measureIngest(op func() error) (wall, cpu time.Duration, peak uint64, err error) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	heap := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	base := heap()
	stop := make(chan struct{})
	done := make(chan uint64)
	go func() {
		var p uint64
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			p = max(p, heap())
			select {
			case <-stop:
				done <- p
				return
			case <-t.C:
			}
		}
	}()
	cpu0, t0 := cpuNow(), time.Now()
	err = op()
	wall, cpu = time.Since(t0), cpuNow()-cpu0
	close(stop)
	p := <-done
	return wall, cpu, p - min(p, base), err
}

// event is the benchmark's row: the i-th event of goroutine g.
type event struct {
	id      uint64
	ts      time.Time
	kind    string
	payload string
	value   float64
}

var (
	eventKinds    = []string{"click", "view", "purchase", "signup", "logout", "search", "share", "error"}
	eventPayloads = func() []string {
		p := make([]string, 256)
		for i := range p {
			s := fmt.Sprintf("payload %03d: ", i)
			for len(s) < 100 {
				s += strconv.Itoa(i*7919 + len(s))
			}
			p[i] = s[:100]
		}
		return p
	}()
	eventEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
)

func makeEvent(g, i, per int) event {
	n := g*per + i
	return event{id: uint64(n), ts: eventEpoch.Add(time.Duration(n) * time.Millisecond),
		kind: eventKinds[n&7], payload: eventPayloads[n&255], value: float64(n) * 0.5}
}

// parallel runs fn(g) for g in [0, G) and returns the first error.
func parallel(G int, fn func(g int) error) error {
	errs := make([]error, G)
	var wg sync.WaitGroup
	for g := range G {
		wg.Go(func() { errs[g] = fn(g) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func inserterArm(ctx context.Context, db *sql.DB, query string, G, per int, cfg chnative.InserterConfig) error {
	ins, err := chnative.NewInserter(db, query, cfg)
	if err != nil {
		return err
	}
	err = parallel(G, func(g int) error {
		for i := range per {
			e := makeEvent(g, i, per)
			if err := ins.Append(ctx, e.id, e.ts, e.kind, e.payload, e.value); err != nil {
				return err
			}
		}
		return nil
	})
	if cerr := ins.Close(ctx); err == nil {
		err = cerr
	}
	return err
}

// structEvent is event as a service hands it to Inserter.AppendStruct.
type structEvent struct {
	ID      uint64    `ch:"id"`
	TS      time.Time `ch:"ts"`
	Kind    string    `ch:"kind"`
	Payload string    `ch:"payload"`
	Value   float64   `ch:"value"`
}

func inserterStructArm(ctx context.Context, db *sql.DB, query string, G, per int, cfg chnative.InserterConfig) error {
	ins, err := chnative.NewInserter(db, query, cfg)
	if err != nil {
		return err
	}
	err = parallel(G, func(g int) error {
		var ev structEvent // reused: AppendStruct reads it in place
		for i := range per {
			e := makeEvent(g, i, per)
			ev = structEvent{ID: e.id, TS: e.ts, Kind: e.kind, Payload: e.payload, Value: e.value}
			if err := ins.AppendStruct(ctx, &ev); err != nil {
				return err
			}
		}
		return nil
	})
	if cerr := ins.Close(ctx); err == nil {
		err = cerr
	}
	return err
}

const batchRows = 10_000

func chgoBatchArm(ctx context.Context, c clickhouse.Conn, query string, G, per int) error {
	// Synchronous inserts, as the other arms' (26.7 defaults to async_insert=1; the test server,
	// clickhouse-local, runs no async queue either way).
	ctx = clickhouse.Context(ctx, clickhouse.WithSettings(clickhouse.Settings{"async_insert": 0}))
	return parallel(G, func(g int) error {
		for i := 0; i < per; {
			batch, err := c.PrepareBatch(ctx, query)
			if err != nil {
				return err
			}
			for end := min(i+batchRows, per); i < end; i++ {
				e := makeEvent(g, i, per)
				if err := batch.Append(e.id, e.ts, e.kind, e.payload, e.value); err != nil {
					return err
				}
			}
			if err := batch.Send(); err != nil {
				return err
			}
		}
		return nil
	})
}

func chnativeBatchArm(ctx context.Context, db *sql.DB, query string, G, per int, set chnative.Settings) error {
	if set != nil {
		ctx = chnative.WithSettings(ctx, set)
	}
	return parallel(G, func(g int) error {
		conn, err := db.Conn(ctx)
		if err != nil {
			return err
		}
		defer conn.Close()
		return conn.Raw(func(dc any) error {
			c := dc.(chnative.Conn)
			for i := 0; i < per; {
				batch, err := c.PrepareBatch(ctx, query)
				if err != nil {
					return err
				}
				for end := min(i+batchRows, per); i < end; i++ {
					e := makeEvent(g, i, per)
					if err := batch.Append(e.id, e.ts, e.kind, e.payload, e.value); err != nil {
						batch.Abort()
						return err
					}
				}
				if err := batch.SendContext(ctx); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

// BenchmarkInserterAsyncLatency is what the server's buffering costs one insert on the 26.7
// server: one goroutine inserting 100 events at a time through PrepareBatch/Send into the
// MergeTree table, synchronously, with async_insert=1 and wait_for_async_insert=1 (the server
// answers once its buffer was written: after async_insert_busy_timeout), and with
// wait_for_async_insert=0 (it answers on receipt). An op is 20 inserts; ms/insert is one's
// latency.
// With BENCH_INSERTER=1 only, after BenchmarkInserter (whose MergeTree table it uses).
func BenchmarkInserterAsyncLatency(b *testing.B) {
	if getenv("BENCH_INSERTER") != "1" {
		b.Skip("BENCH_INSERTER=1 runs it (conformance/bench/run.sh's inserter step)")
	}
	tg := modernT(b)
	db := openChnative(b, tg.addr, tg.user, tg.password, "none")
	ctx := context.Background()
	table := "chnative_bench.events_async"
	for _, q := range []string{"CREATE DATABASE IF NOT EXISTS chnative_bench", "DROP TABLE IF EXISTS " + table,
		"CREATE TABLE " + table + " (id UInt64, ts DateTime64(3), kind LowCardinality(String), payload String, value Float64) ENGINE = MergeTree ORDER BY id"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	query := "INSERT INTO " + table + " (id, ts, kind, payload, value)"
	for _, mode := range []struct {
		name string
		set  chnative.Settings
	}{
		{"sync", chnative.Settings{"async_insert": "0"}}, // 26.7's default is 1
		{"async-wait", chnative.Settings{"async_insert": "1", "wait_for_async_insert": "1"}},
		{"async-nowait", chnative.Settings{"async_insert": "1", "wait_for_async_insert": "0"}},
	} {
		b.Run(mode.name, func(b *testing.B) {
			ictx := ctx
			if mode.set != nil {
				ictx = chnative.WithSettings(ctx, mode.set)
			}
			conn, err := db.Conn(ctx)
			if err != nil {
				b.Fatal(err)
			}
			defer conn.Close()
			queued := asyncInsertEvents(b, db)
			const inserts = 20 // an op: one insert is too short a sample at -benchtime 1x
			i := 0
			var spent time.Duration
			n := 0
			for b.Loop() {
				t0 := time.Now()
				for range inserts {
					if err := insert100(ictx, conn, query, &i); err != nil {
						b.Fatal(err)
					}
				}
				spent += time.Since(t0)
				n += inserts
			}
			b.ReportMetric(float64(spent.Microseconds())/1000/float64(n), "ms/insert")
			// How many of them the server's async insert queue took (its AsyncInsertQuery
			// event): 0 where the server runs no queue (26.7 as clickhouse-local, chDB).
			b.ReportMetric(float64(asyncInsertEvents(b, db)-queued)/float64(n), "queued/insert")
		})
	}
}

// insert100 inserts the next 100 events (from *i) in one insert on conn.
func insert100(ctx context.Context, conn *sql.Conn, query string, i *int) error {
	return conn.Raw(func(dc any) error {
		batch, err := dc.(chnative.Conn).PrepareBatch(ctx, query)
		if err != nil {
			return err
		}
		for range 100 {
			e := makeEvent(0, *i, 1<<40)
			*i++
			if err := batch.Append(e.id, e.ts, e.kind, e.payload, e.value); err != nil {
				batch.Abort()
				return err
			}
		}
		return batch.SendContext(ctx)
	})
}

// asyncInsertEvents returns the server's AsyncInsertQuery event count (0 when it has none).
func asyncInsertEvents(b *testing.B, db *sql.DB) int64 {
	var n int64
	err := db.QueryRowContext(context.Background(), "SELECT sum(value) FROM system.events WHERE event = 'AsyncInsertQuery'").Scan(&n)
	if err != nil {
		b.Fatal(err)
	}
	return n
}
