package nativeproto

import (
	"encoding/binary"
	"math/bits"
)

// zstdBits reads a zstd bitstream backwards (RFC 8878 section 4.1): from its last byte, whose
// highest set bit marks where the stream begins, to its first. value holds the 8 bytes
// in[off:off+8] (or, for a stream under 8 bytes, the stream in its top bytes), of which the
// top used bits are read. The sequence loop keeps off, value and used in locals and reads
// with zstdFill and zstdGet.
type zstdBits struct {
	in    []byte
	off   int
	value uint64
	used  uint
	limit uint // bits of value that are the stream's once off is 0
}

func (b *zstdBits) init(in []byte) bool {
	if len(in) == 0 || in[len(in)-1] == 0 {
		return false
	}
	b.in = in
	if len(in) >= 8 {
		b.off = len(in) - 8
		b.value = binary.LittleEndian.Uint64(in[b.off:])
		b.limit = 64
	} else {
		var t [8]byte
		copy(t[8-len(in):], in)
		b.off = 0
		b.value = binary.LittleEndian.Uint64(t[:])
		b.limit = uint(8 * len(in))
	}
	b.used = uint(bits.LeadingZeros8(in[len(in)-1])) + 1
	return true
}

// done reports whether the stream was read exactly to its start.
func (b *zstdBits) done() bool { return b.off == 0 && b.used == b.limit }

// overflowed reports whether more bits were read than the stream has.
func (b *zstdBits) overflowed() bool { return b.off == 0 && b.used > b.limit }

// zstdFill moves the window down over the bytes used, so that at least 57 bits are left
// unless the stream's start is nearer.
func zstdFill(in []byte, off int, value uint64, used uint) (int, uint64, uint) {
	// off+8 <= len(in) from init on: off only goes down, and not below 0.
	if off >= 8 { // used is at most 63 between fills
		off -= int(used >> 3)
		return off, zstdLoad64(in, off), used & 7
	}
	n := min(int(used>>3), off)
	if n == 0 { // also every stream under 8 bytes: off is 0
		return off, value, used
	}
	off -= n
	return off, zstdLoad64(in, off), used - uint(n)<<3
}

// zstdGet returns the next n bits (n <= 57 - the bits since the last fill) and the new count
// of bits used. Past the stream's start it reads zeros, up to 64 bits in all; after that the
// value is garbage, not zeros, but the stream has then overflowed, which the caller finds at
// its end, and every value it used was bounds-checked.
func zstdGet(value uint64, used uint, n uint64) (uint64, uint) {
	return value << (used & 63) >> 1 >> ((63 - n) & 63), used + uint(n)
}

// zstdLowBytes[n] masks a word's n low bytes.
var zstdLowBytes = [16]uint64{0, 0xff, 0xffff, 0xffffff, 0xffffffff, 0xffffffffff, 0xffffffffffff, 0xffffffffffffff, ^uint64(0)}

