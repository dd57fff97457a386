package columns

import (
	"reflect"

	"github.com/chnative/chnative/internal/fieldslice"
)

// Struct mapping (chnative.AppendStructs; internal/structmap) asks each column how to append the
// values of struct fields of a Go type without reflection per row: FieldAppender. Columns that
// have no such path take each value through AppendValue.

// FieldAppendFunc appends the first n elements of src to col, a column of the type whose
// FieldAppendFunc returned it. On an error at element k it returns k, having appended [0, k).
type FieldAppendFunc func(col Column, src fieldslice.Slice, n int) (int, error)

// FieldAppender is implemented by columns that append struct fields of some Go types directly.
type FieldAppender interface {
	// FieldAppendFunc returns the appender of fields of type ft, or nil when ft has none. The
	// caller has ruled out types with their own conversion (driver.Valuer and the like).
	FieldAppendFunc(ft reflect.Type) FieldAppendFunc
}

// FieldAppendFunc appends fields of T's kind (named types included).
func (c *Fixed[T]) FieldAppendFunc(ft reflect.Type) FieldAppendFunc {
	if ft.Kind() != reflect.TypeFor[T]().Kind() {
		return nil
	}
	// A plain function, not appendFields's instantiation: a generic function's value made in a
	// generic method is a closure over its dictionary, one allocation a struct plan.
	return appendFixedFields
}

// fixedFieldAppender is what appendFixedFields calls: Fixed[T]'s own loop.
type fixedFieldAppender interface {
	appendFields(src fieldslice.Slice, n int)
}

func appendFixedFields(col Column, src fieldslice.Slice, n int) (int, error) {
	col.(fixedFieldAppender).appendFields(src, n)
	return n, nil
}

func (c *Fixed[T]) appendFields(src fieldslice.Slice, n int) {
	for i := 0; i < n; i++ {
		c.Append(fieldslice.Get[T](src, i))
	}
}

// FieldAppendFunc appends string fields and []byte-like fields.
func (c *String) FieldAppendFunc(ft reflect.Type) FieldAppendFunc {
	switch {
	case ft.Kind() == reflect.String:
		return appendStringFields
	case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Uint8:
		return appendBytesFields
	}
	return nil
}

func appendStringFields(col Column, src fieldslice.Slice, n int) (int, error) {
	c := col.(*String)
	for i := 0; i < n; i++ {
		c.Append(fieldslice.Get[string](src, i))
	}
	return n, nil
}

func appendBytesFields(col Column, src fieldslice.Slice, n int) (int, error) {
	c := col.(*String)
	for i := 0; i < n; i++ {
		c.AppendBytes(fieldslice.Get[[]byte](src, i))
	}
	return n, nil
}

// FieldAppendFunc appends string fields to a LowCardinality(String) through its dictionary, as
// AppendString does (no boxing); other fields and dictionaries go through AppendValue.
func (c *LowCardinality) FieldAppendFunc(ft reflect.Type) FieldAppendFunc {
	if _, ok := c.dict.(*String); !ok || ft.Kind() != reflect.String {
		return nil
	}
	return appendLowCardinalityStrings
}

func appendLowCardinalityStrings(col Column, src fieldslice.Slice, n int) (int, error) {
	c := col.(*LowCardinality)
	for i := 0; i < n; i++ {
		if err := c.AppendString(fieldslice.Get[string](src, i)); err != nil {
			return i, err
		}
	}
	return n, nil
}
