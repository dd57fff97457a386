package columns

import (
	"encoding/binary"
	"math/bits"
	"reflect"
	"slices"
)

// String is a column of byte strings, stored as one byte arena plus end offsets. Decoding walks the
// input buffer once; no allocation is made per value.
type String struct {
	buf  []byte
	ends []int // ends[i] is the end of value i in buf
}

// NewString returns an empty String column.
func NewString() *String { return &String{} }

// Type returns "String".
func (c *String) Type() string { return "String" }

// Rows returns the number of values.
func (c *String) Rows() int { return len(c.ends) }

func (c *String) start(i int) int {
	if i == 0 {
		return 0
	}
	return c.ends[i-1]
}

// Bytes returns value i. The slice is borrowed: valid until the column is next read, reset or
// appended to. Do not modify it.
func (c *String) Bytes(i int) []byte { return c.buf[c.start(i):c.ends[i]:c.ends[i]] }

// String returns value i as a newly allocated string.
func (c *String) String(i int) string { return string(c.buf[c.start(i):c.ends[i]]) }

// UnsafeString returns value i as a string that shares the column's memory: valid only until the
// column is next read, reset or appended to. Built with the purego tag it returns a copy.
func (c *String) UnsafeString(i int) string {
	b := c.buf[c.start(i):c.ends[i]]
	if len(b) == 0 {
		return ""
	}
	return unsafeString(b)
}

// Data returns the arena and the end offsets (borrowed): value i is buf[ends[i-1]:ends[i]].
func (c *String) Data() (buf []byte, ends []int) { return c.buf, c.ends }

// Append appends s.
func (c *String) Append(s string) {
	c.buf = append(c.buf, s...)
	c.ends = append(c.ends, len(c.buf))
}

// AppendStrings appends all of vs, growing the column once.
func (c *String) AppendStrings(vs []string) {
	n := 0
	for _, s := range vs {
		n += len(s)
	}
	c.buf = slices.Grow(c.buf, n)
	c.ends = slices.Grow(c.ends, len(vs))
	for _, s := range vs {
		c.buf = append(c.buf, s...)
		c.ends = append(c.ends, len(c.buf))
	}
}

// AppendBytes appends b.
func (c *String) AppendBytes(b []byte) {
	c.buf = append(c.buf, b...)
	c.ends = append(c.ends, len(c.buf))
}

// Value returns value i as a string.
func (c *String) Value(i int) any { return c.String(i) }

// ScanType returns string.
func (c *String) ScanType() reflect.Type { return reflect.TypeFor[string]() }

