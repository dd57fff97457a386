package chconn

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chnative/chnative/internal/faketest"
	"github.com/chnative/chnative/nativeproto"
)

// Result.Close of a result not read to its end: the rest that has already arrived is read
// within the grace (no Cancel); a server still producing gets a Cancel and is drained; one that
// does not stop after the Cancel costs the connection.

// A result whose rest is already on the wire is read to its end by Close: the server sees no
// Cancel (its next packet is the next query) and the connection is in step.
func TestCloseReadsShortRest(t *testing.T) {
	rev := nativeproto.LatestRevision
	answer := append(u64Header(t, rev), u64Block(t, rev, 0, 2000)...)
	answer = append(answer, u64Block(t, rev, 2000, 10)...)
	answer = append(answer, u64Block(t, rev, 2010, 10)...)
	answer = faketest.EndQuery(answer, rev)
	// Script's next ReadQuery fails on a Cancel: the second query would then fail.
	c := dialScript(t, faketest.ModernHello(), faketest.Send(answer), selectOne(t, rev))
	r, err := c.Query(context.Background(), "SELECT n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if b, _, err := r.Next(); err != nil || b.Rows() != 2000 {
		t.Fatalf("first block: %v", err)
	}
	time.Sleep(20 * time.Millisecond) // the rest is in the socket's buffer
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if !r.Ended() || c.bad || c.draining() {
		t.Fatalf("after Close: ended %v, bad %v, draining %v", r.Ended(), c.bad, c.draining())
	}
	checkSelectOne(t, c)
}

// A server still producing when the result is closed gets a Cancel within the grace, is drained
// up to its EndOfStream, and the connection is in step; with a read-ahead waiting too.
func TestCloseCancelsSlowRest(t *testing.T) {
	for _, ahead := range []bool{false, true} {
		name := "no read-ahead"
		if ahead {
			name = "read-ahead waiting"
		}
		t.Run(name, func(t *testing.T) {
			rev := nativeproto.LatestRevision
			var cancelled atomic.Bool
			first := append(u64Header(t, rev), u64Block(t, rev, 0, 2000)...)
			c := dialScript(t, faketest.ModernHello(), func(s *faketest.Session, _ *nativeproto.Query) error {
				if err := s.Write(first); err != nil {
					return err
				}
				if err := s.ExpectCancel(); err != nil {
					return err
				}
				cancelled.Store(true)
				// What was in flight, then the end.
				return s.Write(faketest.EndQuery(u64Block(t, rev, 2000, 100), rev))
			}, selectOne(t, rev))
			r, err := c.Query(context.Background(), "SELECT n", nil)
			if err != nil {
				t.Fatal(err)
			}
			if b, _, err := r.Next(); err != nil || b.Rows() != 2000 {
				t.Fatalf("first block: %v", err)
			}
			if ahead {
				r.StartAhead(nil)
				if !r.ahead {
					t.Fatal("no read-ahead")
				}
			}
			start := time.Now()
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d > DrainTimeout {
				t.Errorf("Close took %v", d)
			}
			if !cancelled.Load() {
				t.Fatal("the server got no Cancel")
			}
			if c.bad {
				t.Fatal("the connection is bad after a drained Cancel")
			}
			checkSelectOne(t, c)
		})
	}
}

// A server that does not end the query after the Cancel: Close gives up after DrainTimeout and
// the connection is closed (Begin refuses it).
func TestCloseServerIgnoresCancel(t *testing.T) {
	rev := nativeproto.LatestRevision
	first := append(u64Header(t, rev), u64Block(t, rev, 0, 2000)...)
	c := dialScript(t, faketest.ModernHello(), func(s *faketest.Session, _ *nativeproto.Query) error {
		if err := s.Write(first); err != nil {
			return err
		}
		s.Drain(faketest.DrainAfterScript) // reads the Cancel, answers nothing
		return nil
	})
	r, err := c.Query(context.Background(), "SELECT n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 3*DrainTimeout {
		t.Errorf("Close took %v", d)
	}
	if !c.bad {
		t.Fatal("the connection is kept although the server never ended the query")
	}
	if _, err := c.Begin(false); err != ErrBadConn {
		t.Fatalf("Begin: %v, want ErrBadConn", err)
	}
}
