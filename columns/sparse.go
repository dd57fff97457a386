package columns

import "fmt"

// endOfGranule marks the last group of sparse offsets (SerializationSparse's END_OF_GRANULE_FLAG,
// 2^62 because a VarUInt holds less than 2^63).
const endOfGranule = 1 << 62

// Sparse data (SerializationSparse, written for clients of revision 54465 and above, for Nullable
// columns from 54483) is two streams, one after the other in a block:
//
//   - the offsets: for each non-default row, a UVarInt count of the default rows before it (since
//     the previous non-default row); then a last UVarInt, the count of trailing default rows OR
//     endOfGranule. The counts add up to the block's rows.
//   - the values: the non-default rows only, in the encoding of the stack below SPARSE (for a
//     Nullable type directly over DEFAULT, only the nested type's values: they are all non-NULL).
//
// The default is the type's default value (zero, "", empty array, ..., NULL for Nullable). The
// column's state prefix, if any, is the nested encoding's and comes before the offsets.

// readSparse decodes rows values of the stack kinds[:m], whose top is SPARSE, into dst.
func (s *Serialization) readSparse(r *Reader, m int, dst Column, rows int) error {
	if rows > MaxExpandedRows {
		return decodeErr(dst, "sparse data: %v", &LimitError{What: "sparse column rows", Value: uint64(rows), Max: MaxExpandedRows})
	}
	l := &s.levels[m]
	var err error
	l.pos, err = readSparseOffsets(r, rows, l.pos[:0])
	if err != nil {
		return decodeErr(dst, "sparse offsets: %v", err)
	}
	k := len(l.pos)
	if err := s.readLevel(r, m-1, k); err != nil {
		return err
	}
	src := s.levels[m-1].col
	if src.Rows() != k {
		return decodeErr(dst, "sparse values: %d decoded, want %d", src.Rows(), k)
	}
	if nc := nullableOf(dst); nc != nil && m == 2 {
		// Values of the nested type (bind made levels[1] of that type): the left-out rows are NULL.
		return nc.scatterNonNull(src, l.pos, rows, &l.idx, r)
	}
	return scatter(dst, src, l.pos, rows, &l.idx, r)
}

// sparseChargeRows is how many positions readSparseOffsets charges to the block's budget at a
// time, before it holds them.
const sparseChargeRows = 1 << 16

// readSparseOffsets reads the offsets stream of a sparse column of rows rows, appending the
// positions of the non-default rows to pos. The groups must account for exactly rows rows. The
// positions (4 bytes each, from as little as one byte of input) are charged to r's budget a
// chunk at a time as they grow.
func readSparseOffsets(r *Reader, rows int, pos []uint32) ([]uint32, error) {
	total := 0   // rows accounted for so far
	charged := 0 // positions charged to the budget so far (at most rows: one per row)
	for {
		if len(pos) == charged && charged < rows {
			n := min(sparseChargeRows, rows-charged)
			if err := r.Charge("sparse offsets", uint64(n)*4); err != nil {
				return pos, err
			}
			charged += n
		}
		// Fast path: the one-byte groups (fewer than 128 defaults before a value) in the buffered
		// window. The last group, which carries endOfGranule, is never one byte long.
		b := r.Window()
		p := 0
		for p < len(b) && b[p] < 0x80 && len(pos) < charged {
			g := int(b[p])
			p++
			if g >= rows-total {
				r.Consume(p)
				if g > rows-total {
					return pos, fmt.Errorf("%d default rows after row %d pass the block's %d rows", g, total, rows)
				}
				return pos, fmt.Errorf("a value at row %d, past the block's %d rows", rows, rows)
			}
			total += g
			pos = append(pos, uint32(total))
			total++
		}
		r.Consume(p)
		if len(pos) == charged && charged < rows {
			continue // the next chunk's charge first
		}
		g, err := r.UVarInt()
		if err != nil {
			return pos, unexpected(err)
		}
		end := g&endOfGranule != 0
		g &^= endOfGranule
		if g > uint64(rows-total) {
			return pos, fmt.Errorf("%d default rows after row %d pass the block's %d rows", g, total, rows)
		}
		total += int(g)
		if end {
			if total != rows {
				return pos, fmt.Errorf("the offsets cover %d rows, the block has %d", total, rows)
			}
			return pos, nil
		}
		if total == rows {
			return pos, fmt.Errorf("a value at row %d, past the block's %d rows", total, rows)
		}
		pos = append(pos, uint32(total))
		total++
	}
}

// scatterer is implemented by columns that spread sparse values over their rows directly,
// without gather indexes.
type scatterer interface {
	// scatterRows replaces the contents with rows rows: row pos[j] of src at pos[j] (positions
	// increasing, below rows), the default value elsewhere. errNoGather asks for the gather path.
	scatterRows(src Column, pos []uint32, rows int) error
}

