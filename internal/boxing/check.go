package boxing

import (
	"fmt"
	"reflect"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/nativeproto"
)

// The checks the boxing makes before it relies on a block: the unsafe build computes slab
// offsets and string headers from the block's row count, each column's window (its element
// size, its memory, its strings' end offsets) and the number of values asked for. A block whose
// columns disagree with those (a lie that got past the decoders and the result's header check)
// is an *Error, never a read outside the slab. Both builds make the same checks.

// Error reports a block, a window or a row that the boxing cannot rely on.
type Error struct {
	Column int // the column at fault, or -1
	Msg    string
}

func (e *Error) Error() string {
	if e.Column < 0 {
		return "boxing: " + e.Msg
	}
	return fmt.Sprintf("boxing: column %d: %s", e.Column, e.Msg)
}

// checkRows checks that rows [lo, hi) are a non-empty range of rows of every column of b.
func checkRows(b *nativeproto.Block, lo, hi int) error {
	if lo < 0 || lo >= hi || hi > b.Rows() {
		return &Error{Column: -1, Msg: fmt.Sprintf("rows [%d, %d) of a block of %d", lo, hi, b.Rows())}
	}
	for i := range b.NumColumns() {
		if n := b.Column(i).Rows(); n < hi {
			return &Error{Column: i, Msg: fmt.Sprintf("%d rows, the block %d", n, b.Rows())}
		}
	}
	return nil
}

// checkWindow checks that w, column i's window, holds rows [lo, hi): a fixed-size window's
// values are pointer-free of w.Size bytes each (the slab the unsafe build copies them into is not
// scanned by the garbage collector) and its memory covers the rows; a String window has an end
// offset per row, never decreasing, within its text.
func checkWindow(w *columns.Window, i, lo, hi int) error {
	switch w.Kind {
	case columns.WindowFixed:
		t := reflect.TypeOf(w.Zero)
		if t == nil || w.Size == 0 || t.Size() != w.Size || !pointerFree(t) {
			return &Error{Column: i, Msg: fmt.Sprintf("fixed window of %d-byte values of type %v", w.Size, t)}
		}
		if uintptr(len(w.Mem))/w.Size < uintptr(hi) {
			return &Error{Column: i, Msg: fmt.Sprintf("%d bytes of values for %d rows of %d bytes", len(w.Mem), hi, w.Size)}
		}
	case columns.WindowString:
		if len(w.Ends) < hi {
			return &Error{Column: i, Msg: fmt.Sprintf("%d string ends for %d rows", len(w.Ends), hi)}
		}
		prev := 0
		if lo > 0 {
			prev = w.Ends[lo-1]
		}
		if prev < 0 {
			return &Error{Column: i, Msg: fmt.Sprintf("string end %d", prev)}
		}
		for j, e := range w.Ends[lo:hi] {
			if e < prev {
				return &Error{Column: i, Msg: fmt.Sprintf("row %d's string ends at %d, before its start %d", lo+j, e, prev)}
			}
			prev = e
		}
		if prev > len(w.Text) {
			return &Error{Column: i, Msg: fmt.Sprintf("strings end at %d, past their %d bytes of text", prev, len(w.Text))}
		}
	}
	return nil
}

// pointerFree reports whether values of t hold no pointers: numbers, and arrays and structs of
// them.
func pointerFree(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	case reflect.Array:
		return pointerFree(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !pointerFree(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}

// rowError reports a row outside the window [lo, hi), or n values asked of a window of ncols
// columns.
func rowError(row, lo, hi, n, ncols int) error {
	if row < lo || row >= hi {
		return &Error{Column: -1, Msg: fmt.Sprintf("row %d outside the boxed window [%d, %d)", row, lo, hi)}
	}
	return &Error{Column: -1, Msg: fmt.Sprintf("%d values asked of a window of %d columns", n, ncols)}
}
