package types

import (
	"testing"

	"github.com/chnative/chnative/columns"
)

func TestSortMaps(t *testing.T) {
	for typ, want := range map[string]string{
		"String":                                "v",
		"Map(String, UInt8)":                    "mapSort(v)",
		"Map(String, Map(String, Int8))":        "mapSort(mapApply((k0, x0) -> (k0, mapSort(x0)), v))",
		"Array(Map(String, String))":            "arrayMap(x0 -> mapSort(x0), v)",
		"Tuple(a Map(String, UInt8), b String)": "tuple(mapSort(tupleElement(v, 1)), tupleElement(v, 2))",
	} {
		n, err := columns.ParseType(typ)
		if err != nil {
			t.Fatal(err)
		}
		if got := sortMaps("v", n, 0); got != want {
			t.Errorf("sortMaps(%s) = %s, want %s", typ, got, want)
		}
	}
}

func TestInOrder(t *testing.T) {
	got, err := inOrder([]uint32{2, 0, 1}, []any{"c", "a", "b"})
	if err != nil || len(got) != 3 || got[0] != "a" || got[1] != "b" || got[2] != "c" {
		t.Errorf("inOrder: %v, %v", got, err)
	}
	for _, is := range [][]uint32{{0, 0, 1}, {0, 1, 3}} {
		if _, err := inOrder(is, []any{1, 2, 3}); err == nil {
			t.Errorf("inOrder(%v) took a repeated or missing row", is)
		}
	}
}
