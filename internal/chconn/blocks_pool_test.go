//go:build !race

package chconn

import (
	"context"
	"runtime"
	"testing"
)

// Not in -race builds: the race detector drops a quarter of sync.Pool puts at random, so reuse
// through the pools cannot be asserted there (the default CI flavour is -race; purego and Go 1.27
// run this).

// The blocks a connection stops keeping are reused by the next big result (spareBlocks), of this
// connection or another, so big results one after another do not allocate their blocks anew.
func TestSpareBlocksReusedByNextBigResult(t *testing.T) {
	// One P: a sync.Pool's last put is in its P's private slot, which other Ps do not see.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	c1, c2 := dialTest(t), dialTest(t)
	ctx := context.Background()
	read := func(c *Conn) {
		res, err := c.Query(ctx, wideQuery, nil)
		if err != nil {
			t.Fatal(err)
		}
		readAll(t, res, 1<<30, nil)
	}
	read(c1) // its blocks go to spareBlocks
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	read(c2)
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 32<<20 {
		t.Errorf("a second big result on another connection allocated %d bytes: its blocks (about 75 MB) were not reused", got)
	}
}
