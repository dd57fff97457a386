package columns

import (
	"math"
	"reflect"
	"strings"
)

// Tuple is a column of Tuple(T1, ..., Tn) or the named Tuple(a T1, b T2): one column per element.
type Tuple struct {
	elems []Column
	names []string // nil for an unnamed tuple
	rows  int
}

// NewTuple returns a Tuple of the given element columns (all empty). names is nil for an unnamed
// tuple, or holds one name per element.
func NewTuple(elems []Column, names []string) *Tuple { return &Tuple{elems: elems, names: names} }

// Type returns "Tuple(...)".
func (c *Tuple) Type() string {
	var b strings.Builder
	b.WriteString("Tuple(")
	for i, e := range c.elems {
		if i > 0 {
			b.WriteString(", ")
		}
		if c.names != nil {
			b.WriteString(quoteIdent(c.names[i]))
			b.WriteByte(' ')
		}
		b.WriteString(e.Type())
	}
	b.WriteByte(')')
	return b.String()
}

// Elem returns element column i.
func (c *Tuple) Elem(i int) Column { return c.elems[i] }

// Len returns the number of elements.
func (c *Tuple) Len() int { return len(c.elems) }

// Names returns the element names, or nil for an unnamed tuple.
func (c *Tuple) Names() []string { return c.names }

// Rows returns the number of values.
func (c *Tuple) Rows() int { return c.rows }

// Value returns row i as []any with one value per element.
func (c *Tuple) Value(i int) any {
	out := make([]any, len(c.elems))
	for j, e := range c.elems {
		out[j] = e.Value(i)
	}
	return out
}

// ScanType returns []any.
func (c *Tuple) ScanType() reflect.Type { return reflect.TypeFor[[]any]() }

// sqlType: database/sql gets a named tuple as a map[string]any keyed by element name, and an
// unnamed one as []any, as from clickhouse-go, with the elements in their element form (a
// pointer for a Nullable element, a typed nil for NULL). An unnamed tuple with no such element
// is Value's.
func (c *Tuple) sqlType(bool) reflect.Type {
	if c.names != nil {
		return reflect.TypeFor[map[string]any]()
	}
	for _, e := range c.elems {
		if sqlDiffers(e) || isNullable(e) {
			return reflect.TypeFor[[]any]()
		}
	}
	return nil
}

func (c *Tuple) sqlValue(i int, _ bool) any {
	if c.names != nil {
		m := make(map[string]any, len(c.elems))
		for j, e := range c.elems {
			m[c.names[j]] = sqlSlot(e, i, sqlSlotType(e)).Interface()
		}
		return m
	}
	out := make([]any, len(c.elems))
	for j, e := range c.elems {
		out[j] = sqlSlot(e, i, sqlSlotType(e)).Interface()
	}
	return out
}

// AppendValue appends a []any (one value per element), a slice or array of matching length, a
// map[string]any keyed by element name (named tuples), or a struct whose exported fields match
// the elements in order. On error nothing is appended.
func (c *Tuple) AppendValue(v any) error {
	v, isNil, err := deref(v)
	if err != nil {
		return err
	}
	if isNil {
		return mismatch(c, nil, "NULL in a non-Nullable column")
	}
	vals, err := c.split(v)
	if err != nil {
		return err
	}
	for j, e := range c.elems {
		if err := e.AppendValue(vals[j]); err != nil {
			for k := 0; k < j; k++ {
				c.elems[k].Truncate(c.rows)
			}
			return err
		}
	}
	c.rows++
	return nil
}

func (c *Tuple) split(v any) ([]any, error) {
	if x, ok := v.([]any); ok {
		if len(x) != len(c.elems) {
			return nil, mismatch(c, v, "wrong number of elements")
		}
		return x, nil
	}
	if m, ok := v.(map[string]any); ok && c.names != nil {
		out := make([]any, len(c.elems))
		for j, n := range c.names {
			e, ok := m[n]
			if !ok {
				return nil, mismatch(c, v, "no element "+n)
			}
			out[j] = e
		}
		return out, nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		if rv.Len() != len(c.elems) {
			return nil, mismatch(c, v, "wrong number of elements")
		}
		out := make([]any, rv.Len())
		for j := range out {
			out[j] = rv.Index(j).Interface()
		}
		return out, nil
	case reflect.Struct:
		var out []any
		for j := 0; j < rv.NumField(); j++ {
			if rv.Type().Field(j).IsExported() {
				out = append(out, rv.Field(j).Interface())
			}
		}
		if len(out) != len(c.elems) {
			return nil, mismatch(c, v, "wrong number of fields")
		}
		return out, nil
	}
	return nil, mismatch(c, v, "")
}

// AppendDefault appends the default of every element.
func (c *Tuple) AppendDefault() {
	for _, e := range c.elems {
		e.AppendDefault()
	}
	c.rows++
}

// Truncate keeps the first n values.
func (c *Tuple) Truncate(n int) {
	for _, e := range c.elems {
		e.Truncate(n)
	}
	c.rows = n
}

// Reset removes all values.
func (c *Tuple) Reset() {
	for _, e := range c.elems {
		e.Reset()
	}
	c.rows = 0
}

// ReadPrefix reads the element prefixes in order.
func (c *Tuple) ReadPrefix(r *Reader) error {
	for _, e := range c.elems {
		if err := e.ReadPrefix(r); err != nil {
			return err
		}
	}
	return nil
}

// WritePrefix writes the element prefixes in order.
func (c *Tuple) WritePrefix(w *Writer) {
	for _, e := range c.elems {
		e.WritePrefix(w)
	}
}

// Read replaces the values with rows values from r: each element column in order.
func (c *Tuple) Read(r *Reader, rows int) error {
	c.rows = 0
	if err := checkRows(c, rows); err != nil {
		c.Reset()
		return err
	}
	for _, e := range c.elems {
		if err := e.Read(r, rows); err != nil {
			c.Reset()
			return err
		}
	}
	c.rows = rows
	return nil
}

// Write appends each element column in order.
func (c *Tuple) Write(w *Writer) { c.writePieces(w, math.MaxInt, func() {}) }

// writePieces is Write in pieces of about n bytes, flush called after each (WritePieces).
func (c *Tuple) writePieces(w *Writer, n int, flush func()) {
	for _, e := range c.elems {
		WritePieces(e, w, n, flush)
	}
}

// quoteIdent backquotes a name unless it is a plain identifier.
func quoteIdent(s string) string {
	plain := s != ""
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if !(ch == '_' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || i > 0 && ch >= '0' && ch <= '9') {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "`" + strings.NewReplacer("\\", "\\\\", "`", "\\`").Replace(s) + "`"
}
