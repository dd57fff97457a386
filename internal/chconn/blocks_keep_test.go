package chconn

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/chnative/chnative/nativeproto"
)

// wideQuery's blocks are tens of MB (1 KB strings, 65,409 rows a block): far above the
// default block_keep_bytes.
// (A literal rather than repeat(), which ClickHouse 18.16 lacks.)
var wideQuery = "SELECT concat('" + strings.Repeat("x", 1024) + "', toString(number)) AS s FROM numbers(200000)"

// heapInUse returns the heap in use after two GCs.
func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// idleBound is what a connection may keep between queries in these tests: its three kept
// blocks at block_keep_bytes each, and a MiB for its buffers and state.
func idleBound(c *Conn) int64 { return int64(numRoles)*int64(c.cfg.BlockKeepBytes) + 1<<20 }

// After a result of big blocks ends (read to its end, or closed early), the connection keeps no
// block above block_keep_bytes; a small query's blocks stay kept and are reused.
func TestBlocksAboveKeepBytesNotKept(t *testing.T) {
	for _, tc := range []struct {
		name  string
		early bool // Close after the first block instead of reading to the end
		ahead bool // start the read-ahead at each block, as the root's rows do
	}{{"end", false, false}, {"end-ahead", false, true}, {"close-early", true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			c := dialTest(t)
			ctx := context.Background()
			before := heapInUse()
			res, err := c.Query(ctx, wideQuery, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.ahead {
				res.StartAhead(nil)
			}
			for {
				_, _, err := res.Next()
				if err != nil {
					break
				}
				if tc.early {
					break
				}
				if tc.ahead {
					res.StartAhead(nil)
				}
			}
			if err := res.Close(); err != nil {
				t.Fatal(err)
			}
			c.AwaitDrain()
			if !c.IsValid() {
				t.Fatal("connection not valid after the query")
			}
			res = nil
			if n, max := heapInUse()-before, idleBound(c); n > max {
				t.Errorf("the connection keeps %d bytes of heap after a wide result, want <= %d", n, max)
			}
			for r, b := range c.blocks.roles {
				if got := b.Retained(1 << 62); got > int64(c.cfg.BlockKeepBytes) {
					t.Errorf("role %d keeps a block of %d bytes, above block_keep_bytes %d", r, got, c.cfg.BlockKeepBytes)
				}
			}
			// A small result's blocks are kept, and the next one decodes into them.
			small := "SELECT number, toString(number) FROM numbers(5000)"
			readSmall := func() *nativeproto.Block {
				res, err := c.Query(ctx, small, nil)
				if err != nil {
					t.Fatal(err)
				}
				first := res.Block()
				readAll(t, res, 1<<30, nil)
				return first
			}
			b1 := readSmall()
			b2 := readSmall()
			if b1 != b2 {
				t.Errorf("a small result's block was not reused by the next query")
			}
		})
	}
}

// An insert of wide rows ends with its block, above block_keep_bytes, no longer kept.
func TestInsertBlockAboveKeepBytesNotKept(t *testing.T) {
	c := dialTest(t)
	ctx := context.Background()
	before := heapInUse()
	if err := c.Exec(ctx, "", "CREATE TABLE IF NOT EXISTS memB_keep (s String) ENGINE = Null", nil); err != nil {
		t.Fatal(err)
	}
	ins, err := c.OpenInsert(ctx, "INSERT INTO memB_keep (s) VALUES", nil, true)
	if err != nil {
		t.Fatal(err)
	}
	v := strings.Repeat("y", 1024)
	for range 20_000 {
		if err := ins.Append([]any{v}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ins.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	ins = nil
	if n, max := heapInUse()-before, idleBound(c); n > max {
		t.Errorf("the connection keeps %d bytes of heap after a wide insert, want <= %d", n, max)
	}
	if b := c.blocks.get(roleInsert); b != nil && b.Retained(1<<62) > int64(c.cfg.BlockKeepBytes) {
		t.Errorf("the insert block of %d bytes is still kept", b.Retained(1<<62))
	}
}
