//go:build !purego

package fieldslice

// Why unsafe: struct mapping (Select, ScanStructs, AppendStructs) reads and writes one field of
// every element of a []T without reflection per row. A Slice is the address of that field
// in element 0 and the stride between elements; Get and Set are then one load or
// store each, which the compiler inlines into the column's loop.
//
// What it relies on: a Go slice's elements are laid out size bytes apart (size the element
// type's size, padding included), and a field sits at the same offset in each of them; the
// caller names the field by a reflect.StructField of the element type whose Offset is its
// offset from the start of the element (structmap sums the offsets of promoted fields' paths
// and leaves out those promoted through embedded pointers). base is an unsafe.Pointer into the slice's
// array, so the array stays alive while a Slice of it is in use. The type a value is
// stored as has the field's memory layout: the same kind and size (a named uint64 read as
// uint64, a [16]byte-like array as [16]byte, a *T field as a pointer, a []T field as a slice
// header); the columns' FieldCopyFunc and FieldAppendFunc only answer for such field types.
// purego builds use slice_purego.go, which does the same through reflect.

import (
	"reflect"
	"unsafe"
)

// Slice is one field of each element of a slice of structs (or the elements of a slice
// themselves): where struct mapping copies column values to, or appends them from. It borrows
// the slice: nothing is copied.
type Slice struct {
	base unsafe.Pointer // the field in element 0
	size uintptr        // the distance between elements
	n    int
}

// Of returns field f of each element of rows. f must describe a field of T, with Offset
// its offset from the start of T.
func Of[T any](rows []T, f reflect.StructField) Slice {
	return Slice{unsafe.Add(unsafe.Pointer(unsafe.SliceData(rows)), f.Offset), unsafe.Sizeof(*new(T)), len(rows)}
}

// Elems returns the elements of the slice v (made with reflect.MakeSlice, say) as a
// Slice.
func Elems(v reflect.Value) Slice {
	return Slice{v.UnsafePointer(), v.Type().Elem().Size(), v.Len()}
}

// Len returns the number of elements.
func (d Slice) Len() int { return d.n }

func (d Slice) at(i int) unsafe.Pointer { return unsafe.Add(d.base, uintptr(i)*d.size) }

// Set stores v in element i's field, whose type has T's memory layout.
func Set[T any](d Slice, i int, v T) { *(*T)(d.at(i)) = v }

// Get returns element i's field, whose type has T's memory layout.
func Get[T any](d Slice, i int) T { return *(*T)(d.at(i)) }

// Addr returns a pointer (of type *ft) to element i's field, of type ft.
func (d Slice) Addr(i int, ft reflect.Type) reflect.Value { return reflect.NewAt(ft, d.at(i)) }

// SetNil sets element i's field, a pointer, to nil.
func (d Slice) SetNil(i int) { *(*unsafe.Pointer)(d.at(i)) = nil }

// SetPointer sets element i's field, a *E, to the address of element j of elems (a Slice of a
// []E from Elems).
func (d Slice) SetPointer(i int, elems Slice, j int) {
	*(*unsafe.Pointer)(d.at(i)) = elems.at(j)
}

// sliceHeader is the layout of a slice.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

// SetSlice sets element i's field, a []E, to elements [lo, hi) of elems (a Slice of a []E from
// Elems), with capacity hi-lo.
func (d Slice) SetSlice(i int, elems Slice, lo, hi int) {
	p := elems.base
	if hi > lo {
		p = elems.at(lo)
	}
	*(*sliceHeader)(d.at(i)) = sliceHeader{p, hi - lo, hi - lo}
}
