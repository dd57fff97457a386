package connprobe

import (
	"net"
	"testing"
	"time"

	"github.com/chnative/chnative/internal/testenv"
)

// eventually probes until it sees want (the peer's bytes or close take a moment to arrive).
func eventually(t *testing.T, c net.Conn, want Result) {
	t.Helper()
	var got Result
	for range 200 {
		if got = Probe(c); got == want {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("Probe = %v, want %v", got, want)
}

func TestProbe(t *testing.T) {
	c, s := testenv.TCPPair(t)
	if got := Probe(c); got != Idle {
		t.Fatalf("an open idle connection: %v, want Idle", got)
	}
	if _, err := s.Write([]byte("xy")); err != nil {
		t.Fatal(err)
	}
	eventually(t, c, Unexpected)
	// It consumed one byte of the two, and the connection still reads.
	b := make([]byte, 1)
	if _, err := c.Read(b); err != nil || b[0] != 'y' {
		t.Fatalf("after the probe read %q, %v; want the second byte", b, err)
	}
	s.Close()
	eventually(t, c, Closed)

	c2, _ := testenv.TCPPair(t)
	c2.Close()
	if got := Probe(c2); got != Closed {
		t.Errorf("a connection closed here: %v, want Closed", got)
	}
	a, _ := net.Pipe() // not a socket
	defer a.Close()
	if got := Probe(a); got != Unknown {
		t.Errorf("a pipe: %v, want Unknown", got)
	}
}
