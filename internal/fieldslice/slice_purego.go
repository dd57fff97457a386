//go:build purego

package fieldslice

// The safe twin of slice_unsafe.go: the same Slice through reflect (Index, Field,
// Set, Convert). Slow, one reflect walk per value, but it relies only on what reflect promises.

import "reflect"

// Slice is one field of each element of a slice of structs (or the elements of a slice
// themselves): where struct mapping copies column values to, or appends them from. It borrows
// the slice: nothing is copied.
type Slice struct {
	v     reflect.Value // the slice
	index []int         // the field's path in an element; nil: the element itself
}

// Of returns field f of each element of rows. f must describe a field of T, with Index
// its path from T.
func Of[T any](rows []T, f reflect.StructField) Slice {
	return Slice{reflect.ValueOf(rows), f.Index}
}

// OfValue is Of for a slice of structs held in a reflect.Value: field f of each element of v.
func OfValue(v reflect.Value, f reflect.StructField) Slice { return Slice{v, f.Index} }

// Row is the one struct a pointer points to, borrowed (no copy): an AppendStruct of a caller's
// struct. Its fields are one-element Slices.
type Row struct{ v reflect.Value }

// RowOf returns the struct v, a non-nil pointer to a struct, points to.
func RowOf(v reflect.Value) Row {
	if v.Kind() != reflect.Pointer || v.IsNil() {
		panic(&Error{Op: "RowOf", Msg: "not a non-nil pointer"})
	}
	return Row{v}
}

// Field returns field f of r's struct, f a field of its type.
func (r Row) Field(f *reflect.StructField) Slice { return Slice{r.v, f.Index} }

// FieldSized is Field (size is f.Type.Size(), which the unsafe build's saves a call for).
func (r Row) FieldSized(f *reflect.StructField, size uintptr) Slice { return r.Field(f) }

// Elems returns the elements of the slice v (made with reflect.MakeSlice, say) as a
// Slice.
func Elems(v reflect.Value) Slice { return Slice{v, nil} }

// Len returns the number of elements.
func (d Slice) Len() int {
	if d.v.Kind() == reflect.Pointer { // a Row's
		return 1
	}
	return d.v.Len()
}

// field returns element i's field. An element outside the slice panics with an *Error, as the
// unsafe build's check does.
func (d Slice) field(i int) reflect.Value {
	if n := d.Len(); uint(i) >= uint(n) {
		panic(&Error{Op: "access", Index: i, End: i + 1, Len: n})
	}
	var e reflect.Value
	if d.v.Kind() == reflect.Pointer {
		e = d.v.Elem()
	} else {
		e = d.v.Index(i)
	}
	if d.index != nil {
		e = e.FieldByIndex(d.index)
	}
	return e
}

// Set stores v in element i's field, whose type has T's memory layout.
func Set[T any](d Slice, i int, v T) {
	f := d.field(i)
	checkSize("Set", reflect.TypeFor[T](), f.Type())
	f.Set(convertField(reflect.ValueOf(v), f.Type()))
}

// Get returns element i's field, whose type has T's memory layout.
func Get[T any](d Slice, i int) T {
	f := d.field(i)
	checkSize("Get", reflect.TypeFor[T](), f.Type())
	return convertField(f, reflect.TypeFor[T]()).Interface().(T)
}

// checkSize panics with an *Error when t, the type stored or loaded, has another size than the
// field's type ft: the unsafe build's check, so that both builds refuse the same accesses
// (a conversion would otherwise truncate silently here).
func checkSize(op string, t, ft reflect.Type) {
	if t.Size() != ft.Size() {
		panic(&Error{Op: op, Index: 0, End: 1, Len: 1, Size: t.Size(), FieldSize: ft.Size()})
	}
}

// convertField returns v as type t, which has v's memory layout: v itself, a conversion, or
// for arrays and slices whose element types only share a layout ([16]byte and [16]myByte) a
// copy element by element.
func convertField(v reflect.Value, t reflect.Type) reflect.Value {
	switch {
	case v.Type() == t:
		return v
	case v.Type().ConvertibleTo(t):
		return v.Convert(t)
	case t.Kind() == reflect.Array:
		out := reflect.New(t).Elem()
		for j := range v.Len() {
			out.Index(j).Set(convertField(v.Index(j), t.Elem()))
		}
		return out
	case t.Kind() == reflect.Slice && v.IsNil():
		return reflect.Zero(t)
	default: // a slice
		out := reflect.MakeSlice(t, v.Len(), v.Len())
		for j := range v.Len() {
			out.Index(j).Set(convertField(v.Index(j), t.Elem()))
		}
		return out
	}
}

// Addr returns a pointer (of type *ft) to element i's field, of type ft.
func (d Slice) Addr(i int, ft reflect.Type) reflect.Value {
	f := d.field(i)
	checkSize("Addr", ft, f.Type())
	return f.Addr()
}

// SetNil sets element i's field, a pointer, to nil.
func (d Slice) SetNil(i int) {
	f := d.field(i)
	if f.Kind() != reflect.Pointer {
		panic(&Error{Op: "SetNil", Index: 0, End: 1, Len: 1, Size: reflect.TypeFor[*int]().Size(), FieldSize: f.Type().Size()})
	}
	f.SetZero()
}

// SetPointer sets element i's field, a *E, to the address of element j of elems (a Slice of a
// []E from Elems).
func (d Slice) SetPointer(i int, elems Slice, j int) {
	d.field(i).Set(elems.field(j).Addr())
}

// SetSlice sets element i's field, a []E, to elements [lo, hi) of elems (a Slice of a []E from
// Elems), with capacity hi-lo.
func (d Slice) SetSlice(i int, elems Slice, lo, hi int) {
	f := d.field(i)
	if lo < 0 || hi < lo || hi > elems.v.Len() {
		panic(&Error{Op: "SetSlice", Index: lo, End: hi, Len: elems.v.Len()})
	}
	f.Set(elems.v.Slice3(lo, hi, hi))
}
