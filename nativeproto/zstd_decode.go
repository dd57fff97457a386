package nativeproto

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/klauspost/compress/huff0"
)

// zstdDecoder decodes the zstd frames of ClickHouse's ZSTD codec (RFC 8878): one frame per
// compressed block, its content size known from the block's header, no dictionary, no
// checksum. Literals are Huffman-decoded by klauspost/compress's huff0; the sequences are
// decoded and executed here (zstdDecoder.sequences), which is where the integer columns'
// frames spend their time: one sequence per value, a 1-byte literal and a 7-byte match of
// offset 8 whose states read no bits, written as one word kept in a register instead of a
// copy that reads the bytes the sequence before it has just stored.
//
// A frame that uses anything else the format has (a dictionary, a content checksum, a second
// frame, a skippable frame) gets errZSTDFallback, and zstdFrames gives it to klauspost's
// decoder. A zstdDecoder is reused across frames and is not safe for concurrent use.
//
// BenchmarkZSTDFrames on ClickHouse 26.7's frames (MB/s of output, one run on the two-core
// host of issue 18; -tags purego is the safe twin of zstd_mem_unsafe.go):
//
//	frames                    klauspost DecodeAll   zstdDecoder   (purego)
//	numbers (UInt64 0..65535)                 860          1680       1390
//	usf (UInt64, String, Float64)            1035           880        715
//	text (String, several blocks a frame)    1645          1025
//
// On text and floats klauspost's assembly is the faster; zstdFrames chooses between the two.
type zstdDecoder struct {
	huf    *huff0.Scratch
	hufDec *huff0.Decoder // the last compressed literals' table, which treeless ones reuse
	lits   []byte         // Huffman-decoded or RLE literals, zstdMaxBlock plus slack

	llT, offT, mlT    *zstdSeqTable // the block's tables (owned below or predefined)
	ll, off, ml       zstdSeqTable
	norm              [zstdMaxMLCode + 1]int16
	rep               [3]uint32
	haveTables        bool // whether a table of each kind exists for Repeat mode
	frameHasHuffTable bool

	// seqs and intSeqs count the last frame's sequences and those decoded as runs of the
	// integer shape, bits and all (zstdFrames decides by them).
	seqs, intSeqs int
}

const zstdMaxBlock = 128 << 10

// errZSTDFallback says that a frame uses a part of the format zstdDecoder leaves to
// klauspost's decoder; nothing about the frame is known to be wrong.
var errZSTDFallback = errors.New("zstd frame needs the general decoder")

// ZSTDError is a zstd frame that does not decode: what is wrong and the byte of the frame
// where it was found.
type ZSTDError struct {
	Reason string
	At     int
}

func (e *ZSTDError) Error() string { return fmt.Sprintf("zstd: %s (at byte %d)", e.Reason, e.At) }

func zstdCorrupt(at int, format string, args ...any) error {
	return &ZSTDError{Reason: fmt.Sprintf(format, args...), At: at}
}

