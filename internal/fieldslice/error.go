package fieldslice

import "fmt"

// Error is the panic value of an access a Slice refuses: an element outside the slice (Index of
// Len, or elements [Index, End) for a range), or a value of Size bytes in a field of FieldSize (a
// column copier of another type than the field was planned for). Struct mapping
// (internal/structmap) checks each block's column types against its plan first, and turns this
// panic into an error should one come anyway.
type Error struct {
	Op              string
	Index, End, Len int
	Size, FieldSize uintptr
	Msg             string // set instead of the above by Of
}

func (e *Error) Error() string {
	switch {
	case e.Msg != "":
		return "fieldslice: " + e.Op + ": " + e.Msg
	case e.End > e.Index+1 || e.End < e.Index:
		return fmt.Sprintf("fieldslice: %s: elements [%d, %d) of %d", e.Op, e.Index, e.End, e.Len)
	case e.Index < 0 || e.Index >= e.Len:
		return fmt.Sprintf("fieldslice: %s: element %d of %d", e.Op, e.Index, e.Len)
	}
	return fmt.Sprintf("fieldslice: %s: a %d-byte value in a %d-byte field", e.Op, e.Size, e.FieldSize)
}
