package chnative

import (
	"time"

	"github.com/chnative/chnative/nativeproto"
)

// Read-ahead for the row tier: while the caller scans block k through database/sql, a goroutine
// reads and decodes the next packet (block k+1) into a second block, so on a machine with a core
// to spare the socket reads and decoding leave the caller's per-row path.
//
// Rules that keep the connection's state single-owner:
//   - At most one read-ahead runs, and only between two rows.advance calls: every other use of
//     the connection by rows (advance, Close, NextResultSet through Next) first takes its result
//     (takeAhead), so nothing else reads the socket or the packet reader meanwhile.
//   - The read-ahead decodes into r.spare, never into r.block (which the caller's rows are read
//     from) and never into the connection's reuse caches.
//   - It runs only for queries without callbacks (progress, logs, profile info or events), which
//     would otherwise be called from the driver's goroutine, and only after a block of at least
//     aheadMinRows rows: a short result (SELECT 1, QueryRow) stays on the caller's goroutine.
//   - The goroutine ends when its recv returns (the channel has room for the one result), bounded
//     like any read by the connection's read timeout and the query's context.

// aheadMinRows is the smallest block after which the next packet is read ahead.
const aheadMinRows = 1024

// aheadResult is what a read-ahead read: the next event, or the error in its place.
type aheadResult struct {
	ev  event
	err error
	pre preboxed // the block's windows boxed ahead (rows_prebox.go), when the caller uses Next
}

// startAhead starts reading the next packet when the current block is large enough and the
// query allows it.
func (r *rows) startAhead() {
	if r.ahead || r.done || r.nrows < aheadMinRows || !r.c.aheadAllowed() {
		return
	}
	if r.spare == nil {
		r.spare = r.c.takeAheadReuse()
	}
	if r.aheadCh == nil {
		r.aheadCh = make(chan aheadResult, 1)
	}
	c, spare, ch := r.c, r.spare, r.aheadCh
	box, bx, stop, userLoc := r.usesNext, &r.aheadBox, &r.aheadStop, r.userLoc
	r.ahead = true
	go func() {
		ev, err := c.recv(spare)
		res := aheadResult{ev: ev, err: err}
		if box && err == nil && ev.code == nativeproto.ServerCodeData {
			loc := c.loc
			if userLoc != nil {
				loc = userLoc
			}
			for i := range ev.block.NumColumns() {
				setLocation(ev.block.Column(i), loc, userLoc)
			}
			res.pre = bx.boxAhead(ev.block, stop)
		}
		ch <- res
	}()
}

// takeAhead waits for the running read-ahead, if any, and returns its result (ok false when none
// ran). A Data block it returns is r.spare's, and becomes r.block only when the caller says so
// (swapBlock).
func (r *rows) takeAhead() (ev event, err error, ok bool) {
	if !r.ahead {
		return event{}, nil, false
	}
	res := <-r.aheadCh
	r.ahead = false
	r.pre = res.pre
	return res.ev, res.err, true
}

// recvNext returns the next event: the read-ahead's, or one read now into the current block.
func (r *rows) recvNext() (event, error) {
	if ev, err, ok := r.takeAhead(); ok {
		return ev, err
	}
	r.pre = preboxed{}
	return r.c.recv(r.block)
}

// takeAheadReuse returns the block the last result's read-ahead decoded into, or a new one.
func (c *conn) takeAheadReuse() *nativeproto.Block {
	b := c.aheadReuse
	c.aheadReuse = nil
	if b == nil || b == c.readReuse || b == c.insertReuse {
		return nativeproto.NewBlock()
	}
	return b
}

// keepAheadReuse offers the connection the block of the ended result that the next result's
// read-ahead can decode into: of the two blocks rows alternated between, the one that is not the
// connection's readReuse. Called once no read-ahead runs.
func (r *rows) keepAheadReuse() {
	if r.ahead || r.spare == nil {
		return
	}
	c := r.c
	for _, b := range [...]*nativeproto.Block{r.spare, r.block} {
		if b != nil && b != c.readReuse && b != c.insertReuse && b != r.totals && b != r.extremes {
			c.aheadReuse = b
			return
		}
	}
}

// swapBlock makes b the current block; the one it replaces becomes the spare for the next
// read-ahead.
func (r *rows) swapBlock(b *nativeproto.Block) {
	if b == r.spare {
		r.spare = r.block
	}
	r.block = b
}

// aheadAllowed reports whether the current query has no callbacks that a read-ahead would call
// from its goroutine.
func (c *conn) aheadAllowed() bool {
	o := c.cur
	return o == nil || o.progress == nil && o.profileInfo == nil && o.logs == nil && o.profileEvents == nil
}

// awaitAheadOnClose takes the running read-ahead's result for Close without waiting long for a
// slow server: after closeGrace it cancels the query (sendCancel only writes, so it does not
// disturb the read-ahead), which makes the server answer at once; cancelled reports that the
// Cancel was sent, and the rest is to be drained. If even then nothing comes within
// drainTimeout, the socket is closed to end the read-ahead, the connection is marked bad, and ok
// is false.
func (r *rows) awaitAheadOnClose() (res aheadResult, cancelled, ok bool) {
	r.aheadStop.Store(true)
	t := time.NewTimer(closeGrace)
	defer t.Stop()
	select {
	case res = <-r.aheadCh:
		r.ahead = false
		return res, false, true
	case <-t.C:
	}
	cancelled = r.c.sendCancel()
	t.Reset(drainTimeout)
	select {
	case res = <-r.aheadCh:
		r.ahead = false
		return res, cancelled, cancelled
	case <-t.C:
	}
	r.c.markBad()
	_ = r.c.nc.Close()
	<-r.aheadCh
	r.ahead = false
	return aheadResult{}, false, false
}
