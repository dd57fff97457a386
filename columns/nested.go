package columns

import (
	"reflect"
	"strings"
)

// Nested is a column of Nested(a T, b U) sent as one column (flatten_nested = 0): an
// Array(Tuple(a T, b U)) whose Type is "Nested(a T, b U)". Value returns a slice with one []any per
// nested row; AppendValue takes what Array(Tuple(a T, b U)) takes (slices of []any, of structs, or
// of map[string]any keyed by element name).
type Nested struct{ Array }

// NewNested returns an empty Nested column of the given (empty) element columns and their names.
func NewNested(elems []Column, names []string) *Nested {
	return &Nested{Array{elem: NewTuple(elems, names)}}
}

// Type returns "Nested(a T, b U)".
func (c *Nested) Type() string {
	t := c.elem.(*Tuple)
	var b strings.Builder
	b.WriteString("Nested(")
	for i, e := range t.elems {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quoteIdent(t.names[i]))
		b.WriteByte(' ')
		b.WriteString(e.Type())
	}
	b.WriteByte(')')
	return b.String()
}

// Tuple returns the column of all nested rows of all rows.
func (c *Nested) Tuple() *Tuple { return c.elem.(*Tuple) }

// AppendValue appends one value: a slice of nested rows, or nil for none. On error nothing is
// appended.
func (c *Nested) AppendValue(v any) error {
	err := c.Array.AppendValue(v)
	if tm, ok := err.(*TypeMismatchError); ok {
		return &TypeMismatchError{Column: c.Type(), GoType: tm.GoType, Reason: tm.Error()}
	}
	return err
}

func (c *Nested) sliceValue(lo, hi int) any { return genericSlice(c, lo, hi) }

// sqlType: database/sql gets a Nested value as []map[string]any, one map per nested row keyed
// by element name, as from clickhouse-go (Value's [][]any scans on Go 1.27, see ScanValue).
func (c *Nested) sqlType(bool) reflect.Type { return reflect.TypeFor[[]map[string]any]() }

func (c *Nested) sqlValue(i int, _ bool) any {
	t := c.Tuple()
	lo, hi := c.Bounds(i)
	out := make([]map[string]any, hi-lo)
	for j := range out {
		out[j] = t.sqlValue(lo+j, false).(map[string]any)
	}
	return out
}

func newNested(n *TypeNode) (Column, error) {
	if len(n.Args) == 0 {
		return nil, unsupported(n, "Nested needs elements")
	}
	elems := make([]Column, len(n.Args))
	names := make([]string, len(n.Args))
	for i, a := range n.Args {
		if a.Kind != ArgType || a.Field == "" {
			return nil, unsupported(n, "element %d is not a named type", i+1)
		}
		c, err := FromNode(a.Type)
		if err != nil {
			return nil, err
		}
		elems[i], names[i] = c, a.Field
	}
	return NewNested(elems, names), nil
}
