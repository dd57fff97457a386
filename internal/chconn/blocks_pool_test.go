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
	ctx := context.Background()
	read := func(c *Conn) {
		res, err := c.Query(ctx, spareQuery, nil)
		if err != nil {
			t.Fatal(err)
		}
		readAll(t, res, 1<<30, nil)
	}
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
