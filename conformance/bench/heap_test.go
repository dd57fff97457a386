package bench

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/chnative/chnative"
)

// TestPeakHeap reads 100M UInt64 rows (fewer with BENCH_QUICK/BENCH_SCALE) through the block
// tier from the fake server and reports the peak heap in use, sampled with runtime.MemStats after
// every 16 blocks. The target is < 64 MB; this is a memory check, not a timed assertion. The
// full 100M rows run with BENCH_HEAP=1 (make bench sets it); otherwise 10M (2M under -race).
func TestPeakHeap(t *testing.T) {
	total := 10_000_000
	switch {
	case getenv("BENCH_HEAP") == "1":
		total = rowsN(100_000_000)
	case raceEnabled:
		total = 2_000_000
	}
	name, want := tableFor("u64", total, "none")
	db := openChnative(t, fakeAddr, "default", "", "none")
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak uint64
	err = conn.Raw(func(dc any) error {
		bl, err := dc.(chnative.Conn).QueryBlocks(ctx, "SELECT * FROM "+name)
		if err != nil {
			return err
		}
		defer bl.Close()
		n, k := 0, 0
		for bl.Next() {
			n += consumeBlock(bl.Block())
			if k++; k%16 == 0 {
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
			}
		}
		if n != want {
			return fmt.Errorf("read %d rows, want %d", n, want)
		}
		return bl.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("PEAKHEAP rows=%d peak_heap_inuse=%d base_heap_inuse=%d", want, peak, base)
	if peak-min(base, peak) > 64<<20 {
		t.Errorf("peak heap %d MB above the %d MB in use before >= 64 MB", (peak-base)>>20, base>>20)
	}
}
