package boxing

import (
	"bytes"
	"database/sql/driver"
	"runtime"
	"strconv"
	"testing"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/nativeproto"
)

var junkSink []byte

// Every string header of a slab is written, so empty strings read as "" even when the slab is
// carved from freed memory full of other bytes (all-empty windows included).
func TestBoxEmptyStringsOnReusedMemory(t *testing.T) {
	s := columns.NewString()
	for i := range 5000 {
		if i%3 == 0 {
			s.Append("")
		} else {
			s.Append("v" + strconv.Itoa(i))
		}
	}
	for range 600 {
		s.Append("")
	}
	blk := nativeproto.NewBlock()
	blk.Add("s", s)
	dest := make([]driver.Value, 1)
	for range 10 {
		for range 64 { // freed memory full of 0xff for the next chunks to be carved from
			junkSink = bytes.Repeat([]byte{0xff}, 64<<10)
		}
		runtime.GC()
		var bx Boxer
		for row := range s.Rows() {
			if row >= bx.Hi {
				if _, err := bx.Fill(blk, row, min(row+Window, s.Rows())); err != nil {
					t.Fatal(err)
				}
			}
			if err := bx.Row(dest, blk, row); err != nil {
				t.Fatal(err)
			}
			if got := dest[0].(string); got != s.String(row) {
				t.Fatalf("row %d boxed as %q, want %q", row, got, s.String(row))
			}
		}
	}
}
