//go:build !purego

package fieldslice

import (
	"reflect"
	"testing"
)

// Of refuses a field that does not lie within the element type (its offset and size are what
// every access adds to the element's address).
func TestOfRefusesFieldOutsideElement(t *testing.T) {
	type wide struct {
		A [64]byte
		C uint64
	}
	f, _ := reflect.TypeFor[wide]().FieldByName("C")
	refused(t, "a field at offset 64 in a 40-byte struct", func() { Of(make([]narrow, 1), f) })
}

// A Row refuses a field that does not lie within its struct, and its one element is the only
// one a Slice of it reaches.
func TestRowRefusesFieldOutsideStruct(t *testing.T) {
	type wide struct {
		A [64]byte
		C uint64
	}
	f, _ := reflect.TypeFor[wide]().FieldByName("C")
	r := RowOf(reflect.ValueOf(&narrow{W: 9}))
	refused(t, "a field at offset 64 in a 40-byte struct", func() { r.Field(&f) })
	w := narrowField(t, "W")
	s := r.Field(&w)
	refused(t, "Get past the one element", func() { _ = Get[int32](s, 1) })
	if got := Get[int32](s, 0); got != 9 {
		t.Errorf("W = %d, want 9", got)
	}
	refused(t, "RowOf a nil pointer", func() { RowOf(reflect.ValueOf((*narrow)(nil))) })

	// FieldSized takes the size from its caller: a size that runs past the struct is refused,
	// and a size other than the loads' fails the loads' own check.
	refused(t, "a field of W's offset 64 bytes wide", func() { r.FieldSized(&w, 64) })
	refused(t, "a field at offset 64 in a 40-byte struct, sized", func() { r.FieldSized(&f, 8) })
	lied := r.FieldSized(&w, 2)
	refused(t, "an int32 Get of a field said to be 2 bytes", func() { _ = Get[int32](lied, 0) })
	if got := Get[int32](r.FieldSized(&w, 4), 0); got != 9 {
		t.Errorf("W sized = %d, want 9", got)
	}
}
