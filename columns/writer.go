package columns

import "github.com/chnative/chnative/internal/wire"

// Writer accumulates the ClickHouse binary encoding of values in a byte slice; columns encode into
// it and the protocol layer then sends (or compresses) Buf. The zero value is ready to use. It
// lives in internal/wire, below this package and nativeproto, which share it.
type Writer = wire.Writer

// WireByteser is implemented by columns whose encoding (after the state prefix) is exactly their
// memory, such as the fixed-width numbers: WireBytes returns it without copying, valid until the
// column is next changed.
type WireByteser interface {
	WireBytes() []byte
}

// RowRangeWriter is implemented by columns whose encoding of rows [from, to) is that stretch of
// their whole encoding (no prefix, no second stream), such as String: a large one can be written
// in runs of rows, each sent before the next is encoded, so that a block never needs a buffer of
// its whole size. RowsWithin returns the end of the run from from that holds about n bytes (at
// least one row).
type RowRangeWriter interface {
	WriteRows(w *Writer, from, to int)
	RowsWithin(from, n int) int
}
