package chnative

import (
	"context"
	"database/sql/driver"
	"io"
	"strconv"
	"testing"

	"github.com/chnative/chnative/nativeproto"
)

// The block a result's read-ahead decoded into is kept by the connection for the next result's
// read-ahead (its columns keep their capacity), and never aliases the connection's other reused
// blocks, through inserts, early closes and totals in between.
func TestReadAheadBlockReused(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	if _, err := db.Exec("CREATE TABLE IF NOT EXISTS ahead_reuse (n UInt64, s String) ENGINE = Memory"); err != nil {
		t.Fatal(err)
	}
	sc, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	const n = 200000
	query := "SELECT number, toString(number) FROM system.numbers LIMIT " + strconv.Itoa(n) + " SETTINGS max_block_size = 65536"
	err = sc.Raw(func(dc any) error {
		c := dc.(*conn)
		// read runs query through Next, stopping after stop rows (all when stop is n), and returns
		// the block the read-ahead decoded into.
		read := func(stop int, totals bool) *nativeproto.Block {
			t.Helper()
			q := query
			if totals {
				q = "SELECT number % 3 AS k, toString(count()) FROM (SELECT number FROM system.numbers LIMIT " + strconv.Itoa(n) +
					") GROUP BY k WITH TOTALS ORDER BY k SETTINGS max_block_size = 65536"
			}
			drs, err := c.QueryContext(ctx, q, nil)
			if err != nil {
				t.Fatal(err)
			}
			r := drs.(*rows)
			dest := make([]driver.Value, 2)
			var spare *nativeproto.Block
			i := 0
			for ; i < stop; i++ {
				if err := r.Next(dest); err == io.EOF {
					break
				} else if err != nil {
					t.Fatal(err)
				}
				if spare == nil {
					spare = r.spare
				}
				if !totals && (dest[0].(uint64) != uint64(i) || dest[1].(string) != strconv.Itoa(i)) {
					t.Fatalf("row %d read as %v %v", i, dest[0], dest[1])
				}
			}
			if !totals && stop >= n && i != n {
				t.Fatalf("%d rows, want %d", i, n)
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			return spare
		}
		distinct := func(when string) {
			t.Helper()
			if c.aheadReuse == nil {
				t.Fatalf("%s: no block kept for the next read-ahead", when)
			}
			if c.aheadReuse == c.readReuse || c.aheadReuse == c.insertReuse {
				t.Fatalf("%s: the read-ahead's block aliases the connection's read or insert block", when)
			}
		}
		read(n, false)
		distinct("after a full result")
		kept := c.aheadReuse
		if spare := read(n, false); spare != kept {
			t.Fatal("the next result's read-ahead did not decode into the kept block")
		}
		distinct("after the second result")

		bt, err := c.PrepareBatch(ctx, "INSERT INTO ahead_reuse VALUES")
		if err != nil {
			t.Fatal(err)
		}
		for i := range 1000 {
			if err := bt.Append(uint64(i), strconv.Itoa(i)); err != nil {
				t.Fatal(err)
			}
		}
		if err := bt.Send(); err != nil {
			t.Fatal(err)
		}
		read(n, false)
		distinct("after an insert")
		read(70000, false) // closed early: cancelled and drained
		distinct("after an early close")
		read(n, true)
		read(n, false)
		distinct("after a result with totals")

		// A result that fails after some of its blocks were read: its blocks are not kept, and
		// the next result reads right and keeps one again. The failure is in the 24th block of
		// 8192 rows, not the third of 65536: 26.7 computes blocks ahead of the one it sends and
		// drops those it holds when an exception interrupts the query, and with the failure in the
		// third block it sometimes sent none of the result (18.16 sent the first two every time).
		// Its pipeline holds only a few blocks ahead of the sending, so the first of 24 have gone.
		drs, err := c.QueryContext(ctx, "SELECT throwIf(number = 190000) FROM system.numbers LIMIT "+strconv.Itoa(n)+
			" SETTINGS max_block_size = 8192", nil)
		if err != nil {
			t.Fatal(err)
		}
		dest := make([]driver.Value, 1)
		got := 0
		for err == nil {
			if err = drs.Next(dest); err == nil {
				got++
			}
		}
		if err == io.EOF {
			t.Fatal("the failing query ended without its error")
		}
		_ = drs.Close()
		if got < aheadMinRows {
			t.Fatalf("the failing result gave %d rows before its error: too few for a read-ahead, which this checks", got)
		}
		if c.aheadReuse != nil {
			t.Fatal("a block of a failed result was kept")
		}
		read(n, false)
		distinct("after a failed result")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
