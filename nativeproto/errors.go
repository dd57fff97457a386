package nativeproto

import (
	"fmt"
	"io"
)

// ProtocolError reports bytes that do not follow the protocol: an invalid field value, a count
// above a limit, leftover data after a block, a feature the package does not implement. Err, when
// set, is the underlying cause and is returned by Unwrap.
type ProtocolError struct {
	Msg string
	Err error
}

func (e *ProtocolError) Error() string {
	if e.Err != nil {
		return "nativeproto: " + e.Msg + ": " + e.Err.Error()
	}
	return "nativeproto: " + e.Msg
}

func (e *ProtocolError) Unwrap() error { return e.Err }

func protoErr(format string, args ...any) error {
	return &ProtocolError{Msg: fmt.Sprintf(format, args...)}
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
