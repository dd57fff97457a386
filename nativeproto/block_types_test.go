package nativeproto

import (
	"testing"

	"github.com/chnative/chnative/internal/wire"
)

// Block.Type returns the type string kept beside each column: right after a decode that reuses
// the columns, one that replaces a column with one of another type, one that hides columns and
// one that brings them back; and without building the string of a composite type again.
func TestBlockTypeKeptWithColumn(t *testing.T) {
	enc := func(b *Block) []byte {
		var w wire.Writer
		if err := WriteBlock(&w, 54460, true, b); err != nil {
			t.Fatal(err)
		}
		return w.Buf
	}
	wide := NewBlock()
	wide.Add("n", mustCol(t, "Nullable(Int64)", int64(1)))
	wide.Add("a", mustCol(t, "Array(LowCardinality(String))", []string{"x"}))
	narrow := NewBlock()
	narrow.Add("n", mustCol(t, "Array(Int8)", []int8{1}))
	check := func(b *Block, want ...string) {
		t.Helper()
		if b.NumColumns() != len(want) {
			t.Fatalf("%d columns, want %d", b.NumColumns(), len(want))
		}
		for i, w := range want {
			if b.Type(i) != w || b.Column(i).Type() != w {
				t.Fatalf("column %d: Type %q, column's %q, want %q", i, b.Type(i), b.Column(i).Type(), w)
			}
		}
	}
	if wide.Type(1) != "Array(LowCardinality(String))" {
		t.Fatalf("Add kept %q", wide.Type(1))
	}
	b, err := ReadBlock(wire.NewBytesReader(enc(wide)), 54460, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	check(b, "Nullable(Int64)", "Array(LowCardinality(String))")
	for _, step := range []struct {
		data []byte
		want []string
	}{
		{enc(narrow), []string{"Array(Int8)"}},
		{enc(NewBlock()), nil},
		{enc(wide), []string{"Nullable(Int64)", "Array(LowCardinality(String))"}},
		{enc(wide), []string{"Nullable(Int64)", "Array(LowCardinality(String))"}},
	} {
		if _, err := ReadBlock(wire.NewBytesReader(step.data), 54460, true, b); err != nil {
			t.Fatal(err)
		}
		check(b, step.want...)
	}
	if allocs := testing.AllocsPerRun(100, func() { typeSink, typeSink = b.Type(0), b.Type(1) }); allocs != 0 {
		t.Errorf("Type allocates: %v per two calls", allocs)
	}
	b.Clear()
	if b.NumColumns() != 0 || len(b.types) != 0 || b.types[:cap(b.types)][0] != "" {
		t.Fatal("Clear kept a type")
	}
}

var typeSink string
