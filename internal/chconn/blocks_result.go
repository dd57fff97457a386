package chconn

import (
	"context"
	"io"
	"sync/atomic"

	"github.com/chnative/chnative/nativeproto"
)

// Blocks is a result read one block with rows at a time: the Batch extension's QueryBlocks,
// and under a Cursor the root's database/sql rows.
type Blocks struct {
	res Result // filled in place by ReadBlocks; never copied
	cur Cursor // nil: no read-ahead
}

// Cursor is a reader of Blocks that reads each block while the next is read ahead (the root's
// rows). Moved is called on the caller's goroutine with each block Next moves to; ahead reports
// that WorkAhead ran on it. Moved returns whether WorkAhead should run on the block read ahead
// next. WorkAhead runs on the read-ahead's goroutine (see AheadWork). (An interface, not funcs:
// the root's rows implements it, so passing it allocates nothing per query.)
type Cursor interface {
	Moved(b *nativeproto.Block, ahead bool) (work bool)
	WorkAhead(b *nativeproto.Block, stop *atomic.Bool)
}

// ReadBlocks runs the read body with opts into b, a zero Blocks the caller owns (retried as Read
// allows). With cur not nil, the next packet is read ahead while the caller reads a block, and
// cur hears of each block. Before the first Next, Block is the header block: the result's
// columns, whose rows, if any, are Next's first.
func (c *Conn) ReadBlocks(ctx context.Context, body string, opts *Options, b *Blocks, cur Cursor) error {
	b.cur = cur
	return c.Read(ctx, body, opts, &b.res)
}

// Next moves to the next block with rows, reporting false at the end or on an error.
func (b *Blocks) Next() bool {
	if !b.res.moved {
		b.res.moved = true
		if blk := b.res.Block(); blk != nil && blk.Rows() > 0 {
			b.moved(blk, false)
			return true
		}
	}
	for {
		blk, ahead, err := b.res.Next()
		b.res.moved = true // again: a read run again on a new connection starts a zero Result
		if err != nil {
			if err != io.EOF {
				b.res.err = err // for Err (it is already, but for a Next after the end)
			}
			return false
		}
		if blk.Rows() > 0 {
			b.moved(blk, ahead)
			return true
		}
	}
}

// moved tells the cursor, if any, that blk is the current block and starts the read-ahead.
func (b *Blocks) moved(blk *nativeproto.Block, ahead bool) {
	if b.cur == nil {
		return
	}
	var work AheadWork
	if b.cur.Moved(blk, ahead) {
		work = b.cur
	}
	b.res.StartAhead(work)
}

// Block returns the current block: before the first Next the header (the result's columns),
// then the block with rows Next moved to; nil once Next found none (an empty result). It and its
// columns are valid until the next call to Next.
func (b *Blocks) Block() *nativeproto.Block {
	blk := b.res.Block()
	if blk != nil && b.res.moved && blk.Rows() == 0 {
		return nil
	}
	return blk
}

// Columns returns the result's column names.
func (b *Blocks) Columns() []string { return b.res.Names() }

// Totals returns the WITH TOTALS block once the result has been read to its end, or nil.
func (b *Blocks) Totals() *nativeproto.Block {
	if !b.res.Ended() {
		return nil
	}
	return b.res.Totals()
}

// Extremes returns the extremes block once the result has been read to its end, or nil.
func (b *Blocks) Extremes() *nativeproto.Block {
	if !b.res.Ended() {
		return nil
	}
	return b.res.Extremes()
}

// ResultSet returns the n-th block after the data, from 1, once the result has been read to its
// end: the Totals and Extremes blocks it has, in that order (so 1 is Extremes when there are no
// Totals); nil past them, and before the end.
func (b *Blocks) ResultSet(n int) *nativeproto.Block {
	if !b.res.Ended() {
		return nil
	}
	for _, s := range [2]*nativeproto.Block{b.res.totals, b.res.extremes} {
		if s == nil {
			continue
		}
		if n--; n == 0 {
			return s
		}
	}
	return nil
}

// Err returns the error that ended Next, if any.
func (b *Blocks) Err() error { return b.res.Err() }

// Fail ends the result with err, a lie found in one of its blocks (a value its column cannot
// hold): the connection is closed, for nothing more the server sends can be trusted, and the
// error, a *ProtocolError wrapping err, is returned, by Err too.
func (b *Blocks) Fail(err error) error { return b.res.Fail(err) }

// Close ends the result, cancelling the query if it has not been read to its end.
func (b *Blocks) Close() error {
	return b.res.Close()
}
