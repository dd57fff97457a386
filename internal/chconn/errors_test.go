package chconn

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"testing"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/nativeproto"
)

// IsTransport is the one classification every retry makes: these are retried, the lies not.
func TestIsTransport(t *testing.T) {
	opErr := &net.OpError{Op: "read", Net: "tcp", Err: errors.New("connection reset by peer")}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"marked EOF", &ProtocolError{Op: "read", Err: &TransportError{Err: io.ErrUnexpectedEOF}}, true},
		{"socket error", &ProtocolError{Op: "insert", Err: opErr}, true},
		{"timeout", fmt.Errorf("reading: %w", os.ErrDeadlineExceeded), true},
		{"checksum", fmt.Errorf("x: %w", &nativeproto.ChecksumError{}), true},
		{"bad conn", ErrBadConn, true},
		// An unexpected EOF alone says nothing of the socket: the connection's read path marks
		// its own (sockReader), and a short block or frame is a lie.
		{"bare unexpected EOF", &ProtocolError{Op: "conversation", Err: io.ErrUnexpectedEOF}, false},
		{"limit", &ProtocolError{Op: "conversation", Err: &columns.LimitError{What: "String length", Value: 1 << 40, Max: 1 << 30}}, false},
		{"unknown packet", &ProtocolError{Op: "conversation", Err: &nativeproto.UnexpectedPacketError{Code: 99}}, false},
		{"malformed", &ProtocolError{Op: "conversation", Err: &nativeproto.ProtocolError{Op: "exception nested deeper than 64 levels"}}, false},
		{"frame", &ProtocolError{Op: "conversation", Err: &nativeproto.FrameError{Reason: "unknown method"}}, false},
		{"exception", &Exception{Code: 210, Name: "NETWORK_ERROR"}, false},
	} {
		if got := IsTransport(tc.err); got != tc.want {
			t.Errorf("%s: IsTransport(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}

// sockReader notes a failed read, but not a deadline's timeout (packetWithin's short waits).
func TestSockReaderNotesFailures(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{{nil, false}, {os.ErrDeadlineExceeded, false}, {&net.OpError{Op: "read", Err: os.ErrDeadlineExceeded}, false},
		{io.EOF, true}, {net.ErrClosed, true}} {
		c := &Conn{}
		r := sockReader{r: errReader{tc.err}, failed: &c.sockErr}
		_, _ = r.Read(make([]byte, 1))
		if got := c.sockErr.Load(); got != tc.want {
			t.Errorf("after a read failing with %v: noted %v, want %v", tc.err, got, tc.want)
		}
	}
}

type errReader struct{ err error }

func (r errReader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	return len(p), nil
}
