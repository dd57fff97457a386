package nativeproto

import (
	"encoding/binary"
	"errors"
	"math/bits"
)

// LZ4 block format limits that every encoder must keep (the decoders of ClickHouse and of the
// reference library rely on them to copy in whole words near the end of a block).
const (
	lz4MinMatch = 4
	// lz4MFLimit: the last match starts at least 12 bytes before the end of the block.
	lz4MFLimit = 12
	// lz4LastLiterals: the last 5 bytes of a block are literals.
	lz4LastLiterals = 5
	// lz4MaxOffset is the farthest a match may point back.
	lz4MaxOffset = 65535
	// lz4HashLog sizes the encoder's table: 4096 positions (16 KiB), the reference library's
	// default, which stays in the first-level cache.
	lz4HashLog = 12
	// lz4SkipTrigger: after 2^6 positions without a match the search steps over more bytes at
	// a time (incompressible data costs little).
	lz4SkipTrigger = 6
)

// lz4CompressBound is the largest LZ4 block that n bytes of input can encode to.
func lz4CompressBound(n int) int { return n + n/255 + 16 }

// errLZ4ShortDst is returned when dst is smaller than lz4CompressBound(len(src)).
var errLZ4ShortDst = errors.New("nativeproto: LZ4 output buffer smaller than the bound")

// lz4Encoder compresses LZ4 blocks (the raw block format, no frame), the Compressor's fast LZ4
// (level 0). The zero value is ready; it is not safe for concurrent use.
//
// It is the reference library's fast algorithm (LZ4_compress_fast, acceleration 1: a table of
// the last position of each 5-byte hash, a search that steps faster through input that does not
// match, matches extended backwards and forwards a word at a time) with one addition for
// ClickHouse's columns: before it hashes a position it tries the offset of the last match. A
// column of fixed-width values encodes as one sequence a value, a literal or two (the bytes that
// changed) and a match at the same offset (the width, or a multiple of it) every time, so most
// sequences are found with two compares and no table load; after a match it tries that offset at
// the next position and the one after (no literal, one literal) before it leaves the sequence
// loop. Positions reached that way are not put in the table.
//
// When it must search, a last offset of 8 or less is tried at each position before the table's
// candidate (a longer one after it). Without that, an integer column's low byte wrapping (two
// bytes changed) sent the search to the table, which holds the value 256 rows back (positions
// reached through the last offset are not in it), and its offset of 2048 then stuck for the rest
// of the column: the same size, but ClickHouse's encoder keeps offset 8 there, and lz4Decode
// decodes offset 8 in a register (lz4IntRun) and 2048 through memory, much faster. The tries cost
// encoding a little time, more on a Float64 column that changes two bytes a value at offset 8 and
// one at a farther offset, and keep the ratio within a percent of the table-only search.
//
// The reference algorithm alone was no faster than pierrec/lz4's CompressBlock; the last-offset
// tries are what pays. BenchmarkLZ4Encode measures it beside pierrec/lz4 on 1 MiB chunks of the
// insert benchmarks' block and 26.7's numbers column; BENCHMARKS.md has the figures.
type lz4Encoder struct {
	table [1 << lz4HashLog]uint32
}

func lz4Hash5(v uint64) uint32 {
	const prime5bytes = 889523592379
	return uint32(((v << 24) * prime5bytes) >> (64 - lz4HashLog))
}

