package chconn

import (
	"context"
	"io"
	"sync/atomic"
	"time"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/nativeproto"
)

// Result is the stream of one query's result: its header (the first Data block, which names
// the columns), then its Data blocks one at a time, then Totals and Extremes, kept for the end.
// The blocks it hands out are borrowed: a block is valid until the next call to Next or Close
// (the next block is decoded into it, or into the spare the read-ahead uses). A Result is used
// by one goroutine, apart from its read-ahead (readahead.go).
type Result struct {
	c     *Conn
	ctx   context.Context
	stop  func() bool
	block *nativeproto.Block // the block last handed out: the header, then Next's
	names []string
	types []string
	done  bool
	err   error

	totals, extremes *nativeproto.Block

	userLoc *time.Location // WithUserLocation's zone, or nil: the server's (r.c.loc)

	// Read-ahead of the next packet (readahead.go).
	ahead     bool               // a read-ahead runs, or its result waits in aheadCh
	aheadCh   chan aheadResult   // its result
	spare     *nativeproto.Block // the block it decodes into
	aheadStop atomic.Bool        // Close wants the read-ahead's result: AheadWork should stop
}

// Reset makes r a zero Result again, for another QueryInto. r must have ended (Next returned an
// error, or Close was called).
func (r *Result) Reset() { *r = Result{} }

// SetDone makes r, a zero Result, one that has ended without rows (a statement run through a
// query call).
func (r *Result) SetDone() { r.done = true }

// readHeader reads up to the first Data block, which names the result's columns.
func (r *Result) readHeader() error {
	for {
		ev, err := r.c.recv(nil)
		if err != nil {
			return r.finish(err)
		}
		switch ev.code {
		case nativeproto.ServerCodeEndOfStream:
			_ = r.finish(nil)
			return nil
		case nativeproto.ServerCodeData:
			r.block = ev.block
			n := ev.block.NumColumns()
			nt := make([]string, 2*n) // names, then types: one allocation
			r.names, r.types = nt[:n:n], nt[n:]
			for i := range r.names {
				r.names[i] = ev.block.Name(i)
				r.types[i] = ev.block.Type(i)
			}
			r.SetLocations(ev.block)
			return nil
		default:
			r.keep(ev)
		}
	}
}

// Names returns the result's column names (the caller must not change them).
func (r *Result) Names() []string { return r.names }

// Types returns the result's column types (the caller must not change them).
func (r *Result) Types() []string { return r.types }

// Block returns the block last handed out: the header block (which may hold rows) until the
// first Next; nil for a result without one.
func (r *Result) Block() *nativeproto.Block { return r.block }

// Ended reports whether the query has ended (read to its end, failed or closed).
func (r *Result) Ended() bool { return r.done }

// Err returns the error that ended the query, if any.
func (r *Result) Err() error { return r.err }

// Totals returns the WITH TOTALS block once the result has been read to its end, or nil.
func (r *Result) Totals() *nativeproto.Block { return r.totals }

// Extremes returns the extremes block once the result has been read to its end, or nil.
func (r *Result) Extremes() *nativeproto.Block { return r.extremes }

// keep stores Totals and Extremes blocks for the end of the result.
func (r *Result) keep(ev event) {
	switch ev.code {
	case nativeproto.ServerCodeTotals:
		r.SetLocations(ev.block)
		r.totals = ev.block
	case nativeproto.ServerCodeExtremes:
		r.SetLocations(ev.block)
		r.extremes = ev.block
	}
}

// SetLocations gives the zone-less DateTime columns of b, at any depth, the query's time zone
// and its Date columns WithUserLocation's (see setLocation). Blocks Next returns have them.
func (r *Result) SetLocations(b *nativeproto.Block) {
	for i := 0; i < b.NumColumns(); i++ {
		setLocation(b.Column(i), r.location(), r.userLoc)
	}
}

// location is the zone of zone-less DateTime values: WithUserLocation's, else the server's (Date
// values are in WithUserLocation's zone, or UTC).
func (r *Result) location() *time.Location {
	if r.userLoc != nil {
		return r.userLoc
	}
	return r.c.loc
}

// finish ends the query: nil err means EndOfStream was read.
func (r *Result) finish(err error) error {
	if r.done {
		return err
	}
	r.done = true
	if err == nil {
		r.keepAheadReuse() // after an error the blocks' state is not known
	}
	fired := false
	if r.stop != nil {
		fired = r.stop()
	}
	if err != nil {
		ctx := r.ctx
		if ctx == nil {
			ctx = context.Background()
		}
		err = r.c.fail(ctx, fired, err)
		r.err = err
	}
	r.c.busy = false
	return err
}

