package boxing

import (
	"database/sql/driver"
	"errors"
	"testing"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/nativeproto"
)

// Each check the boxing makes before it relies on a block, fed the lie it guards against: the
// answer is an *Error and nothing is read outside the block. Run in both builds (-tags purego).

func lieBlock(t *testing.T, n int) (*nativeproto.Block, *columns.String) {
	t.Helper()
	b := nativeproto.NewBlock()
	u, s := columns.NewFixed[uint64]("UInt64"), columns.NewString()
	for i := range n {
		u.Append(uint64(i))
		s.Append("row")
	}
	b.Add("u", u)
	b.Add("s", s)
	return b, s
}

func wantBoxingError(t *testing.T, err error, what string) {
	t.Helper()
	var be *Error
	if !errors.As(err, &be) {
		t.Fatalf("%s: error %v, want a *boxing.Error", what, err)
	}
	t.Logf("%s: %v", what, err)
}

// A Totals or Extremes block with fewer columns than the header: database/sql's dest has the
// header's length, longer than the window Fill made (finding 1: Row read past the window).
func TestRowMoreValuesThanWindowColumns(t *testing.T) {
	b, _ := lieBlock(t, 3)
	var bx Boxer
	if _, err := bx.Fill(b, 0, 3); err != nil {
		t.Fatal(err)
	}
	short := nativeproto.NewBlock()
	short.Add("u", b.Column(0))
	if _, err := bx.Fill(short, 0, 3); err != nil {
		t.Fatal(err)
	}
	sentinel := "untouched"
	dest := []driver.Value{sentinel, sentinel}
	wantBoxingError(t, bx.Row(dest, short, 1), "Row with 2 values of a 1-column window")
	if dest[0] != sentinel || dest[1] != sentinel {
		t.Errorf("dest changed: %v", dest)
	}
	wantBoxingError(t, bx.Row(dest[:1], short, 3), "Row past the window")
	if _, _, err := bx.Value(short, 1, 0, 3); err == nil {
		t.Error("Value of column 1 of a 1-column block: no error")
	}
	if _, _, err := bx.Value(short, 0, 5, 3); err == nil {
		t.Error("Value of row 5 of a 3-row block: no error")
	}
}

func TestFillRowsOutsideBlock(t *testing.T) {
	b, _ := lieBlock(t, 3)
	var bx Boxer
	for _, r := range [][2]int{{0, 4}, {-1, 2}, {2, 2}, {3, 3 + Window}} {
		_, err := bx.Fill(b, r[0], r[1])
		wantBoxingError(t, err, "rows outside the block")
		if bx.Hi != 0 {
			t.Errorf("a window [%d, %d) after the error", bx.Lo, bx.Hi)
		}
	}
}

// A block whose columns have different row counts: the window must not run past the shorter.
func TestFillColumnShorterThanBlock(t *testing.T) {
	b := nativeproto.NewBlock()
	u, s := columns.NewFixed[uint64]("UInt64"), columns.NewString()
	for i := range 300 {
		u.Append(uint64(i))
	}
	s.Append("only one")
	b.Add("u", u)
	b.Add("s", s)
	var bx Boxer
	_, err := bx.Fill(b, 0, 300)
	wantBoxingError(t, err, "a 1-row String column in a 300-row block")
}

// String end offsets the slab's string headers are computed from: decreasing ones, or ones past
// the text, must not become headers that point outside the copy.
func TestFillStringEndsLie(t *testing.T) {
	for _, lie := range []struct {
		name string
		set  func(ends []int)
	}{
		{"decreasing", func(ends []int) { ends[0] = 1 << 20 }},
		{"pastText", func(ends []int) { ends[len(ends)-1] = 1 << 20 }},
		{"negative", func(ends []int) { ends[0] = -5 }},
	} {
		t.Run(lie.name, func(t *testing.T) {
			b, s := lieBlock(t, 4)
			_, ends := s.Data()
			lie.set(ends)
			var bx Boxer
			_, err := bx.Fill(b, 0, 4)
			wantBoxingError(t, err, lie.name)
			_, err = bx.Fill(b, 1, 4)
			wantBoxingError(t, err, lie.name+" from row 1")
		})
	}
}

// The fixed-size window's checks: its layout (size of the Go type, no pointers) and its memory.
func TestCheckWindowFixed(t *testing.T) {
	ok := columns.Window{Kind: columns.WindowFixed, Zero: uint32(0), Size: 4, Mem: make([]byte, 12)}
	if err := checkWindow(&ok, 0, 0, 3); err != nil {
		t.Fatalf("valid window: %v", err)
	}
	for name, w := range map[string]columns.Window{
		"shortMemory":   {Kind: columns.WindowFixed, Zero: uint32(0), Size: 4, Mem: make([]byte, 11)},
		"wrongSize":     {Kind: columns.WindowFixed, Zero: uint32(0), Size: 8, Mem: make([]byte, 24)},
		"pointerType":   {Kind: columns.WindowFixed, Zero: new(int), Size: 8, Mem: make([]byte, 24)},
		"stringType":    {Kind: columns.WindowFixed, Zero: "", Size: 16, Mem: make([]byte, 48)},
		"zeroSize":      {Kind: columns.WindowFixed, Zero: struct{}{}, Size: 0},
		"noType":        {Kind: columns.WindowFixed, Size: 8, Mem: make([]byte, 24)},
		"structPointer": {Kind: columns.WindowFixed, Zero: struct{ P *int }{}, Size: 8, Mem: make([]byte, 24)},
	} {
		wantBoxingError(t, checkWindow(&w, 0, 0, 3), name)
	}
	arr := columns.Window{Kind: columns.WindowFixed, Zero: [2]struct{ A, B uint64 }{}, Size: 32, Mem: make([]byte, 96)}
	if err := checkWindow(&arr, 0, 0, 3); err != nil {
		t.Errorf("array of structs of numbers: %v", err)
	}
}