// AppendValue appends a string or []byte, the String() of a fmt.Stringer (as clickhouse-go
// does: a named string type with a String method, net.IP, time.Time), else the MarshalText of an
// encoding.TextMarshaler, else a named string or byte-slice type as its contents; pointers and
// driver.Valuer values are followed (a Valuer first, as in clickhouse-go).
func (c *String) AppendValue(v any) error {
	switch x := v.(type) {
	case string:
		c.Append(x)
		return nil
	case []byte:
		c.AppendBytes(x)
		return nil
	}
	v, isNil, err := derefWith(v, nil, isTextual)
	if err != nil {
		return err
	}
	if isNil {
		return mismatch(c, nil, "NULL in a non-Nullable column")
	}
	switch x := v.(type) {
	case string:
		c.Append(x)
		return nil
	case []byte:
		c.AppendBytes(x)
		return nil
	}
	if s, ok, err := textOf(v); ok || err != nil {
		if err != nil {
			return mismatch(c, v, err.Error())
		}
		c.Append(s)
		return nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.String {
		c.Append(rv.String())
		return nil
	}
	if rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() == reflect.Uint8 {
		c.AppendBytes(rv.Bytes())
		return nil
	}
	return mismatch(c, v, "")
}

// AppendDefault appends "".
func (c *String) AppendDefault() { c.ends = append(c.ends, len(c.buf)) }

// Truncate keeps the first n values.
func (c *String) Truncate(n int) {
	c.buf = c.buf[:c.start(n)]
	c.ends = c.ends[:n]
}

// Reset removes all values.
func (c *String) Reset() { c.buf, c.ends = c.buf[:0], c.ends[:0] }

// ReadPrefix reads nothing.
func (c *String) ReadPrefix(*Reader) error { return nil }

// WritePrefix writes nothing.
func (c *String) WritePrefix(*Writer) {}

// Read replaces the values with rows strings from r (each a UVarInt length and its bytes).
func (c *String) Read(r *Reader, rows int) error {
	c.Reset()
	if err := checkRows(c, rows); err != nil {
		return err
	}
	if lim := r.InputLimit(); lim >= 0 && int64(rows) > lim {
		return decodeErr(c, "%v", errShort(rows, 1, lim))
	}
	// An end offset per row (8 bytes) comes from as little as one byte of input.
	if err := r.Charge("String end offsets", uint64(rows)*8); err != nil {
		return decodeErr(c, "%v", err)
	}
	if cap(c.ends) < rows {
		c.ends = make([]int, 0, min(rows, max(growChunk, 2*cap(c.ends))))
	}
	for len(c.ends) < rows {
		// Fast path: parse every complete value in the buffered window. buf first gets room for
		// the window (at most 64 KiB of it: a byte-slice Reader's window is the whole rest of the
		// input, not just this column), so values rarely reallocate it; short values are moved as
		// one 16-byte word when both sides have the room.
		b := r.Window()
		p := 0
		buf, ends := c.buf, c.ends
		if room := min(len(b), 64<<10); cap(buf)-len(buf) < room {
			buf = slices.Grow(buf, room)
		}
		for len(ends) < rows && p < len(b) {
			n := uint64(b[p])
			q := p + 1
			if n >= 0x80 {
				var k int
				n, k = binary.Uvarint(b[p:])
				if k <= 0 {
					break
				}
				q = p + k
			}
			if n > uint64(len(b)-q) {
				break
			}
			start, m := len(buf), int(n)
			if m <= 16 && q+16 <= len(b) && start+16 <= cap(buf) {
				*(*[16]byte)(buf[start : start+16]) = *(*[16]byte)(b[q : q+16])
				buf = buf[:start+m]
			} else {
				buf = append(buf, b[q:q+m]...)
			}
			ends = append(ends, len(buf))
			p = q + m
		}
		c.buf, c.ends = buf, ends
		r.Consume(p)
		if len(c.ends) == rows {
			break
		}
		// Slow path: one value that spans the buffer's end.
		var err error
		c.buf, err = r.StringBytes(c.buf, "String", MaxStringSize)
		if err != nil {
			row := len(c.ends)
			c.Reset()
			return decodeErr(c, "row %d: %v", row, unexpected(err))
		}
		c.ends = append(c.ends, len(c.buf))
	}
	return nil
}

// Write appends each value as a UVarInt length and its bytes (WriteRows of every row).
func (c *String) Write(w *Writer) { c.WriteRows(w, 0, len(c.ends)) }

// WriteRows appends values [from, to) as Write does: the output is sized once, and values of up
// to 16 bytes are moved as one 16-byte word where both buffers have the room, so a column of short
// strings costs no memmove call per value.
func (c *String) WriteRows(w *Writer, from, to int) {
	ends := c.ends[from:to]
	first := c.start(from)
	n, prev := 0, first
	for _, e := range ends {
		if e-prev >= 0x80 {
			n += uvarintLen(uint64(e - prev))
		} else {
			n++
		}
		prev = e
	}
	n += prev - first
	start := len(w.Buf)
	w.Buf = slices.Grow(w.Buf, n)[:start+n]
	dst := w.Buf[start:]
	src := c.buf
	j := 0
	prev = first
	for _, e := range ends {
		l := e - prev
		if l < 0x80 {
			dst[j] = byte(l)
			j++
		} else {
			j += binary.PutUvarint(dst[j:], uint64(l))
		}
		if l <= 16 && prev+16 <= len(src) && j+16 <= len(dst) {
			// The bytes past l are overwritten by the next value, or lie past the end.
			*(*[16]byte)(dst[j : j+16]) = *(*[16]byte)(src[prev : prev+16])
		} else {
			copy(dst[j:j+l], src[prev:e])
		}
		j += l
		prev = e
	}
}

// RowsWithin returns the end of the run of rows from from whose values hold about n bytes: at
// least one row, at most the column's rows.
func (c *String) RowsWithin(from, n int) int {
	if from >= len(c.ends) {
		return len(c.ends)
	}
	start := c.start(from)
	if n >= c.ends[len(c.ends)-1]-start { // the rest (and no overflow for n near MaxInt)
		return len(c.ends)
	}
	to, _ := slices.BinarySearch(c.ends[from:], start+n)
	return min(len(c.ends), from+max(to, 1))
}

// uvarintLen is the length of v as a UVarInt.
func uvarintLen(v uint64) int {
	return (bits.Len64(v|1) + 6) / 7
}

// sliceValue returns values [lo, hi) as []string.
func (c *String) sliceValue(lo, hi int) any {
	out := make([]string, hi-lo)
	for i := range out {
		out[i] = c.String(lo + i)
	}
	return out
}
