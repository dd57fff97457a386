package columns

import (
	"encoding"
	"reflect"
	"strconv"
)

// FixedString is a column of FixedString(N): N bytes per value, zero padded, stored contiguously.
type FixedString struct {
	n    int
	data []byte
}

// MaxFixedStringSize caps N in FixedString(N).
const MaxFixedStringSize = 1 << 24

// NewFixedString returns an empty FixedString(n) column.
func NewFixedString(n int) *FixedString { return &FixedString{n: n} }

// Type returns "FixedString(N)".
func (c *FixedString) Type() string { return "FixedString(" + strconv.Itoa(c.n) + ")" }

// Size returns N.
func (c *FixedString) Size() int { return c.n }

// Rows returns the number of values.
func (c *FixedString) Rows() int {
	if c.n == 0 {
		return 0
	}
	return len(c.data) / c.n
}

// Bytes returns value i (borrowed, N bytes).
func (c *FixedString) Bytes(i int) []byte { return c.data[i*c.n : (i+1)*c.n : (i+1)*c.n] }

// Data returns all values back to back (borrowed).
func (c *FixedString) Data() []byte { return c.data }

// Append appends b, zero padded to N; it fails when b is longer than N.
func (c *FixedString) Append(b []byte) error {
	if len(b) > c.n {
		return &TypeMismatchError{Column: c.Type(), GoType: "[]byte", Reason: "value of " + strconv.Itoa(len(b)) + " bytes is too long"}
	}
	c.data = append(c.data, b...)
	for range c.n - len(b) {
		c.data = append(c.data, 0)
	}
	return nil
}

// Value returns value i as a string of N bytes.
func (c *FixedString) Value(i int) any { return string(c.Bytes(i)) }

// ScanType returns string.
func (c *FixedString) ScanType() reflect.Type { return reflect.TypeFor[string]() }

// AppendValue appends a string, []byte or byte array of at most N bytes (zero padded), taking
// what clickhouse-go's FixedString takes, in its order: the MarshalBinary bytes of an
// encoding.BinaryMarshaler (before its Value, if it is a driver.Valuer too: google/uuid.UUID
// gives its 16 bytes), a byte array, then the String() of a fmt.Stringer or the MarshalText of
// an encoding.TextMarshaler; a named string or byte-slice type without those is its contents.
// Pointers are followed, so a method with a pointer receiver is found when a pointer is given.
func (c *FixedString) AppendValue(v any) error {
	switch x := v.(type) {
	case string:
		return c.appendChecked(v, []byte(x))
	case []byte:
		return c.appendChecked(v, x)
	}
	v, isNil, err := derefWith(v, isBinaryMarshaler, isTextual)
	if err != nil {
		return err
	}
	if isNil {
		return mismatch(c, nil, "NULL in a non-Nullable column")
	}
	switch x := v.(type) {
	case string:
		return c.appendChecked(v, []byte(x))
	case []byte:
		return c.appendChecked(v, x)
	case encoding.BinaryMarshaler:
		b, err := x.MarshalBinary()
		if err != nil {
			return mismatch(c, v, "MarshalBinary: "+err.Error())
		}
		return c.appendChecked(v, b)
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Array && rv.Type().Elem().Kind() == reflect.Uint8 {
		b := make([]byte, rv.Len())
		reflect.Copy(reflect.ValueOf(b), rv)
		return c.appendChecked(v, b)
	}
	if s, ok, err := textOf(v); ok || err != nil {
		if err != nil {
			return mismatch(c, v, err.Error())
		}
		return c.appendChecked(v, []byte(s))
	}
	switch {
	case rv.Kind() == reflect.String:
		return c.appendChecked(v, []byte(rv.String()))
	case rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() == reflect.Uint8:
		return c.appendChecked(v, rv.Bytes())
	}
	return mismatch(c, v, "")
}

// appendChecked appends b, the bytes of v, when it has at most N bytes.
func (c *FixedString) appendChecked(v any, b []byte) error {
	if len(b) > c.n {
		return mismatch(c, v, "value of "+strconv.Itoa(len(b))+" bytes is too long")
	}
	return c.Append(b)
}

// AppendDefault appends N zero bytes.
func (c *FixedString) AppendDefault() {
	for range c.n {
		c.data = append(c.data, 0)
	}
}

// Truncate keeps the first n values.
func (c *FixedString) Truncate(n int) { c.data = c.data[:n*c.n] }

// Reset removes all values.
func (c *FixedString) Reset() { c.data = c.data[:0] }

// ReadPrefix reads nothing.
func (c *FixedString) ReadPrefix(*Reader) error { return nil }

// WritePrefix writes nothing.
func (c *FixedString) WritePrefix(*Writer) {}

// Read replaces the values with rows values from r.
func (c *FixedString) Read(r *Reader, rows int) error {
	c.data = c.data[:0]
	if err := checkRows(c, rows); err != nil {
		return err
	}
	if c.n == 0 {
		return nil
	}
	if rows > (1<<40)/c.n {
		return decodeErr(c, "%d rows are too many", rows)
	}
	var err error
	c.data, err = readFixed(r, c.data[:0], rows*c.n)
	if err != nil {
		c.data = c.data[:0]
		return decodeErr(c, "%v", err)
	}
	return nil
}

// Write appends the values.
func (c *FixedString) Write(w *Writer) { w.Buf = append(w.Buf, c.data...) }

// WriteRows appends values [from, to).
func (c *FixedString) WriteRows(w *Writer, from, to int) {
	w.Buf = append(w.Buf, c.data[from*c.n:to*c.n]...)
}

// RowsWithin returns the end of the run of rows from from that holds about n bytes: at least one
// row, at most the column's rows.
func (c *FixedString) RowsWithin(from, n int) int {
	k := max(1, n/max(c.n, 1))
	if k >= c.Rows()-from { // the rest (and no overflow for n near MaxInt)
		return c.Rows()
	}
	return from + k
}
