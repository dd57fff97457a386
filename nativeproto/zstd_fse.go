package nativeproto

import (
	"fmt"
	"math/bits"
)

// zstdSeqTable is one of a block's three sequence decoding tables (literal lengths, offsets,
// match lengths), 1<<log states (RFC 8878 section 4.1). A state is one word, so that the
// sequence loop loads it once and takes it apart in registers (zstdEntry):
//
//	bits  0-31  the value its symbol stands for: a literal length's or match length's
//	            baseline, or an offset code's 1<<code
//	bits 32-39  the count of extra bits read after it
//	bits 40-47  the count of bits that pick the next state
//	bits 48-63  where the next state starts
//
// A state with bits 32-47 zero reads nothing from the bitstream (zstdNoBits).
type zstdSeqTable struct {
	e   [1 << zstdMaxSeqLog]uint64
	log uint8
}

// zstdNoBits masks a state's two bit counts.
const zstdNoBits = 0xffff << 32

func zstdEntry(base uint32, extra, nbBits uint8, next uint16) uint64 {
	return uint64(base) | uint64(extra)<<32 | uint64(nbBits)<<40 | uint64(next)<<48
}

const (
	zstdMaxSeqLog = 9 // literal and match lengths' largest accuracy log; offsets' is 8

	zstdMaxLLCode  = 35
	zstdMaxMLCode  = 52
	zstdMaxOffCode = 31
)

// zstdSeqKind is what a sequence table's symbols code: its largest symbol and accuracy log,
// and each symbol's baseline and extra bits.
type zstdSeqKind struct {
	name   string
	maxSym int
	maxLog uint
	base   []uint32
	extra  []uint8
}

var (
	zstdLLKind  = zstdSeqKind{"literal lengths", zstdMaxLLCode, 9, nil, nil}
	zstdOffKind = zstdSeqKind{"offsets", zstdMaxOffCode, 8, nil, nil}
	zstdMLKind  = zstdSeqKind{"match lengths", zstdMaxMLCode, 9, nil, nil}

	// The predefined tables (RFC 8878 section 3.1.1.3.2.2), built once.
	zstdPredefLL, zstdPredefOff, zstdPredefML zstdSeqTable
)