// decode decompresses the single zstd frame src into dst, which must be exactly the frame's
// content. It writes only within dst; dst's spare capacity, if any, is not touched.
func (d *zstdDecoder) decode(dst, src []byte) error {
	if len(src) < 6 || binary.LittleEndian.Uint32(src) != 0xFD2FB528 {
		return errZSTDFallback
	}
	fhd := src[4]
	if fhd&0x08 != 0 {
		return zstdCorrupt(4, "reserved bit of the frame header descriptor set")
	}
	if fhd&0x04 != 0 || fhd&0x03 != 0 {
		return errZSTDFallback // content checksum or dictionary
	}
	p := 5
	single := fhd&0x20 != 0
	if !single {
		// dst is the whole frame, so matches need no window of their own; the descriptor is
		// still held to the limit klauspost's decoder has in decodeFrame.
		wd := src[p]
		base := uint64(1) << (10 + wd>>3)
		if w := base + base/8*uint64(wd&7); w > MaxFrameUncompressed {
			return zstdCorrupt(p, "window of %d bytes is above %d", w, MaxFrameUncompressed)
		}
		p++
	}
	fcsLen := [4]int{0, 2, 4, 8}[fhd>>6]
	if fcsLen == 0 && single {
		fcsLen = 1
	}
	if p+fcsLen > len(src) {
		return zstdCorrupt(p, "frame header truncated")
	}
	if fcsLen > 0 {
		var fcs uint64
		for i := fcsLen - 1; i >= 0; i-- {
			fcs = fcs<<8 | uint64(src[p+i])
		}
		if fcsLen == 2 {
			fcs += 256
		}
		if fcs != uint64(len(dst)) {
			return zstdCorrupt(p, "frame content size %d, expected %d", fcs, len(dst))
		}
		p += fcsLen
	}
	d.rep = [3]uint32{1, 4, 8}
	d.haveTables = false
	d.frameHasHuffTable = false
	d.seqs, d.intSeqs = 0, 0
	op := 0
	for {
		if p+3 > len(src) {
			return zstdCorrupt(p, "block header truncated")
		}
		bh := uint32(src[p]) | uint32(src[p+1])<<8 | uint32(src[p+2])<<16
		at := p
		p += 3
		size := int(bh >> 3)
		if size > zstdMaxBlock {
			return zstdCorrupt(at, "block of %d bytes is above %d", size, zstdMaxBlock)
		}
		switch bh >> 1 & 3 {
		case 0: // raw
			if size > len(src)-p || size > len(dst)-op {
				return zstdCorrupt(at, "raw block of %d bytes past the frame or its content", size)
			}
			copy(dst[op:op+size], src[p:p+size])
			p += size
			op += size
		case 1: // RLE
			if p >= len(src) || size > len(dst)-op {
				return zstdCorrupt(at, "RLE block of %d bytes past the frame or its content", size)
			}
			b := src[p]
			for i := range dst[op : op+size] {
				dst[op+i] = b
			}
			p++
			op += size
		case 2:
			if size > len(src)-p {
				return zstdCorrupt(at, "compressed block of %d bytes past the frame", size)
			}
			n, err := d.block(dst, op, src[p:p+size])
			if err != nil {
				var ze *ZSTDError
				if errors.As(err, &ze) {
					ze.At += p
				}
				return err
			}
			op = n
			p += size
		default:
			return zstdCorrupt(at, "reserved block type")
		}
		if bh&1 != 0 {
			break
		}
	}
	if op != len(dst) {
		return zstdCorrupt(p, "frame decoded to %d bytes, expected %d", op, len(dst))
	}
	if p != len(src) {
		return errZSTDFallback // another frame follows
	}
	return nil
}

// block decodes one compressed block b into dst from op on and returns the new end of output.
func (d *zstdDecoder) block(dst []byte, op int, b []byte) (int, error) {
	lits, p, err := d.literals(b)
	if err != nil {
		return 0, err
	}
	if p >= len(b) {
		return 0, zstdCorrupt(p, "sequences section missing")
	}
	nbSeq := int(b[p])
	switch {
	case nbSeq == 0:
		if p+1 != len(b) {
			return 0, zstdCorrupt(p, "%d bytes after a block of no sequences", len(b)-p-1)
		}
		if len(lits) > len(dst)-op {
			return 0, zstdCorrupt(p, "%d literals past the frame's content", len(lits))
		}
		return op + copy(dst[op:], lits), nil
	case nbSeq < 128:
		p++
	case nbSeq < 255:
		if p+2 > len(b) {
			return 0, zstdCorrupt(p, "sequence count truncated")
		}
		nbSeq = (nbSeq-128)<<8 + int(b[p+1])
		p += 2
	default:
		if p+3 > len(b) {
			return 0, zstdCorrupt(p, "sequence count truncated")
		}
		nbSeq = int(b[p+1]) + int(b[p+2])<<8 + 0x7f00
		p += 3
	}
	if p >= len(b) {
		return 0, zstdCorrupt(p, "symbol compression modes missing")
	}
	modes := b[p]
	if modes&3 != 0 {
		return 0, zstdCorrupt(p, "reserved bits of the symbol compression modes set")
	}
	p++
	for i, t := range [3]struct {
		cur  **zstdSeqTable
		own  *zstdSeqTable
		pre  *zstdSeqTable
		kind *zstdSeqKind
	}{
		{&d.llT, &d.ll, &zstdPredefLL, &zstdLLKind},
		{&d.offT, &d.off, &zstdPredefOff, &zstdOffKind},
		{&d.mlT, &d.ml, &zstdPredefML, &zstdMLKind},
	} {
		switch modes >> (6 - 2*i) & 3 {
		case 0:
			*t.cur = t.pre
		case 1:
			if p >= len(b) {
				return 0, zstdCorrupt(p, "RLE symbol of %s missing", t.kind.name)
			}
			if err := t.own.rle(b[p], t.kind); err != nil {
				return 0, zstdCorrupt(p, "%v", err)
			}
			*t.cur = t.own
			p++
		case 2:
			norm, log, n, err := zstdReadCounts(b[p:], d.norm[:], t.kind)
			if err != nil {
				return 0, zstdCorrupt(p, "%v", err)
			}
			if err := t.own.build(norm, log, t.kind); err != nil {
				return 0, zstdCorrupt(p, "%v", err)
			}
			*t.cur = t.own
			p += n
		case 3:
			if !d.haveTables {
				return 0, zstdCorrupt(p, "repeated table of %s without one before it", t.kind.name)
			}
		}
	}
	d.haveTables = true
	if p >= len(b) {
		return 0, zstdCorrupt(p, "sequences bitstream missing")
	}
	n, err := d.sequences(dst, op, lits, nbSeq, b[p:])
	if err != nil {
		var ze *ZSTDError
		if errors.As(err, &ze) {
			ze.At += p
		}
	}
	return n, err
}

