package ingest

import (
	"context"
	"fmt"
	"time"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/chconn"
	"github.com/chnative/chnative/nativeproto"
)

// AppendRow appends one row, a value per column converted as columns.Append does. A value that
// does not convert fails the row only (a *chconn.ColumnError); the block keeps the rows before.
func (e *Engine) AppendRow(ctx context.Context, vals []any) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	cur, err := e.current(ctx)
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
	e.added(cur, 1)
	return nil
}

// AppendWith appends rows with fill, which adds the same number of rows to every column of the
// block it is given and returns how many (or an error, having added none). It runs under the
// engine's lock: it must not call the engine.
func (e *Engine) AppendWith(ctx context.Context, fill func(*nativeproto.Block) (int, error)) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	cur, err := e.current(ctx)
	if err != nil {
		return err
	}
	n, err := fill(cur.b)
	if n > 0 {
		e.added(cur, n)
	}
	return err
}

// current returns the block to append to (e.mu held), waiting, with e.mu released, for one to
// be freed when every block exists and is sealed.
func (e *Engine) current(ctx context.Context) (*block, error) {
	for {
		if e.closed {
			return nil, ErrClosed
		}
		if e.cur != nil {
			return e.cur, nil
		}
		switch {
		case len(e.free) > 0:
			e.cur = e.free[len(e.free)-1]
			e.free = e.free[:len(e.free)-1]
		case e.made < 1+e.cfg.InFlight:
			b, err := e.newBlock()
			if err != nil {
				return nil, err
			}
			e.made++
			e.cur = b
		case e.cfg.NoWait:
			return nil, ErrFull
		default:
			ch := e.changed
			e.mu.Unlock()
			select {
			case <-ch:
			case <-ctx.Done():
				e.mu.Lock()
				return nil, fmt.Errorf("chnative: inserter full, waiting for a block to be sent: %w", ctx.Err())
			}
			e.mu.Lock()
			continue
		}
		e.cur.gen++
		e.cur.checkAt, e.cur.bytes = 1, 0
		return e.cur, nil
	}
}

// added accounts n rows appended to cur (e.mu held) and seals it when it is due.
func (e *Engine) added(cur *block, n int) {
	e.stats.AppendedRows += int64(n)
	e.stats.BufferedRows += int64(n)
	rows := cur.b.Rows()
	if rows == n { // its first rows: its age starts
		gen := cur.gen
		cur.timer = time.AfterFunc(e.cfg.MaxDelay, func() { e.expire(cur, gen) })
	}
	if rows >= e.cfg.MaxRows {
		e.seal()
		return
	}
	if rows < cur.checkAt {
		return
	}
	limit := e.cfg.MaxBytes
	was := cur.bytes
	cur.bytes = cur.b.DataBytes(limit)
	e.stats.BufferedBytes += cur.bytes - was
	if cur.bytes >= limit {
		e.seal()
		return
	}
	// Measure again about halfway to the limit at this width (as chconn's Insert.Room does).
	perRow := max(cur.bytes/int64(rows), 1)
	cur.checkAt = rows + int(min(int64(e.cfg.MaxRows), (limit-cur.bytes)/perRow/2+1))
}

// expire seals cur when MaxDelay passed since its first rows and it was not sealed meanwhile.
func (e *Engine) expire(cur *block, gen uint64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cur == cur && cur.gen == gen {
		e.seal()
	}
}

// seal hands the open block, if it has rows, to the senders (e.mu held).
func (e *Engine) seal() {
	cur := e.cur
	if cur == nil || cur.b.Rows() == 0 {
		return
	}
	e.cur = nil
	if cur.timer != nil {
		cur.timer.Stop()
		cur.timer = nil
	}
	was := cur.bytes
	cur.bytes = cur.b.DataBytes(1 << 62)
	e.stats.BufferedBytes += cur.bytes - was
	e.stats.AppendedBytes += cur.bytes
	e.stats.Blocks++
	e.seq++
	cur.seq = e.seq
	e.pending[cur.seq] = true
	e.queue <- cur // never waits: the queue holds every block
}
