package chconn

import (
	"context"
	"fmt"
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
	cols  []string           // the header's column names, then their types (Names, Types)
	err   error
	done  bool
	// rowsOut: a block with rows was handed out (the header or Next's), so the caller may have
	// rows of it: the read is not run again (read_retry.go).
	rowsOut bool
	// moved: Blocks.Next has run (until then, the header is its first block when it has rows).
	moved bool
	// Read-ahead of the next packet (readahead.go); the flags together keep Result small.
	ahead     bool        // a read-ahead runs, or its result waits in aheadCh
	aheadStop atomic.Bool // Close wants the read-ahead's result: AheadWork should stop

	totals, extremes *nativeproto.Block

	userLoc *time.Location // WithUserLocation's zone, or nil: the server's (r.c.loc)

	aheadCh chan aheadResult   // the read-ahead's result
	spare   *nativeproto.Block // the block it decodes into
}

// Reset makes r a zero Result again, for another QueryInto. r must have ended (Next returned an
// error, or Close was called).
func (r *Result) Reset() { *r = Result{} }

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
			r.block, r.rowsOut = ev.block, ev.block.Rows() > 0
			n := ev.block.NumColumns()
			r.cols = make([]string, 2*n) // names, then types: one allocation
			for i := range n {
				r.cols[i] = ev.block.Name(i)
				r.cols[n+i] = ev.block.Type(i)
			}
			r.setLocations(ev.block)
			return nil
		default:
			if err := r.keep(ev); err != nil {
				return r.finish(err)
			}
		}
	}
}

// Names returns the result's column names (the caller must not change them).
func (r *Result) Names() []string { n := len(r.cols) / 2; return r.cols[:n:n] }

// Types returns the result's column types (the caller must not change them).
func (r *Result) Types() []string { return r.cols[len(r.cols)/2:] }

// Block returns the block last handed out: the header block (which may hold rows) until the
// first Next; nil for a result without one.
func (r *Result) Block() *nativeproto.Block { return r.block }

// Ended reports whether the query has ended (read to its end, failed or closed); a zero Result
// (a statement that returns no rows) has.
func (r *Result) Ended() bool { return r.done || r.c == nil }

// Err returns the error that ended the query, if any.
func (r *Result) Err() error { return r.err }

// Totals returns the WITH TOTALS block once the result has been read to its end, or nil.
func (r *Result) Totals() *nativeproto.Block { return r.totals }

// Extremes returns the extremes block once the result has been read to its end, or nil.
func (r *Result) Extremes() *nativeproto.Block { return r.extremes }

// keep stores Totals and Extremes blocks for the end of the result, once checked against the
// header: a server that sends one before the header, or with another number of columns, lies
// (Rows reads them into database/sql's dest, of the header's length). Their names and types are
// their own: ClickHouse 18.16 sends the Totals and Extremes of a UNION ALL with the names and
// types of the SELECT they came from (UInt8 and "x" where the header says UInt16 and "a"),
// which clients have always read as they are. That is safe: every tier reads them by their own
// columns (Rows boxes each block's own windows, Blocks hands them over as they are, the struct
// tier does not read them). Servers of StrictTotalsRevision and later send the header's names
// and types, and are held to them. A block without columns is no block (as a Data one is).
func (r *Result) keep(ev event) error {
	var what string
	switch ev.code {
	case nativeproto.ServerCodeTotals:
		what = "totals"
	case nativeproto.ServerCodeExtremes:
		what = "extremes"
	default:
		return nil
	}
	if ev.block.NumColumns() == 0 {
		return nil // (the decoder refuses one that claims rows)
	}
	if r.cols == nil || ev.block.NumColumns() != len(r.cols)/2 {
		return &ProtocolError{Op: "result", Err: &BlockMismatchError{Block: what, Column: -1,
			Got: ev.block.NumColumns(), Want: len(r.cols) / 2, NoHeader: r.cols == nil}}
	}
	if r.c != nil && r.c.rev >= StrictTotalsRevision {
		names, types := r.Names(), r.Types()
		if i := mismatch(ev.block, names, types); i != matched {
			return &ProtocolError{Op: "result", Err: &BlockMismatchError{Block: what, Column: i,
				Name: ev.block.Name(i), WantName: names[i], Type: ev.block.Type(i), WantType: types[i]}}
		}
	}
	r.setLocations(ev.block)
	if what == "totals" {
		r.totals = ev.block
	} else {
		r.extremes = ev.block
	}
	return nil
}

// StrictTotalsRevision is the first protocol revision whose Totals and Extremes blocks are held
// to the header's names and types: the revision of ClickHouse 26.7, the newest the driver is
// tested against, which sends them so. Older servers are held to the header's column count.
const StrictTotalsRevision = nativeproto.LatestRevision

// BlockMismatchError reports a block of a result whose columns are not the header's: another
// count, or (a Data block) column Column named or typed otherwise. Every tier reads a Data block
// by the header's columns (database/sql's dest, a struct plan made from the first block), so
// such a block is refused before anyone reads it, as a *ProtocolError wrapping this; Totals and
// Extremes must have the header's count (see keep).
type BlockMismatchError struct {
	Block          string // "data", "totals", "extremes" or "read retry header"
	Column         int    // the column that differs; -1 for a count (Got, Want), or no header
	Name, WantName string // the column's name in the block and in the header
	Type, WantType string // its type in the block and in the header
	Got, Want      int    // the block's and the header's column counts, when Column is -1
	NoHeader       bool   // the block came before the result's header
}