// encode compresses src into dst, which must hold lz4CompressBound(len(src)) bytes, and returns
// the block's length. The block keeps the format's end rules (lz4MFLimit, lz4LastLiterals).
func (e *lz4Encoder) encode(src, dst []byte) (int, error) {
	n := len(src)
	if len(dst) < lz4CompressBound(n) {
		return 0, errLZ4ShortDst
	}
	e.table = [1 << lz4HashLog]uint32{}
	op, anchor := 0, 0
	if n < lz4MFLimit+1 {
		return lz4LastRun(dst, op, src[anchor:]), nil
	}
	// Matches start at ip <= mflimit and end at or before matchLimit.
	mflimit := n - lz4MFLimit
	matchLimit := n - lz4LastLiterals

	rep := 8 // the last match's offset; an 8-byte column's to begin with
	e.table[lz4Hash5(binary.LittleEndian.Uint64(src[0:]))] = 0
	ip := 1
	for {
		var match int
		fromRep := true
		if ip >= rep && binary.LittleEndian.Uint32(src[ip:]) == binary.LittleEndian.Uint32(src[ip-rep:]) {
			match = ip - rep
		} else {
			// Search positions ip, ip+step, ...; step grows without matches.
			fromRep = false
			forwardIP := ip
			forwardH := lz4Hash5(binary.LittleEndian.Uint64(src[ip:]))
			step, searches := 1, 1<<lz4SkipTrigger
			for {
				h := forwardH
				ip = forwardIP
				forwardIP += step
				step = searches >> lz4SkipTrigger
				searches++
				if forwardIP > mflimit {
					return lz4LastRun(dst, op, src[anchor:]), nil
				}
				match = int(e.table[h])
				forwardH = lz4Hash5(binary.LittleEndian.Uint64(src[forwardIP:]))
				e.table[h] = uint32(ip)
				cur := binary.LittleEndian.Uint32(src[ip:])
				// The last offset: before the table's candidate when it is a fixed-width
				// column's (8 or less, see the type's comment), after it otherwise.
				if rep <= 8 && ip >= rep && binary.LittleEndian.Uint32(src[ip-rep:]) == cur {
					match = ip - rep
					break
				}
				if ip-match <= lz4MaxOffset && binary.LittleEndian.Uint32(src[match:]) == cur {
					break
				}
				if rep > 8 && ip >= rep && binary.LittleEndian.Uint32(src[ip-rep:]) == cur {
					match = ip - rep
					break
				}
			}
		}
		// Extend backwards over the pending literals.
		for ip > anchor && match > 0 && src[ip-1] == src[match-1] {
			ip--
			match--
		}
		tok := op
		op++
		if l := ip - anchor; l < 15 && op+16 <= len(dst) {
			// Short literals as two whole words: src has at least lz4MFLimit bytes past ip.
			dst[tok] = byte(l << 4)
			binary.LittleEndian.PutUint64(dst[op:], binary.LittleEndian.Uint64(src[anchor:]))
			if l > 8 {
				binary.LittleEndian.PutUint64(dst[op+8:], binary.LittleEndian.Uint64(src[anchor+8:]))
			}
			op += l
		} else {
			op = lz4PutLiterals(dst, tok, op, src[anchor:ip])
		}
		for {
			// The match at ip, from match: offset, then its length beyond the first 4 bytes.
			rep = ip - match
			binary.LittleEndian.PutUint16(dst[op:], uint16(rep))
			op += 2
			ml := lz4MatchLen(src, ip+lz4MinMatch, match+lz4MinMatch, matchLimit)
			ip += lz4MinMatch + ml
			if ml >= 15 {
				dst[tok] |= 15
				ml -= 15
				for ; ml >= 255; ml -= 255 {
					dst[op] = 255
					op++
				}
				dst[op] = byte(ml)
				op++
			} else {
				dst[tok] |= byte(ml)
			}
			anchor = ip
			if ip > mflimit {
				return lz4LastRun(dst, op, src[anchor:]), nil
			}
			if !fromRep {
				e.table[lz4Hash5(binary.LittleEndian.Uint64(src[ip-2:]))] = uint32(ip - 2)
			}
			fromRep = true
			// The same offset at once: a match with no literals.
			if binary.LittleEndian.Uint32(src[ip:]) == binary.LittleEndian.Uint32(src[ip-rep:]) {
				match = ip - rep
				tok = op
				dst[tok] = 0
				op++
				continue
			}
			// One literal, then the same offset: a fixed-width value that differs from the one
			// before in its first byte.
			if ip+1 <= mflimit && binary.LittleEndian.Uint32(src[ip+1:]) == binary.LittleEndian.Uint32(src[ip+1-rep:]) {
				tok = op
				dst[tok] = 1 << 4
				dst[op+1] = src[ip]
				op += 2
				ip++
				match = ip - rep
				continue
			}
			break
		}
		ip++
		if ip > mflimit {
			return lz4LastRun(dst, op, src[anchor:]), nil
		}
	}
}

// lz4PutLiterals writes the literal length of lits into the token at dst[tok] (its high nibble)
// and its extension bytes from op on, then the literals, and returns the next output position.
func lz4PutLiterals(dst []byte, tok, op int, lits []byte) int {
	l := len(lits)
	if l >= 15 {
		dst[tok] = 15 << 4
		l -= 15
		for ; l >= 255; l -= 255 {
			dst[op] = 255
			op++
		}
		dst[op] = byte(l)
		op++
	} else {
		dst[tok] = byte(l << 4)
	}
	return op + copy(dst[op:], lits)
}

// lz4LastRun writes the block's last sequence, literals only, and returns the block's length.
func lz4LastRun(dst []byte, op int, lits []byte) int {
	tok := op
	return lz4PutLiterals(dst, tok, op+1, lits)
}

// lz4MatchLen counts the bytes from p on that equal those from m on, stopping at limit (m < p).
func lz4MatchLen(src []byte, p, m, limit int) int {
	start := p
	for p+8 <= limit {
		x := binary.LittleEndian.Uint64(src[p:]) ^ binary.LittleEndian.Uint64(src[m:])
		if x != 0 {
			return p - start + bits.TrailingZeros64(x)>>3
		}
		p += 8
		m += 8
	}
	for p < limit && src[p] == src[m] {
		p++
		m++
	}
	return p - start
}
