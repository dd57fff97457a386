package nativeproto

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// lz4Decode decodes one LZ4 block (the raw block format, no frame) from src into dst, which
// must be exactly the declared uncompressed size: it returns an error unless src decodes to
// exactly len(dst) bytes. It writes only inside dst and reads only inside src; on an error,
// dst holds an unspecified prefix of the output.
//
// It is a candidate, measured against pierrec/lz4 (which the FrameReader uses) and kept in the
// tests so that the measurement stays in the suite (BenchmarkLZ4Frames on ClickHouse 26.7's own
// frames, and BenchmarkLZ4Block's chnative arm): ClickHouse's frames of integer columns compress to many short
// sequences, and this decoder copies short literals and matches in fixed 8-byte words while it
// is at least 32 bytes from either end. On this machine it is slower than pierrec's assembly:
// about 0.94x its speed on system.numbers_mt frames and 0.6x on (UInt64, String, Float64)
// frames, so pierrec stays.
func lz4Decode(src, dst []byte) (int, error) {
	si, di := 0, 0
	for {
		if si >= len(src) {
			// A block ending on a match (the format wants a last literal run; pierrec/lz4
			// accepts its absence, and so does this) is whole if it filled dst.
			if di == len(dst) {
				return di, nil
			}
			return di, lz4Corrupt(fmt.Sprintf("decoded %d bytes, the frame declares %d", di, len(dst)), si)
		}
		tok := src[si]
		si++
		lit := int(tok >> 4)

		// Fast path: a literal run under 15 bytes and a match under 19, with room for the
		// word-sized over-copies on both sides.
		if lit < 15 && tok&15 != 15 && si+32 <= len(src) && di+32 <= len(dst) {
			// One bounds check each for the windows; the constant offsets in them need none.
			s := (*[32]byte)(src[si:])
			d := (*[16]byte)(dst[di:])
			// Literals: 16 bytes copied, lit (< 15) kept.
			binary.LittleEndian.PutUint64(d[0:8], binary.LittleEndian.Uint64(s[0:8]))
			binary.LittleEndian.PutUint64(d[8:16], binary.LittleEndian.Uint64(s[8:16]))
			off := int(s[lit&15]) | int(s[lit&15+1])<<8
			di += lit
			si += lit + 2
			ml := int(tok&15) + 4 // 4..18
			if off == 0 || off > di {
				return di, lz4BadOffset(off, di, si-2)
			}
			if off >= 8 && di+24 <= len(dst) {
				// Each word is read after the words before it were written: with off >= 8
				// no word reads a byte this copy has yet to write.
				mw := (*[24]byte)(dst[di-off:])
				d := (*[24]byte)(dst[di:])
				binary.LittleEndian.PutUint64(d[0:8], binary.LittleEndian.Uint64(mw[0:8]))
				binary.LittleEndian.PutUint64(d[8:16], binary.LittleEndian.Uint64(mw[8:16]))
				binary.LittleEndian.PutUint64(d[16:24], binary.LittleEndian.Uint64(mw[16:24]))
				di += ml
				continue
			}
			if ml > len(dst)-di {
				return di, lz4Corrupt(fmt.Sprintf("a match of %d bytes runs past the output's %d", ml, len(dst)), si)
			}
			di = lz4CopyMatch(dst, di, off, ml)
			continue
		}

		if lit == 15 {
			n, next, err := lz4Length(src, si)
			if err != nil {
				return di, err
			}
			lit += n
			si = next
		}
		if lit > len(src)-si {
			return di, lz4Corrupt(fmt.Sprintf("a literal run of %d bytes runs past the input's end", lit), si)
		}
		if lit > len(dst)-di {
			return di, lz4Corrupt(fmt.Sprintf("a literal run of %d bytes runs past the output's %d", lit, len(dst)), si)
		}
		di += copy(dst[di:di+lit], src[si:si+lit])
		si += lit
		if si == len(src) {
			if di != len(dst) {
				return di, lz4Corrupt(fmt.Sprintf("decoded %d bytes, the frame declares %d", di, len(dst)), si)
			}
			return di, nil
		}
		if si+2 > len(src) {
			return di, lz4Corrupt("a match offset is cut off", si)
		}
		off := int(src[si]) | int(src[si+1])<<8
		si += 2
		if off == 0 || off > di {
			return di, lz4BadOffset(off, di, si-2)
		}
		ml := int(tok&15) + 4
		if ml == 19 {
			n, next, err := lz4Length(src, si)
			if err != nil {
				return di, err
			}
			ml += n
			si = next
		}
		if ml > len(dst)-di {
			return di, lz4Corrupt(fmt.Sprintf("a match of %d bytes runs past the output's %d", ml, len(dst)), si)
		}
		di = lz4CopyMatch(dst, di, off, ml)
	}
}

// lz4CopyMatch copies a match of ml bytes at distance off (1 <= off <= di, di+ml <= len(dst))
// and returns the new output position. An overlapping match (off < ml) repeats its pattern.
func lz4CopyMatch(dst []byte, di, off, ml int) int {
	m := di - off
	if off >= ml {
		return di + copy(dst[di:di+ml], dst[m:m+ml])
	}
	// Overlapping: copy in chunks of off bytes, each doubling what is available.
	end := di + ml
	for di < end {
		n := copy(dst[di:end], dst[m:di])
		di += n
	}
	return end
}

// lz4Length reads the extra bytes of a length nibble of 15: bytes of 255 then one below.
func lz4Length(src []byte, si int) (n, next int, err error) {
	for {
		if si >= len(src) {
			return 0, si, lz4Corrupt("a length runs past the input's end", si)
		}
		v := src[si]
		si++
		n += int(v)
		if v != 255 {
			return n, si, nil
		}
		if n > MaxFrameUncompressed {
			return 0, si, lz4Corrupt(fmt.Sprintf("a length over %d bytes", MaxFrameUncompressed), si)
		}
	}
}

// errLZ4Corrupt is what every LZ4 decoding error wraps (errors.Is).
var errLZ4Corrupt = errors.New("corrupt LZ4 block")

func lz4Corrupt(reason string, at int) error {
	return fmt.Errorf("%w: %s (input byte %d)", errLZ4Corrupt, reason, at)
}

func lz4BadOffset(off, di, at int) error {
	return fmt.Errorf("%w: match offset %d with %d bytes decoded (input byte %d)", errLZ4Corrupt, off, di, at)
}
