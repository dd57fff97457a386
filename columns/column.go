package columns

import (
	"fmt"
	"io"
	"net"
	"net/netip"
	"reflect"
	"strconv"
)

// Column is typed storage for the values of one ClickHouse column in one block, with the codec of
// its type. Columns are reused: Read replaces the contents and keeps the memory.
//
// Values returned by typed accessors (Values, Bytes, ...) are borrowed: they stay valid until the
// column is next Read, Reset or appended to.
type Column interface {
	// Type returns the ClickHouse type name, e.g. "Array(Nullable(String))".
	Type() string
	// Rows returns the number of values.
	Rows() int
	// Value returns value i boxed in the Go type the package doc's table names (nil for NULL).
	Value(i int) any
	// AppendValue converts v to the column's type and appends it. On error nothing is appended.
	AppendValue(v any) error
	// AppendDefault appends the type's default value (zero, empty string, empty array, ...).
	AppendDefault()
	// Truncate keeps the first n values (n <= Rows()).
	Truncate(n int)
	// Reset removes all values, keeping memory for reuse.
	Reset()
	// ScanType returns the Go type Value returns for non-NULL values.
	ScanType() reflect.Type

	// ReadPrefix decodes the per-block state prefix (empty for most types). It is called once per
	// block before Read, only for blocks with rows.
	ReadPrefix(r *Reader) error
	// Read replaces the contents with rows values decoded from r.
	Read(r *Reader, rows int) error
	// WritePrefix encodes the per-block state prefix.
	WritePrefix(w *Writer)
	// Write encodes all values.
	Write(w *Writer)
}

// TypeMismatchError reports a Go value that a column cannot take.
type TypeMismatchError struct {
	Column string // ClickHouse type
	GoType string // Go type of the value
	Value  string // the value when it is a scalar (strings quoted, long ones shortened), else ""
	Reason string // optional detail, such as "out of range"
}

func (e *TypeMismatchError) Error() string {
	what := e.GoType
	if e.Value != "" {
		what += " " + e.Value
	}
	if e.Reason != "" {
		return fmt.Sprintf("columns: cannot append %s to %s: %s", what, e.Column, e.Reason)
	}
	return fmt.Sprintf("columns: cannot append %s to %s", what, e.Column)
}

func mismatch(col Column, v any, reason string) error {
	return &TypeMismatchError{Column: col.Type(), GoType: goTypeName(v), Value: scalarText(v), Reason: reason}
}

func goTypeName(v any) string {
	if v == nil {
		return "nil"
	}
	return reflect.TypeOf(v).String()
}

// textReason says why text s (v's, or what v gave) is refused: "not <what>", naming s only when
// the error does not show it already as v's value.
func textReason(v any, s, what string) string {
	if scalarText(v) == scalarText(s) {
		return "not " + what
	}
	return "its text " + scalarText(s) + " is not " + what
}

// scalarText renders v for an error message when it is a number, a bool, text or an address:
// strings and byte slices quoted (at most 64 bytes of them), nothing for composites, whose
// rendering could be long or reach into the caller's data structures.
func scalarText(v any) string {
	const most = 64
	switch x := v.(type) {
	case nil:
		return ""
	case netip.Addr:
		return x.String()
	case net.IP:
		return x.String()
	case []byte:
		if len(x) > most {
			return strconv.Quote(string(x[:most])) + "..."
		}
		return strconv.Quote(string(x))
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.String:
		if s := rv.String(); len(s) > most {
			return strconv.Quote(s[:most]) + "..."
		}
		return strconv.Quote(rv.String())
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint,
		reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return fmt.Sprint(rv.Interface())
	}
	return ""
}

// DecodeError reports malformed or truncated column data. Err is the underlying error when there
// is one (io.ErrUnexpectedEOF for input that ends inside a value, a *LimitError, ...), so
// errors.Is and errors.As see through a DecodeError.
type DecodeError struct {
	Type string
	Msg  string
	Err  error
}

func (e *DecodeError) Error() string { return "columns: decoding " + e.Type + ": " + e.Msg }

// Unwrap returns the underlying error, if any.
func (e *DecodeError) Unwrap() error { return e.Err }

func decodeErr(col Column, format string, args ...any) error {
	e := &DecodeError{Type: col.Type(), Msg: fmt.Sprintf(format, args...)}
	for _, a := range args {
		if err, ok := a.(error); ok {
			e.Err = err
			break
		}
	}
	return e
}

// growChunk is the most elements a decoder allocates ahead of the bytes that fill them, so a
// hostile row count cannot make a decoder allocate more than the input it has received.
const growChunk = 1 << 16

// checkRows rejects a negative row count, which no caller should pass.
func checkRows(col Column, rows int) error {
	if rows < 0 {
		return decodeErr(col, "negative row count %d", rows)
	}
	return nil
}

func errShort(rows, size int, limit int64) error {
	return fmt.Errorf("%d values of %d bytes exceed the %d bytes of input: %w", rows, size, limit, io.ErrUnexpectedEOF)
}
