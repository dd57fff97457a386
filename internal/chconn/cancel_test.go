package chconn

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chnative/chnative/internal/faketest"
	"github.com/chnative/chnative/nativeproto"
)

// A query's context ending mid-stream: the caller gets the context's error at once, the Cancel
// and the drain run off its path (drain.go), and the connection is in step afterwards, or closed
// when the server does not end the query.

// nextUntilErr reads r until Next fails, and returns the error.
func nextUntilErr(r *Result) error {
	for {
		if _, _, err := r.Next(); err != nil {
			return err
		}
	}
}

func TestCancelMidStreamDrains(t *testing.T) {
	for _, tc := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		want error
	}{
		{"cancel", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(50*time.Millisecond, cancel)
			return ctx, cancel
		}, context.Canceled},
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 500*time.Millisecond)
		}, context.DeadlineExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rev := nativeproto.LatestRevision
			var cancelled atomic.Bool
			first := append(u64Header(t, rev), u64Block(t, rev, 0, 10)...)
			c := dialScript(t, faketest.ModernHello(), func(s *faketest.Session, _ *nativeproto.Query) error {
				if err := s.Write(first); err != nil {
					return err
				}
				if err := s.ExpectCancel(); err != nil {
					return err
				}
				cancelled.Store(true)
				rest := faketest.ProgressAt(u64Block(t, rev, 10, 10), rev, 20, 160)
				return s.Write(faketest.EndQuery(rest, rev))
			}, selectOne(t, rev))
			ctx, cancel := tc.ctx()
			defer cancel()
			r, err := c.Query(ctx, "SELECT n", nil)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			err = nextUntilErr(r)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Next: %v, want %v", err, tc.want)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("Next returned %v after the first block", d)
			}
			// Begin waits for the drain, which reads the rest up to EndOfStream.
			checkSelectOne(t, c)
			if !cancelled.Load() {
				t.Fatal("the server got no Cancel")
			}
		})
	}
}

// The server never ends the cancelled query: the caller still gets the context's error at once,
// and the drain gives up after DrainTimeout and closes the connection.
func TestCancelServerDoesNotStop(t *testing.T) {
	rev := nativeproto.LatestRevision
	first := append(u64Header(t, rev), u64Block(t, rev, 0, 10)...)
	c := dialScript(t, faketest.ModernHello(), func(s *faketest.Session, _ *nativeproto.Query) error {
		if err := s.Write(first); err != nil {
			return err
		}
		s.Drain(faketest.DrainAfterScript) // reads the Cancel, answers nothing
		return nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := c.Query(ctx, "SELECT n", nil)
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	if err := nextUntilErr(r); !errors.Is(err, context.Canceled) {
		t.Fatalf("Next: %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Next returned after %v", d)
	}
	if _, err := c.Begin(false); err != ErrBadConn {
		t.Fatalf("Begin after a drain that timed out: %v, want ErrBadConn", err)
	}
	if d := time.Since(start); d > 3*DrainTimeout+time.Second {
		t.Errorf("the drain took %v", d)
	}
	if !c.bad {
		t.Fatal("the connection is not bad")
	}
}

// The test server stops a query on Cancel. The query sleeps between its blocks, so the context
// ends while the client waits between packets: the drain reads the rest in step and the
// connection runs the next query. (A context that ends in the middle of a block's bytes cuts
// the stream there: the connection is then closed, never handed out.)
func TestCancelMidStreamRealServer(t *testing.T) {
	c := dialTest(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := c.Query(ctx, "SELECT sleepEachRow(0.02), number FROM system.numbers LIMIT 300", &Options{BlockSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	for rows := 0; rows == 0; {
		b, _, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		rows = b.Rows()
	}
	cancel()
	start := time.Now()
	if err := nextUntilErr(r); !errors.Is(err, context.Canceled) {
		t.Fatalf("Next after cancel: %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Next returned %v after the cancel", d)
	}
	if _, err := c.Begin(false); err != nil {
		t.Fatalf("Begin after the drain: %v", err)
	}
	r, err = c.Query(context.Background(), "SELECT 1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := readToEnd(r); err != nil {
		t.Fatal(err)
	}
}
