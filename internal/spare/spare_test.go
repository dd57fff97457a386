package spare

import (
	"testing"
	"time"

	"github.com/chnative/chnative/dsn"
)

// reset empties every cache and the budget for a test.
func reset(t *testing.T) {
	t.Helper()
	shared.mu.Lock()
	for {
		from, _ := oldestLocked()
		if from == nil {
			break
		}
		shared.held -= from.dropOldest()
	}
	held := shared.held
	if shared.armed {
		shared.timer.Stop()
		shared.armed = false
	}
	shared.mu.Unlock()
	if held != 0 {
		t.Fatalf("held %d bytes with every cache empty", held)
	}
}

func TestGetNewestFirst(t *testing.T) {
	reset(t)
	c := New[int]()
	if _, ok := c.Get(); ok {
		t.Fatal("Get of an empty cache reported a value")
	}
	c.Put(1, 10)
	c.Put(2, 20)
	if v, _ := c.Get(); v != 2 {
		t.Fatalf("Get = %d, want the newest (2)", v)
	}
	if got := Held(); got != 10 {
		t.Fatalf("Held = %d after one Get, want 10", got)
	}
	if v, _ := c.Get(); v != 1 {
		t.Fatalf("Get = %d, want 1", v)
	}
	if got := Held(); got != 0 {
		t.Fatalf("Held = %d with the cache empty", got)
	}
}

func TestBudgetDropsOldestOfAnyCache(t *testing.T) {
	reset(t)
	a, b := New[string](), New[string]()
	third := int64(dsn.SpareBudget / 3)
	if !a.Put("a1", third) || !b.Put("b1", third) || !a.Put("a2", third) {
		t.Fatal("a value within the budget was refused")
	}
	// A fourth third does not fit: a1, the oldest of either cache, goes.
	if !b.Put("b2", third) {
		t.Fatal("b2 refused")
	}
	if got := Held(); got > dsn.SpareBudget {
		t.Fatalf("Held = %d, above the budget %d", got, dsn.SpareBudget)
	}
	if v, _ := a.Get(); v != "a2" {
		t.Fatalf("a's newest = %q, want a2", v)
	}
	if v, ok := a.Get(); ok {
		t.Fatalf("a still holds %q: the oldest entry was not the one dropped", v)
	}
	if a.Put("huge", dsn.SpareBudget+1) {
		t.Fatal("a value above the whole budget was kept")
	}
	if v, _ := b.Get(); v != "b2" {
		t.Fatalf("b's newest = %q, want b2", v)
	}
	if v, _ := b.Get(); v != "b1" {
		t.Fatalf("b's next = %q, want b1", v)
	}
}

func TestIdleEntriesExpire(t *testing.T) {
	reset(t)
	c := New[int]()
	c.Put(1, 100)
	time.Sleep(time.Millisecond)
	c.Put(2, 200)
	shared.mu.Lock()
	first, second := c.entries[0].at, c.entries[1].at
	// Just before the first entry is due nothing goes; just after it, only it does.
	wait, left := expireLocked(first.Add(shared.idle - time.Nanosecond))
	if !left || wait <= 0 || shared.held != 300 {
		shared.mu.Unlock()
		t.Fatalf("before due: wait %v, left %v, held %d; want both kept", wait, left, shared.held)
	}
	wait, left = expireLocked(first.Add(shared.idle + time.Nanosecond))
	held := shared.held
	shared.mu.Unlock()
	if !left || held != 200 || wait != second.Sub(first)-time.Nanosecond {
		t.Fatalf("after first due: wait %v, left %v, held %d; want only the second kept", wait, left, held)
	}
	if v, _ := c.Get(); v != 2 {
		t.Fatalf("Get = %d, want 2", v)
	}
}

func TestTimerEmptiesTheCaches(t *testing.T) {
	reset(t)
	shared.mu.Lock()
	shared.idle = 10 * time.Millisecond
	shared.mu.Unlock()
	defer func() {
		shared.mu.Lock()
		shared.idle = dsn.SpareIdle
		shared.mu.Unlock()
	}()
	c := New[[]byte]()
	c.Put(make([]byte, 1<<20), 1<<20)
	deadline := time.Now().Add(5 * time.Second)
	for Held() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("Held = %d long after the idle time", Held())
		}
		time.Sleep(5 * time.Millisecond)
	}
	shared.mu.Lock()
	armed := shared.armed
	shared.mu.Unlock()
	if armed {
		t.Fatal("the timer stays armed with every cache empty")
	}
}

// A buffer that goes out and back every statement allocates nothing: no box, no timer, and the
// entries' array is kept when its oldest entry goes.
func TestPutGetAllocatesNothing(t *testing.T) {
	reset(t)
	c := New[[]byte]()
	buf := make([]byte, 1<<20)
	c.Put(buf, 1<<20)
	c.Put(buf, 1<<20)
	allocs := testing.AllocsPerRun(100, func() {
		b, _ := c.Get()
		c.Put(b, 1<<20)
		shared.mu.Lock()
		shared.held -= c.dropOldest() // as the budget or the timer drops one
		shared.mu.Unlock()
		c.Put(b, 1<<20)
	})
	if allocs != 0 {
		t.Fatalf("a Get and Put round trip allocated %v times", allocs)
	}
}
