//go:build !purego && (amd64 || arm64)

package nativeproto

import (
	"math/bits"
	"unsafe"
)

// lz4Fast decodes sequences from st on while each has a literal run under 15 bytes and a match
// under 19, with room for the word-sized over-copies on both sides (32 bytes of input; 40 of
// output: 14 of literals and 24 of match words). It stops, with st at the sequence's token, at
// the first that does not; lz4Decode decodes that one.
//
// Why unsafe: the loop's cost is per sequence (ClickHouse's integer columns are one short
// sequence per value), and the bounds checks of the safe twin (lz4_fast_purego.go, built with
// -tags purego) are a good part of it. The loop condition keeps every load within src and
// every store within dst: input is read at si+1 .. si+33, output written at di .. di+38, and
// matches read at di-off .. di-off+32 with 8 <= off <= di (checked) or through lz4CopyMatch.
// Loads and stores are little-endian (amd64 and arm64 only). BenchmarkLZ4Frames measures both
// twins (go test -bench LZ4Frames, then with -tags purego).
func lz4Fast(src, dst []byte, st *lz4State) error {
	si, di, w, wok := st.si, st.di, st.w, st.wok
	sp := unsafe.Pointer(unsafe.SliceData(src))
	dp := unsafe.Pointer(unsafe.SliceData(dst))
	for si+33 <= len(src) && di+40 <= len(dst) {
		// A run of the integer shape: token 0x13 (1 literal, a 7-byte match), offset 8. Each
		// is the 8 bytes before it with the low byte replaced; see lz4IntRun.
		if p := *(*uint32)(unsafe.Add(sp, si)); p&lz4IntMask == lz4IntSeq && (wok || di >= 8) {
			if !wok {
				w = *(*uint64)(unsafe.Add(dp, di-8))
			}
			for {
				w = w&^0xff | uint64(byte(p>>8))
				*(*uint64)(unsafe.Add(dp, di)) = w
				si += 4
				di += 8
				if si+33 > len(src) || di+40 > len(dst) {
					break
				}
				if p = *(*uint32)(unsafe.Add(sp, si)); p&lz4IntMask != lz4IntSeq {
					break
				}
			}
			wok = true
			continue
		}
		tok := *(*byte)(unsafe.Add(sp, si))
		lit := int(tok >> 4)
		if lit == 15 || tok&15 == 15 {
			break
		}
		s := unsafe.Add(sp, si+1)
		// Literals: 16 bytes copied, lit (< 15) kept.
		*(*[16]byte)(unsafe.Add(dp, di)) = *(*[16]byte)(s)
		off := int(*(*uint16)(unsafe.Add(s, lit)))
		ml := int(tok&15) + 4 // 4..18
		if off == 8 {
			if lit >= 8 {
				w = *(*uint64)(unsafe.Add(s, lit-8))
			} else if wok {
				// The window slides by lit (< 8) bytes; l<<8<<56 is 0 for lit == 0.
				l := *(*uint64)(s)
				w = w>>(uint(8*lit)&63) | l<<8<<(uint(56-8*lit)&63)
			} else if di+lit >= 8 {
				w = *(*uint64)(unsafe.Add(dp, di+lit-8))
			}
		}
		di += lit
		si += lit + 3
		if off == 0 || off > di {
			st.si, st.di = si, di
			return lz4BadOffset(off, di, si-2)
		}
		d := unsafe.Add(dp, di)
		if off == 8 {
			// The match is w repeated; the last 8 bytes after it are w rotated by ml mod 8.
			*(*uint64)(d) = w
			*(*uint64)(unsafe.Add(d, 8)) = w
			*(*uint64)(unsafe.Add(d, 16)) = w
			w = bits.RotateLeft64(w, -8*(ml&7))
			wok = true
			di += ml
			continue
		}
		wok = false
		m := unsafe.Add(dp, di-off)
		switch {
		case off >= 16:
			*(*[16]byte)(d) = *(*[16]byte)(m)
			if ml > 16 {
				*(*[2]byte)(unsafe.Add(d, 16)) = *(*[2]byte)(unsafe.Add(m, 16))
			}
			di += ml
		case off >= 8:
			// Each word is read after the words before it were written: with off >= 8 no
			// word reads a byte this copy has yet to write.
			*(*uint64)(d) = *(*uint64)(m)
			*(*uint64)(unsafe.Add(d, 8)) = *(*uint64)(unsafe.Add(m, 8))
			*(*uint64)(unsafe.Add(d, 16)) = *(*uint64)(unsafe.Add(m, 16))
			di += ml
		default:
			di = lz4CopyMatch(dst, di, off, ml)
		}
	}
	st.si, st.di, st.w, st.wok = si, di, w, wok
	return nil
}
