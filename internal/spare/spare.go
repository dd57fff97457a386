// Package spare keeps the big blocks and buffers that connections give up once a statement has
// ended (each connection keeps only what its DSN's block_keep_bytes allows), so that the next big
// statement of any connection reuses them instead of growing new ones.
//
// All caches share one budget: together they hold at most [dsn.SpareBudget] bytes, the oldest
// entry going first when a new one needs room, and an entry unused for [dsn.SpareIdle] is
// dropped, so memory a process no longer needs goes back to the heap within that time. Unlike a
// sync.Pool, a collection does not empty them: a process that runs big statements one after
// another keeps reusing the same memory whatever the garbage collector's pace.
package spare

import (
	"sync"
	"time"

	"github.com/chnative/chnative/dsn"
)

// Cache holds spare values of one kind, newest first out. Its methods are safe for concurrent use.
type Cache[T any] struct {
	entries []entry[T] // oldest first
}

type entry[T any] struct {
	v    T
	size int64
	at   time.Time
}

// cache is what the shared budget needs of every Cache.
type cache interface {
	oldest() (time.Time, bool)
	dropOldest() int64
}

var shared struct {
	mu     sync.Mutex
	held   int64
	caches []cache
	timer  *time.Timer // made once, then reset: set while armed
	armed  bool
	idle   time.Duration // dsn.SpareIdle; tests shorten it
}

func init() { shared.idle = dsn.SpareIdle }

// New returns a Cache under the shared budget.
func New[T any]() *Cache[T] {
	c := &Cache[T]{}
	shared.mu.Lock()
	shared.caches = append(shared.caches, c)
	shared.mu.Unlock()
	return c
}

// Put offers v, which retains size bytes, and reports whether it is kept: a value bigger than
// the whole budget is not; otherwise the oldest entries of any cache go until v fits.
func (c *Cache[T]) Put(v T, size int64) bool {
	if size > dsn.SpareBudget || size < 0 {
		return false
	}
	now := time.Now()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	for shared.held+size > dsn.SpareBudget {
		from, _ := oldestLocked()
		shared.held -= from.dropOldest() // held > 0 so some cache has an entry
	}
	c.entries = append(c.entries, entry[T]{v: v, size: size, at: now})
	shared.held += size
	if !shared.armed {
		shared.armed = true
		if shared.timer == nil {
			shared.timer = time.AfterFunc(shared.idle, expire)
		} else {
			shared.timer.Reset(shared.idle)
		}
	}
	return true
}

// Get takes the newest entry out, or reports false when the cache is empty.
func (c *Cache[T]) Get() (T, bool) {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	var zero T
	n := len(c.entries)
	if n == 0 {
		return zero, false
	}
	e := c.entries[n-1]
	c.entries[n-1] = entry[T]{}
	c.entries = c.entries[:n-1]
	shared.held -= e.size
	return e.v, true
}

func (c *Cache[T]) oldest() (time.Time, bool) {
	if len(c.entries) == 0 {
		return time.Time{}, false
	}
	return c.entries[0].at, true
}

func (c *Cache[T]) dropOldest() int64 {
	size := c.entries[0].size
	n := copy(c.entries, c.entries[1:]) // a few entries; the array is kept for the next Put
	c.entries[n] = entry[T]{}
	c.entries = c.entries[:n]
	return size
}

// oldestLocked returns the cache holding the oldest entry of all, and that entry's time; nil
// when every cache is empty.
func oldestLocked() (cache, time.Time) {
	var from cache
	var at time.Time
	for _, c := range shared.caches {
		if t, ok := c.oldest(); ok && (from == nil || t.Before(at)) {
			from, at = c, t
		}
	}
	return from, at
}

// expire drops the entries unused for shared.idle and sets the timer for the next one to come due.
func expire() {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if !shared.armed {
		return // disarmed by a test's reset after it fired
	}
	if next, left := expireLocked(time.Now()); left {
		shared.timer.Reset(next)
	} else {
		shared.armed = false
	}
}

// expireLocked drops the entries put before now-shared.idle and returns how long until the
// oldest one left is due, and whether any is left.
func expireLocked(now time.Time) (time.Duration, bool) {
	cutoff := now.Add(-shared.idle)
	for {
		from, at := oldestLocked()
		if from == nil {
			return 0, false
		}
		if at.After(cutoff) {
			return at.Sub(cutoff), true
		}
		shared.held -= from.dropOldest()
	}
}

// Held returns the bytes all caches hold (for tests).
func Held() int64 {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	return shared.held
}
