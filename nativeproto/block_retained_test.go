package nativeproto

import (
	"strings"
	"testing"

	"github.com/chnative/chnative/columns"
)

// Retained counts the columns a narrower block hid past len (kept for the next result), and
// DataBytes the values a block holds, not what its columns kept.
func TestBlockRetainedCountsHiddenColumns(t *testing.T) {
	col := columns.NewString()
	v := strings.Repeat("z", 1024)
	for range 1024 {
		if err := col.AppendValue(v); err != nil {
			t.Fatal(err)
		}
	}
	b := NewBlock()
	b.Add("s", col)
	if got := b.Retained(1 << 62); got < 1<<20 {
		t.Fatalf("Retained = %d, want >= 1 MiB", got)
	}
	if got := b.DataBytes(1 << 62); got < 1<<20 {
		t.Fatalf("DataBytes = %d, want >= 1 MiB", got)
	}
	b.truncate(0) // what decoding a block without columns does
	if b.NumColumns() != 0 {
		t.Fatal("truncate(0) left columns")
	}
	if got := b.Retained(1 << 62); got < 1<<20 {
		t.Errorf("Retained of a block whose column is hidden past len = %d, want >= 1 MiB", got)
	}
	if got := b.DataBytes(1 << 62); got != 0 {
		t.Errorf("DataBytes of a block without columns = %d, want 0", got)
	}
}
