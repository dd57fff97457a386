package boxing

import (
	"database/sql"

	"github.com/chnative/chnative/columns"
)

// Scan stores row of col, column i of the current block, into dest when dest is one of the text
// destinations TextWindows serves: *string from a String or a LowCardinality of String (not
// NULL), and *sql.RawBytes from a String (borrowed from the column, as database/sql allows). It
// reports false, with dest untouched, otherwise.
func (tw *TextWindows) Scan(i int, col columns.Column, row int, dest any) bool {
	switch c := col.(type) {
	case *columns.String:
		switch d := dest.(type) {
		case *string:
			// Immutable: the text is copied a window at a time into a buffer never reused.
			*d = tw.str(i, c, row)
			return true
		case *sql.RawBytes:
			*d = c.Bytes(row)
			return true
		}
	case *columns.LowCardinality:
		if d, ok := dest.(*string); ok && !c.IsNull(row) {
			if dict, isString := c.Dictionary().(*columns.String); isString {
				*d = tw.dictStr(i, dict, int(c.Indexes()[row]))
				return true
			}
		}
	}
	return false
}
