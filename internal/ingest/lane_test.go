package ingest

import (
	"context"
	"database/sql/driver"
	"sync"
	"testing"
	"time"
)

// slowValue is a caller's driver.Valuer that blocks until release is closed: it holds its lane's
// lock for as long.
type slowValue struct{ entered, release chan struct{} }

func (v slowValue) Value() (driver.Value, error) {
	close(v.entered)
	<-v.release
	return "slow", nil
}

// An appender that finds every lane locked, by a holder that takes long, yields a few times and
// then waits for the lock: its row goes in after the holder's, both once.
func TestAppendWaitsForLockedLane(t *testing.T) {
	f := newSink()
	e := start(t, Config{MaxRows: 1000}, f) // one lane
	v := slowValue{entered: make(chan struct{}), release: make(chan struct{})}
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := e.AppendRow(context.Background(), []any{uint64(1), v}); err != nil {
			t.Error(err)
		}
	})
	<-v.entered
	done := make(chan error)
	go func() { done <- e.AppendRow(context.Background(), []any{uint64(2), "fast"}) }()
	select {
	case err := <-done:
		t.Fatalf("an append went through a locked lane: %v", err)
	case <-time.After(20 * time.Millisecond):
	}
	close(v.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if err := e.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := f.ids(); len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Fatalf("ids %v, want [1 2]", got)
	}
}
