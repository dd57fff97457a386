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
	l.idx = sparseIndex(l.idx, l.pos, rows)
	if nc := nullableOf(dst); nc != nil && m == 2 {
		// Values of the nested type (bind made levels[1] of that type): the left-out rows are NULL.
		return nc.gatherNonNull(src, l.idx)
	}
	return gather(dst, src, l.idx)
}

// readSparseOffsets reads the offsets stream of a sparse column of rows rows, appending the
// positions of the non-default rows to pos. The groups must account for exactly rows rows.
func readSparseOffsets(r *Reader, rows int, pos []uint32) ([]uint32, error) {
	total := 0 // rows accounted for so far
	for {
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
