package boxing

import (
	"strings"

	"github.com/chnative/chnative/columns"
)

// Strings without unsafe: each window's text is written into a strings.Builder (a chunk shared
// by several windows) and the strings handed out are substrings of the Builder's String(). The
// Builder only ever appends, so what it has written, and every string made of it, is never
// changed; Grow makes room without clearing the memory first (make would zero it, which cost a
// visible share of the per-row time of boxing).

// TextWindows gives out the strings of String columns for ScanColumn (Go 1.27) without an
// allocation per value: per column, the text of a window of rows is copied once into a fresh
// buffer, and the strings handed out point into it. As with Boxer, the buffer is never written
// again and belongs to the strings: a kept string keeps its chunk (slabChunk bytes shared by
// several windows, or one larger window of its own) alive. The zero TextWindows is ready; it must not be copied once used (it holds a strings.Builder).
type TextWindows struct {
	cols  []textWindow
	chunk strings.Builder // the current text chunk: written windows, then room for more
	grown int             // bytes of the last chunk allocated (see nextChunk)
}

type textWindow struct {
	lo, hi int    // rows [lo, hi) of the column are in text; hi = 0 when there is none
	start  int    // offset of text[0] in the column's arena
	text   string // the window's text
}

// Reset forgets every window: the block was decoded again.
func (tw *TextWindows) Reset() {
	for i := range tw.cols {
		tw.cols[i].hi = 0
	}
}

func (tw *TextWindows) col(i int) *textWindow {
	if i >= len(tw.cols) {
		tw.cols = append(tw.cols, make([]textWindow, i+1-len(tw.cols))...)
	}
	return &tw.cols[i]
}

// dictStr returns entry k of the String dictionary of a LowCardinality column, column i of the
// current block, as an immutable string. The whole dictionary's text is copied once per block (a
// kept string keeps that copy alive).
func (tw *TextWindows) dictStr(i int, dict *columns.String, k int) string {
	w := tw.col(i)
	arena, ends := dict.Data()
	if w.hi == 0 {
		w.lo, w.hi, w.start = 0, len(ends), 0
		w.text = ""
		if len(ends) > 0 {
			w.text = string(arena[:ends[len(ends)-1]])
		}
	}
	s := 0
	if k > 0 {
		s = ends[k-1]
	}
	return w.text[s:ends[k]]
}

// Str returns row of c, column i of the current block, as an immutable string.
func (tw *TextWindows) str(i int, c *columns.String, row int) string {
	w := tw.col(i)
	_, ends := c.Data()
	if row < w.lo || row >= w.hi {
		w.fill(tw, c, row)
	}
	s := 0
	if row > 0 {
		s = ends[row-1]
	}
	return w.text[s-w.start : ends[row]-w.start]
}

func (w *textWindow) fill(tw *TextWindows, c *columns.String, row int) {
	arena, ends := c.Data()
	hi := stringsEnd(ends, row, min(row+Window, len(ends)))
	start := 0
	if row > 0 {
		start = ends[row-1]
	}
	if size, rest := ends[hi-1]-start, tw.rest(); size > rest && rest >= size/8 && size <= slabChunk/2 {
		// Fill the rest of the current chunk rather than leave it unused (see Boxer.fitChunk).
		if e := stringsWithin(ends, row, hi, rest); ends[e-1]-start <= rest {
			hi = e
		}
	}
	w.lo, w.hi, w.start = row, hi, start
	src := arena[start:ends[hi-1]]
	if len(src) == 0 {
		w.text = ""
		return
	}
	// Carved from a shared chunk (one allocation for several windows; never handed out twice).
	if len(src) > tw.rest() {
		if len(src) > slabChunk/2 {
			w.text = string(src)
			return
		}
		tw.chunk = strings.Builder{}
		tw.chunk.Grow(nextChunk(&tw.grown, len(src)))
	}
	off := tw.chunk.Len()
	tw.chunk.Write(src)
	w.text = tw.chunk.String()[off:]
}

// rest returns the room left in the current chunk.
func (tw *TextWindows) rest() int { return tw.chunk.Cap() - tw.chunk.Len() }
