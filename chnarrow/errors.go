package chnarrow

import "fmt"

// UnsupportedTypeError reports a ClickHouse type that has no Arrow form here (Query), or an
// Arrow type that no ClickHouse column takes (Insert). Reason says what to do instead.
type UnsupportedTypeError struct {
	Type   string // the ClickHouse or Arrow type
	Reason string
}

func (e *UnsupportedTypeError) Error() string {
	return fmt.Sprintf("chnarrow: type %s: %s", e.Type, e.Reason)
}

// LimitError reports a block too large for an Arrow array's 32-bit offsets: more than 2^31-1
// bytes of strings or elements of lists in one block. A smaller max_block_size
// (chnative.WithBlockSize) avoids it.
type LimitError struct {
	Column string // the ClickHouse type of the column
	What   string // "string bytes", "list elements"
	N      int
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("chnarrow: %s: %d %s in one block, past Arrow's 32-bit offsets (use a smaller max_block_size)", e.Column, e.N, e.What)
}
