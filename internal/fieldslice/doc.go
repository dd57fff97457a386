// Package fieldslice addresses one field of every element of a []T: the memory struct mapping
// (internal/structmap, with the column types' copiers and appenders in package columns) reads
// and writes, one column at a time, without reflection per row.
//
// # Design
//
// A Slice names a field by a reflect.StructField of the element type and is read and written
// with the generic Get and Set (and Addr, SetNil, SetPointer, SetSlice for the fallbacks and
// the Nullable and Array copiers). It is internal so that only the module's code, which matches
// every field type to the layout it stores, can make one: a wrong type would write past or
// across fields.
//
// Two builds, one API. Without the purego tag (slice_unsafe.go) a Slice is a pointer to the
// field in element 0 and the stride: Get and Set are one load or store each, inlined into the
// columns' loops, as fast as the hand-written pointer arithmetic they replace. With the purego
// tag (slice_purego.go) a Slice is a reflect.Value of the slice and the field's index path, and
// every access goes through reflect.Value.Index, FieldByIndex, Set and Convert: slow, but it
// relies only on what reflect promises. slice_unsafe.go says what the fast build relies on.
// Both builds check every access (the element is in the slice, the value has the field's size)
// and panic with an *Error before a refused one; struct mapping checks each block's column
// types against its plan first, so that panic is a last line, which it returns as an error.
package fieldslice
