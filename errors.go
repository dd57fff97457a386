package chnative

import (
	"errors"
	"fmt"
	"strings"

	"github.com/chnative/chnative/nativeproto"
)

// Exception is an error the server sent, with its nested causes. Use errors.As to get it.
type Exception struct {
	Code       int32
	Name       string
	Message    string
	StackTrace string
	Nested     *Exception
}

func (e *Exception) Error() string {
	return fmt.Sprintf("chnative: server error %d (%s): %s", e.Code, e.Name, strings.TrimPrefix(e.Message, "DB::Exception: "))
}

// Unwrap returns the nested exception, if any.
func (e *Exception) Unwrap() error {
	if e.Nested == nil {
		return nil
	}
	return e.Nested
}

// Is matches another *Exception with the same code, so errors.Is(err, &chnative.Exception{Code: 60})
// works.
func (e *Exception) Is(target error) bool {
	t, ok := target.(*Exception)
	return ok && t.Code == e.Code && (t.Message == "" || t.Message == e.Message)
}

func fromWire(w *nativeproto.Exception) *Exception {
	if w == nil {
		return nil
	}
	return &Exception{Code: w.Code, Name: w.Name, Message: w.Message, StackTrace: w.StackTrace, Nested: fromWire(w.Nested)}
}

// ErrConnBusy is returned when a connection is used while a result or an insert is still open on it.
var ErrConnBusy = errors.New("chnative: connection busy: a result set or an insert is still open")

// ErrClosed is returned by operations on a closed connection, batch or result.
var ErrClosed = errors.New("chnative: closed")

// ProtocolError reports a broken conversation with the server; the connection is closed.
type ProtocolError struct {
	Op  string
	Err error
}

func (e *ProtocolError) Error() string { return "chnative: " + e.Op + ": " + e.Err.Error() }

func (e *ProtocolError) Unwrap() error { return e.Err }

// UnsupportedError reports a request the server or the driver cannot carry out as asked.
type UnsupportedError struct {
	Msg string
}

func (e *UnsupportedError) Error() string { return "chnative: " + e.Msg }
