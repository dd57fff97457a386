package columns

import (
	"bytes"
	"fmt"
	"reflect"
	"time"

	"github.com/chnative/chnative/internal/fieldslice"
)

// Struct mapping (chnative.Select, ScanStructs; internal/structmap) asks each column how to copy
// its values into struct fields of a Go type without reflection per row: FieldCopier, with
// NestedFieldCopier for the columns that wrap another (Nullable into *T, Array into []T). What a
// copier stores (strings, []byte, slices, pointers) is allocated for each call and never
// reused: it belongs to the caller. (Decimal32 and Decimal64 copy into Decimal fields with one
// slab of big.Ints a block; struct mapping lets them, though *Decimal is a Scan-er.)

// FieldCopyFunc copies rows [0, n) of col, a column of the type whose FieldCopyFunc returned it
// (the same column or a later block's), into the first n elements of dst.
type FieldCopyFunc func(col Column, dst fieldslice.Slice, n int) error

// FieldCopier is implemented by columns with a fast path into struct fields.
type FieldCopier interface {
	// FieldCopyFunc returns the copier into fields of type ft, or nil when ft has none.
	FieldCopyFunc(ft reflect.Type) FieldCopyFunc
}

// NestedFieldCopier is implemented by columns that copy into a field through their inner
// column's copier: Nullable(X) into *T and Array(X) into []T, given X's copier into T.
type NestedFieldCopier interface {
	// NestedField returns the inner column and element type whose copier a field of type ft
	// needs, or ok false when there is no fast path into ft.
	NestedField(ft reflect.Type) (inner Column, et reflect.Type, ok bool)
	// NestedFieldCopyFunc returns the copier into fields of type ft given inner, the copier of
	// the inner column into NestedField's element type.
	NestedFieldCopyFunc(ft reflect.Type, inner FieldCopyFunc) FieldCopyFunc
}

var (
	timeFieldType  = reflect.TypeFor[time.Time]()
	bytesFieldType = reflect.TypeFor[[]byte]()
)

// FieldCopyFunc copies into fields of T's kind (named types included).
func (c *Fixed[T]) FieldCopyFunc(ft reflect.Type) FieldCopyFunc {
	if ft.Kind() != reflect.TypeFor[T]().Kind() {
		return nil
	}
	return copyFixed // a plain function: see Fixed.FieldAppendFunc
}

// fixedFieldCopier is what copyFixed calls: Fixed[T]'s own loop.
type fixedFieldCopier interface {
	copyFields(dst fieldslice.Slice, n int)
}

func copyFixed(col Column, dst fieldslice.Slice, n int) error {
	col.(fixedFieldCopier).copyFields(dst, n)
	return nil
}

func (c *Fixed[T]) copyFields(dst fieldslice.Slice, n int) {
	v := c.Values()[:n]
	for i := range v {
		fieldslice.Set(dst, i, v[i])
	}
}

// FieldCopyFunc copies into string fields (substrings of one copy of the block's text: a kept
// string keeps that copy alive) and []byte fields (disjoint, capacity-limited parts of one copy).
func (c *String) FieldCopyFunc(ft reflect.Type) FieldCopyFunc {
	switch {
	case ft.Kind() == reflect.String:
		return copyStrings
	case ft == bytesFieldType:
		return copyBytes
	}
	return nil
}

func copyStrings(col Column, dst fieldslice.Slice, n int) error {
	arena, ends := col.(*String).Data()
	text := string(arena[:ends[n-1]])
	prev := 0
	for i, e := range ends[:n] {
		fieldslice.Set(dst, i, text[prev:e])
		prev = e
	}
	return nil
}

func copyBytes(col Column, dst fieldslice.Slice, n int) error {
	arena, ends := col.(*String).Data()
	text := bytes.Clone(arena[:ends[n-1]])
	prev := 0
	for i, e := range ends[:n] {
		fieldslice.Set(dst, i, text[prev:e:e])
		prev = e
	}
	return nil
}

// FieldCopyFunc copies into string fields.
func (c *FixedString) FieldCopyFunc(ft reflect.Type) FieldCopyFunc {
	if ft.Kind() != reflect.String {
		return nil
	}
	return func(col Column, dst fieldslice.Slice, n int) error {
		c := col.(*FixedString)
		w := c.Size()
		text := string(c.Data()[:n*w])
		for i := 0; i < n; i++ {
			fieldslice.Set(dst, i, text[i*w:(i+1)*w])
		}
		return nil
	}
}

// FieldCopyFunc copies the names of the values into string fields.
func (c *Enum[T]) FieldCopyFunc(ft reflect.Type) FieldCopyFunc {
	if ft.Kind() != reflect.String {
		return nil
	}
	if _, ok := any(*new(T)).(int8); ok {
		return copyEnum8Names
	}
	return copyEnum16Names
}

func copyEnum8Names(col Column, dst fieldslice.Slice, n int) error {
	c := col.(*Enum8)
	var names [256]string
	var seen [256]bool
	for i, v := range c.Values()[:n] {
		k := uint8(v)
		if !seen[k] {
			names[k], seen[k] = c.Name(i), true
		}
		fieldslice.Set(dst, i, names[k])
	}
	return nil
}

