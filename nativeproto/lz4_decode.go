package nativeproto

import (
	"errors"
	"fmt"
)

// lz4Decode decodes one LZ4 block (the raw block format, no frame) from src into dst, which
// must be exactly the declared uncompressed size: it returns an error wrapping errLZ4Corrupt
// unless src decodes to exactly len(dst) bytes. It writes only inside dst and reads only inside
// src; on an error, dst holds an unspecified prefix of the output. The FrameReader decodes
// every LZ4 frame with it.
//
// # Why not pierrec/lz4's assembly
//
// ClickHouse compresses an integer column whose neighbouring values differ only in their low
// bytes (counters, ids, timestamps: the seed workload's system.numbers_mt) into one short
// sequence per value: a literal of one byte and a 7-byte match at offset 8. A decoder that
// copies the match through memory reads, 8 bytes back, what the previous sequence has just
// stored, in pieces written by two different stores: the processor cannot forward them and
// stalls on every sequence, and the chain of sequences runs at the stall's latency. pierrec's
// assembly does this, and is several times slower per value there.
//
// lz4Decode keeps the last 8 bytes of output in a register (w) for as long as the matches are at
// offset 8: a match at offset 8 is those 8 bytes repeated, stored without reading dst back, and
// the new last 8 bytes are w rotated, so the chain is a few register operations a sequence.
// Other sequences are copied in 8- and 16-byte words while the block is at least 32 bytes from
// either end (lz4Fast, in lz4_fast_unsafe.go with a bounds-checked twin in lz4_fast_purego.go),
// and byte-exactly near the ends (here).
//
// BenchmarkLZ4Frames and BenchmarkLZ4Block measure it beside pierrec/lz4 (and with -tags purego
// its safe twin), on 26.7's frames and the insert benchmarks' block; BENCHMARKS.md has the
// figures and the reads they speed up.
func lz4Decode(src, dst []byte) (int, error) {
	var st lz4State
	for {
		// Sequences of the common shapes, while far enough from both ends (lz4Fast);
		// then the sequence it declined, or the end of the block, here.
		if err := lz4Fast(src, dst, &st); err != nil {
			return st.di, err
		}
		st.wok = false
		si, di := st.si, st.di
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
		st.si, st.di = si, lz4CopyMatch(dst, di, off, ml)
	}
}

// lz4IntRun: the sequences of an integer column. ClickHouse's LZ4 encodes a column of
// integers that differ only in their low byte (counters, ids, timestamps: 99% of the sequences
// of 26.7's numbers frames) as one sequence per value: token 0x13 (1 literal, a match of 7), the
// literal, offset 8. The value it decodes to is the 8 bytes before it with the low byte
// replaced by the literal, so lz4Fast decodes a run of them as one word store each, keeping the
// last word in a register (the w of lz4State): no match copy, and no input position that
// depends on a loaded token. lz4IntMask and lz4IntSeq match the 4 bytes of such a sequence
// (token, literal, offset) read as a little-endian uint32.
const (
	lz4IntMask = 0xffff00ff
	lz4IntSeq  = 0x00080013
)

// lz4State is where lz4Decode is in a block: the next input and output bytes, and the
// register copy of the last 8 output bytes (w, valid when wok) that lz4Fast keeps.
type lz4State struct {
	si, di int
	w      uint64
	wok    bool
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
