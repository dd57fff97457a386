//go:build !linux

package chconn

import (
	"io"
	"net"
)

// withLowat returns src: the receive low-water mark of lowat_linux.go is set only on Linux.
func withLowat(_ net.Conn, src io.Reader) io.Reader { return src }
