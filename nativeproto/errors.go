package nativeproto

import (
	"fmt"
	"io"
	"strings"
)

// ProtocolError reports a broken conversation with the server: bytes that do not follow the
// protocol (an invalid field value, a count above a limit, leftover data after a block, a feature
// the package does not implement), or a failure the driver met while talking (then Err is its
// cause, a *chnative.TransportError when the transport failed). Op says what was being done or,
// without Err, what is wrong. The connection it happened on is closed.
type ProtocolError struct {
	Op  string
	Err error
}

func (e *ProtocolError) Error() string {
	var b strings.Builder
	b.WriteString("chnative: ")
	for cur := e; ; {
		b.WriteString(cur.Op)
		if cur.Err == nil {
			break
		}
		b.WriteString(": ")
		next, ok := cur.Err.(*ProtocolError) // a chain says "chnative: " once
		if !ok {
			b.WriteString(cur.Err.Error())
			break
		}
		cur = next
	}
	return b.String()
}

func (e *ProtocolError) Unwrap() error { return e.Err }

func protoErr(format string, args ...any) error {
	return &ProtocolError{Op: fmt.Sprintf(format, args...)}
}

// UnexpectedPacketError reports a server packet code the reader does not know or does not expect
// at this point of the conversation. The connection must be closed: the body length is unknown.
type UnexpectedPacketError struct {
	Code ServerCode
	// Want, if not empty, says what was expected instead.
	Want string
}

func (e *UnexpectedPacketError) Error() string {
	if e.Want != "" {
		return fmt.Sprintf("nativeproto: unexpected server packet %s (code %d), want %s", e.Code, uint64(e.Code), e.Want)
	}
	return fmt.Sprintf("nativeproto: unexpected server packet %s (code %d)", e.Code, uint64(e.Code))
}

// wrap adds what was being decoded to err, keeping it inspectable with errors.Is/As. Inside a
// packet body the end of input is never clean, so io.EOF becomes io.ErrUnexpectedEOF.
func wrap(err error, what string) error {
	if err == nil {
		return nil
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("nativeproto: reading %s: %w", what, err)
}
