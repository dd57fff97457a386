package nativeproto

import (
	"fmt"
	"strings"

	"github.com/chnative/chnative/internal/wire"
)

// Limits for decoding exceptions, so that a hostile chain fails fast.
const (
	// MaxExceptionDepth is the most records an exception chain may have.
	MaxExceptionDepth = 64
	// MaxExceptionStringSize caps the name, message and stack trace of each record.
	MaxExceptionStringSize = 1 << 20
	// MaxExceptionSize caps the bytes of a whole chain (every record's strings): 64 records
	// of three 1 MiB strings would be 192 MiB.
	MaxExceptionSize = 8 << 20
)

// Exception is a server error (server code 2): a chain of records, each possibly with a nested
// cause. It is the driver's error type too (chnative.Exception): use errors.As to get it, and
// errors.Is(err, &Exception{Code: 60}) to match a code.
type Exception struct {
	Code       int32  // ClickHouse error code, e.g. 60 UNKNOWN_TABLE
	Name       string // "DB::Exception"
	Message    string // usually starts with "DB::Exception: "
	StackTrace string
	Nested     *Exception
}

// Error returns the code, name and message of the first record, without the name the server
// repeats at the start of the message (DB::Exception, DB::NetException, ...).
func (e *Exception) Error() string {
	msg := e.Message
	if e.Name != "" && strings.HasPrefix(msg, e.Name+": ") {
		msg = msg[len(e.Name)+2:]
	} else {
		msg = strings.TrimPrefix(msg, "DB::Exception: ")
	}
	return fmt.Sprintf("chnative: server error %d (%s): %s", e.Code, e.Name, msg)
}

// Unwrap returns the nested exception, if any.
func (e *Exception) Unwrap() error {
	if e.Nested == nil {
		return nil
	}
	return e.Nested
}

// Is matches another *Exception with the same code (and the same message, when the target has
// one).
func (e *Exception) Is(target error) bool {
	t, ok := target.(*Exception)
	return ok && t.Code == e.Code && (t.Message == "" || t.Message == e.Message)
}

// Decode reads the packet body (after the code): records until has_nested is 0, at most
// MaxExceptionDepth of them and MaxExceptionSize bytes in all. It reads them in a loop: no
// recursion whose depth the server chooses.
func (e *Exception) Decode(r *wire.Reader) (err error) {
	defer func() { err = wrap(err, "exception") }()
	r.SetNamedBudget("exception size", MaxExceptionSize)
	defer r.ClearBudget()
	cur := e
	for depth := 1; ; depth++ {
		*cur = Exception{}
		if cur.Code, err = r.Int32(); err != nil {
			return err
		}
		if cur.Name, err = r.String("exception name", MaxExceptionStringSize); err != nil {
			return err
		}
		if cur.Message, err = r.String("exception message", MaxExceptionStringSize); err != nil {
			return err
		}
		if cur.StackTrace, err = r.String("exception stack trace", MaxExceptionStringSize); err != nil {
			return err
		}
		nested, err := r.Bool()
		if err != nil {
			return err
		}
		if !nested {
			return nil
		}
		if depth >= MaxExceptionDepth {
			return protoErr("exception nested deeper than %d levels", MaxExceptionDepth)
		}
		cur.Nested = new(Exception)
		cur = cur.Nested
	}
}

// Encode appends the packet, code included, with every nested record.
func (e *Exception) Encode(w *wire.Writer) {
	w.UVarInt(uint64(ServerCodeException))
	for cur := e; cur != nil; cur = cur.Nested {
		w.Int32(cur.Code)
		w.String(cur.Name)
		w.String(cur.Message)
		w.String(cur.StackTrace)
		w.Bool(cur.Nested != nil)
	}
}
