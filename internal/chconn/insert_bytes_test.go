package chconn

import (
	"context"
	"strings"
	"testing"
)

// An insert of wide rows is sent in blocks of about insert_block_bytes, long before
// insert_block_rows; with insert_block_bytes 0 only the rows count.
func TestInsertBlockBytesSplitsWideRows(t *testing.T) {
	for _, tc := range []struct {
		name     string
		maxBytes int
		blocks   [2]int // the range of blocks sent for the 4,000 rows of 1 KB
	}{{"1MiB", 1 << 20, [2]int{4, 8}}, {"rows-only", 0, [2]int{1, 1}}} {
		t.Run(tc.name, func(t *testing.T) {
			c := dialTest(t)
			c.cfg.InsertBlockBytes = tc.maxBytes
			ctx := context.Background()
			if err := c.Exec(ctx, "", "CREATE TABLE IF NOT EXISTS memB_bytes (s String) ENGINE = Null", nil); err != nil {
				t.Fatal(err)
			}
			ins, err := c.OpenInsert(ctx, "INSERT INTO memB_bytes (s) VALUES", nil, true)
			if err != nil {
				t.Fatal(err)
			}
			v := strings.Repeat("w", 1024)
			blocks, last, biggest := 0, 0, 0
			for range 4000 {
				if err := ins.Append(context.Background(), []any{v}); err != nil {
					t.Fatal(err)
				}
				if s := ins.Sent(); s != last {
					blocks++
					biggest = max(biggest, s-last)
					last = s
				}
			}
			if ins.Block().Rows() > 0 {
				blocks++
			}
			if err := ins.finish(ctx); err != nil {
				t.Fatal(err)
			}
			if blocks < tc.blocks[0] || blocks > tc.blocks[1] {
				t.Errorf("4,000 rows of 1 KB went in %d blocks, want %d to %d", blocks, tc.blocks[0], tc.blocks[1])
			}
			if tc.maxBytes > 0 && biggest*1040 > tc.maxBytes*5/4 {
				t.Errorf("a block of %d rows of 1 KB was sent, above insert_block_bytes %d", biggest, tc.maxBytes)
			}
		})
	}
}
