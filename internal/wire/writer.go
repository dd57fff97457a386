package wire

import (
	"encoding/binary"
	"math"
)

// Writer accumulates the ClickHouse binary encoding of values in a byte slice. Columns encode into
// it; the protocol layer then sends (or compresses) Buf. The zero value is ready to use.
type Writer struct {
	Buf []byte
}

// Reset empties the buffer, keeping its capacity.
func (w *Writer) Reset() { w.Buf = w.Buf[:0] }

// Len returns the number of bytes written.
func (w *Writer) Len() int { return len(w.Buf) }

// Raw appends b unchanged.
func (w *Writer) Raw(b []byte) { w.Buf = append(w.Buf, b...) }

// Byte appends one byte.
func (w *Writer) Byte(b byte) { w.Buf = append(w.Buf, b) }

// Bool appends 1 or 0.
func (w *Writer) Bool(v bool) {
	if v {
		w.Buf = append(w.Buf, 1)
	} else {
		w.Buf = append(w.Buf, 0)
	}
}

// UVarInt appends an unsigned LEB128 integer.
func (w *Writer) UVarInt(v uint64) { w.Buf = binary.AppendUvarint(w.Buf, v) }

// Uint16 appends a little-endian uint16.
func (w *Writer) Uint16(v uint16) { w.Buf = binary.LittleEndian.AppendUint16(w.Buf, v) }

// Uint32 appends a little-endian uint32.
func (w *Writer) Uint32(v uint32) { w.Buf = binary.LittleEndian.AppendUint32(w.Buf, v) }

// Int32 appends a little-endian int32.
func (w *Writer) Int32(v int32) { w.Uint32(uint32(v)) }

// Uint64 appends a little-endian uint64.
func (w *Writer) Uint64(v uint64) { w.Buf = binary.LittleEndian.AppendUint64(w.Buf, v) }

// Int64 appends a little-endian int64.
func (w *Writer) Int64(v int64) { w.Uint64(uint64(v)) }

// Float64 appends a little-endian IEEE-754 float64.
func (w *Writer) Float64(v float64) { w.Uint64(math.Float64bits(v)) }

// String appends a length-prefixed string.
func (w *Writer) String(s string) {
	w.Buf = binary.AppendUvarint(w.Buf, uint64(len(s)))
	w.Buf = append(w.Buf, s...)
}

// Bytes appends a length-prefixed byte string.
func (w *Writer) Bytes(b []byte) {
	w.Buf = binary.AppendUvarint(w.Buf, uint64(len(b)))
	w.Buf = append(w.Buf, b...)
}
