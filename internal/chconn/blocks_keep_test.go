package chconn

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/chnative/chnative/dsn"
	"github.com/chnative/chnative/internal/testenv"
	"github.com/chnative/chnative/nativeproto"
)

// wideQuery's blocks are tens of MB (1 KB strings, 65,409 rows a block): far above the
// default block_keep_bytes.
// (A literal rather than repeat(), which ClickHouse 18.16 lacks.)
var wideQuery = "SELECT concat('" + strings.Repeat("x", 1024) + "', toString(number)) AS s FROM numbers(200000)"

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
			before := testenv.HeapInUse()
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
			c.awaitDrain()
			if !c.IsValid() {
				t.Fatal("connection not valid after the query")
			}
			res = nil
			if n, max := testenv.HeapInUse()-before, idleBound(c); n > max {
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

// An insert of wide rows ends with its block, above block_keep_bytes, no longer kept, and with
// the packet writer's buffers (grown by compressed blocks) given back.
func TestInsertBlockAboveKeepBytesNotKept(t *testing.T) {
	for _, comp := range []dsn.Compression{dsn.CompressionNone, dsn.CompressionLZ4} {
		t.Run(comp.String(), func(t *testing.T) {
			before := testenv.HeapInUse()
			c := dialTest(t, func(cfg *dsn.Config) { cfg.Compress = comp })
			bigInsert(t, c, 20_000)
			if b := c.blocks.roles[roleInsert]; b != nil && b.Retained(1<<62) > int64(c.cfg.BlockKeepBytes) {
				t.Errorf("the insert block of %d bytes is still kept", b.Retained(1<<62))
			}
			if n, max := testenv.HeapInUse()-before, idleBound(c); n > max {
				t.Errorf("the connection keeps %d bytes of heap after a wide insert, want <= %d", n, max)
			}
		})
	}
}

// A result that fails after big blocks (a server exception mid-stream) leaves the connection in
// sync; by the time it goes back to the pool (IsValid) it keeps no block above block_keep_bytes.
func TestBlocksKeptBoundedAfterException(t *testing.T) {
	c := dialTest(t)
	ctx := context.Background()
	before := testenv.HeapInUse()
	q := strings.Replace(wideQuery, " AS s ", " AS s, throwIf(number = 150000) AS t ", 1)
	res, err := c.Query(ctx, q, &Options{Settings: map[string]string{"max_block_size": "20000"}})
	if err != nil {
		t.Fatal(err)
	}
	big := 0
	for {
		b, _, err := res.Next()
		if err != nil {
			var ex *Exception
			if !errors.As(err, &ex) {
				t.Fatalf("the result ended with %v, want a server exception", err)
			}
			break
		}
		if b.Rows() > 0 {
			big++
		}
		res.StartAhead(nil)
	}
	if big == 0 {
		t.Fatal("the exception came before any block: the test tests nothing")
	}
	_ = res.Close()
	res = nil
	if !c.IsValid() {
		t.Fatal("the connection is not valid after a server exception")
	}
	if n, max := testenv.HeapInUse()-before, idleBound(c); n > max {
		t.Errorf("the connection keeps %d bytes of heap after a result that failed, want <= %d", n, max)
	}
}

// After a big LZ4 result (decompress-ahead engaged: a 4 MiB socket buffer and three frame
// buffers), the connection gives those buffers back: it keeps its usual ones only.
func TestBuffersShrinkAfterCompressedResult(t *testing.T) {
	cfg, err := dsn.Parse(testenv.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Compress = dsn.CompressionLZ4
	before := testenv.HeapInUse()
	c, err := Dial(context.Background(), cfg, cfg.Addrs[0], Dialer{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.Query(context.Background(), "SELECT number, toString(number) FROM numbers(2000000)", nil)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := readAll(t, res, 1<<30, nil)
	if n != 2_000_000 {
		t.Fatalf("read %d rows", n)
	}
	res = nil
	if !c.IsValid() {
		t.Fatal("connection not valid")
	}
	if got := c.pr.Reader().Size(); got > 64<<10 {
		t.Errorf("the socket reader keeps a buffer of %d bytes", got)
	}
	if n, max := testenv.HeapInUse()-before, idleBound(c); n > max {
		t.Errorf("the connection keeps %d bytes of heap after a big LZ4 result, want <= %d", n, max)
	}
}
