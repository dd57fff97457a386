package columns

import (
	"fmt"
	"reflect"
	"slices"
)

// FixedNum is the set of Go types stored by fixed-width numeric columns.
type FixedNum interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64
}

// Fixed is a column of fixed-width little-endian numbers: the integer and float types, and the
// storage of dates, times, enums and decimals. Its values are held in one Go slice, which is read
// from and written to the wire without per-value work.
type Fixed[T FixedNum] struct {
	name string
	data []T
}

// The fixed-width numeric columns. Each has Values() (borrowed) and Append.
type (
	Int8    = Fixed[int8]
	Int16   = Fixed[int16]
	Int32   = Fixed[int32]
	Int64   = Fixed[int64]
	UInt8   = Fixed[uint8]
	UInt16  = Fixed[uint16]
	UInt32  = Fixed[uint32]
	UInt64  = Fixed[uint64]
	Float32 = Fixed[float32]
	Float64 = Fixed[float64]
)

// NewFixed returns an empty column of type T named typeName ("" for the default name of T).
func NewFixed[T FixedNum](typeName string) *Fixed[T] { return &Fixed[T]{name: typeName} }

// Type returns the ClickHouse type name.
func (c *Fixed[T]) Type() string {
	if c.name == "" {
		return defaultFixedName[T]()
	}
	return c.name
}

func defaultFixedName[T FixedNum]() string {
	var z T
	switch any(z).(type) {
	case int8:
		return "Int8"
	case int16:
		return "Int16"
	case int32:
		return "Int32"
	case int64:
		return "Int64"
	case uint8:
		return "UInt8"
	case uint16:
		return "UInt16"
	case uint32:
		return "UInt32"
	case uint64:
		return "UInt64"
	case float32:
		return "Float32"
	case float64:
		return "Float64"
	}
	return reflect.TypeFor[T]().Name()
}

// Rows returns the number of values.
func (c *Fixed[T]) Rows() int { return len(c.data) }

// Values returns the values. The slice is borrowed: valid until the column is next read or reset.
func (c *Fixed[T]) Values() []T { return c.data }

// Row returns value i.
func (c *Fixed[T]) Row(i int) T { return c.data[i] }

// Append appends v.
func (c *Fixed[T]) Append(v T) { c.data = append(c.data, v) }

// AppendSlice appends all of vs.
func (c *Fixed[T]) AppendSlice(vs []T) { c.data = append(c.data, vs...) }

// Value returns value i as T.
func (c *Fixed[T]) Value(i int) any { return c.data[i] }

// ScanType returns the Go type T.
func (c *Fixed[T]) ScanType() reflect.Type { return reflect.TypeFor[T]() }

// AppendValue converts v (any Go integer or float type that holds the value exactly, or
// driver.Valuer / pointers to those) and appends it.
func (c *Fixed[T]) AppendValue(v any) error {
	x, err := convertNum[T](c, v)
	if err != nil {
		return err
	}
	c.data = append(c.data, x)
	return nil
}

// AppendDefault appends zero.
func (c *Fixed[T]) AppendDefault() {
	var z T
	c.data = append(c.data, z)
}

// Truncate keeps the first n values.
func (c *Fixed[T]) Truncate(n int) { c.data = c.data[:n] }

// Reset removes all values.
func (c *Fixed[T]) Reset() { c.data = c.data[:0] }

// ReadPrefix reads nothing: fixed-width types have no state prefix.
func (c *Fixed[T]) ReadPrefix(*Reader) error { return nil }

// WritePrefix writes nothing.
func (c *Fixed[T]) WritePrefix(*Writer) {}

// Read replaces the values with rows values from r.
func (c *Fixed[T]) Read(r *Reader, rows int) error {
	var err error
	c.data, err = readFixed(r, c.data[:0], rows)
	if err != nil {
		c.data = c.data[:0]
		return decodeErr(c, "%v", err)
	}
	return nil
}

// Write appends the values' little-endian bytes.
func (c *Fixed[T]) Write(w *Writer) { w.Buf = appendFixed(w.Buf, c.data) }

// WireBytes returns the bytes Write would append, as a view of the column's memory (valid until
// the column is next changed; built with the purego tag, a copy). The protocol layer sends large
// columns from it without a copy.
func (c *Fixed[T]) WireBytes() []byte { return wireBytes(c.data) }

// appendRaw appends every value of src, a column of the same type, without converting them
// (LowCardinality merges dictionaries bit-exactly with it). It reports false, appending nothing,
// when src does not hold []T.
func (c *Fixed[T]) appendRaw(src Column) bool {
	s, ok := src.(interface{ Values() []T })
	if ok {
		c.data = append(c.data, s.Values()...)
	}
	return ok
}

// sliceValue returns a copy of values [lo, hi) as []T (used by Array's Value).
// sliceValue returns a copy of values [lo, hi), never nil (an empty array is an empty slice, as
// from clickhouse-go: encoding/json writes it as [], not null).
func (c *Fixed[T]) sliceValue(lo, hi int) any { return append(make([]T, 0, hi-lo), c.data[lo:hi]...) }

// readFixed appends rows values to dst. Memory grows with the bytes received, never ahead of them
// by more than growChunk values, so a hostile row count cannot force a large allocation.
func readFixed[T any](r *Reader, dst []T, rows int) ([]T, error) {
	size := sizeOf[T]()
	if rows < 0 {
		return dst, fmt.Errorf("negative row count %d", rows)
	}
	if lim := r.InputLimit(); lim >= 0 && size > 0 && int64(rows) > lim/int64(size) {
		return dst, errShort(rows, size, lim)
	}
	for got := 0; got < rows; {
		want := rows - got
		if free := cap(dst) - len(dst); free < want {
			if free == 0 {
				dst = slices.Grow(dst, min(want, max(growChunk, len(dst))))
			}
			want = min(want, cap(dst)-len(dst))
		}
		n := len(dst)
		dst = dst[:n+want]
		if err := readFixedInto(r, dst[n:]); err != nil {
			return dst[:n], unexpected(err)
		}
		got += want
	}
	return dst, nil
}

// elemSize is the bytes of one value in memory (rowBytes).
func (c *Fixed[T]) elemSize() int { return int(reflect.TypeFor[T]().Size()) }
