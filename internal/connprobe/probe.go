// Package connprobe checks, without blocking, whether an idle connection was closed by its peer.
//
// database/sql keeps idle connections in its pool; when the server restarts or drops them, the
// first query on such a connection would be written into a dead socket and fail after it may
// have reached nothing. Probing the socket before reuse (as go-sql-driver/mysql's connCheck
// does) lets the driver report driver.ErrBadConn while nothing has been sent, so database/sql
// retries on another connection.
package connprobe

import (
	"crypto/tls"
	"net"
	"syscall"
)

// Result of a probe.
type Result int

const (
	// Unknown: the connection cannot be probed (not a socket, or an unsupported platform).
	Unknown Result = iota
	// Idle: open, nothing to read.
	Idle
	// Closed: the peer closed the connection or the socket failed.
	Closed
	// Unexpected: the peer sent bytes nobody asked for: the stream is out of sync.
	Unexpected
)

// Probe looks at the socket under c (through a *tls.Conn too) without blocking and without
// waiting. It consumes at most one byte, and only when the result is Unexpected.
func Probe(c net.Conn) Result {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return Unknown
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return Unknown
	}
	res := Unknown
	if err := rc.Read(func(fd uintptr) bool {
		res = probeFD(fd)
		return true // never wait for readiness
	}); err != nil {
		return Closed
	}
	return res
}