// sequences decodes nbSeq sequences from the bitstream s and executes them into dst from op on
// with the block's literals lits, then appends the literals left, and returns the new end of
// output.
//
// Two shortcuts carry ClickHouse's integer frames. A sequence whose three states read no bits
// (the common literal length, match length and repeat offset of a skewed table) takes its
// values and next states from the table without touching the bitstream. And a run of the
// integer shape, a literal run and match that fill 8 bytes at offset 8 (1 + 7 for consecutive
// UInt64, 2 + 6 at a carry), is written as one word made from the word before it, kept in a
// register: a byte-wise copy would load the 8 bytes the sequence before it has just stored in
// two parts, which the CPU cannot forward and waits for.
func (d *zstdDecoder) sequences(dst []byte, op int, lits []byte, nbSeq int, s []byte) (int, error) {
	d.seqs += nbSeq
	var br zstdBits
	if !br.init(s) {
		return 0, zstdCorrupt(len(s)-1, "sequences bitstream has no start marker")
	}
	in, off, value, used := br.in, br.off, br.value, br.used
	llT, offT, mlT := &d.llT.e, &d.offT.e, &d.mlT.e
	var x uint64
	x, used = zstdGet(value, used, uint64(d.llT.log))
	llS := uint32(x)
	x, used = zstdGet(value, used, uint64(d.offT.log))
	offS := uint32(x)
	x, used = zstdGet(value, used, uint64(d.mlT.log))
	mlS := uint32(x)
	r0, r1, r2 := d.rep[0], d.rep[1], d.rep[2]
	lp := 0
	lpad := lits[:cap(lits)] // literals may be loaded a word at a time past their end
	var w uint64             // the last 8 bytes written, when wok
	wok := false
	for i := 0; i < nbSeq; i++ {
		oe, me, le := offT[offS&511], mlT[mlS&511], llT[llS&511]
		if r0 == 8 && (wok || op >= 8) {
			// A run of the integer shape: no bits, repeat offset 0 (8), literals and match of
			// 8 bytes; see the doc.
			if !wok {
				w = zstdLoad64(dst, op-8) // 8 <= op <= len(dst)
			}
			from := i
			for (oe|me|le)&zstdNoBits == 0 && uint32(oe) == 1 && uint32(le)+uint32(me) == 8 && uint32(le) != 0 &&
				lp+8 <= len(lpad) && int(uint32(le)) <= len(lits)-lp && op+8 <= len(dst) {
				m := zstdLowBytes[le&15]
				w = w&^m | zstdLoad64(lpad, lp)&m // the loop condition checked both
				zstdStore64(dst, op, w)
				op += 8
				lp += int(uint32(le))
				offS, mlS, llS = uint32(oe>>48), uint32(me>>48), uint32(le>>48)
				wok = true
				if i++; i == nbSeq {
					break
				}
				oe, me, le = offT[offS&511], mlT[mlS&511], llT[llS&511]
			}
			d.intSeqs += i - from
			if i == nbSeq {
				break
			}
		}
		ov, ml, ll := uint32(oe), uint32(me), uint32(le)
		// The three values' extra bits (offset's first), then the three states' bits
		// (literal length's first), each read at once and taken apart.
		ob, mb, lb := oe>>32&0xff, me>>32&0xff, le>>32&0xff
		off, value, used = zstdFill(in, off, value, used)
		if ob+mb+lb <= 56 {
			x, used = zstdGet(value, used, ob+mb+lb)
			ov += uint32(x >> ((mb + lb) & 63)) // shifts masked: no checks for 64 and more
			ml += uint32(x >> (lb & 63) & (1<<(mb&63) - 1))
			ll += uint32(x & (1<<(lb&63) - 1))
		} else { // a long offset
			x, used = zstdGet(value, used, ob)
			ov += uint32(x)
			off, value, used = zstdFill(in, off, value, used)
			x, used = zstdGet(value, used, mb+lb)
			ml += uint32(x >> (lb & 63))
			ll += uint32(x & (1<<(lb&63) - 1))
		}
		if i+1 < nbSeq {
			lsb, msb, osb := le>>40&0xff, me>>40&0xff, oe>>40&0xff
			off, value, used = zstdFill(in, off, value, used)
			x, used = zstdGet(value, used, lsb+msb+osb)
			llS = uint32(le>>48) + uint32(x>>((msb+osb)&63))
			mlS = uint32(me>>48) + uint32(x>>(osb&63)&(1<<(msb&63)-1))
			offS = uint32(oe>>48) + uint32(x&(1<<(osb&63)-1))
		}
		var mo uint32
		if ov > 3 {
			mo = ov - 3
			r0, r1, r2 = mo, r0, r1
		} else {
			idx := ov - 1
			if ll == 0 {
				idx++
			}
			switch idx {
			case 0:
				mo = r0
			case 1:
				mo = r1
				r0, r1 = r1, r0
			case 2:
				mo = r2
				r0, r1, r2 = r2, r0, r1
			default:
				mo = r0 - 1
				r0, r1, r2 = mo, r0, r1
			}
		}
		if uint(ll) > uint(len(lits)-lp) {
			return 0, zstdCorrupt(0, "sequence %d takes %d literals, %d are left", i, ll, len(lits)-lp)
		}
		if uint(ll)+uint(ml) > uint(len(dst)-op) {
			return 0, zstdCorrupt(0, "sequence %d writes past the frame's content", i)
		}
		if mo == 8 && ll+ml == 8 && lp+8 <= len(lpad) && (wok || op >= 8) {
			if !wok {
				w = zstdLoad64(dst, op-8) // 8 <= op
			}
			m := zstdLowBytes[ll&15]
			w = w&^m | zstdLoad64(lpad, lp)&m // checked; op+ll+ml = op+8 <= len(dst) above
			zstdStore64(dst, op, w)
			op += 8
			lp += int(ll)
			wok = true
			continue
		}
		wok = false
		if ll <= 16 && lp+16 <= len(lpad) && op+16 <= len(dst) {
			zstdStore64(dst, op, zstdLoad64(lpad, lp)) // checked: 16 bytes of each
			zstdStore64(dst, op+8, zstdLoad64(lpad, lp+8))
			op += int(ll)
		} else {
			op += copy(dst[op:op+int(ll)], lits[lp:lp+int(ll)])
		}
		lp += int(ll)
		if mo == 0 || uint(mo) > uint(op) {
			return 0, zstdCorrupt(0, "sequence %d: offset %d at output byte %d", i, mo, op)
		}
		if src := op - int(mo); mo >= 8 && ml <= 16 && op+16 <= len(dst) {
			zstdStore64(dst, op, zstdLoad64(dst, src)) // 0 <= src < op, op+16 <= len(dst)
			zstdStore64(dst, op+8, zstdLoad64(dst, src+8))
			op += int(ml)
		} else {
			op = zstdCopyMatch(dst, op, int(mo), int(ml))
		}
	}
	br.off, br.used = off, used
	if !br.done() {
		if br.overflowed() {
			return 0, zstdCorrupt(0, "sequences bitstream ends before its %d sequences", nbSeq)
		}
		return 0, zstdCorrupt(0, "sequences bitstream has bits after its %d sequences", nbSeq)
	}
	if len(lits)-lp > len(dst)-op {
		return 0, zstdCorrupt(0, "%d literals after the sequences past the frame's content", len(lits)-lp)
	}
	op += copy(dst[op:], lits[lp:])
	d.rep = [3]uint32{r0, r1, r2}
	return op, nil
}

// zstdCopyMatch copies a match of ml bytes at offset off (1 <= off <= op) to dst[op:] and
// returns op+ml; the caller has checked that it fits.
func zstdCopyMatch(dst []byte, op, off, ml int) int {
	src := op - off
	if off >= ml {
		return op + copy(dst[op:op+ml], dst[src:src+ml])
	}
	end := op + ml
	for op < end { // overlapping: each copy doubles what is behind op
		op += copy(dst[op:end], dst[src:op])
	}
	return end
}
