package chconn

import (
	"context"
	"testing"
	"time"

	"github.com/chnative/chnative/internal/faketest"
)

// Blocks.Block is the header before the first Next, the block Next moved to, and nil once Next
// found no block with rows: a caller of an empty result (chnarrow's reader) tells it by that.
func TestBlocksBlockOfEmptyResult(t *testing.T) {
	hdr, full := oneRow(t)
	empty := faketest.Pong(faketest.EndOfStream(append([]byte(nil), hdr...)))
	for _, tc := range []struct {
		name   string
		answer []byte
		rows   int
	}{{"empty", empty, 0}, {"three rows", full, 3}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := scriptHost(t, false, func(int) ([]byte, bool) { return tc.answer, false })
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c, err := hostsFor(t, []string{srv.Addr()}, "").Dial(ctx, Dialer{}, "")
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			var b Blocks
			if err := c.ReadBlocks(ctx, "SELECT n FROM t", nil, &b, nil); err != nil {
				t.Fatal(err)
			}
			if h := b.Block(); h == nil || h.NumColumns() != 1 || h.Name(0) != "n" {
				t.Fatalf("Block before Next = %v, want the header of column n", h)
			}
			n := 0
			for b.Next() {
				n += b.Block().Rows()
			}
			if err := b.Err(); err != nil || n != tc.rows {
				t.Fatalf("%d rows, %v; want %d", n, err, tc.rows)
			}
			if tc.rows == 0 && b.Block() != nil {
				t.Errorf("Block after an empty result = %v, want nil", b.Block())
			}
			if err := b.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}
