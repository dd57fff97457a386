package columns

import (
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Enum is a column of Enum8 or Enum16. Values() holds the numeric values (borrowed); Value returns
// the name.
type Enum[T int8 | int16] struct {
	Fixed[T]
	kind   string // "Enum8" or "Enum16"
	names  map[T]string
	values map[string]T
	order  []T
	// known has bit uint16(v) set for each value v of the type: Read checks every value
	// against it without a map lookup.
	known []uint64
}

// Enum8 is a column of Enum8(...).
type Enum8 = Enum[int8]

// Enum16 is a column of Enum16(...).
type Enum16 = Enum[int16]

// NewEnum returns an empty enum column with the given name → value pairs.
func NewEnum[T int8 | int16](pairs map[string]T) *Enum[T] {
	c := &Enum[T]{names: make(map[T]string, len(pairs)), values: make(map[string]T, len(pairs))}
	var z T
	c.kind = "Enum8"
	if _, ok := any(z).(int16); ok {
		c.kind = "Enum16"
	}
	for n, v := range pairs {
		c.names[v] = n
		c.values[n] = v
		c.order = append(c.order, v)
	}
	bits := 256
	if c.kind == "Enum16" {
		bits = 1 << 16
	}
	c.known = make([]uint64, bits/64)
	c.known[0] = 1 // 0, see Read
	for _, v := range c.order {
		k := enumKey(v)
		c.known[k/64] |= 1 << (k % 64)
	}
	sort.Slice(c.order, func(a, b int) bool { return c.order[a] < c.order[b] })
	c.name = c.Type()
	return c
}

// Type returns "Enum8('a' = 1, ...)".
func (c *Enum[T]) Type() string {
	var b strings.Builder
	b.WriteString(c.kind)
	b.WriteByte('(')
	for i, v := range c.order {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quoteString(c.names[v]))
		b.WriteString(" = ")
		b.WriteString(strconv.Itoa(int(v)))
	}
	b.WriteByte(')')
	return b.String()
}

// Name returns row i's name (the number in decimal if the value has no name).
func (c *Enum[T]) Name(i int) string {
	if n, ok := c.names[c.data[i]]; ok {
		return n
	}
	return strconv.Itoa(int(c.data[i]))
}

// Value returns row i's name.
func (c *Enum[T]) Value(i int) any { return c.Name(i) }

// enumKey is v's bit in Enum.known: its bits as unsigned (an Enum8's 0..255, an Enum16's 0..65535).
func enumKey[T int8 | int16](v T) uint {
	if _, ok := any(v).(int8); ok {
		return uint(uint8(v))
	}
	return uint(uint16(v))
}

// Read replaces the contents with rows values and checks each is a value of the type: a value
// the type does not name is a *DecodeError naming it and the type (the server refuses to print
// such a value too), not a number passed off as a name. 0 always passes: it is what the server
// stores under a NULL of Nullable(Enum...) (and a sparse column's default), named or not.
func (c *Enum[T]) Read(r *Reader, rows int) error {
	if err := c.Fixed.Read(r, rows); err != nil {
		return err
	}
	for i, v := range c.data {
		if k := enumKey(v); c.known[k/64]&(1<<(k%64)) == 0 {
			c.data = c.data[:0]
			return decodeErr(c, "row %d: value %d is not in the type", i, v)
		}
	}
	return nil
}

// ScanType returns string.
func (c *Enum[T]) ScanType() reflect.Type { return reflect.TypeFor[string]() }

func (c *Enum[T]) sliceValue(lo, hi int) any { return genericSlice(c, lo, hi) }

// AppendValue appends a name (string) or a numeric value that the enum defines. A value of a
// named type with a String method (type Color int8 with its names) is its String(), as in
// clickhouse-go, else the MarshalText of an encoding.TextMarshaler; when the enum has no such
// name, a value of an integer kind is still its number. Other named types are taken by their
// kind (a named string as a name, a named integer as a number).
func (c *Enum[T]) AppendValue(v any) error {
	if s, ok := v.(string); ok {
		n, ok := c.values[s]
		if !ok {
			return mismatch(c, v, "unknown name")
		}
		c.data = append(c.data, n)
		return nil
	}
	x, isNil, err := derefWith(v, nil, isTextual)
	if err != nil {
		return err
	}
	if isNil {
		return mismatch(c, nil, "NULL in a non-Nullable column")
	}
	name, isName, err := textOf(x)
	if err != nil {
		return mismatch(c, v, err.Error())
	}
	rv := reflect.ValueOf(x)
	if _, known := c.values[name]; isName && !known && (rv.CanInt() || rv.CanUint()) {
		isName = false // a number whose String() the enum does not name
	}
	if !isName && rv.Kind() == reflect.String {
		name, isName = rv.String(), true
	}
	if isName {
		n, ok := c.values[name]
		if !ok {
			return mismatch(c, v, strings.TrimSuffix("unknown name "+scalarText(name), " "+scalarText(v)))
		}
		c.data = append(c.data, n)
		return nil
	}
	n, err := convertNum[T](c, x)
	if err != nil {
		return err
	}
	if _, ok := c.names[n]; !ok {
		return mismatch(c, v, "value "+strconv.Itoa(int(n))+" is not in the enum")
	}
	c.data = append(c.data, n)
	return nil
}

// AppendDefault appends the first value of the enum (ClickHouse's default for an Enum).
func (c *Enum[T]) AppendDefault() {
	var z T
	if len(c.order) > 0 {
		z = c.order[0]
	}
	c.data = append(c.data, z)
}

// Nothing is a column of Nothing (only seen as Nullable(Nothing) or Array(Nothing)): one byte per
// row, every value NULL.
type Nothing struct{ rows int }

// Type returns "Nothing".
func (c *Nothing) Type() string { return "Nothing" }

// Rows returns the number of values.
func (c *Nothing) Rows() int { return c.rows }

// Value returns nil.
func (c *Nothing) Value(int) any { return nil }

// ScanType returns the empty interface type.
func (c *Nothing) ScanType() reflect.Type { return reflect.TypeFor[any]() }

// AppendValue accepts only nil.
func (c *Nothing) AppendValue(v any) error {
	if _, isNil, _ := deref(v); !isNil {
		return mismatch(c, v, "Nothing holds only NULL")
	}
	c.rows++
	return nil
}

// AppendDefault appends a value.
func (c *Nothing) AppendDefault() { c.rows++ }

// Truncate keeps the first n values.
func (c *Nothing) Truncate(n int) { c.rows = n }

// Reset removes all values.
func (c *Nothing) Reset() { c.rows = 0 }

// ReadPrefix reads nothing.
func (c *Nothing) ReadPrefix(*Reader) error { return nil }

// WritePrefix writes nothing.
func (c *Nothing) WritePrefix(*Writer) {}

// Read skips rows bytes.
func (c *Nothing) Read(r *Reader, rows int) error {
	c.rows = 0
	if err := checkRows(c, rows); err != nil {
		return err
	}
	if lim := r.InputLimit(); lim >= 0 && int64(rows) > lim {
		return decodeErr(c, "%v", errShort(rows, 1, lim))
	}
	if err := r.Skip(rows); err != nil {
		return decodeErr(c, "%v", err)
	}
	c.rows = rows
	return nil
}

// Write appends one '0' byte per row, as the server does.
func (c *Nothing) Write(w *Writer) {
	for range c.rows {
		w.Buf = append(w.Buf, '0')
	}
}
