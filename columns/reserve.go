package columns

import "slices"

// An insert that fills blocks of a known size (the Inserter's) makes its columns that big once it
// has seen a few rows: grown by append instead, a 13 MB column leaves about four times its
// size of outgrown arrays to the garbage collector while it fills.

// reserver is a column that makes room for a number of values.
type reserver interface{ reserve(rows int) }

// Reserve makes room in c for rows values in all (String: of the average length of those it
// holds), so that appending up to that many reallocates nothing. Column types without it, and
// a c holding as many already, are left as they are.
func Reserve(c Column, rows int) {
	if r, ok := c.(reserver); ok && rows > c.Rows() {
		r.reserve(rows)
	}
}

func (c *Fixed[T]) reserve(rows int) { c.data = slices.Grow(c.data, max(rows-len(c.data), 0)) }

func (c *String) reserve(rows int) {
	if n := len(c.ends); n > 0 {
		c.buf = slices.Grow(c.buf, len(c.buf)/n*(rows-n))
	}
	c.ends = slices.Grow(c.ends, max(rows-len(c.ends), 0))
}

func (c *LowCardinality) reserve(rows int) { c.idx = slices.Grow(c.idx, max(rows-len(c.idx), 0)) }
