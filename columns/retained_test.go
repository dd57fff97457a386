package columns

import (
	"strings"
	"testing"
)

// Retained counts a column's buffers by capacity, at every depth, and DataSize by length; both
// stop early past their limit.
func TestRetainedCountsBuffers(t *testing.T) {
	s := NewString()
	v := strings.Repeat("x", 1000)
	for range 1000 {
		if err := s.AppendValue(v); err != nil {
			t.Fatal(err)
		}
	}
	if got := Retained(s, 1<<62); got < 1000*1000 {
		t.Errorf("Retained(String of 1 MB) = %d", got)
	}
	if got := DataSize(s, 1<<62); got < 1000*1000 || got > 1000*1000+1000*8+4096 {
		t.Errorf("DataSize(String of 1 MB) = %d", got)
	}
	retained := Retained(s, 1<<62)
	s.Reset()
	if got := DataSize(s, 1<<62); got > 4096 {
		t.Errorf("DataSize after Reset = %d, want about 0", got)
	}
	if got := Retained(s, 1<<62); got != retained {
		t.Errorf("Retained after Reset = %d, want %d (Reset keeps the memory)", got, retained)
	}
	// Nested: the inner column's buffers count.
	col, err := New("Array(Nullable(String))")
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		if err := col.AppendValue([]*string{&v, nil, &v}); err != nil {
			t.Fatal(err)
		}
	}
	if got := Retained(col, 1<<62); got < 200*1000 {
		t.Errorf("Retained(Array(Nullable(String)) of 200 KB) = %d", got)
	}
	if got := Retained(col, 1000); got <= 1000 || got > 1<<20 {
		t.Errorf("Retained with limit 1000 = %d, want just above the limit", got)
	}
}

// A column nested as deep as a type may be is measured whole: its innermost buffers count.
func TestRetainedDeepestType(t *testing.T) {
	typ := "String"
	for range MaxTypeDepth - 1 {
		typ = "Array(" + typ + ")"
	}
	col, err := New(typ)
	if err != nil {
		t.Skipf("%s: %v", typ[:40], err)
	}
	var v any = strings.Repeat("q", 1<<20)
	for range MaxTypeDepth - 1 {
		v = []any{v}
	}
	if err := col.AppendValue(v); err != nil {
		t.Skipf("append: %v", err)
	}
	if got := Retained(col, 1<<62); got < 1<<20 {
		t.Errorf("Retained of %d nested Arrays around 1 MiB = %d", MaxTypeDepth-1, got)
	}
}