// scatter replaces dst's contents with the sparse values src at positions pos of rows rows; idx
// is the buffer of the gather fallback. On error dst is left empty. The rows' memory is charged
// to r's budget first (the gather fallback charges it again: an over-count, never an under-count).
func scatter(dst, src Column, pos []uint32, rows int, idx *[]uint32, r *Reader) error {
	if sc, ok := dst.(scatterer); ok {
		if err := r.Charge("sparse rows", uint64(rows)*rowBytes(dst)); err != nil {
			return decodeErr(dst, "expanding rows: %v", err)
		}
		err := sc.scatterRows(src, pos, rows)
		if err == nil {
			return nil
		}
		dst.Reset()
		if err != errNoGather {
			return decodeErr(dst, "expanding rows: %v", err)
		}
	}
	if err := r.Charge("sparse gather indexes", uint64(rows)*4); err != nil {
		return decodeErr(dst, "expanding rows: %v", err)
	}
	*idx = sparseIndex(*idx, pos, rows)
	return gather(dst, src, *idx, r)
}

// scatterSlice returns dst (reused) of rows zero values with src[j] at pos[j].
func scatterSlice[T any](dst, src []T, pos []uint32, rows int) []T {
	dst = growLen(dst, rows)
	clear(dst)
	for j, p := range pos {
		dst[p] = src[j]
	}
	return dst
}

func (c *Fixed[T]) scatterRows(src Column, pos []uint32, rows int) error {
	s, ok := src.(interface{ Values() []T })
	if !ok {
		return errNoGather
	}
	c.data = scatterSlice(c.data, s.Values(), pos, rows)
	return nil
}

func (c *Wide[T]) scatterRows(src Column, pos []uint32, rows int) error {
	s, ok := src.(interface{ Values() []T })
	if !ok {
		return errNoGather
	}
	c.data = scatterSlice(c.data, s.Values(), pos, rows)
	return nil
}

func (c *UUID) scatterRows(src Column, pos []uint32, rows int) error {
	s, ok := src.(*UUID)
	if !ok {
		return errNoGather
	}
	c.data = scatterSlice(c.data, s.data, pos, rows)
	return nil
}

func (c *IPv6) scatterRows(src Column, pos []uint32, rows int) error {
	s, ok := src.(*IPv6)
	if !ok {
		return errNoGather
	}
	c.data = scatterSlice(c.data, s.data, pos, rows)
	return nil
}

// scatterRows keeps src's bytes as they are (the values stay in row order) and spreads the ends.
func (c *String) scatterRows(src Column, pos []uint32, rows int) error {
	s, ok := src.(*String)
	if !ok {
		return errNoGather
	}
	c.buf = append(c.buf[:0], s.buf...)
	c.ends = growLen(c.ends, rows)
	end, i := 0, 0
	for j, p := range pos {
		for ; i < int(p); i++ {
			c.ends[i] = end
		}
		end = s.ends[j]
		c.ends[i] = end
		i++
	}
	for ; i < rows; i++ {
		c.ends[i] = end
	}
	return nil
}

func (c *FixedString) scatterRows(src Column, pos []uint32, rows int) error {
	s, ok := src.(*FixedString)
	if !ok || s.n != c.n {
		return errNoGather
	}
	if total := uint64(rows) * uint64(c.n); total > MaxExpandedBytes {
		return &LimitError{What: "expanded FixedString bytes", Value: total, Max: MaxExpandedBytes}
	}
	n := c.n
	c.data = growLen(c.data, rows*n)
	clear(c.data)
	for j, p := range pos {
		copy(c.data[int(p)*n:(int(p)+1)*n], s.data[j*n:(j+1)*n])
	}
	return nil
}

func (c *SimpleAggregateFunction) scatterRows(src Column, pos []uint32, rows int) error {
	s, ok := src.(*SimpleAggregateFunction)
	if !ok {
		return errNoGather
	}
	if _, ok := c.inner.(scatterer); !ok {
		return errNoGather
	}
	return c.inner.(scatterer).scatterRows(s.inner, pos, rows)
}

// scatterNonNull fills a Nullable from sparse values of its nested type: NULL at every row but
// pos. idx is the buffer of the gather fallback.
func (c *Nullable) scatterNonNull(src Column, pos []uint32, rows int, idx *[]uint32, r *Reader) error {
	if err := r.Charge("sparse rows", uint64(rows)); err != nil {
		return decodeErr(c, "expanding rows: %v", err)
	}
	if err := scatter(c.inner, src, pos, rows, idx, r); err != nil {
		c.Reset()
		return err
	}
	c.nulls = growLen(c.nulls, rows)
	for i := range c.nulls {
		c.nulls[i] = 1
	}
	for _, p := range pos {
		c.nulls[p] = 0
	}
	return nil
}

// sparseIndex returns the gather indexes of a sparse column: noRow for every row, except j at row
// pos[j]. It reuses idx.
func sparseIndex(idx, pos []uint32, rows int) []uint32 {
	idx = growLen(idx, rows)
	for i := range idx {
		idx[i] = noRow
	}
	for j, p := range pos {
		idx[p] = uint32(j)
	}
	return idx
}

// growLen returns s resized to n elements, reusing its memory when it has the room.
func growLen[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
