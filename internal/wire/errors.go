package wire

import (
	"fmt"
	"io"
)

// ErrShortBuffer wraps io.ErrUnexpectedEOF: the input ended inside a value.
var ErrShortBuffer = io.ErrUnexpectedEOF

// LimitError reports a count or length read from the input that exceeds a cap.
type LimitError struct {
	What  string
	Value uint64
	Max   uint64
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("columns: %s %d exceeds the limit %d", e.What, e.Value, e.Max)
}
