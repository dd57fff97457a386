package ingest

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/chconn"
)

// AppendRow appends one row, a value per column converted as columns.Append does. A value that
// does not convert fails the row only (a *chconn.ColumnError); the block keeps the rows before.
func (e *Engine) AppendRow(ctx context.Context, vals []any) error {
	l := e.lane()
	defer e.release(l)
	cur, err := e.current(ctx, l)
	if err != nil {
		return err
	}
	b := cur.b
	if len(vals) != b.NumColumns() {
		return fmt.Errorf("chnative: inserter of %d columns got %d values", b.NumColumns(), len(vals))
	}
	n := b.Rows()
	for i, v := range vals {
		if err := columns.Append(b.Column(i), v); err != nil {
			for j := range i {
				b.Column(j).Truncate(n)
			}
			return &chconn.ColumnError{Column: b.Name(i), Type: b.Type(i), Row: n, Err: err}
		}
	}
	e.added(l, cur, 1)
	return nil
}

// lane returns a lane, locked. Lanes are handed out through a sync.Pool, whose cache is per
// processor: a core keeps appending into the same lane, whose lock and block stay in its cache
// (a lane taken at random from any core was most of an append's cost in cache-line transfers).
//
// A lane found locked (its holder was preempted mid-append, or the pool's New handed it out
// twice) is left to its holder, who puts it back; any free lane serves instead, and when none is
// free the goroutine yields, a few times, before it waits for the lock. Waiting at once queued
// each core's appenders behind a preempted holder, and the lock's starvation mode then handed
// it over one wakeup per append. (A holder can take long only in a caller's driver.Valuer.)
func (e *Engine) lane() *lane {
	l := e.pool.Get().(*lane)
	for yields := 0; ; yields++ {
		if l.mu.TryLock() {
			return l
		}
		for _, o := range e.lanes {
			if o.mu.TryLock() {
				return o
			}
		}
		if yields == maxYields {
			l.mu.Lock()
			return l
		}
		runtime.Gosched()
	}
}

// maxYields is the yields of an appender that found every lane locked before it waits.
const maxYields = 4

// release unlocks l and gives it back to the pool.
func (e *Engine) release(l *lane) {
	l.mu.Unlock()
	e.pool.Put(l)
}

// current returns l's open block (l.mu held), taking a free one, or allocating one while fewer
// than Lanes+InFlight exist; else it waits, with l.mu released, for one to be freed.
func (e *Engine) current(ctx context.Context, l *lane) (*block, error) {
	for {
		if e.closed.Load() {
			return nil, ErrClosed
		}
		if l.cur != nil {
			return l.cur, nil
		}
		e.mu.Lock()
		var cur *block
		switch {
		case len(e.free) > 0:
			cur = e.free[len(e.free)-1]
			e.free = e.free[:len(e.free)-1]
		case e.made < e.cfg.Lanes+e.cfg.InFlight:
			b, err := e.newBlock()
			if err != nil {
				e.mu.Unlock()
				return nil, err
			}
			e.made++
			cur = b
		case e.cfg.NoWait:
			e.mu.Unlock()
			return nil, ErrFull
		}
		if cur != nil {
			e.mu.Unlock()
			cur.gen++
			cur.checkAt = 1
			l.cur, l.openBytes = cur, 0
			return cur, nil
		}
		ch := e.changed
		e.mu.Unlock()
		l.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			l.mu.Lock()
			return nil, fmt.Errorf("chnative: inserter full, waiting for a block to be sent: %w", ctx.Err())
		}
		l.mu.Lock()
	}
}

// sizeAt is the rows a block holds when added measures their width to size its columns.
const sizeAt = 1024

// added accounts n rows appended to cur, l's open block (l.mu held), and seals it when due.
func (e *Engine) added(l *lane, cur *block, n int) {
	l.rows += int64(n)
	rows := cur.b.Rows()
	if rows == n { // its first rows: its age starts
		gen := cur.gen
		cur.timer = time.AfterFunc(e.cfg.MaxDelay, func() { e.expire(l, cur, gen) })
	}
	if rows >= e.cfg.MaxRows {
		e.seal(l)
		return
	}
	if rows < cur.checkAt {
		return
	}
	limit := e.cfg.MaxBytes
	l.openBytes = cur.b.DataBytes(limit)
	if l.openBytes >= limit {
		e.seal(l)
		return
	}
	// Measure again about halfway to the limit at this width (as chconn's Insert.Room does).
	perRow := max(l.openBytes/int64(rows), 1)
	cur.checkAt = rows + int(min(int64(e.cfg.MaxRows), (limit-l.openBytes)/perRow/2+1))
	if !cur.sized && rows >= sizeAt {
		// Make the columns as big as the block will grow at this width: no outgrown arrays
		// (a reused block has the room already).
		cur.sized = true
		full := int(min(int64(e.cfg.MaxRows), limit/perRow+1))
		for i := range cur.b.NumColumns() {
			columns.Reserve(cur.b.Column(i), full)
		}
	}
	if !cur.sized {
		cur.checkAt = min(cur.checkAt, sizeAt)
	}
}

// expire seals cur when MaxDelay passed since its first rows and it was not sealed meanwhile.
func (e *Engine) expire(l *lane, cur *block, gen uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cur == cur && cur.gen == gen {
		e.seal(l)
	}
}

// seal hands l's open block, if it has rows, to the senders (l.mu held).
func (e *Engine) seal(l *lane) {
	cur := l.cur
	if cur == nil || cur.b.Rows() == 0 {
		return
	}
	l.cur, l.openBytes = nil, 0
	if cur.timer != nil {
		cur.timer.Stop()
		cur.timer = nil
	}
	cur.bytes = cur.b.DataBytes(1 << 62)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.stats.BufferedBytes += cur.bytes
	e.stats.BufferedRows += int64(cur.b.Rows())
	e.stats.AppendedBytes += cur.bytes
	e.stats.Blocks++
	e.seq++
	cur.seq = e.seq
	e.pending[cur.seq] = true
	e.queue <- cur // never waits: the queue holds every block
}
