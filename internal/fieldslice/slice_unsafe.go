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
// Every access checks the element's index and that the size of what it stores or loads is the
// field's (check): a lie that got past struct mapping's per-block type check panics with an
// *Error there, before the access, instead of writing past the field or the array. purego
// builds use slice_purego.go, which does the same through reflect.

import (
	"fmt"
	"reflect"
	"unsafe"
)

// Slice is one field of each element of a slice of structs (or the elements of a slice
// themselves): where struct mapping copies column values to, or appends them from. It borrows
// the slice: nothing is copied.
type Slice struct {
	base  unsafe.Pointer // the field in element 0
	size  uintptr        // the distance between elements
	n     int
	fsize uintptr // the field's size: every store and load must be of it
}

// Of returns field f of each element of rows. f must describe a field of T, with Offset
// its offset from the start of T; a field that does not fit in T panics with an *Error.
func Of[T any](rows []T, f reflect.StructField) Slice {
	size := unsafe.Sizeof(*new(T))
	if f.Type == nil || f.Offset > size || f.Type.Size() > size-f.Offset || uint64(f.Type.Size()) >= maxLen || uint64(len(rows)) >= maxLen {
		panic(&Error{Op: "Of", Msg: fmt.Sprintf("field %s of %v does not fit in an element of %d bytes", f.Name, f.Type, size)})
	}
	return Slice{unsafe.Add(unsafe.Pointer(unsafe.SliceData(rows)), f.Offset), size, len(rows), f.Type.Size()}
}

// OfValue is Of for a slice of structs held in a reflect.Value (made with reflect.MakeSlice,
// say): field f of each element of v.
func OfValue(v reflect.Value, f reflect.StructField) Slice {
	size := v.Type().Elem().Size()
	if f.Type == nil || f.Offset > size || f.Type.Size() > size-f.Offset || uint64(f.Type.Size()) >= maxLen || uint64(v.Len()) >= maxLen {
		panic(&Error{Op: "OfValue", Msg: fmt.Sprintf("field %s of %v does not fit in an element of %d bytes", f.Name, f.Type, size)})
	}
	return Slice{unsafe.Add(v.UnsafePointer(), f.Offset), size, v.Len(), f.Type.Size()}
}

// Row is the one struct a pointer points to, borrowed (no copy): an AppendStruct of a caller's
// struct. Its fields are one-element Slices.
type Row struct {
	base unsafe.Pointer
	size uintptr
}

// RowOf returns the struct v, a non-nil pointer to a struct, points to.
func RowOf(v reflect.Value) Row {
	if v.Kind() != reflect.Pointer || v.IsNil() {
		panic(&Error{Op: "RowOf", Msg: fmt.Sprintf("%v is not a non-nil pointer to a struct", v.Type())})
	}
	size := v.Type().Elem().Size()
	if uint64(size) >= maxLen {
		panic(&Error{Op: "RowOf", Msg: fmt.Sprintf("a struct of %d bytes", size)})
	}
	return Row{v.UnsafePointer(), size}
}

// Field returns field f of r's struct, f a field of its type (one that does not fit in it panics
// with an *Error).
func (r Row) Field(f *reflect.StructField) Slice {
	if f.Type == nil || f.Offset > r.size || f.Type.Size() > r.size-f.Offset {
		panic(&Error{Op: "Field", Msg: fmt.Sprintf("field %s does not fit in a struct of %d bytes", f.Name, r.size)})
	}
	return Slice{unsafe.Add(r.base, f.Offset), r.size, 1, f.Type.Size()}
}

// FieldSized is Field for a field whose type's size the caller has, f.Type.Size(): a caller
// appending row after row saves the call.
func (r Row) FieldSized(f *reflect.StructField, size uintptr) Slice {
	if f.Offset > r.size || size > r.size-f.Offset {
		panic(&Error{Op: "Field", Msg: fmt.Sprintf("field %s does not fit in a struct of %d bytes", f.Name, r.size)})
	}
	return Slice{unsafe.Add(r.base, f.Offset), r.size, 1, size}
}

// Elems returns the elements of the slice v (made with reflect.MakeSlice, say) as a
// Slice.
func Elems(v reflect.Value) Slice {
	size := v.Type().Elem().Size()
	if uint64(size) >= maxLen || uint64(v.Len()) >= maxLen {
		panic(&Error{Op: "Elems", Msg: fmt.Sprintf("%d elements of %d bytes", v.Len(), size)})
	}
	return Slice{v.UnsafePointer(), size, v.Len(), size}
}

// maxLen bounds the element counts and the field sizes of a Slice: check relies on both being
// below it.
const maxLen = 1 << 32

// Len returns the number of elements.
func (d Slice) Len() int { return d.n }

func (d Slice) at(i int) unsafe.Pointer { return unsafe.Add(d.base, uintptr(i)*d.size) }

// check panics with an *Error unless i is an element and a value of size bytes is the field's
// size: every access below goes through it first, so none reaches outside the slice's array or
// across fields. (Callers are the column copiers and appenders: a plan whose copier is of another
// column type than the block's would store a wider value.)
//
// It runs for every value copied, so it is one comparison: a size other than the field's sets a
// bit at 2^32 or above (size^d.fsize is 0 only when they are equal; Of and Elems refuse sizes
// and lengths of 2^32 and more), which no index passes; and a panic, unlike a call, keeps Set
// and Get within the inliner's budget. Two comparisons, or a call, slowed the columns' copy
// loops measurably.
func (d Slice) check(op string, i int, size uintptr) {
	if uint(i)|uint(size^d.fsize)<<32 >= uint(d.n) {
		panic(&Error{Op: op, Index: i, End: i + 1, Len: d.n, Size: size, FieldSize: d.fsize})
	}
}

// Set stores v in element i's field, whose type has T's memory layout.
func Set[T any](d Slice, i int, v T) {
	d.check("Set", i, unsafe.Sizeof(v))
	*(*T)(d.at(i)) = v
}

// Get returns element i's field, whose type has T's memory layout.
func Get[T any](d Slice, i int) T {
	var v T
	d.check("Get", i, unsafe.Sizeof(v))
	return *(*T)(d.at(i))
}

// Addr returns a pointer (of type *ft) to element i's field, of type ft.
func (d Slice) Addr(i int, ft reflect.Type) reflect.Value {
	d.check("Addr", i, ft.Size())
	return reflect.NewAt(ft, d.at(i))
}

// SetNil sets element i's field, a pointer, to nil.
func (d Slice) SetNil(i int) {
	d.check("SetNil", i, unsafe.Sizeof(unsafe.Pointer(nil)))
	*(*unsafe.Pointer)(d.at(i)) = nil
}

// SetPointer sets element i's field, a *E, to the address of element j of elems (a Slice of a
// []E from Elems).
func (d Slice) SetPointer(i int, elems Slice, j int) {
	d.check("SetPointer", i, unsafe.Sizeof(unsafe.Pointer(nil)))
	if uint(j) >= uint(elems.n) {
		panic(&Error{Op: "SetPointer", Index: j, End: j + 1, Len: elems.n})
	}
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
	d.check("SetSlice", i, unsafe.Sizeof(sliceHeader{}))
	if lo < 0 || hi < lo || hi > elems.n {
		panic(&Error{Op: "SetSlice", Index: lo, End: hi, Len: elems.n})
	}
	p := elems.base
	if hi > lo {
		p = elems.at(lo)
	}
	*(*sliceHeader)(d.at(i)) = sliceHeader{p, hi - lo, hi - lo}
}
