package chconn

import (
	"context"
	"io"
	"strconv"
	"testing"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/dsn"
	"github.com/chnative/chnative/internal/testenv"
	"github.com/chnative/chnative/nativeproto"
)

// The block a result's read-ahead decoded into is kept by the connection for the next result's
// read-ahead (its columns keep their capacity), and never aliases the connection's other reused
// blocks, through inserts, early closes and totals in between.
// dialTest opens a connection to the test server (internal/testenv's DSN).
func dialTest(t *testing.T, set ...func(*dsn.Config)) *Conn {
	t.Helper()
	cfg, err := dsn.Parse(testenv.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range set {
		f(cfg)
	}
	c, err := Dial(context.Background(), cfg, cfg.Addrs[0], Dialer{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// readAll reads res to its end (or stop rows) the way the root's rows do: block by block,
// starting the read-ahead at each block's first row, and returns the rows read and the spare
// block the read-ahead decoded into first.
func readAll(t *testing.T, res *Result, stop int, check func(b *nativeproto.Block, row, i int)) (int, *nativeproto.Block) {
	t.Helper()
	var spare *nativeproto.Block
	i := 0
	b := res.Block()
	for i < stop {
		if b == nil || b.Rows() == 0 {
			var err error
			if b, _, err = res.Next(); err == io.EOF {
				break
			} else if err != nil {
				t.Fatal(err)
			}
			continue
		}
		res.StartAhead(nil)
		if spare == nil {
			spare = res.spare
		}
		for row := 0; row < b.Rows() && i < stop; row++ {
			if check != nil {
				check(b, row, i)
			}
			i++
		}
		if i >= stop {
			break
		}
		var err error
		if b, _, err = res.Next(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	return i, spare
}

func TestReadAheadBlockReused(t *testing.T) {
	c := dialTest(t)
	ctx := context.Background()
	if err := c.Exec(ctx, "", "CREATE TABLE IF NOT EXISTS ahead_reuse (n UInt64, s String) ENGINE = Memory", nil); err != nil {
		t.Fatal(err)
	}
	const n = 200000
	query := "SELECT number, toString(number) FROM system.numbers LIMIT " + strconv.Itoa(n) + " SETTINGS max_block_size = 65536"
	{
		// read runs query through Next, stopping after stop rows (all when stop is n), and returns
		// the block the read-ahead decoded into.
		read := func(stop int, totals bool) *nativeproto.Block {
			t.Helper()
			q := query
			if totals {
				q = "SELECT number % 3 AS k, toString(count()) FROM (SELECT number FROM system.numbers LIMIT " + strconv.Itoa(n) +
					") GROUP BY k WITH TOTALS ORDER BY k SETTINGS max_block_size = 65536"
			}
			r, err := c.Query(ctx, q, nil)
			if err != nil {
				t.Fatal(err)
			}
			i, spare := readAll(t, r, stop, func(b *nativeproto.Block, row, i int) {
				if totals {
					return
				}
				v0 := b.Column(0).(*columns.UInt64).Values()[row]
				v1 := b.Column(1).(*columns.String).Value(row)
				if v0 != uint64(i) || v1 != strconv.Itoa(i) {
					t.Fatalf("row %d read as %v %v", i, v0, v1)
				}
			})
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
			k := &c.blocks.roles
			if k[roleAhead] == nil {
				t.Fatalf("%s: no block kept for the next read-ahead", when)
			}
			if k[roleAhead] == k[roleRead] || k[roleAhead] == k[roleInsert] {
				t.Fatalf("%s: the read-ahead's block aliases the connection's read or insert block", when)
			}
		}
		read(n, false)
		distinct("after a full result")
		kept := c.blocks.roles[roleAhead]
		if spare := read(n, false); spare != kept {
			t.Fatal("the next result's read-ahead did not decode into the kept block")
		}
		distinct("after the second result")

		bt, err := c.OpenInsert(ctx, "INSERT INTO ahead_reuse VALUES", nil, true)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 1000 {
			if err := bt.Append(context.Background(), []any{uint64(i), strconv.Itoa(i)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := bt.finish(ctx); err != nil {
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
		drs, err := c.Query(ctx, "SELECT throwIf(number = 190000) FROM system.numbers LIMIT "+strconv.Itoa(n)+
			" SETTINGS max_block_size = 8192", nil)
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		for b := drs.Block(); err == nil; b, _, err = drs.Next() {
			got += b.Rows()
			drs.StartAhead(nil)
		}
		if err == io.EOF {
			t.Fatal("the failing query ended without its error")
		}
		_ = drs.Close()
		if got < aheadMinRows {
			t.Fatalf("the failing result gave %d rows before its error: too few for a read-ahead, which this checks", got)
		}
		if c.blocks.roles[roleAhead] != nil {
			t.Fatal("a block of a failed result was kept")
		}
		read(n, false)
		distinct("after a failed result")
	}
}
