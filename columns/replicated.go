package columns

import (
	"encoding/binary"
	"math"
)

// Replicated data (SerializationReplicated, written for clients of revision 54482 and above; the
// server's in-memory ColumnReplicated comes out of joins) is:
//
//	UVarInt rows          the block's rows
//	UInt8   width         bytes per index: 1, 2, 4 or 8
//	rows × width          little-endian indexes into the distinct rows
//	UVarInt n             the number of distinct rows
//	the n distinct rows   in the encoding of the stack below REPLICATED
//
// Row i of the column is distinct row index[i]. The column's state prefix, if any, is the nested
// encoding's and comes before all of this.

// maxReplicatedDistinct caps the distinct rows of a replicated column; they are decoded like any
// column's data, growing with the input received.
const maxReplicatedDistinct = math.MaxInt32

// readReplicated decodes rows values of the stack kinds[:m], whose top is REPLICATED, into dst.
func (s *Serialization) readReplicated(r *Reader, m int, dst Column, rows int) error {
	n, err := r.UVarInt()
	if err != nil {
		return decodeErr(dst, "replicated rows: %v", unexpected(err))
	}
	if n != uint64(rows) {
		return decodeErr(dst, "replicated data of %d rows in a block of %d", n, rows)
	}
	width, err := r.Byte()
	if err != nil {
		return decodeErr(dst, "replicated index width: %v", unexpected(err))
	}
	switch width {
	case 1, 2, 4, 8:
	default:
		return decodeErr(dst, "replicated index width %d, want 1, 2, 4 or 8", width)
	}
	l := &s.levels[m]
	// The indexes are read as bytes: their memory grows with the input received.
	if l.raw, err = readFixed(r, l.raw[:0], rows*int(width)); err != nil {
		return decodeErr(dst, "replicated indexes: %v", err)
	}
	distinct, err := r.Count("replicated distinct rows", maxReplicatedDistinct)
	if err != nil {
		return decodeErr(dst, "replicated distinct rows: %v", err)
	}
	if err := r.Charge("replicated gather indexes", uint64(rows)*4); err != nil {
		return decodeErr(dst, "replicated indexes: %v", err)
	}
	l.idx = growLen(l.idx, rows)
	bad := -1 // the first row whose index is out of range
	switch raw := l.raw; width {
	case 1:
		for i := range l.idx {
			if l.idx[i] = uint32(raw[i]); l.idx[i] >= uint32(distinct) && bad < 0 {
				bad = i
			}
		}
	case 2:
		for i := range l.idx {
			if l.idx[i] = uint32(binary.LittleEndian.Uint16(raw[2*i:])); l.idx[i] >= uint32(distinct) && bad < 0 {
				bad = i
			}
		}
	case 4:
		for i := range l.idx {
			if l.idx[i] = binary.LittleEndian.Uint32(raw[4*i:]); l.idx[i] >= uint32(distinct) && bad < 0 {
				bad = i
			}
		}
	default:
		for i := range l.idx {
			k := binary.LittleEndian.Uint64(raw[8*i:])
			if k >= uint64(distinct) && bad < 0 {
				bad = i
			}
			l.idx[i] = uint32(k)
		}
	}
	if bad >= 0 {
		k := uint64(l.idx[bad])
		if width == 8 {
			k = binary.LittleEndian.Uint64(l.raw[8*bad:])
		}
		return decodeErr(dst, "row %d: replicated index %d, but there are %d distinct rows", bad, k, distinct)
	}
	if err := s.readLevel(r, m-1, distinct); err != nil {
		return err
	}
	src := s.levels[m-1].col
	if src.Rows() != distinct {
		return decodeErr(dst, "replicated distinct rows: %d decoded, want %d", src.Rows(), distinct)
	}
	return gather(dst, src, l.idx, r)
}