func (e *BlockMismatchError) Error() string {
	switch {
	case e.NoHeader:
		return fmt.Sprintf("%s block of %d columns before the result's header", e.Block, e.Got)
	case e.Column < 0:
		return fmt.Sprintf("%s block has %d columns, the result's header %d", e.Block, e.Got, e.Want)
	case e.Name != e.WantName:
		return fmt.Sprintf("%s block column %d is named %q, the result's header names it %q", e.Block, e.Column, e.Name, e.WantName)
	}
	return fmt.Sprintf("%s block column %d %q is %s, the result's header says %s", e.Block, e.Column, e.Name, e.Type, e.WantType)
}

// checkBlock returns a *ProtocolError when b, a block of the result other than its header, does
// not have the header's columns: the same count, names and exact type strings (so Int8 then Int64,
// also inside Nullable or Array, is refused). No allocation when they match: it runs per block.
func (r *Result) checkBlock(what string, b *nativeproto.Block) error {
	if e := blockMismatch(what, b, r.Names(), r.Types()); e != nil {
		return &ProtocolError{Op: "result", Err: e}
	}
	return nil
}

// blockMismatch returns the *BlockMismatchError of b, a what block, against the columns names
// and types, or nil when it has them.
func blockMismatch(what string, b *nativeproto.Block, names, types []string) *BlockMismatchError {
	i := mismatch(b, names, types)
	if i == matched {
		return nil
	}
	e := &BlockMismatchError{Block: what, Column: i, Got: b.NumColumns(), Want: len(names)}
	if i >= 0 {
		e.Name, e.WantName, e.Type, e.WantType = b.Name(i), names[i], b.Type(i), types[i]
	}
	return e
}

// matched is mismatch's answer for a block with the header's columns.
const matched = -2

// mismatch returns the first column of b whose name or type differs from names and types, -1
// when the counts differ, or matched (Block.Type keeps each column's type string: no call builds
// one).
func mismatch(b *nativeproto.Block, names, types []string) int {
	if b.NumColumns() != len(types) || len(names) != len(types) {
		return -1
	}
	for i, t := range types {
		if b.Name(i) != names[i] || b.Type(i) != t {
			return i
		}
	}
	return matched
}

// setLocations gives the zone-less DateTime columns of b, at any depth, the query's time zone
// and its Date columns WithUserLocation's (see setLocation). Blocks Next returns have them.
func (r *Result) setLocations(b *nativeproto.Block) {
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
		if r.Ended() {
			if r.err != nil {
				return nil, false, r.err
			}
			return nil, false, io.EOF
		}
		ev, fromAhead, err := r.recvNext()
		if err != nil {
			if err = r.finish(err); !r.rowsOut {
				// No row had reached the caller: the read runs again on a new connection, whose
				// header's rows, if it came with any, are the result's first.
				var again bool
				if again, err = r.rerun(err); again {
					if b := r.block; b != nil && b.Rows() > 0 {
						return b, false, nil
					}
					continue
				}
			}
			return nil, false, err
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
			if err := r.checkBlock("data", ev.block); err != nil {
				return nil, false, r.finish(err)
			}
			r.swapBlock(ev.block)
			r.setLocations(ev.block)
			r.rowsOut = r.rowsOut || ev.block.Rows() > 0
			return ev.block, fromAhead, nil
		default:
			if err := r.keep(ev); err != nil {
				return nil, false, r.finish(err)
			}
		}
	}
}

// Fail ends the query with err, a lie the caller found in a block the result handed out (the
// root's boxing, say): the connection is closed, since what else the server sent cannot be
// trusted, and Next returns the error from then on. It returns the error, a *ProtocolError.
func (r *Result) Fail(err error) error {
	pe := &ProtocolError{Op: "result", Err: err}
	if r.ahead {
		// Closing the socket ends the read-ahead's read at once.
		r.aheadStop.Store(true)
		r.c.markBad()
		<-r.aheadCh
		r.ahead = false
	}
	r.c.markBad()
	if !r.done {
		r.done = true
		if r.stop != nil {
			r.stop()
			r.stop = nil
		}
		r.c.busy = false
	}
	r.err = pe
	return pe
}

// Close ends the result: an unfinished query is cancelled and drained.
func (r *Result) Close() error {
	if r.c != nil && r.c.read.res == r {
		r.c.read = readRetry{} // no retry after Close (read_retry.go)
	}
	if r.Ended() {
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
		if ev.block.NumColumns() == 0 {
			return 0, false
		}
		if err := r.checkBlock("data", ev.block); err != nil {
			// A lie while closing: the connection is not proven clean, so it is closed.
			_ = r.finish(err)
			return 0, true
		}
		r.swapBlock(ev.block)
		return ev.block.Rows(), false
	default:
		if err := r.keep(ev); err != nil {
			_ = r.finish(err)
			return 0, true
		}
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
