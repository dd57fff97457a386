//go:build linux

package chconn

import (
	"bytes"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/chnative/chnative/internal/testenv"
	"github.com/chnative/chnative/internal/wire"
)

// tcpPair is testenv.TCPPair; the tests using it skip on a kernel older than 5.11, where
// withLowat sets no mark.
func tcpPair(t *testing.T) (client, server net.Conn) {
	t.Helper()
	if !lowatKernel() {
		t.Skip("kernel older than 5.11: withLowat sets no mark")
	}
	return testenv.TCPPair(t)
}

// rcvlowat reads the socket's SO_RCVLOWAT.
func rcvlowat(t *testing.T, c net.Conn) int {
	t.Helper()
	rc, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var v int
	var serr error
	if err := rc.Control(func(fd uintptr) {
		v, serr = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVLOWAT)
	}); err != nil || serr != nil {
		t.Fatal(err, serr)
	}
	return v
}

// The hints set the socket's mark, capped, and 0 sets it back to the default.
func TestLowatHintSetsMark(t *testing.T) {
	client, _ := tcpPair(t)
	src := withLowat(client, client)
	h, ok := src.(wire.ReadHinter)
	if !ok {
		t.Fatalf("withLowat over a TCP connection returned %T, not a wire.ReadHinter", src)
	}
	for _, c := range []struct{ hint, want int }{{1 << 20, lowatCap}, {1000, 1000}, {0, 1}} {
		h.HintRead(c.hint)
		if got := rcvlowat(t, client); got != c.want {
			t.Fatalf("after HintRead(%d) SO_RCVLOWAT is %d, want %d", c.hint, got, c.want)
		}
	}
	if _, ok := withLowat(nil, bytes.NewReader(nil)).(wire.ReadHinter); ok {
		t.Fatal("withLowat hints a connection that is not TCP")
	}
}

// A hinted read whose tail is shorter than the cap completes when the peer has sent exactly
// the bytes asked for and waits for an answer: the mark follows the bytes still missing, so it
// never waits for more than the read needs. The mark is back at 1 afterwards, so the small
// read after it is not held back.
func TestLowatReadTail(t *testing.T) {
	client, server := tcpPair(t)
	data := make([]byte, lowatCap+lowatCap/4)
	for i := range data {
		data[i] = byte(i*13 + i>>9)
	}
	served := make(chan error, 1)
	go func() {
		// More than the cap, a pause, the rest: the reader's second wait is for fewer bytes
		// than the cap. Then an answer is awaited before the last 3 bytes go.
		if _, err := server.Write(data[:lowatCap+1000]); err != nil {
			served <- err
			return
		}
		time.Sleep(50 * time.Millisecond)
		if _, err := server.Write(data[lowatCap+1000:]); err != nil {
			served <- err
			return
		}
		var ack [1]byte
		if _, err := server.Read(ack[:]); err != nil {
			served <- err
			return
		}
		_, err := server.Write([]byte("end"))
		served <- err
	}()
	if err := client.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	r := wire.NewReader(withLowat(client, client))
	got := make([]byte, len(data))
	if err := r.ReadFull(got); err != nil {
		t.Fatalf("hinted read: %v", err)
	}
	if !bytes.Equal(got, data) {
		t.Fatal("data read differs from data sent")
	}
	if m := rcvlowat(t, client); m != 1 {
		t.Fatalf("SO_RCVLOWAT %d after the read, want 1", m)
	}
	if _, err := client.Write([]byte{1}); err != nil {
		t.Fatal(err)
	}
	end := make([]byte, 3)
	if err := r.ReadFull(end); err != nil || string(end) != "end" {
		t.Fatalf("read after the hinted one: %q, %v", end, err)
	}
	if err := <-served; err != nil {
		t.Fatal(err)
	}
}

// A hint allocates nothing: it runs for every large column of every block.
func TestLowatHintAllocs(t *testing.T) {
	client, _ := tcpPair(t)
	h := withLowat(client, client).(wire.ReadHinter)
	if a := testing.AllocsPerRun(100, func() { h.HintRead(lowatCap); h.HintRead(0) }); a != 0 {
		t.Fatalf("a hint and its end allocate %.1f times", a)
	}
}

func TestKernelAtLeast(t *testing.T) {
	for _, c := range []struct {
		release string
		want    bool
	}{
		{"6.18.44-fc-v1294", true}, {"5.11.0", true}, {"5.11-rc3", true}, {"5.15.0-91-generic", true},
		{"5.10.200", false}, {"4.18.0-553.el8_10.x86_64", false}, {"3.10.0-1160.el7.x86_64", false},
		{"", false}, {"6", false}, {"x.y", false},
	} {
		if got := kernelAtLeast(c.release, 5, 11); got != c.want {
			t.Errorf("kernelAtLeast(%q, 5, 11) = %v, want %v", c.release, got, c.want)
		}
	}
}
