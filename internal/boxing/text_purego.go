//go:build purego

package boxing

import (
	"github.com/chnative/chnative/columns"
)

// The safe twin of text_unsafe.go: each string is a copy of its own.

// TextWindows gives out the strings of String columns for ScanColumn (Go 1.27), each a fresh
// copy. The zero TextWindows is ready.
type TextWindows struct{}

// Reset forgets every window: the block was decoded again.
func (tw *TextWindows) Reset() {}

// DictStr returns entry k of the String dictionary of a LowCardinality column, column i of the
// current block, as a fresh string.
func (tw *TextWindows) DictStr(i int, dict *columns.String, k int) string { return dict.String(k) }

// Str returns row of c, column i of the current block, as a fresh string.
func (tw *TextWindows) Str(i int, c *columns.String, row int) string { return c.String(row) }
