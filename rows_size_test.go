package chnative

import (
	"testing"
	"unsafe"
)

// A query allocates its rows (with its chconn.Result inside) as one object: keeping it within
// the 512-byte size class keeps the bytes per query of a small query where they were.
func TestRowsSizeClass(t *testing.T) {
	if n := unsafe.Sizeof(rows{}); n > 512 {
		t.Errorf("rows is %d bytes, more than 512: a query's allocation moves to the next size class", n)
	}
}
