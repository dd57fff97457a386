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

// WritePieces appends c's encoding after its state prefix, as c.Write does, calling flush after
// each piece of about n bytes (and after the last): a writer that sends each piece before the
// next never needs a buffer of the column's whole size. Columns of several streams (a null map
// and the values, offsets and elements, a dictionary and its indexes) write each stream so, a
// RowRangeWriter runs of its rows, a WireByteser its memory n bytes at a time; other columns go
// in one piece. Each column of several streams knows its order (its writePieces, which its Write
// is with no flush); they are switched on, not asked through an interface, so that flush does
// not escape: a caller's closure stays on its stack.
func WritePieces(c Column, w *Writer, n int, flush func()) {
	switch x := c.(type) {
	case *Nullable:
		x.writePieces(w, n, flush)
	case *Array:
		x.writePieces(w, n, flush)
	case *Map:
		x.writePieces(w, n, flush)
	case *Tuple:
		x.writePieces(w, n, flush)
	case *LowCardinality:
		x.writePieces(w, n, flush)
	case *Variant:
		x.writePieces(w, n, flush)
	case *Dynamic:
		x.writePieces(w, n, flush)
	case *JSON:
		x.writePieces(w, n, flush)
	case RowRangeWriter:
		rows := c.Rows()
		for from := 0; from < rows; {
			to := x.RowsWithin(from, n)
			x.WriteRows(w, from, to)
			flush()
			from = to
		}
	case WireByteser:
		writeBytePieces(w, x.WireBytes(), n, flush)
	default:
		c.Write(w)
		flush()
	}
}

// writeBytePieces appends data n bytes at a time, calling flush after each.
func writeBytePieces(w *Writer, data []byte, n int, flush func()) {
	for len(data) > 0 {
		k := min(len(data), max(n, 1))
		w.Buf = append(w.Buf, data[:k]...)
		flush()
		data = data[k:]
	}
}

// writeFixedPieces appends s's little-endian encoding about n bytes at a time, calling flush
// after each.
func writeFixedPieces[T any](w *Writer, s []T, n int, flush func()) {
	per := max(n/sizeOf[T](), 1)
	for len(s) > 0 {
		k := min(len(s), per)
		w.Buf = appendFixed(w.Buf, s[:k])
		flush()
		s = s[k:]
	}
}
