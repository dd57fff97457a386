package columns

import (
	"strings"
	"testing"
)

// String decoding moves short values as 16-byte words: values of every length around that size,
// next to each other and at the end of the input and of the buffered window, decode exactly, and
// into a reused column too.
func TestStringDecodeShortValues(t *testing.T) {
	src := NewString()
	for i := range 2000 {
		src.Append(strings.Repeat(string(rune('a'+i%26)), i%41))
	}
	src.Append(strings.Repeat("z", 300))
	src.Append("")
	src.Append("tail-15-bytes!!")
	data := encode(src)
	for _, rk := range readerKinds {
		dst := NewString()
		for round := range 2 { // the second decode reuses the column's memory
			if err := decodeInto(dst, rk.new(data), src.Rows()); err != nil {
				t.Fatalf("%s round %d: %v", rk.name, round, err)
			}
			for i := range src.Rows() {
				if got, want := string(dst.Bytes(i)), string(src.Bytes(i)); got != want {
					t.Fatalf("%s round %d row %d: %q, want %q", rk.name, round, i, got, want)
				}
			}
		}
	}
}
