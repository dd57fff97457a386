package ingest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/nativeproto"
)

// SendFunc sends b (the sender's n-th connection) as one INSERT under the deduplication token
// and returns once the server confirmed it. It must leave b's rows as they are.
type SendFunc func(ctx context.Context, sender int, b *nativeproto.Block, token string) error

// Engine accumulates rows into blocks and sends them (see the package doc).
//
// Appends go to one of a few lanes, each with its own lock and open block, so that appenders
// on different cores seldom wait for each other or share cache lines; the engine's own lock is taken only to seal a
// block, take a free one, and count what the senders did. Lock order: a lane's, then mu.
type Engine struct {
	cfg       Config
	names     []string // the table's columns, in the order of the INSERT's header
	types     []string
	send      SendFunc
	transport func(error) bool // a failure after which the same block may be sent again
	ctx       context.Context  // the senders'; cancelled by a Close whose context ended
	cancel    context.CancelFunc
	queue     chan *block // sealed blocks; its capacity is every block, so a seal never waits
	wg        sync.WaitGroup
	lanes     []*lane
	pool      sync.Pool     // of lanes, cached per processor (lane)
	nextLane  atomic.Uint32 // the lane the pool's New hands out next
	closed    atomic.Bool

	mu      sync.Mutex
	free    []*block // confirmed, emptied, for reuse
	made    int      // blocks allocated; at most Lanes+InFlight
	seq     uint64   // the last sealed block's number
	pending map[uint64]bool
	changed chan struct{} // closed (and replaced) when a block is freed
	errs    []error       // failures not yet returned by Flush or Close
	stats   Stats         // sealed blocks' counts; the lanes add their open blocks' (Stats)
}

// lane is an open block and its lock.
type lane struct {
	mu        sync.Mutex
	cur       *block      // being filled; nil until the next Append
	rows      int64       // rows appended through the lane
	openBytes int64       // cur's bytes at the last measure
	plans     []*lanePlan // AppendStruct's, by struct type (plan)
	_         [64]byte
}

// block is one block of rows with what sealing it needs.
type block struct {
	b       *nativeproto.Block
	seq     uint64
	gen     uint64 // counts the times it was filled, for its MaxDelay timer
	checkAt int    // rows at which its bytes are measured next
	sized   bool   // its columns were made room for the rows it will hold (added)
	bytes   int64  // bytes at the seal
	timer   *time.Timer
}

// New starts an engine for blocks of the columns names of types (the INSERT's header).
// transport reports the errors after which a block is sent again with the same token (nil:
// Resendable).
func New(names, types []string, cfg Config, send SendFunc, transport func(error) bool) (*Engine, error) {
	cfg.defaults()
	if transport == nil {
		transport = Resendable
	}
	if cfg.ID == "" {
		var id [12]byte
		_, _ = rand.Read(id[:])
		cfg.ID = hex.EncodeToString(id[:])
	}
	e := &Engine{cfg: cfg, names: names, types: types, send: send, transport: transport,
		queue: make(chan *block, cfg.Lanes+cfg.InFlight), pending: map[uint64]bool{}, changed: make(chan struct{})}
	for range cfg.Lanes {
		e.lanes = append(e.lanes, new(lane))
	}
	e.pool.New = func() any { return e.lanes[int(e.nextLane.Add(1))%len(e.lanes)] }
	if _, err := e.newBlock(); err != nil { // every type must make a column
		return nil, err
	}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	for i := range cfg.Senders {
		e.wg.Add(1)
		go e.sender(i)
	}
	return e, nil
}

// ID returns the engine's token prefix.
func (e *Engine) ID() string { return e.cfg.ID }

// Token returns the deduplication token of block seq.
func (e *Engine) Token(seq uint64) string { return fmt.Sprintf("chnative-%s-%d", e.cfg.ID, seq) }

func (e *Engine) newBlock() (*block, error) {
	b := nativeproto.NewBlock()
	for i, name := range e.names {
		col, err := columns.New(e.types[i])
		if err != nil {
			return nil, fmt.Errorf("chnative: inserter column %s: %w", name, err)
		}
		b.Add(name, col)
	}
	return &block{b: b}, nil
}

// Stats returns the counters so far.
func (e *Engine) Stats() Stats {
	e.mu.Lock()
	st := e.stats
	e.mu.Unlock()
	for _, l := range e.lanes {
		l.mu.Lock()
		st.AppendedRows += l.rows
		if l.cur != nil {
			st.BufferedRows += int64(l.cur.b.Rows())
		}
		st.BufferedBytes += l.openBytes
		l.mu.Unlock()
	}
	return st
}

// sealAll seals every lane's open block.
func (e *Engine) sealAll() {
	for _, l := range e.lanes {
		l.mu.Lock()
		e.seal(l)
		l.mu.Unlock()
	}
}

// Flush seals the open blocks and waits until every block sealed before returns from the
// server, then returns the failures since the last Flush or Close (errors.Join).
func (e *Engine) Flush(ctx context.Context) error {
	e.sealAll()
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.takeErrs(e.waitSent(ctx, e.seq))
}

// Close flushes, stops the senders and returns what Flush would. Append fails with ErrClosed
// afterwards. When ctx ends first, the blocks not yet sent are failed (OnError, Stats) with
// its error: none is dropped silently.
func (e *Engine) Close(ctx context.Context) error {
	if e.closed.Swap(true) {
		return ErrClosed
	}
	e.sealAll() // an append holding a lane finishes first; the next sees closed
	e.mu.Lock()
	err := e.waitSent(ctx, e.seq)
	e.mu.Unlock()
	if err != nil {
		e.cancel() // the senders fail what is left with the context's error
	}
	close(e.queue)
	e.wg.Wait()
	e.cancel()
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.takeErrs(err)
}

// takeErrs returns err joined with the failures so far, and forgets them.
func (e *Engine) takeErrs(err error) error {
	errs := append(e.errs, err)
	e.errs = nil
	return joinErrs(errs)
}

// waitSent waits (e.mu held, released while waiting) until no block numbered up to target is
// pending.
func (e *Engine) waitSent(ctx context.Context, target uint64) error {
	for {
		waiting := false
		for seq := range e.pending {
			if seq <= target {
				waiting = true
				break
			}
		}
		if !waiting {
			return nil
		}
		ch := e.changed
		e.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			e.mu.Lock()
			return fmt.Errorf("chnative: inserter: waiting for blocks up to %d: %w", target, ctx.Err())
		}
		e.mu.Lock()
	}
}

// broadcast wakes every waiter (e.mu held).
func (e *Engine) broadcast() {
	close(e.changed)
	e.changed = make(chan struct{})
}
