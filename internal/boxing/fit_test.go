package boxing

import (
	"strconv"
	"testing"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/testenv"
	"github.com/chnative/chnative/nativeproto"
)

// fitBlock returns a (UInt64, String, Float64) block of n rows with strings of varying length.
func fitBlock(n int) (*nativeproto.Block, *columns.String) {
	u := columns.NewFixed[uint64]("")
	s := columns.NewString()
	f := columns.NewFixed[float64]("")
	for i := range n {
		u.Append(uint64(i))
		s.Append("name-" + strconv.Itoa(i%1000) + "-" + strconv.Itoa(i))
		f.Append(float64(i) / 4)
	}
	b := nativeproto.NewBlock()
	b.Add("u", u)
	b.Add("s", s)
	b.Add("f", f)
	return b, s
}

// The same for the strings ScanColumn hands out (Go 1.27): their text windows fill chunks.
func TestTextWindowsFillChunks(t *testing.T) {
	const n = 65536
	_, s := fitBlock(n)
	var tw TextWindows
	arena, _ := s.Data()
	alloc := testenv.AllocatedBy(func() {
		for row := range n {
			if got := tw.str(1, s, row); got != s.String(row) {
				t.Fatalf("row %d: %q, want %q", row, got, s.String(row))
			}
		}
	})
	if float64(alloc) > float64(len(arena))*1.05+4096 {
		t.Fatalf("copying %d bytes of text allocated %d bytes", len(arena), alloc)
	}
}
