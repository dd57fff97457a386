package columns

import (
	"math"
	"reflect"
)

// Nullable is a column of Nullable(T): a null map (1 = NULL) and the inner column, which holds T's
// default value at NULL rows.
type Nullable struct {
	inner Column
	nulls []uint8
}

// NewNullable wraps inner, which must be empty.
func NewNullable(inner Column) *Nullable { return &Nullable{inner: inner} }

// Type returns "Nullable(T)".
func (c *Nullable) Type() string { return "Nullable(" + c.inner.Type() + ")" }

// Inner returns the column of values (NULL rows hold the default value).
func (c *Nullable) Inner() Column { return c.inner }

// Nulls returns the null map (borrowed): 1 marks a NULL row.
func (c *Nullable) Nulls() []uint8 { return c.nulls }

// IsNull reports whether row i is NULL.
func (c *Nullable) IsNull(i int) bool { return c.nulls[i] != 0 }

// Rows returns the number of values.
func (c *Nullable) Rows() int { return len(c.nulls) }

// Value returns nil for NULL rows and the inner value otherwise.
func (c *Nullable) Value(i int) any {
	if c.nulls[i] != 0 {
		return nil
	}
	return c.inner.Value(i)
}

// ScanType returns the inner type's scan type.
func (c *Nullable) ScanType() reflect.Type { return c.inner.ScanType() }

// AppendNull appends NULL.
func (c *Nullable) AppendNull() {
	c.nulls = append(c.nulls, 1)
	c.inner.AppendDefault()
}

// AppendNotNull records a non-NULL row whose value the caller has just appended to Inner() with
// its typed Append, so no value is boxed:
//
//	n.Inner().(*columns.String).Append("x")
//	n.AppendNotNull()
func (c *Nullable) AppendNotNull() { c.nulls = append(c.nulls, 0) }

// AppendValue appends NULL for nil (and nil pointers, and Valuers returning nil), or the value.
// A value of a type with methods goes to the inner column as it was given (see innerArg).
func (c *Nullable) AppendValue(v any) error {
	if v == nil {
		c.AppendNull()
		return nil
	}
	if reflect.TypeOf(v).Kind() != reflect.Pointer && !isValuer(v) {
		// Neither a pointer nor a Valuer: not NULL, and the inner column takes it as it is.
		if err := c.inner.AppendValue(v); err != nil {
			return err
		}
		c.nulls = append(c.nulls, 0)
		return nil
	}
	x, isNil, err := deref(v)
	if err != nil {
		return err
	}
	if isNil {
		c.AppendNull()
		return nil
	}
	if err := c.inner.AppendValue(innerArg(v, x)); err != nil {
		return err
	}
	c.nulls = append(c.nulls, 0)
	return nil
}

// AppendDefault appends NULL, the default of a Nullable type.
func (c *Nullable) AppendDefault() { c.AppendNull() }

// Truncate keeps the first n values.
func (c *Nullable) Truncate(n int) {
	c.nulls = c.nulls[:n]
	c.inner.Truncate(n)
}

// Reset removes all values.
func (c *Nullable) Reset() {
	c.nulls = c.nulls[:0]
	c.inner.Reset()
}

// ReadPrefix reads the inner type's prefix.
func (c *Nullable) ReadPrefix(r *Reader) error { return c.inner.ReadPrefix(r) }

// WritePrefix writes the inner type's prefix.
func (c *Nullable) WritePrefix(w *Writer) { c.inner.WritePrefix(w) }

// Read replaces the values with rows values from r.
func (c *Nullable) Read(r *Reader, rows int) error {
	var err error
	c.nulls, err = readFixed(r, c.nulls[:0], rows)
	if err != nil {
		c.Reset()
		return decodeErr(c, "null map: %v", err)
	}
	if err := c.inner.Read(r, rows); err != nil {
		c.Reset()
		return err
	}
	return nil
}

// Write appends the null map and the inner values.
func (c *Nullable) Write(w *Writer) { c.writePieces(w, math.MaxInt, func() {}) }

// writePieces is Write in pieces of about n bytes, flush called after each (WritePieces).
func (c *Nullable) writePieces(w *Writer, n int, flush func()) {
	writeBytePieces(w, c.nulls, n, flush)
	WritePieces(c.inner, w, n, flush)
}
