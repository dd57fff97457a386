package chnative

import (
	"context"
	"strings"
	"testing"
)

// A batch of wide rows is sent in blocks of about insert_block_bytes, through Append and
// AppendStructs alike, and every row arrives.
func TestBatchInsertBlockBytes(t *testing.T) {
	db := openDB(t, "insert_block_bytes=1048576")
	table := createTable(t, db, "memB_batch", "s String")
	ctx := context.Background()
	v := strings.Repeat("b", 1024)
	type wide struct{ S string }
	rows := make([]wide, 4000)
	for i := range rows {
		rows[i].S = v
	}
	for _, tc := range []struct {
		name   string
		append func(b *Batch) (blocks int, err error)
	}{
		{"Append", func(b *Batch) (int, error) {
			blocks, last := 0, 0
			for range 4000 {
				if err := b.Append(v); err != nil {
					return 0, err
				}
				if b.Sent() != last {
					blocks, last = blocks+1, b.Sent()
				}
			}
			return blocks, nil
		}},
		{"AppendStructs", func(b *Batch) (int, error) {
			if err := AppendStructs(b, rows); err != nil {
				return 0, err
			}
			return b.Sent() / 900, nil // blocks of about 1,000 rows
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var blocks, buffered int
			err := withBatch(t, db, ctx, "INSERT INTO "+table, func(b *Batch) error {
				var err error
				blocks, err = tc.append(b)
				buffered = b.Rows()
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if blocks < 3 || buffered > 1100 {
				t.Errorf("4,000 rows of 1 KB: %d blocks sent before Send, %d rows left buffered; want >= 3 blocks of about 1,000 rows", blocks, buffered)
			}
		})
	}
	if n := count(t, db, table); n != 8000 {
		t.Errorf("the table has %d rows, want 8000", n)
	}
}