// literals decodes the literals section at the front of b and returns the literals (in d.lits,
// or in b itself when they are raw: the caller's memory either way, valid until the next
// block) and the section's length.
func (d *zstdDecoder) literals(b []byte) ([]byte, int, error) {
	if len(b) == 0 {
		return nil, 0, zstdCorrupt(0, "literals section missing")
	}
	typ, sf := b[0]&3, b[0]>>2&3
	if typ < 2 { // raw or RLE
		var size, h int
		switch sf {
		case 0, 2:
			size, h = int(b[0]>>3), 1
		case 1:
			if len(b) < 2 {
				return nil, 0, zstdCorrupt(0, "literals header truncated")
			}
			size, h = int(b[0]>>4)|int(b[1])<<4, 2
		case 3:
			if len(b) < 3 {
				return nil, 0, zstdCorrupt(0, "literals header truncated")
			}
			size, h = int(b[0]>>4)|int(b[1])<<4|int(b[2])<<12, 3
		}
		if size > zstdMaxBlock {
			return nil, 0, zstdCorrupt(0, "%d literals are above %d", size, zstdMaxBlock)
		}
		if typ == 0 {
			if size > len(b)-h {
				return nil, 0, zstdCorrupt(0, "%d raw literals past the block", size)
			}
			// Capped at the block's end: the sequence loop's word loads past the literals
			// stay within the frame, whatever memory lies after it.
			return b[h : h+size : len(b)], h + size, nil
		}
		if h >= len(b) {
			return nil, 0, zstdCorrupt(0, "RLE literal missing")
		}
		lits := d.litBuf()[:size]
		for i := range lits {
			lits[i] = b[h]
		}
		return lits, h + 1, nil
	}
	h, width, streams := 3, 10, 4
	switch sf {
	case 0:
		streams = 1
	case 2:
		h, width = 4, 14
	case 3:
		h, width = 5, 18
	}
	if len(b) < h {
		return nil, 0, zstdCorrupt(0, "literals header truncated")
	}
	var v uint64
	for i := h - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	mask := uint64(1)<<width - 1
	regen, comp := int(v>>4&mask), int(v>>(4+width)&mask)
	if regen > zstdMaxBlock {
		return nil, 0, zstdCorrupt(0, "%d literals are above %d", regen, zstdMaxBlock)
	}
	if comp > len(b)-h {
		return nil, 0, zstdCorrupt(0, "compressed literals of %d bytes past the block", comp)
	}
	data := b[h : h+comp]
	if typ == 2 {
		s, rest, err := huff0.ReadTable(data, d.huf)
		if err != nil {
			return nil, 0, zstdCorrupt(h, "Huffman table: %v", err)
		}
		d.huf = s
		d.hufDec = s.Decoder()
		d.frameHasHuffTable = true
		data = rest
	} else if !d.frameHasHuffTable {
		return nil, 0, zstdCorrupt(0, "treeless literals without a Huffman table before them")
	}
	buf := d.litBuf()
	var out []byte
	var err error
	if streams == 1 {
		out, err = d.hufDec.Decompress1X(buf[:0:regen], data)
	} else {
		out, err = d.hufDec.Decompress4X(buf[:0:regen], data)
	}
	if err != nil {
		return nil, 0, zstdCorrupt(h, "Huffman-coded literals: %v", err)
	}
	if len(out) != regen || regen > 0 && &out[0] != &buf[0] {
		return nil, 0, zstdCorrupt(h, "Huffman-coded literals decoded to %d bytes, expected %d", len(out), regen)
	}
	return buf[:regen], h + comp, nil
}

// zstdLitSlack is the spare capacity past the literals that lets the sequence loop load them
// a word at a time.
const zstdLitSlack = 32

func (d *zstdDecoder) litBuf() []byte {
	if d.lits == nil {
		d.lits = make([]byte, zstdMaxBlock+zstdLitSlack)
	}
	return d.lits
}
