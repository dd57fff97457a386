//go:build unix

package connprobe

import (
	"errors"
	"syscall"
)

func probeFD(fd uintptr) Result {
	var b [1]byte
	n, err := syscall.Read(int(fd), b[:])
	switch {
	case n > 0:
		return Unexpected
	case err == nil: // n == 0: end of stream
		return Closed
	case errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EWOULDBLOCK) || errors.Is(err, syscall.EINTR):
		return Idle
	default:
		return Closed
	}
}
