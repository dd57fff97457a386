package chconn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync/atomic"
	"time"

	"github.com/chnative/chnative/nativeproto"
)

// fail classifies an error that happened while talking to the server: a server Exception leaves
// the connection usable (once the next Begin has found nothing unread after it); a context error
// triggers cancel-and-drain; anything else breaks it, as a transport failure (TransportError,
// retried) or as a lie (returned at once).
func (c *Conn) fail(ctx context.Context, fired bool, err error) error {
	var ex *Exception
	if errors.As(err, &ex) {
		c.afterException = true // in step only if nothing follows it: the next Begin checks
		return err
	}
	// The socket deadline may expire a moment before the context's own timer: a timeout at or
	// after the context's deadline is the context's.
	dl, hasDL := ctx.Deadline()
	var ne net.Error
	pastDeadline := hasDL && !time.Now().Before(dl) && errors.As(err, &ne) && ne.Timeout()
	// A lie that arrives as the context ends is still a lie: the connection is closed, not drained.
	if (fired || ctx.Err() != nil || pastDeadline) && c.transport(err) {
		cause := ctx.Err()
		switch {
		case cause != nil:
		case pastDeadline:
			cause = context.DeadlineExceeded
		default:
			cause = context.Canceled
		}
		c.traceEnd(OutcomeCancelled, cause)
		c.cancelOffPath(cause, false) // drain.go: the caller returns now
		return c.contextError(cause)
	}
	c.traceEnd(OutcomeBroken, err)
	transport := c.transport(err)
	c.markBad()
	var pe *ProtocolError
	switch {
	case !transport:
		if errors.As(err, &pe) {
			return err // already says what broke (a result's blocks, say)
		}
		return &ProtocolError{Op: "conversation", Err: err}
	case errors.As(err, &ne) && ne.Timeout():
		return &ProtocolError{Op: "read", Err: &TransportError{Err: err}}
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return &ProtocolError{Op: "read", Err: &TransportError{Err: fmt.Errorf("server closed the connection: %w", err)}}
	}
	return &ProtocolError{Op: "conversation", Err: &TransportError{Err: err}}
}

// transport reports whether err, which broke the conversation, is a transport failure (see
// TransportError, IsTransport) rather than a lie: the socket failed under a read (sockReader saw
// it, so an unexpected EOF inside a block is the connection's end, not a short block), or err
// is one IsTransport knows by itself. Anything else came from bytes that did arrive, and would
// arrive again.
func (c *Conn) transport(err error) bool { return c.sockErr.Load() || IsTransport(err) }

// sockReader is the bottom of a connection's read path: the socket, noting in failed that a
// read of it failed (EOF, reset, a closed socket), for transport. A deadline's timeout is not
// noted: packetWithin's short waits time out harmlessly, and a timeout that breaks a read is
// still in the error itself.
type sockReader struct {
	r      io.Reader
	failed *atomic.Bool
}

func (s sockReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
		s.failed.Store(true)
	}
	return n, err
}

// cancelAndDrain sends Cancel and reads until the query ends, within DrainTimeout; otherwise the
// connection is marked bad.
func (c *Conn) cancelAndDrain() {
	if c.bad {
		return
	}
	if !c.sendCancel() {
		return
	}
	c.drainAfterCancel()
}

// sendCancel writes a Cancel packet (bounded by DrainTimeout); false, with the connection marked
// bad, when that fails. It only writes, so a read-ahead may be reading meanwhile.
func (c *Conn) sendCancel() bool {
	c.traceEnd(OutcomeCancelled, nil)
	_ = c.nc.SetWriteDeadline(time.Now().Add(DrainTimeout))
	defer func() { _ = c.nc.SetWriteDeadline(time.Time{}) }()
	c.pw.Reset()
	c.pw.WriteCancel()
	if err := c.pw.Flush(c.nc); err != nil {
		c.markBad()
		return false
	}
	return true
}

// drainAfterCancel reads the rest of a cancelled query, up to its EndOfStream or Exception,
// within DrainTimeout; the connection is marked bad when that fails.
func (c *Conn) drainAfterCancel() {
	_ = c.nc.SetReadDeadline(time.Now().Add(DrainTimeout))
	defer func() { _ = c.nc.SetReadDeadline(time.Time{}) }()
	var scratch *nativeproto.Block
	for {
		code, err := c.pr.ReadCode()
		if err != nil {
			c.markBad()
			return
		}
		switch code {
		case nativeproto.ServerCodeEndOfStream:
			if c.awaitPong() != nil {
				c.markBad()
			}
			return
		case nativeproto.ServerCodeException:
			if _, err := c.pr.ReadException(); err != nil || c.awaitPong() != nil {
				c.markBad()
			}
			return
		case nativeproto.ServerCodePong:
			c.pendingPong = false
		case nativeproto.ServerCodeData, nativeproto.ServerCodeTotals, nativeproto.ServerCodeExtremes:
			if _, scratch, err = c.pr.ReadBlock(scratch); err != nil {
				c.markBad()
				return
			}
		default:
			if err := c.info(code); err != nil { // progress, logs: still to the callbacks
				c.markBad()
				return
			}
		}
	}
}