func init() {
	// Literal length codes 0-15 are the length itself; from 16 on, a baseline and extra bits.
	llExtra := []uint8{1, 1, 1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	zstdLLKind.base, zstdLLKind.extra = zstdCodeBases(16, 0, llExtra)
	// Match length codes 0-31 are the length minus 3.
	mlExtra := []uint8{1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	zstdMLKind.base, zstdMLKind.extra = zstdCodeBases(32, 3, mlExtra)
	// Offset code N is 1<<N plus N extra bits (the offset value, 3 more than the offset).
	zstdOffKind.base = make([]uint32, zstdMaxOffCode+1)
	zstdOffKind.extra = make([]uint8, zstdMaxOffCode+1)
	for n := range zstdOffKind.base {
		zstdOffKind.base[n], zstdOffKind.extra[n] = 1<<n, uint8(n)
	}

	ll := []int16{4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1,
		2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1, -1, -1, -1, -1}
	off := []int16{1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1}
	ml := []int16{1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1,
		-1, -1, -1, -1, -1}
	for _, p := range []struct {
		t    *zstdSeqTable
		norm []int16
		log  uint
		kind *zstdSeqKind
	}{{&zstdPredefLL, ll, 6, &zstdLLKind}, {&zstdPredefOff, off, 5, &zstdOffKind}, {&zstdPredefML, ml, 6, &zstdMLKind}} {
		if err := p.t.build(p.norm, p.log, p.kind); err != nil {
			panic("nativeproto: predefined zstd table: " + err.Error())
		}
	}
}

// zstdCodeBases returns the baselines and extra bits of a length code table: codes below
// direct stand for code+add, then each code's baseline follows the one before it by
// 1<<(its extra bits).
func zstdCodeBases(direct int, add uint32, extra []uint8) ([]uint32, []uint8) {
	base := make([]uint32, direct+len(extra))
	ex := make([]uint8, direct+len(extra))
	for c := 0; c < direct; c++ {
		base[c] = uint32(c) + add
	}
	next := uint32(direct) + add
	for i, e := range extra {
		base[direct+i], ex[direct+i] = next, e
		next += 1 << e
	}
	return base, ex
}

// rle makes t the one-state table of symbol sym (RLE mode): no bits per state.
func (t *zstdSeqTable) rle(sym byte, k *zstdSeqKind) error {
	if int(sym) > k.maxSym {
		return fmt.Errorf("RLE symbol %d of %s is above %d", sym, k.name, k.maxSym)
	}
	t.log = 0
	t.e[0] = zstdEntry(k.base[sym], k.extra[sym], 0, 0)
	return nil
}

// build makes t the decoding table of the normalized counts norm (accuracy log log), as RFC
// 8878 section 4.1.1 spreads them: symbols of probability "less than 1" (-1) take the last
// states, the rest are spread with the step (size/2 + size/8 + 3).
func (t *zstdSeqTable) build(norm []int16, log uint, k *zstdSeqKind) error {
	if log > k.maxLog || len(norm) > k.maxSym+1 {
		return fmt.Errorf("table of %s: accuracy log %d or %d symbols too large", k.name, log, len(norm))
	}
	size := 1 << log
	total := 0
	for _, c := range norm {
		switch {
		case c == -1:
			total++
		case c >= 0:
			total += int(c)
		default:
			return fmt.Errorf("table of %s: count %d", k.name, c)
		}
	}
	if total != size {
		return fmt.Errorf("table of %s: counts sum to %d, not %d", k.name, total, size)
	}
	high := size - 1
	var next [zstdMaxMLCode + 1]uint16
	var syms [1 << zstdMaxSeqLog]uint8
	for s, c := range norm {
		if c == -1 {
			syms[high] = uint8(s)
			high--
			next[s] = 1
		} else {
			next[s] = uint16(c)
		}
	}
	pos, step, mask := 0, size>>1+size>>3+3, size-1
	for s, c := range norm {
		for i := 0; i < int(c); i++ {
			syms[pos] = uint8(s)
			for pos = (pos + step) & mask; pos > high; pos = (pos + step) & mask {
			}
		}
	}
	if pos != 0 {
		return fmt.Errorf("table of %s: counts do not fill its %d states", k.name, size)
	}
	for u := 0; u < size; u++ {
		s := syms[u]
		ns := next[s]
		next[s]++
		nb := int(log) + 1 - bits.Len16(ns)
		t.e[u] = zstdEntry(k.base[s], k.extra[s], uint8(nb), uint16(int(ns)<<nb-size))
	}
	t.log = uint8(log)
	return nil
}

// zstdReadCounts reads an FSE table description (RFC 8878 section 4.1.1) of at most
// maxSym+1 symbols and accuracy log maxLog from the front of in: the normalized counts (into
// norm, which it returns resliced), the accuracy log, and the bytes it took.
func zstdReadCounts(in []byte, norm []int16, k *zstdSeqKind) ([]int16, uint, int, error) {
	bad := func(what string) ([]int16, uint, int, error) {
		return nil, 0, 0, fmt.Errorf("table description of %s: %s", k.name, what)
	}
	if len(in) == 0 {
		return bad("empty")
	}
	limit := 8 * len(in)
	peek := func(bp int) uint32 { // 32 bits from bit bp on, zeros past the end
		var v uint64
		for i, j := bp>>3, 0; j < 5 && i < len(in); i, j = i+1, j+1 {
			v |= uint64(in[i]) << (8 * j)
		}
		return uint32(v >> (bp & 7))
	}
	log := uint(in[0]&15) + 5
	if log > k.maxLog {
		return bad(fmt.Sprintf("accuracy log %d is above %d", log, k.maxLog))
	}
	bp := 4
	remaining := 1<<log + 1
	threshold := 1 << log
	nb := int(log) + 1
	sym := 0
	prev0 := false
	norm = norm[:0]
	for remaining > 1 && sym <= k.maxSym {
		if prev0 {
			// A zero count is followed by a 2-bit repeat of further zeros (3 means more).
			for peek(bp)&0xffff == 0xffff && bp <= limit {
				sym += 24
				bp += 16
			}
			for peek(bp)&3 == 3 && bp <= limit {
				sym += 3
				bp += 2
			}
			sym += int(peek(bp) & 3)
			bp += 2
			if bp > limit {
				return bad("truncated")
			}
			if sym > k.maxSym {
				return bad(fmt.Sprintf("symbol %d is above %d", sym, k.maxSym))
			}
			for len(norm) < sym {
				norm = append(norm, 0)
			}
		}
		max := 2*threshold - 1 - remaining
		v := int(peek(bp))
		var c int
		if v&(threshold-1) < max {
			c = v & (threshold - 1)
			bp += nb - 1
		} else {
			c = v & (2*threshold - 1)
			if c >= threshold {
				c -= max
			}
			bp += nb
		}
		c-- // -1 is a probability "less than 1", which takes one state
		if c < 0 {
			remaining--
		} else {
			remaining -= c
		}
		if remaining < 1 {
			return bad("counts exceed the table")
		}
		norm = append(norm, int16(c))
		sym++
		prev0 = c == 0
		for remaining < threshold {
			nb--
			threshold >>= 1
		}
	}
	if remaining != 1 || bp > limit {
		return bad("counts do not sum to the table size")
	}
	return norm, log, (bp + 7) >> 3, nil
}
