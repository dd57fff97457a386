package chconn

import (
	"slices"
	"testing"
	"time"
)

func TestHostHealthOrder(t *testing.T) {
	var h hostHealth
	now := time.Unix(1000, 0)
	addrs := []string{"a", "b", "c", "d"}
	if got, passed := h.order(addrs, 1, now); passed != 0 || !slices.Equal(got, []string{"b", "c", "d", "a"}) {
		t.Errorf("no failures: %v (%d passed)", got, passed)
	}
	if w := h.failed("c", 30*time.Second, now); w != time.Second {
		t.Errorf("first back-off %v, want 1s", w)
	}
	h.failed("b", 30*time.Second, now)
	if w := h.failed("b", 30*time.Second, now); w != 2*time.Second {
		t.Errorf("second back-off %v, want 2s", w)
	}
	got, passed := h.order(addrs, 0, now)
	if passed != 2 || !slices.Equal(got, []string{"a", "d", "c", "b"}) {
		t.Errorf("backing off: %v (%d passed), want [a d c b] (c is back first)", got, passed)
	}
	// After its back-off, c is in the rotation again; b still waits.
	got, passed = h.order(addrs, 0, now.Add(1500*time.Millisecond))
	if passed != 1 || !slices.Equal(got, []string{"a", "c", "d", "b"}) {
		t.Errorf("after 1.5 s: %v (%d passed)", got, passed)
	}
	for range 40 {
		h.failed("d", 30*time.Second, now)
	}
	if w := h.failed("d", 30*time.Second, now); w != 30*time.Second {
		t.Errorf("capped back-off %v, want 30s", w)
	}
	h.answered("b")
	if got, _ := h.order(addrs, 0, now); got[1] != "b" {
		t.Errorf("b answered but still backs off: %v", got)
	}
	if w := h.failed("a", 0, now); w != 0 {
		t.Errorf("host_backoff=0 gave a back-off of %v", w)
	}
}