func copyEnum16Names(col Column, dst fieldslice.Slice, n int) error {
	c := col.(*Enum16)
	names := map[int16]string{}
	for i, v := range c.Values()[:n] {
		name, ok := names[v]
		if !ok {
			name = c.Name(i)
			names[v] = name
		}
		fieldslice.Set(dst, i, name)
	}
	return nil
}

// FieldCopyFunc copies LowCardinality(String) into string fields: one string per dictionary entry
// (one copy of the dictionary's text per block), shared by the rows that use it.
func (c *LowCardinality) FieldCopyFunc(ft reflect.Type) FieldCopyFunc {
	if _, ok := c.Dictionary().(*String); !ok || ft.Kind() != reflect.String || c.Nullable() {
		return nil
	}
	return copyLowCardinalityStrings
}

func copyLowCardinalityStrings(col Column, dst fieldslice.Slice, n int) error {
	lc := col.(*LowCardinality)
	dict, ok := lc.Dictionary().(*String)
	if !ok {
		return fmt.Errorf("dictionary %s is not String", lc.Dictionary().Type())
	}
	arena, ends := dict.Data()
	strs := make([]string, len(ends))
	if len(ends) > 0 {
		text := string(arena[:ends[len(ends)-1]])
		prev := 0
		for i, e := range ends {
			strs[i] = text[prev:e]
			prev = e
		}
	}
	for i, k := range lc.Indexes()[:n] {
		fieldslice.Set(dst, i, strs[k])
	}
	return nil
}

// FieldCopyFunc copies into time.Time fields (midnight in SetDateLocation's zone).
func (c *Date) FieldCopyFunc(ft reflect.Type) FieldCopyFunc {
	if ft != timeFieldType {
		return nil
	}
	return func(col Column, dst fieldslice.Slice, n int) error {
		c := col.(*Date)
		for i := range n {
			fieldslice.Set(dst, i, c.Time(i))
		}
		return nil
	}
}

// FieldCopyFunc copies into time.Time fields (in the column's location).
func (c *DateTime) FieldCopyFunc(ft reflect.Type) FieldCopyFunc {
	if ft != timeFieldType {
		return nil
	}
	return func(col Column, dst fieldslice.Slice, n int) error {
		c := col.(*DateTime)
		loc := c.Location()
		for i, v := range c.Values()[:n] {
			fieldslice.Set(dst, i, time.Unix(int64(v), 0).In(loc))
		}
		return nil
	}
}

// FieldCopyFunc copies into [16]byte-like fields, in RFC byte order (as a [16]byte-like type's
// Scan, uuid.UUID's, would produce it).
func (c *UUID) FieldCopyFunc(ft reflect.Type) FieldCopyFunc {
	if ft.Kind() != reflect.Array || ft.Len() != 16 || ft.Elem().Kind() != reflect.Uint8 {
		return nil
	}
	return func(col Column, dst fieldslice.Slice, n int) error {
		for i, u := range col.(*UUID).Values()[:n] {
			fieldslice.Set(dst, i, u)
		}
		return nil
	}
}

// NestedField asks for the inner column's copier into T for a *T field.
func (c *Nullable) NestedField(ft reflect.Type) (Column, reflect.Type, bool) {
	if ft.Kind() != reflect.Pointer {
		return nil, nil, false
	}
	return c.Inner(), ft.Elem(), true
}

// NestedFieldCopyFunc sets *T fields: nil for NULL, else a pointer into one []T per call that
// inner fills (a kept pointer keeps that block's values alive).
func (c *Nullable) NestedFieldCopyFunc(ft reflect.Type, inner FieldCopyFunc) FieldCopyFunc {
	st := reflect.SliceOf(ft.Elem())
	return func(col Column, dst fieldslice.Slice, n int) error {
		c := col.(*Nullable)
		vals := fieldslice.Elems(reflect.MakeSlice(st, n, n))
		if err := inner(c.Inner(), vals, n); err != nil {
			return err
		}
		for i, null := range c.Nulls()[:n] {
			if null != 0 {
				dst.SetNil(i)
			} else {
				dst.SetPointer(i, vals, i)
			}
		}
		return nil
	}
}

// NestedField asks for the element column's copier into T for a []T field ([]byte excepted:
// Array(UInt8) into []byte goes through reflection).
func (c *Array) NestedField(ft reflect.Type) (Column, reflect.Type, bool) {
	if ft.Kind() != reflect.Slice || ft == bytesFieldType {
		return nil, nil, false
	}
	return c.Elem(), ft.Elem(), true
}

// NestedFieldCopyFunc sets []T fields to capacity-limited parts of one []T per call that inner
// fills.
func (c *Array) NestedFieldCopyFunc(ft reflect.Type, inner FieldCopyFunc) FieldCopyFunc {
	st := reflect.SliceOf(ft.Elem())
	return func(col Column, dst fieldslice.Slice, n int) error {
		c := col.(*Array)
		offs := c.Offsets()[:n]
		total := int(offs[n-1])
		vals := fieldslice.Elems(reflect.MakeSlice(st, total, total))
		if total > 0 {
			if err := inner(c.Elem(), vals, total); err != nil {
				return err
			}
		}
		lo := 0
		for i, o := range offs {
			hi := int(o)
			dst.SetSlice(i, vals, lo, hi)
			lo = hi
		}
		return nil
	}
}
