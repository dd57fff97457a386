package nativeproto

import (
	"github.com/chnative/chnative/internal/spare"
	"github.com/chnative/chnative/internal/wire"
)

// Shrinking what a connection keeps between queries. A big block or frame grows the packet
// reader's and writer's buffers; a connection that keeps them at that size holds the memory of
// its largest query for its whole life in a pool. Shrink, called when a query or an insert has
// ended, gives back what is above the sizes every query uses, and keeps those, so ordinary
// queries allocate no buffer.

// keepWriteBuffer is the most a PacketWriter's buffer keeps after Shrink (keepLimit): a query, its
// settings, small blocks and the pieces of a streamed one (WriteDataStream: StreamChunk bytes and
// a run, or an LZ4 frame compressed) fit; larger blocks take a spare buffer (reclaim) or grow one.
const keepWriteBuffer = 512 << 10

// keepFrameBuffer is the most a FrameReader's frame and output buffers keep after Shrink (the
// decompressing reader's own buffer, which every compressed result uses, is kept whole); larger
// ones go to spareFrameScratch.
const keepFrameBuffer = 64 << 10

// Shrink gives back the reader's buffers grown past their usual sizes: the socket buffer
// (grown to aheadRawBuffer for decompress-ahead) back to its default size, the frames
// decompressed ahead and frame buffers above keepFrameBuffer. It waits for a decompress-ahead
// still running. The scratch block of SkipPacket is dropped when its retained memory is above
// keepBlock bytes (Block.Retained). Call it only between packets, with nothing buffered (a
// query has ended); otherwise it shrinks what it can without dropping a byte.
func (p *PacketReader) Shrink(keepBlock int64) {
	if p.skip != nil && p.skip.Retained(keepBlock) > keepBlock {
		p.skip = nil
	}
	p.frames.Shrink()
	p.raw.Shrink(wire.DefaultReaderSize)
	if p.dec.Size() > decBufferSize {
		p.dec.Shrink(decBufferSize)
	}
}

// spareFrameBuffers hold the output buffers of frames decompressed ahead (aheadBufferSize bytes)
// that Shrink gave up, for the next big compressed result of any connection (aheadBuffer), under
// package spare's budget.
var spareFrameBuffers = spare.New[[]byte]()

// aheadBuffer returns an output buffer for a frame decompressed ahead: a spare one, or a new one.
func aheadBuffer() []byte {
	if b, _ := spareFrameBuffers.Get(); len(b) == aheadBufferSize {
		return b
	}
	return make([]byte, aheadBufferSize)
}

// Shrink drops the frames decompressed ahead (after waiting for them; their buffers go to
// spareFrameBuffers) and the frame buffers grown above keepFrameBuffer, when no decompressed
// byte is left unread; the next compressed result large enough to need them takes them again.
func (r *FrameReader) Shrink() {
	if len(r.data) > 0 || r.busy {
		return
	}
	r.dropAhead()
	for _, a := range r.ahead {
		if len(a.out) == aheadBufferSize {
			spareFrameBuffers.Put(a.out, aheadBufferSize)
		}
		a.out = nil
	}
	for _, b := range [...]*[]byte{&r.comp, &r.out} {
		if cap(*b) > keepFrameBuffer {
			spareFrameScratch.Put((*b)[:0], int64(cap(*b)))
			*b = nil
		}
	}
}

// spareFrameScratch hold the frame and output buffers of FrameReaders that Shrink gave up, for
// the next compressed result of any connection (frameScratch), under package spare's budget.
var spareFrameScratch = spare.New[[]byte]() // empty buffers

// frameScratch returns a spare buffer of at least n bytes' capacity and length 0, or nil.
func frameScratch(n int) []byte {
	b, _ := spareFrameScratch.Get()
	if b != nil && cap(b) < n {
		spareFrameScratch.Put(b, int64(cap(b)))
		return nil
	}
	return b
}

// spareWriteBuffers hold the packet writers' buffers grown above keepWriteBuffer that Shrink
// gave up, for the next big block of any connection (reclaim), under package spare's budget.
var spareWriteBuffers = spare.New[[]byte]() // empty buffers

// Shrink gives up the writer's buffers grown above what they keep (keepLimit; to
// spareWriteBuffers), when nothing is pending.
func (p *PacketWriter) Shrink() {
	if len(p.buf.Buf) > 0 || len(p.borrowed) > 0 {
		return
	}
	for i, b := range [...]*[]byte{&p.buf.Buf, &p.body.Buf} {
		if cap(*b) > p.keepLimit(i) {
			spareWriteBuffers.Put((*b)[:0], int64(cap(*b)))
			*b, p.small[i] = p.small[i], nil
		}
	}
	if cap(p.borrowed) > 64 {
		p.borrowed = nil
	}
	if cap(p.bufs) > 64 {
		p.bufs = nil
	}
}

// reclaim gives the writer a buffer Shrink gave up, from spareWriteBuffers, before a block is
// written: a connection sending big blocks one insert after another reuses them. The buffer it
// replaces is kept in small, so that the round trip allocates nothing.
func (p *PacketWriter) reclaim() {
	for i, b := range [...]*[]byte{&p.buf.Buf, &p.body.Buf} {
		if cap(*b) <= p.keepLimit(i) {
			if spare, ok := spareWriteBuffers.Get(); ok {
				old := *b
				*b = append(spare[:0], old...)
				p.small[i] = old[:0]
			}
		}
	}
}

// keepLimit is what Shrink lets the writer's buffer i (0 the packets, 1 a block's uncompressed
// body) keep: keepWriteBuffer; the body, a frame and two runs of rows (about 384 KiB with LZ4);
// with ZSTD, whose frames are FrameChunk, both a frame and two runs (about 1.1 MiB each).
func (p *PacketWriter) keepLimit(i int) int {
	switch {
	case p.comp != nil && p.comp.method == MethodZSTD:
		return FrameChunk + 2*writeRun
	case i == 0:
		return keepWriteBuffer
	default:
		return WriteFrame + 2*writeRun
	}
}