// Next returns the next Data block that has columns (it may have no rows), with its time zones
// set; io.EOF at the end of the result, whose Totals and Extremes are then known. ahead reports
// that the block was read by the read-ahead, so the StartAhead work ran on it. The block is
// valid until the next call to Next or Close.
func (r *Result) Next() (b *nativeproto.Block, ahead bool, err error) {
	for {
		if r.done {
			if r.err != nil {
				return nil, false, r.err
			}
			return nil, false, io.EOF
		}
		ev, fromAhead, err := r.recvNext()
		if err != nil {
			return nil, false, r.finish(err)
		}
		switch ev.code {
		case nativeproto.ServerCodeEndOfStream:
			if err := r.finish(nil); err != nil {
				return nil, false, err
			}
			return nil, false, io.EOF
		case nativeproto.ServerCodeData:
			if ev.block.NumColumns() == 0 {
				continue
			}
			if ev.block.NumColumns() != len(r.names) {
				return nil, false, r.finish(&ProtocolError{Op: "result", Err: io.ErrUnexpectedEOF})
			}
			r.swapBlock(ev.block)
			r.SetLocations(ev.block)
			return ev.block, fromAhead, nil
		default:
			r.keep(ev)
		}
	}
}

// Close ends the result: an unfinished query is cancelled and drained.
func (r *Result) Close() error {
	if r.done {
		return nil
	}
	cancelled := false
	if r.ahead {
		// First, while the context is still watched: the read-ahead reads under its deadline.
		res, sent, ok := r.awaitAheadOnClose()
		if !ok {
			if r.stop != nil {
				r.stop()
				r.stop = nil
			}
			r.done = true // the connection was closed and marked bad
			r.c.busy = false
			return nil
		}
		cancelled = sent
		if _, end := r.closeEvent(res.ev, res.err); end {
			return nil
		}
	}
	if r.stop != nil {
		r.stop()
		r.stop = nil
	}
	// A short result (QueryRow, LIMIT 1) has usually arrived in full by now: reading its end
	// costs less than the Cancel round trip. Read on while packets keep coming promptly and
	// little data is left; otherwise cancel. When the query's context has ended (database/sql
	// closes the rows then, holding the lock the caller's Close waits for), the cancel and the
	// drain run off the caller's path (drain.go).
	ctxDone := r.ctx != nil && r.ctx.Err() != nil
	seen := 0
	for !cancelled && !ctxDone && seen <= closeReadAheadRows && r.c.packetWithin(CloseGrace) {
		n, end := r.closeEvent(r.c.recv(r.block))
		if end {
			return nil
		}
		seen += n
	}
	r.done = true
	r.keepAheadReuse()
	switch {
	case ctxDone:
		r.c.cancelOffPath(r.ctx.Err(), cancelled)
	case cancelled:
		r.c.drainAfterCancel()
	default:
		r.c.cancelAndDrain()
	}
	r.c.busy = false
	return nil
}

// closeEvent handles one event read while closing: n is the rows of a Data block, end whether
// the query has ended (EndOfStream or an error; finish was called).
func (r *Result) closeEvent(ev event, err error) (n int, end bool) {
	if err != nil {
		_ = r.finish(err)
		return 0, true
	}
	switch ev.code {
	case nativeproto.ServerCodeEndOfStream:
		_ = r.finish(nil)
		return 0, true
	case nativeproto.ServerCodeData:
		if ev.block.NumColumns() == len(r.names) {
			r.swapBlock(ev.block)
		}
		return ev.block.Rows(), false
	default:
		r.keep(ev)
	}
	return 0, false
}

// Close reads at most this many further rows, and waits at most CloseGrace for each packet,
// before it cancels the query instead.
const (
	closeReadAheadRows = 1 << 16
	CloseGrace         = 2 * time.Millisecond
)

// setLocation gives zone-less DateTime and DateTime64 columns, at any depth, the server's time
// zone (or WithUserLocation's), loc, and Date and Date32 columns dateLoc: WithUserLocation's zone,
// in which they are midnight as in clickhouse-go (nil: UTC). Both are set for every block, since
// blocks' columns are reused from query to query.
func setLocation(c columns.Column, loc, dateLoc *time.Location) {
	columns.SetLocation(c, loc)
	columns.SetDateLocation(c, dateLoc)
}
