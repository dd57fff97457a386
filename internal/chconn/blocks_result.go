package chconn

import (
	"context"
	"io"

	"github.com/chnative/chnative/nativeproto"
)

// Blocks is a result read one block with rows at a time (the Batch extension's QueryBlocks).
type Blocks struct {
	res   Result // filled in place by Read; never copied
	block *nativeproto.Block
	err   error
	first bool
}

// QueryBlocks runs the read body with opts (retried as Read allows) and returns its result one
// block at a time.
func (c *Conn) QueryBlocks(ctx context.Context, body string, opts *Options) (*Blocks, error) {
	b := &Blocks{first: true}
	if err := c.Read(ctx, body, opts, &b.res); err != nil {
		return nil, err
	}
	return b, nil
}

// Next moves to the next block with rows, reporting false at the end or on an error.
func (b *Blocks) Next() bool {
	if b.first {
		b.first = false
		if blk := b.res.Block(); blk != nil && blk.Rows() > 0 {
			b.block = blk
			return true
		}
	}
	for {
		blk, _, err := b.res.Next()
		if err != nil {
			if err != io.EOF {
				b.err = err
			}
			return false
		}
		if blk.Rows() > 0 {
			b.block = blk
			return true
		}
	}
}

// Block returns the current block. It and its columns are valid until the next call to Next.
func (b *Blocks) Block() *nativeproto.Block { return b.block }

// Columns returns the result's column names.
func (b *Blocks) Columns() []string { return b.res.Names() }

// Totals returns the WITH TOTALS block once the result has been read to its end, or nil.
func (b *Blocks) Totals() *nativeproto.Block { return b.res.Totals() }

// Extremes returns the extremes block once the result has been read to its end, or nil.
func (b *Blocks) Extremes() *nativeproto.Block { return b.res.Extremes() }

// Err returns the error that ended Next, if any.
func (b *Blocks) Err() error { return b.err }

// Close ends the result, cancelling the query if it has not been read to its end.
func (b *Blocks) Close() error {
	return b.res.Close()
}
