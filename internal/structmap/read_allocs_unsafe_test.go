//go:build !purego

package structmap

import (
	"reflect"
	"testing"
)

// Decimal32 and Decimal64 columns copy into columns.Decimal fields with allocations per block
// (a slab of big.Ints and one of their words), not per value. (The purego build's field writes
// box every value, so the count holds for this build only.)
func TestCopyBlockDecimalAllocsPerBlock(t *testing.T) {
	b := decimalBlock(t)
	plan, err := PlanRead(reflect.TypeFor[decimalRow](), b)
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]decimalRow, b.Rows())
	allocs := testing.AllocsPerRun(10, func() {
		if err := CopyBlock(plan, b, dst); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 4 {
		t.Errorf("%v allocations copying 1000 rows of two Decimal columns, want at most 4", allocs)
	}
}
