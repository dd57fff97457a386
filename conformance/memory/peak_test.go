package memory

import (
	"context"
	"database/sql"
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ClickHouse/ch-go"
	"github.com/ClickHouse/ch-go/proto"

	"github.com/chnative/chnative"
)

// The peak heap of the suite's read and insert workloads: 1M (UInt64, String) rows read per
// tier and inserted per API, for the three clients, on one connection. The peak is the most heap
// in live and not yet swept objects seen by a sampler every millisecond (runtime/metrics, which
// does not stop the world), minus the heap before the workload; the GC's target (GOGC) makes it
// up to twice the live memory, the same for every client.

const (
	peakRows  = 1_000_000
	peakQuery = "SELECT number, toString(number) AS s FROM numbers(1000000)"
)

var heapSample = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}

func heapObjects() int64 {
	metrics.Read(heapSample)
	return int64(heapSample[0].Value.Uint64())
}

// peak runs work and returns the peak heap above the heap before it.
func peak(t *testing.T, work func() error) int64 {
	t.Helper()
	runtime.GC()
	runtime.GC()
	base := heapObjects()
	var top atomic.Int64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tk := time.NewTicker(time.Millisecond)
		defer tk.Stop()
		for {
			top.Store(max(top.Load(), heapObjects()))
			select {
			case <-stop:
				return
			case <-tk.C:
			}
		}
	}()
	err := work()
	close(stop)
	<-done
	top.Store(max(top.Load(), heapObjects()))
	if err != nil {
		t.Fatal(err)
	}
	return top.Load() - base
}

type peakRow struct {
	client, workload string
	bytes            int64
}

func readThroughRows(db *sql.DB) error {
	rows, err := db.Query(peakQuery)
	if err != nil {
		return err
	}
	defer rows.Close()
	var a uint64
	var s string
	n := 0
	for rows.Next() {
		if err := rows.Scan(&a, &s); err != nil {
			return err
		}
		n++
	}
	if n != peakRows {
		return fmt.Errorf("read %d rows", n)
	}
	return rows.Err()
}

func insertThroughStmt(db *sql.DB, table string) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	st, err := tx.Prepare("INSERT INTO " + table + " (n, s) VALUES (?, ?)")
	if err != nil {
		return err
	}
	for i := range peakRows {
		if _, err := st.Exec(uint64(i), "value"); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return st.Close()
}

// TestPeakHeap reports the peak heap of 1M-row reads and inserts per tier and client.
func TestPeakHeap(t *testing.T) {
	s := locate(t)
	ctx := context.Background()
	table := "memB_peak"
	{
		db := openDB(t, "chnative", s.dsn, 1)
		for _, q := range []string{"DROP TABLE IF EXISTS " + table, "CREATE TABLE " + table + " (n UInt64, s String) ENGINE = Null"} {
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		db.Close()
	}
	type pair struct {
		N uint64 `ch:"number"`
		S string `ch:"s"`
	}
	var out []peakRow
	// Each workload runs on a new connection (opened in the measured time), so that none reuses
	// the blocks another left.
	var db *sql.DB
	add := func(client, workload string, work func() error) {
		out = append(out, peakRow{client, workload, peak(t, func() error {
			db = openDB(t, "chnative", s.dsn, 1)
			defer db.Close()
			return work()
		})})
	}
	add("chnative", "read: Rows", func() error { return readThroughRows(db) })
	add("chnative", "read: QueryBlocks", func() error {
		return rawConn(db, func(c chnative.Conn) error {
			bl, err := c.QueryBlocks(ctx, peakQuery)
			if err != nil {
				return err
			}
			n := 0
			for bl.Next() {
				n += bl.Block().Rows()
			}
			if n != peakRows {
				return fmt.Errorf("read %d rows", n)
			}
			return bl.Close()
		})
	})
	add("chnative", "read: Select (structs, 1M kept)", func() error {
		return rawConn(db, func(c chnative.Conn) error {
			v, err := chnative.Select[pair](ctx, c, peakQuery)
			if err == nil && len(v) != peakRows {
				err = fmt.Errorf("read %d rows", len(v))
			}
			return err
		})
	})
	add("chnative", "insert: prepared statement", func() error { return insertThroughStmt(db, table) })
	add("chnative", "insert: Batch.Append", func() error {
		return rawConn(db, func(c chnative.Conn) error {
			b, err := c.PrepareBatch(ctx, "INSERT INTO "+table)
			if err != nil {
				return err
			}
			for i := range peakRows {
				if err := b.Append(uint64(i), "value"); err != nil {
					return err
				}
			}
			return b.Send()
		})
	})
	if othersSpeak(t, s) {
		addDB := func(workload string, work func(db *sql.DB) error) {
			out = append(out, peakRow{"clickhouse-go", workload, peak(t, func() error {
				cdb := chgoDB(s, false, 1)
				defer cdb.Close()
				return work(cdb)
			})})
		}
		addDB("read: Rows", readThroughRows)
		addDB("insert: prepared statement", func(db *sql.DB) error { return insertThroughStmt(db, table) })
		var c *ch.Client
		addCh := func(workload string, work func() error) {
			out = append(out, peakRow{"ch-go", workload, peak(t, func() error {
				c = dialChgo(t, s, ch.CompressionDisabled)
				defer c.Close()
				return work()
			})})
		}
		addCh("read: blocks", func() error {
			var a proto.ColUInt64
			var b proto.ColStr
			n := 0
			err := c.Do(ctx, ch.Query{Body: peakQuery, Result: proto.Results{{Name: "number", Data: &a}, {Name: "s", Data: &b}},
				OnResult: func(context.Context, proto.Block) error { n += a.Rows(); return nil }})
			if err == nil && n != peakRows {
				err = fmt.Errorf("read %d rows", n)
			}
			return err
		})
		addCh("insert: one Input block", func() error {
			var a proto.ColUInt64
			var b proto.ColStr
			for i := range peakRows {
				a.Append(uint64(i))
				b.Append("value")
			}
			return c.Do(ctx, ch.Query{Body: "INSERT INTO " + table + " VALUES", Input: proto.Input{{Name: "n", Data: &a}, {Name: "s", Data: &b}}})
		})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "peak heap of 1M (UInt64, String) rows, one new connection (MiB above the heap before), server %s\n", s.addr)
	fmt.Fprintf(&b, "| client | workload | peak heap |\n|---|---|---|\n")
	for _, r := range out {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", r.client, r.workload, mib(r.bytes))
	}
	t.Log("\n" + b.String())
}
