package chconn

import (
	"sync/atomic"
	"time"

	"github.com/chnative/chnative/nativeproto"
)

// Read-ahead: while the caller works on block k (scanning its rows through database/sql, say),
// a goroutine reads and decodes the next packet (block k+1) into a second block, so on a machine
// with a core to spare the socket reads and decoding leave the caller's path.
//
// Rules that keep the connection's state single-owner:
//   - At most one read-ahead runs, started by StartAhead between two calls of Next: every other
//     use of the connection by the Result (Next, Close) first takes its result (takeAhead), so
//     nothing else reads the socket or the packet reader meanwhile.
//   - The read-ahead decodes into r.spare, never into r.block (which the caller reads) and never
//     into a block the connection keeps for another role (blocks.go).
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
}

// AheadWork is work the read-ahead goroutine does on the Data block it decoded, with its time
// zones set, before Next hands it over (the root boxes values ahead with it). WorkAhead must
// return soon once stop is set: Close is waiting for it. (An interface, not a func: the root's
// rows implements it, so passing it allocates nothing per query.)
type AheadWork interface {
	WorkAhead(b *nativeproto.Block, stop *atomic.Bool)
}

// StartAhead starts reading the next packet when the current block has at least aheadMinRows
// rows and the query has no callbacks; work, when not nil, runs on the block read. The caller
// must not touch the Result from another goroutine meanwhile; it reads the current block freely.
func (r *Result) StartAhead(work AheadWork) {
	if r.ahead || r.done || r.block == nil || r.block.Rows() < aheadMinRows || !r.c.aheadAllowed() {
		return
	}
	if r.spare == nil {
		r.spare = r.c.blocks.takeAhead()
	}
	if r.aheadCh == nil {
		r.aheadCh = make(chan aheadResult, 1)
	}
	c, spare, ch := r.c, r.spare, r.aheadCh
	stop, userLoc := &r.aheadStop, r.userLoc
	names, types := r.Names(), r.Types() // never changed once the header is read
	r.ahead = true
	go func() {
		ev, err := c.recv(spare)
		// The work reads the block by the header's columns: a block with others is left alone,
		// and Next refuses it (checkBlock).
		if work != nil && err == nil && ev.code == nativeproto.ServerCodeData && mismatch(ev.block, names, types) == matched {
			loc := c.loc
			if userLoc != nil {
				loc = userLoc
			}
			for i := range ev.block.NumColumns() {
				setLocation(ev.block.Column(i), loc, userLoc)
			}
			work.WorkAhead(ev.block, stop)
		}
		ch <- aheadResult{ev: ev, err: err}
	}()
}

// takeAhead waits for the running read-ahead, if any, and returns its result (ok false when none
// ran). A Data block it returns is r.spare's, and becomes r.block only when Next says so
// (swapBlock).
func (r *Result) takeAhead() (ev event, err error, ok bool) {
	if !r.ahead {
		return event{}, nil, false
	}
	res := <-r.aheadCh
	r.ahead = false
	return res.ev, res.err, true
}

// recvNext returns the next event: the read-ahead's (fromAhead), or one read now into the
// current block.
func (r *Result) recvNext() (ev event, fromAhead bool, err error) {
	if ev, err, ok := r.takeAhead(); ok {
		return ev, true, err
	}
	ev, err = r.c.recv(r.block)
	return ev, false, err
}

// keepAheadReuse offers the connection the block of the ended result that the next result's
// read-ahead can decode into: of the two blocks the result alternated between, the one that is
// not the connection's read block. Called once no read-ahead runs.
// It then bounds what the connection keeps (trimKept): blocks and buffers a big result grew are
// given back.
func (r *Result) keepAheadReuse() {
	if r.ahead {
		return
	}
	if r.spare != nil {
		for _, b := range [...]*nativeproto.Block{r.spare, r.block} {
			if b != nil && b != r.totals && b != r.extremes && r.c.blocks.keepAhead(b) {
				break
			}
		}
	}
	r.c.trimKept()
}

// swapBlock makes b the current block; the one it replaces becomes the spare for the next
// read-ahead.
func (r *Result) swapBlock(b *nativeproto.Block) {
	if b == r.spare {
		r.spare = r.block
	}
	r.block = b
}

// aheadAllowed reports whether the current query has no callbacks that a read-ahead would call
// from its goroutine.
func (c *Conn) aheadAllowed() bool {
	o := c.cur
	return o == nil || o.OnProgress == nil && o.OnProfileInfo == nil && o.OnLogs == nil && o.OnProfileEvents == nil
}

// awaitAheadOnClose takes the running read-ahead's result for Close without waiting long for a
// slow server: after CloseGrace it cancels the query (sendCancel only writes, so it does not
// disturb the read-ahead), which makes the server answer at once; cancelled reports that the
// Cancel was sent, and the rest is to be drained. If even then nothing comes within
// DrainTimeout, the socket is closed to end the read-ahead, the connection is marked bad, and ok
// is false.
func (r *Result) awaitAheadOnClose() (res aheadResult, cancelled, ok bool) {
	r.aheadStop.Store(true)
	t := time.NewTimer(CloseGrace)
	defer t.Stop()
	select {
	case res = <-r.aheadCh:
		r.ahead = false
		return res, false, true
	case <-t.C:
	}
	cancelled = r.c.sendCancel()
	t.Reset(DrainTimeout)
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
