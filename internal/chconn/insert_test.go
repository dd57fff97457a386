package chconn

import (
	"context"
	"errors"
	"testing"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/nativeproto"
)

// TestInsertEndRowBlockSize: endRow sends the block when it holds blockRows rows, exactly, and
// again every blockRows rows after a send; rows the caller appended into the columns directly
// only make a send later. An insert with no connection fails its send with an UnsupportedError, which is how
// the test sees that endRow attempted it.
func TestInsertEndRowBlockSize(t *testing.T) {
	newInsert := func() (*Insert, *columns.UInt64) {
		b := &nativeproto.Block{}
		col := columns.NewFixed[uint64]("UInt64")
		b.Add("n", col)
		return &Insert{block: b, maxRows: 3}, col // no connection: a send fails
	}
	isSend := func(err error) bool {
		var u *UnsupportedError
		return errors.As(err, &u)
	}
	ins, col := newInsert()
	for i := range 8 {
		err := ins.Append(context.Background(), []any{uint64(i)})
		if sendDue := (i+1)%3 == 0; sendDue != isSend(err) || (!sendDue && err != nil) {
			t.Fatalf("row %d: %v (a send due: %v)", i, err, sendDue)
		}
		if isSend(err) {
			col.Reset() // what a connection's Flush does after the write
		}
	}

	// One row through Append, one appended into the column: the block holds 2, then 3 after
	// the next Append; the send comes on the Append after that, which makes 4.
	ins, col = newInsert()
	if err := ins.Append(context.Background(), []any{uint64(0)}); err != nil {
		t.Fatal(err)
	}
	col.Append(1)
	if err := ins.Append(context.Background(), []any{uint64(2)}); err != nil {
		t.Fatalf("3 rows, 2 of them appended: %v", err)
	}
	if err := ins.Append(context.Background(), []any{uint64(3)}); !isSend(err) || col.Rows() != 4 {
		t.Fatalf("4 rows: %v, %d rows", err, col.Rows())
	}
}
