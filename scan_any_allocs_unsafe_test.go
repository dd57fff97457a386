//go:build !purego

// The window boxer's allocation profile, which only the unsafe build has (the purego boxer
// allocates per value).

package chnative

import (
	"testing"
)

// Scanning into *any allocates per window of rows, not per value: through Next (before Go 1.27)
// and through ScanColumn (Go 1.27) alike. 30 000 values must cost far fewer than 30 000
// allocations; a query's own fixed allocations are a few dozen.
func TestScanAnyAllocatesPerWindow(t *testing.T) {
	db := openDB(t)
	db.SetMaxOpenConns(1)
	const n = 10000
	query := "SELECT number, toString(number), toFloat64(number) / 3 FROM system.numbers LIMIT 10000"
	var a, b, c any
	dest := []any{&a, &b, &c}
	scan := func() {
		rs, err := db.Query(query)
		if err != nil {
			t.Fatal(err)
		}
		defer rs.Close()
		rows := 0
		for rs.Next() {
			if err := rs.Scan(dest...); err != nil {
				t.Fatal(err)
			}
			rows++
		}
		if err := rs.Err(); err != nil {
			t.Fatal(err)
		}
		if rows != n || a.(uint64) != n-1 || b.(string) != "9999" || c.(float64) != float64(n-1)/3 {
			t.Fatalf("%d rows, last %v %v %v", rows, a, b, c)
		}
	}
	scan() // warm: the connection and its buffers
	allocs := testing.AllocsPerRun(5, scan)
	if allocs > 3*n/10 {
		t.Fatalf("%.0f allocations for %d values scanned into *any", allocs, 3*n)
	}
	t.Logf("%.0f allocations for %d values", allocs, 3*n)
}
