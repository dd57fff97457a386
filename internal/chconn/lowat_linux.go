//go:build linux

package chconn

import (
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// The socket's receive low-water mark, set for the large reads of a block's columns.
//
// Design note: a column of a 65,536-row block is 512 KiB for UInt64, read by one ReadFull
// straight into the column (wire.Reader's large path). Go's sockets are non-blocking and its
// poller wakes the reader for every few segments the kernel queues, so such a read costs tens
// of wake-ups and read calls. wire.Reader tells its source how many bytes a large read still
// misses (wire.ReadHinter); lowatReader sets SO_RCVLOWAT to that count, capped at lowatCap, so
// the poller reports the socket readable only once that much is queued, and sets it back to 1
// (the kernel's default) when the read is done. The mark never exceeds the bytes the read
// waits for anyway, so it cannot hold back data the peer has finished sending; a peer's close
// or an error still wakes the reader at once, and a non-blocking read returns what is queued
// whatever the mark. Linux caps the mark at half the receive buffer by itself. Kernels before
// 5.11 are left alone: from 4.18 they hold back the wake-up until the mark is reached but,
// until commit 24adbc1676af ("tcp: fix SO_RCVLOWAT hangs with fat skbs"), not when the receive
// buffer fills first, which small segments can make happen below the mark. It pays on large
// uncompressed reads (BENCHMARKS.md, the 26.7 server's 100M-row read).

// lowatCap caps the mark: enough to read in a few calls, small enough that the copy of one
// chunk overlaps the arrival of the next.
const lowatCap = 256 << 10

// lowatReader is the source of a connection's packet reader when the connection is TCP: r
// (the socket, or the debug log's counter over it) with the hints of wire.ReadHinter applied to
// the socket.
type lowatReader struct {
	r    io.Reader
	rc   syscall.RawConn
	mark int  // the mark last set; 1 is the kernel's default
	off  bool // a setsockopt failed: hints are ignored from then on
	// set sets the mark to want, its error in serr: made once, so that a hint allocates
	// nothing (a closure made per call escapes through RawConn.Control).
	set  func(fd uintptr)
	want int
	serr error
}

// withLowat returns src with wire.ReadHinter's hints applied to nc when nc is a TCP
// connection, else src.
func withLowat(nc net.Conn, src io.Reader) io.Reader {
	tc, ok := nc.(*net.TCPConn)
	if !ok || !lowatKernel() {
		return src
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return src
	}
	l := &lowatReader{r: src, rc: rc, mark: 1}
	l.set = func(fd uintptr) {
		l.serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVLOWAT, l.want)
	}
	return l
}

func (l *lowatReader) Read(p []byte) (int, error) { return l.r.Read(p) }

// HintRead sets the mark to n bytes (at most lowatCap); 0 sets it back to 1.
func (l *lowatReader) HintRead(n int) {
	v := min(max(n, 1), lowatCap)
	if v == l.mark || l.off {
		return
	}
	l.want = v
	if err := l.rc.Control(l.set); err != nil || l.serr != nil {
		l.off = true
		return
	}
	l.mark = v
}

// lowatKernel reports whether the running kernel is 5.11 or later (see the design note).
var lowatKernel = sync.OnceValue(func() bool {
	var u syscall.Utsname
	if syscall.Uname(&u) != nil {
		return false
	}
	b := make([]byte, 0, len(u.Release))
	for _, c := range u.Release {
		if c == 0 {
			break
		}
		b = append(b, byte(c))
	}
	return kernelAtLeast(string(b), 5, 11)
})

// kernelAtLeast reports whether release (uname -r, "6.18.44-fc") is major.minor or later; a
// release it cannot read is not.
func kernelAtLeast(release string, major, minor int) bool {
	ma, rest, ok := leadingInt(release)
	if !ok || !strings.HasPrefix(rest, ".") {
		return false
	}
	mi, _, ok := leadingInt(rest[1:])
	if !ok {
		return false
	}
	return ma > major || ma == major && mi >= minor
}

// leadingInt parses the decimal digits s starts with.
func leadingInt(s string) (n int, rest string, ok bool) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	n, err := strconv.Atoi(s[:i])
	return n, s[i:], err == nil
}
