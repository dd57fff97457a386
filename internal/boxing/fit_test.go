package boxing

import (
	"database/sql/driver"
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

// Windows are cut to fill the rest of a slab chunk, so boxing a block allocates little more than
// the bytes its values take, and every value is still boxed right.
func TestBoxWindowsFillChunks(t *testing.T) {
	if Purego {
		t.Skip("purego: values are boxed one at a time")
	}
	const n = 65536
	b, s := fitBlock(n)
	var bx Boxer
	dest := make([]driver.Value, 3)
	var used uintptr
	windows := 0
	alloc := testenv.AllocatedBy(func() {
		for row := 0; row < n; row++ {
			if row >= bx.Hi {
				used += bx.Fill(b, row, min(row+Window, n))
				windows++
			}
			bx.Row(dest, b, row)
			if dest[0].(uint64) != uint64(row) || dest[1].(string) != s.String(row) || dest[2].(float64) != float64(row)/4 {
				t.Fatalf("row %d boxed as %v %v %v", row, dest[0], dest[1], dest[2])
			}
		}
	})
	// Before windows were fitted, the unused ends of chunks made it 13% more than used.
	t.Logf("%d windows, %d bytes of values, %d allocated", windows, used, alloc)
	if float64(alloc) > float64(used)*1.03 {
		t.Fatalf("boxing %d bytes of values in %d windows allocated %d bytes (%.1f%% more)", used, windows, alloc, 100*(float64(alloc)/float64(used)-1))
	}
	if windows > n/Window*5/4 {
		t.Fatalf("%d windows for %d rows: fitting cut too many short", windows, n)
	}
}

// The same for the strings ScanColumn hands out (Go 1.27): their text windows fill chunks.
func TestTextWindowsFillChunks(t *testing.T) {
	const n = 65536
	_, s := fitBlock(n)
	var tw TextWindows
	arena, _ := s.Data()
	alloc := testenv.AllocatedBy(func() {
		for row := range n {
			if got := tw.Str(1, s, row); got != s.String(row) {
				t.Fatalf("row %d: %q, want %q", row, got, s.String(row))
			}
		}
	})
	if float64(alloc) > float64(len(arena))*1.05+4096 {
		t.Fatalf("copying %d bytes of text allocated %d bytes", len(arena), alloc)
	}
}
