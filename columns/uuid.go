package columns

import (
	"encoding/hex"
	"reflect"
)

// UUID is a column of UUID. Values() holds each UUID in RFC 4122 byte order ([16]byte); on the wire
// each 8-byte half is byte-reversed, which Read and Write convert.
type UUID struct {
	data [][16]byte
}

// NewUUID returns an empty UUID column.
func NewUUID() *UUID { return &UUID{} }

// Type returns "UUID".
func (c *UUID) Type() string { return "UUID" }

// Rows returns the number of values.
func (c *UUID) Rows() int { return len(c.data) }

// Values returns the UUIDs in RFC byte order (borrowed).
func (c *UUID) Values() [][16]byte { return c.data }

// Append appends u (RFC byte order).
func (c *UUID) Append(u [16]byte) { c.data = append(c.data, u) }

// Value returns row i in its canonical string form, "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx".
func (c *UUID) Value(i int) any { return FormatUUID(c.data[i]) }

// ScanType returns string.
func (c *UUID) ScanType() reflect.Type { return reflect.TypeFor[string]() }

// FormatUUID formats u (RFC byte order) in canonical form.
func FormatUUID(u [16]byte) string {
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:], u[10:])
	return string(b[:])
}

// ParseUUID parses the canonical form (hyphens optional, braces allowed).
func ParseUUID(s string) ([16]byte, bool) {
	var u [16]byte
	if len(s) == 38 && s[0] == '{' && s[37] == '}' {
		s = s[1:37]
	}
	h := make([]byte, 0, 32)
	for i := 0; i < len(s); i++ {
		if s[i] == '-' && (len(s) == 36 && (i == 8 || i == 13 || i == 18 || i == 23)) {
			continue
		}
		h = append(h, s[i])
	}
	if len(h) != 32 {
		return u, false
	}
	if _, err := hex.Decode(u[:], h); err != nil {
		return u, false
	}
	return u, true
}

// AppendValue appends a [16]byte (or a named type of it, such as google/uuid.UUID), a 16-byte
// []byte, or a string form, or parses the String() of a fmt.Stringer (else the MarshalText of an
// encoding.TextMarshaler) of another type, as clickhouse-go does.
func (c *UUID) AppendValue(v any) error {
	x, isNil, err := derefWith(v, nil, isTextual)
	if err != nil {
		return err
	}
	if isNil {
		return mismatch(c, nil, "NULL in a non-Nullable column")
	}
	switch t := x.(type) {
	case [16]byte:
		c.data = append(c.data, t)
		return nil
	case string:
		u, ok := ParseUUID(t)
		if !ok {
			return mismatch(c, v, "not a UUID")
		}
		c.data = append(c.data, u)
		return nil
	case []byte:
		if len(t) == 16 {
			c.data = append(c.data, [16]byte(t))
			return nil
		}
		if u, ok := ParseUUID(string(t)); ok {
			c.data = append(c.data, u)
			return nil
		}
		return mismatch(c, v, "not a UUID")
	}
	rv := reflect.ValueOf(x)
	if rv.Kind() == reflect.Array && rv.Len() == 16 && rv.Type().Elem().Kind() == reflect.Uint8 {
		var u [16]byte
		reflect.Copy(reflect.ValueOf(u[:]), rv)
		c.data = append(c.data, u)
		return nil
	}
	if text, ok, err := textOf(x); ok || err != nil {
		if err != nil {
			return mismatch(c, v, err.Error())
		}
		u, ok := ParseUUID(text)
		if !ok {
			return mismatch(c, v, textReason(v, text, "a UUID"))
		}
		c.data = append(c.data, u)
		return nil
	}
	return mismatch(c, v, "")
}

// AppendDefault appends the zero UUID.
func (c *UUID) AppendDefault() { c.data = append(c.data, [16]byte{}) }

// Truncate keeps the first n values.
func (c *UUID) Truncate(n int) { c.data = c.data[:n] }

// Reset removes all values.
func (c *UUID) Reset() { c.data = c.data[:0] }

// ReadPrefix reads nothing.
func (c *UUID) ReadPrefix(*Reader) error { return nil }

// WritePrefix writes nothing.
func (c *UUID) WritePrefix(*Writer) {}

func swapUUID(u *[16]byte) {
	for i := 0; i < 4; i++ {
		u[i], u[7-i] = u[7-i], u[i]
		u[8+i], u[15-i] = u[15-i], u[8+i]
	}
}

// Read replaces the values with rows UUIDs from r.
func (c *UUID) Read(r *Reader, rows int) error {
	var err error
	c.data, err = readFixed(r, c.data[:0], rows)
	if err != nil {
		c.data = c.data[:0]
		return decodeErr(c, "%v", err)
	}
	for i := range c.data {
		swapUUID(&c.data[i])
	}
	return nil
}

// Write appends the UUIDs in wire order.
func (c *UUID) Write(w *Writer) {
	for _, u := range c.data {
		swapUUID(&u)
		w.Buf = append(w.Buf, u[:]...)
	}
}
