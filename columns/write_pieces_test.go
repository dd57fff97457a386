package columns

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
)

// WritePieces appends exactly what Write does, for every type, whatever the piece size.
func TestWritePiecesMatchesWrite(t *testing.T) {
	cases := append(roundTripCases(), []struct {
		typ  string
		vals []any
	}{
		{"Dynamic", []any{int64(1), "x", nil, []int64{1, 2}, "y", 2.5}},
		{"Variant(String, UInt8)", []any{VariantValue{"UInt8", uint8(1)}, "s", nil, "t"}},
		{"JSON", []any{`{"a":1}`, `{"b":"x"}`}},
		{"LowCardinality(Nullable(String))", []any{"a", nil, "b", "a"}},
		{"Map(String, Array(Nullable(UInt8)))", []any{map[string][]*uint8{"k": {nil}}}},
	}...)
	for _, tc := range cases {
		c := mustNew(t, tc.typ)
		appendAll(t, c, tc.vals...)
		var whole Writer
		c.Write(&whole)
		for _, n := range []int{1, 7, 64, 1 << 16, math.MaxInt} {
			var w Writer
			WritePieces(c, &w, n, func() {})
			if !bytes.Equal(w.Buf, whole.Buf) {
				t.Errorf("%s in pieces of %d: %x, Write: %x", tc.typ, n, w.Buf, whole.Buf)
			}
		}
	}
}

// Columns of several streams go in pieces of about n bytes: no flush sees more than n bytes
// and a quarter (a run of values ends past n) appended since the last.
func TestWritePiecesBounded(t *testing.T) {
	const rows, n = 20_000, 4096
	value := strings.Repeat("v", 100)
	for _, tc := range []struct {
		typ string
		val func(i int) any
	}{
		{"Nullable(String)", func(i int) any {
			if i%3 == 0 {
				return nil
			}
			return value
		}},
		{"LowCardinality(String)", func(i int) any { return fmt.Sprint("kind-", i%1000) }},
		{"LowCardinality(Nullable(String))", func(i int) any { return fmt.Sprint("kind-", i%70000) }},
		{"Array(UInt64)", func(i int) any { return []uint64{uint64(i), 2, 3} }},
		{"Map(String, UInt64)", func(i int) any { return map[string]uint64{value: uint64(i)} }},
		{"Tuple(String, Nullable(Int64))", func(i int) any { return []any{value, int64(i)} }},
		{"Nullable(UInt64)", func(i int) any { return uint64(i) }},
		{"Variant(String, UInt64)", func(i int) any {
			if i%2 == 0 {
				return value
			}
			return uint64(i)
		}},
		{"Dynamic", func(i int) any {
			if i%2 == 0 {
				return value
			}
			return int64(i)
		}},
		{"JSON", func(i int) any { return `{"a":"` + value + `"}` }},
	} {
		c := mustNew(t, tc.typ)
		for i := range rows {
			if err := c.AppendValue(tc.val(i)); err != nil {
				t.Fatalf("%s: %v", tc.typ, err)
			}
		}
		var w Writer
		mark, most, flushes := 0, 0, 0
		WritePieces(c, &w, n, func() {
			most = max(most, len(w.Buf)-mark)
			mark = len(w.Buf)
			flushes++
		})
		if most > n+n/4 || flushes < len(w.Buf)/(2*n) {
			t.Errorf("%s: %d bytes in %d pieces, the largest %d; want pieces of about %d", tc.typ, len(w.Buf), flushes, most, n)
		}
	}
}

// RowsWithin past the rest of the column, from any row, returns the column's end (a byte count
// near MaxInt does not overflow into a run of one row).
func TestRowsWithinHuge(t *testing.T) {
	s, fs := NewString(), NewFixedString(3)
	for i := range 10 {
		s.Append(fmt.Sprint("value ", i))
		if err := fs.Append([]byte("abc")); err != nil {
			t.Fatal(err)
		}
	}
	for _, from := range []int{0, 1, 9} {
		if got := s.RowsWithin(from, math.MaxInt); got != 10 {
			t.Errorf("String.RowsWithin(%d, MaxInt) = %d, want 10", from, got)
		}
		if got := fs.RowsWithin(from, math.MaxInt); got != 10 {
			t.Errorf("FixedString.RowsWithin(%d, MaxInt) = %d, want 10", from, got)
		}
	}
	if got := s.RowsWithin(2, 1); got != 3 {
		t.Errorf("String.RowsWithin(2, 1) = %d, want one row", got)
	}
}
