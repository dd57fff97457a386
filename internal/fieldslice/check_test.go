package fieldslice

import (
	"errors"
	"reflect"
	"testing"
)

// Every access a Slice makes checks the element's index and the size of what it stores or loads
// against the field: a copier of another column type than the field was planned for (the lie of
// a server that changes a column's type between blocks) panics with an *Error before the store,
// in both builds (-tags purego too), and the neighbouring fields stay as they were.

type narrow struct {
	I int8
	Q int8
	W int32
	P *int32
	S []int32
}

func narrowField(t *testing.T, name string) reflect.StructField {
	t.Helper()
	f, ok := reflect.TypeFor[narrow]().FieldByName(name)
	if !ok {
		t.Fatal(name)
	}
	return f
}

// refused runs f and checks that it panicked with an *Error.
func refused(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		err, ok := r.(error)
		var fe *Error
		if !ok || !errors.As(err, &fe) {
			t.Errorf("%s: panic %v, want a *fieldslice.Error", what, r)
			return
		}
		t.Logf("%s: %v", what, fe)
	}()
	f()
}

func TestSliceRefusesLies(t *testing.T) {
	rows := make([]narrow, 2)
	for i := range rows {
		rows[i].Q, rows[i].W = 7, 9
	}
	i8, w, p, s := Of(rows, narrowField(t, "I")), Of(rows, narrowField(t, "W")), Of(rows, narrowField(t, "P")), Of(rows, narrowField(t, "S"))
	elems := Elems(reflect.ValueOf(make([]int32, 3)))
	refused(t, "Set int64 in an int8 field", func() { Set(i8, 0, int64(0x4141414141414141)) })
	refused(t, "Set int64 in an int8 field, last element", func() { Set(i8, 1, int64(0x4141414141414141)) })
	refused(t, "Set past the slice", func() { Set(i8, 2, int8(1)) })
	refused(t, "Set at -1", func() { Set(i8, -1, int8(1)) })
	refused(t, "Get int64 of an int32 field", func() { _ = Get[int64](w, 0) })
	refused(t, "Get past the slice", func() { _ = Get[int32](w, 2) })
	refused(t, "Addr as int64 of an int32 field", func() { _ = w.Addr(0, reflect.TypeFor[int64]()) })
	refused(t, "SetNil of an int32 field", func() { w.SetNil(0) })
	refused(t, "SetPointer past the elements", func() { p.SetPointer(0, elems, 3) })
	refused(t, "SetPointer past the slice", func() { p.SetPointer(2, elems, 0) })
	refused(t, "SetSlice past the elements", func() { s.SetSlice(0, elems, 1, 4) })
	refused(t, "SetSlice backwards", func() { s.SetSlice(0, elems, 2, 1) })
	for i, r := range rows {
		if r.I != 0 || r.Q != 7 || r.W != 9 || r.P != nil || r.S != nil {
			t.Errorf("element %d changed by a refused access: %+v", i, r)
		}
	}
	// What fits still goes through.
	Set(i8, 1, int8(-3))
	p.SetPointer(1, elems, 2)
	s.SetSlice(1, elems, 1, 3)
	if rows[1].I != -3 || rows[1].Q != 7 || rows[1].P == nil || len(rows[1].S) != 2 {
		t.Errorf("valid accesses: %+v", rows[1])
	}
}
