package fieldslice

import (
	"reflect"
	"testing"
)

type myByte uint8

type row struct {
	Pad  byte
	N    uint64
	S    string
	U    [4]myByte
	B    []myByte
	P    *int32
	Sl   []int32
	Name myName
}

type myName string

func field(t *testing.T, name string) reflect.StructField {
	f, ok := reflect.TypeFor[row]().FieldByName(name)
	if !ok {
		t.Fatal(name)
	}
	return f
}

// Both builds store and load through the same calls, named types included.
func TestSlice(t *testing.T) {
	rows := make([]row, 3)
	n, s, u, name := Of(rows, field(t, "N")), Of(rows, field(t, "S")), Of(rows, field(t, "U")), Of(rows, field(t, "Name"))
	if n.Len() != 3 {
		t.Fatalf("Len %d", n.Len())
	}
	for i := range 3 {
		Set(n, i, uint64(i)+10)
		Set(s, i, "s"+string(rune('a'+i)))
		Set(u, i, [4]byte{byte(i), 1, 2, 3})
		Set(name, i, "n")
	}
	vals := Elems(reflect.MakeSlice(reflect.TypeFor[[]int32](), 3, 3))
	for j := range 3 {
		Set(vals, j, int32(j*100))
	}
	p, sl := Of(rows, field(t, "P")), Of(rows, field(t, "Sl"))
	p.SetNil(0)
	p.SetPointer(1, vals, 2)
	sl.SetSlice(0, vals, 0, 2)
	sl.SetSlice(1, vals, 2, 2)
	b := Of(rows, field(t, "B"))
	Set(b, 2, []byte{7, 8})
	if rows[1].N != 11 || rows[2].S != "sc" || rows[1].U != [4]myByte{1, 1, 2, 3} || rows[0].Name != "n" ||
		rows[0].P != nil || *rows[1].P != 200 || !reflect.DeepEqual(rows[0].Sl, []int32{0, 100}) ||
		cap(rows[0].Sl) != 2 || rows[1].Sl == nil || len(rows[1].Sl) != 0 || !reflect.DeepEqual(rows[2].B, []myByte{7, 8}) {
		t.Errorf("rows %+v", rows)
	}
	if Get[uint64](n, 2) != 12 || Get[string](name, 1) != "n" || Get[[4]byte](u, 2) != [4]byte{2, 1, 2, 3} ||
		string(Get[[]byte](b, 2)) != "\x07\x08" || Get[[]byte](b, 0) != nil {
		t.Error("Get")
	}
	if a := n.Addr(1, field(t, "N").Type); a.Interface().(*uint64) != &rows[1].N {
		t.Error("Addr")
	}
}
