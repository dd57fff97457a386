package chconn

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/chnative/chnative/internal/spare"
)

// The blocks a connection stops keeping are reused by the next big result (spareBlocks), of this
// connection or another, so big results one after another do not allocate their blocks anew.
// spareQuery's blocks are above block_keep_bytes and, read and read-ahead together, within the
// spare budget: 200,000 rows of about 210 bytes.
var spareQuery = "SELECT concat('" + strings.Repeat("x", 200) + "', toString(number)) AS s FROM numbers(200000)"

func TestSpareBlocksReusedByNextBigResult(t *testing.T) {
	c1, c2 := dialTest(t), dialTest(t)
	read := func(c *Conn) { readQuery(t, c, spareQuery) }
	read(c1) // its blocks go to spareBlocks
	if spare.Held() < 2*int64(c1.cfg.BlockKeepBytes) {
		t.Fatalf("spare caches hold %d bytes after a big result, want its blocks", spare.Held())
	}
	runtime.GC() // a collection does not empty the spare caches, as it empties a sync.Pool
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	read(c2)
	runtime.ReadMemStats(&after)
	t.Logf("second big result: %d bytes allocated", after.TotalAlloc-before.TotalAlloc)
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("a second big result on another connection allocated %d bytes: its blocks (about 30 MB) were not reused", got)
	}
}

func readQuery(t *testing.T, c *Conn, query string) {
	t.Helper()
	res, err := c.Query(context.Background(), query, nil)
	if err != nil {
		t.Fatal(err)
	}
	readAll(t, res, 1<<30, nil)
}

// bigInsert inserts rows of 1 KB strings into a Null table (20,000 make a block above
// block_keep_bytes) and finishes the insert.
func bigInsert(t *testing.T, c *Conn, rows int) {
	t.Helper()
	ctx := context.Background()
	if err := c.Exec(ctx, "", "CREATE TABLE IF NOT EXISTS spare_ins (s String) ENGINE = Null", nil); err != nil {
		t.Fatal(err)
	}
	ins, err := c.OpenInsert(ctx, "INSERT INTO spare_ins (s) VALUES", nil, true)
	if err != nil {
		t.Fatal(err)
	}
	v := strings.Repeat("y", 1000)
	for range rows {
		if err := ins.Append(ctx, []any{v}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ins.finish(ctx); err != nil {
		t.Fatal(err)
	}
}

// An insert's block goes to the spare caches too, and the next big insert of another connection
// fills it instead of growing its own.
func TestSpareBlocksReusedByNextBigInsert(t *testing.T) {
	c1, c2 := dialTest(t), dialTest(t)
	bigInsert(t, c1, 20_000)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	bigInsert(t, c2, 20_000)
	runtime.ReadMemStats(&after)
	t.Logf("second big insert: %d bytes allocated", after.TotalAlloc-before.TotalAlloc)
	if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
		t.Errorf("a second big insert on another connection allocated %d bytes: its block (about 20 MB) was not reused", got)
	}
}

// A small statement on a connection with no block of its own takes a big spare block, and gives
// it back keeping a new small one: the next small statements do not take it again (moving a big
// block in and out of the caches, and measuring it, every statement).
func TestSmallStatementsKeepTheirOwnBlocks(t *testing.T) {
	c1 := dialTest(t)
	readQuery(t, c1, spareQuery)
	bigInsert(t, c1, 20_000)
	keep := int64(c1.cfg.BlockKeepBytes)
	c2 := dialTest(t)
	held := spare.Held()
	readQuery(t, c2, "SELECT 'a' AS s") // the type of spareQuery's column, whose capacity stays
	bigInsert(t, c2, 1)
	if got := spare.Held(); got < held-64<<10 || got > held+64<<10 { // names and types may differ
		t.Errorf("spare caches hold %d bytes after small statements, %d before: a block was lost or kept", got, held)
	}
	for _, r := range []role{roleRead, roleInsert} {
		b := c2.blocks.roles[r]
		if b == nil {
			t.Errorf("role %d keeps no block after a small statement: the next one takes a spare", r)
		} else if n := b.Retained(keep); n > keep {
			t.Errorf("role %d keeps a block of %d bytes after a small statement", r, n)
		}
	}
}
