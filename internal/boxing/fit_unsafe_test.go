//go:build !purego

package boxing

import (
	"database/sql/driver"
	"testing"

	"github.com/chnative/chnative/internal/testenv"
)

// Windows are cut to fill the rest of a slab chunk, so boxing a block allocates little more than
// the bytes its values take, and every value is still boxed right.
func TestBoxWindowsFillChunks(t *testing.T) {
	const n = 65536
	b, s := fitBlock(n)
	var bx Boxer
	dest := make([]driver.Value, 3)
	var used uintptr
	windows := 0
	alloc := testenv.AllocatedBy(func() {
		for row := 0; row < n; row++ {
			if row >= bx.Hi {
				u, err := bx.Fill(b, row, min(row+Window, n))
				if err != nil {
					t.Fatal(err)
				}
				used += u
				windows++
			}
			if err := bx.Row(dest, b, row); err != nil {
				t.Fatal(err)
			}
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
