package columns

import (
	"reflect"
	"strings"
)

// SimpleAggregateFunction is a column of SimpleAggregateFunction(f, T): the values of T, encoded
// exactly as T. Every method but Type delegates to the column of T, so Value and AppendValue behave
// as T's.
type SimpleAggregateFunction struct {
	fn    string   // the aggregate function as written, such as "sum" or "groupArrayArray"
	extra []string // further argument types after T, as written (rare)
	inner Column
}

// NewSimpleAggregateFunction wraps inner, an empty column of T, as SimpleAggregateFunction(fn, T).
func NewSimpleAggregateFunction(fn string, inner Column) *SimpleAggregateFunction {
	return &SimpleAggregateFunction{fn: fn, inner: inner}
}

// Type returns "SimpleAggregateFunction(f, T)".
func (c *SimpleAggregateFunction) Type() string {
	var b strings.Builder
	b.WriteString("SimpleAggregateFunction(")
	b.WriteString(c.fn)
	b.WriteString(", ")
	b.WriteString(c.inner.Type())
	for _, e := range c.extra {
		b.WriteString(", ")
		b.WriteString(e)
	}
	b.WriteByte(')')
	return b.String()
}

// Function returns the aggregate function, as written in the type.
func (c *SimpleAggregateFunction) Function() string { return c.fn }

// Inner returns the column of T, which holds the values.
func (c *SimpleAggregateFunction) Inner() Column { return c.inner }

// Rows returns the number of values.
func (c *SimpleAggregateFunction) Rows() int { return c.inner.Rows() }

// Value returns row i as T's column does.
func (c *SimpleAggregateFunction) Value(i int) any { return c.inner.Value(i) }

// ScanType returns T's scan type.
func (c *SimpleAggregateFunction) ScanType() reflect.Type { return c.inner.ScanType() }

// AppendValue appends what T accepts.
func (c *SimpleAggregateFunction) AppendValue(v any) error {
	err := c.inner.AppendValue(v)
	if tm, ok := err.(*TypeMismatchError); ok && tm.Column == c.inner.Type() {
		return &TypeMismatchError{Column: c.Type(), GoType: tm.GoType, Reason: tm.Reason}
	}
	return err
}

// AppendDefault appends T's default.
func (c *SimpleAggregateFunction) AppendDefault() { c.inner.AppendDefault() }

// Truncate keeps the first n values.
func (c *SimpleAggregateFunction) Truncate(n int) { c.inner.Truncate(n) }

// Reset removes all values.
func (c *SimpleAggregateFunction) Reset() { c.inner.Reset() }

// ReadPrefix reads T's prefix.
func (c *SimpleAggregateFunction) ReadPrefix(r *Reader) error { return c.inner.ReadPrefix(r) }

// WritePrefix writes T's prefix.
func (c *SimpleAggregateFunction) WritePrefix(w *Writer) { c.inner.WritePrefix(w) }

// Read replaces the values with rows values of T from r.
func (c *SimpleAggregateFunction) Read(r *Reader, rows int) error { return c.inner.Read(r, rows) }

// Write appends the values as T.
func (c *SimpleAggregateFunction) Write(w *Writer) { c.inner.Write(w) }

func (c *SimpleAggregateFunction) sliceValue(lo, hi int) any { return sliceOf(c.inner, lo, hi) }

func newSimpleAggregateFunction(n *TypeNode) (Column, error) {
	if len(n.Args) < 2 || n.Args[0].Kind != ArgRaw {
		return nil, unsupported(n, "want SimpleAggregateFunction(function, T)")
	}
	var inner Column
	var extra []string
	for i, a := range n.Args[1:] {
		if a.Kind != ArgType || a.Field != "" {
			return nil, unsupported(n, "argument %d is not a type", i+2)
		}
		if i > 0 {
			extra = append(extra, a.Type.String())
			continue
		}
		c, err := FromNode(a.Type)
		if err != nil {
			return nil, err
		}
		inner = c
	}
	return &SimpleAggregateFunction{fn: n.Args[0].Raw, extra: extra, inner: inner}, nil
}

func newAggregateFunction(n *TypeNode) (Column, error) {
	return nil, unsupported(n, "opaque state; use finalizeAggregation() in the query")
}
