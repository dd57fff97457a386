//go:build purego || !(amd64 || arm64)

package nativeproto

import (
	"encoding/binary"
	"math/bits"
)

// lz4Fast decodes sequences from st on while each has a literal run under 15 bytes and a match
// under 19, with room for the word-sized over-copies on both sides (32 bytes of input; 40 of
// output: 14 of literals and 24 of match words). It stops, with st at the sequence's token, at
// the first that does not; lz4Decode decodes that one. This is the bounds-checked twin of
// lz4_fast_unsafe.go (the purego build, and platforms other than amd64 and arm64).
func lz4Fast(src, dst []byte, st *lz4State) error {
	si, di, w, wok := st.si, st.di, st.w, st.wok
	for si+33 <= len(src) && di+40 <= len(dst) {
		// A run of the integer shape (lz4IntRun).
		if p := binary.LittleEndian.Uint32(src[si:]); p&lz4IntMask == lz4IntSeq && (wok || di >= 8) {
			if !wok {
				w = binary.LittleEndian.Uint64(dst[di-8:])
			}
			for {
				w = w&^0xff | uint64(byte(p>>8))
				binary.LittleEndian.PutUint64(dst[di:], w)
				si += 4
				di += 8
				if si+33 > len(src) || di+40 > len(dst) {
					break
				}
				if p = binary.LittleEndian.Uint32(src[si:]); p&lz4IntMask != lz4IntSeq {
					break
				}
			}
			wok = true
			continue
		}
		tok := src[si]
		lit := int(tok >> 4)
		if lit == 15 || tok&15 == 15 {
			break
		}
		si++
		s := (*[32]byte)(src[si:])
		// Literals: 16 bytes copied, lit (< 15) kept.
		*(*[16]byte)(dst[di:]) = *(*[16]byte)(s[0:16])
		off := int(s[lit&15]) | int(s[lit&15+1])<<8
		ml := int(tok&15) + 4 // 4..18
		if off == 8 {
			if lit >= 8 {
				w = binary.LittleEndian.Uint64(s[lit-8 : lit])
			} else if wok {
				// The window slides by lit (< 8) bytes; the masks tell the compiler the
				// shifts are under 64, and l<<8<<56 is 0 for lit == 0.
				l := binary.LittleEndian.Uint64(s[0:8])
				w = w>>(uint(8*lit)&63) | l<<8<<(uint(56-8*lit)&63)
			} else if di+lit >= 8 {
				w = binary.LittleEndian.Uint64(dst[di+lit-8 : di+lit])
			}
		}
		di += lit
		si += lit + 2
		if off == 0 || off > di {
			st.si, st.di = si, di
			return lz4BadOffset(off, di, si-2)
		}
		// di+24 <= len(dst): di grew by at most 14 from a position 40 bytes from the end.
		d := (*[24]byte)(dst[di:])
		if off == 8 {
			// The match is w repeated; the last 8 bytes after it are w rotated by ml mod 8.
			binary.LittleEndian.PutUint64(d[0:8], w)
			binary.LittleEndian.PutUint64(d[8:16], w)
			binary.LittleEndian.PutUint64(d[16:24], w)
			w = bits.RotateLeft64(w, -8*(ml&7))
			wok = true
			di += ml
			continue
		}
		wok = false
		switch {
		case off >= 16:
			m := (*[32]byte)(dst[di-off:])
			*(*[16]byte)(d[0:16]) = *(*[16]byte)(m[0:16])
			if ml > 16 {
				*(*[2]byte)(d[16:18]) = *(*[2]byte)(m[16:18])
			}
			di += ml
		case off >= 8:
			// Each word is read after the words before it were written: with off >= 8 no
			// word reads a byte this copy has yet to write.
			mw := (*[24]byte)(dst[di-off:])
			binary.LittleEndian.PutUint64(d[0:8], binary.LittleEndian.Uint64(mw[0:8]))
			binary.LittleEndian.PutUint64(d[8:16], binary.LittleEndian.Uint64(mw[8:16]))
			binary.LittleEndian.PutUint64(d[16:24], binary.LittleEndian.Uint64(mw[16:24]))
			di += ml
		default:
			di = lz4CopyMatch(dst, di, off, ml)
		}
	}
	st.si, st.di, st.w, st.wok = si, di, w, wok
	return nil
}
