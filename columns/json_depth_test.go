package columns

import (
	"errors"
	"strings"
	"testing"
)

// flattenedJSON encodes a JSON column's prefix and data in the FLATTENED serialization: one
// dynamic path holding an Int64 in every one of rows rows.
func flattenedJSON(path string, rows int) []byte {
	var w Writer
	w.Uint64(jsonFlattened)
	w.UVarInt(1)
	w.String(path)
	w.Uint64(dynamicFlattened) // the path's Dynamic: FLATTENED, one type
	w.UVarInt(1)
	w.String("Int64")
	for range rows {
		w.Byte(0) // the row's type: Int64
	}
	for i := range rows {
		w.Int64(int64(i))
	}
	return w.Buf
}

// TestJSONPathDepth: finding 4, a JSON path of 10^6 parts (2 MB) overflowed the goroutine stack
// (fatal, unrecoverable) when its nested objects were written as text; it is now a LimitError
// naming the parts, and a path of MaxJSONPathDepth parts decodes.
func TestJSONPathDepth(t *testing.T) {
	deep := strings.Repeat("a.", 1_000_000-1) + "a"
	c := mustNew(t, "JSON")
	r := NewBytesReader(flattenedJSON(deep, 2))
	err := c.ReadPrefix(r)
	if err == nil {
		err = c.Read(r, 2)
	}
	var le *LimitError
	if !errors.As(err, &le) || le.Value != 1_000_000 || le.Max != MaxJSONPathDepth {
		t.Fatalf("want a LimitError of 10^6 JSON path parts, got %v", err)
	}
	ok := strings.Repeat("b.", MaxJSONPathDepth-1) + "b"
	c = mustNew(t, "JSON")
	r = NewBytesReader(flattenedJSON(ok, 2))
	if err := c.ReadPrefix(r); err != nil {
		t.Fatal(err)
	}
	if err := c.Read(r, 2); err != nil {
		t.Fatal(err)
	}
	if got := c.Value(1).(string); !strings.HasPrefix(got, `{"b":{"b":`) || !strings.Contains(got, ":1}") {
		t.Fatalf("row 1: %.60s...", got)
	}
}
