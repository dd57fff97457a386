package nativeproto

import (
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

// FrameReader decompresses a stream of compressed frames. It reads the next
// frame from the source only when the current frame is exhausted and more
// bytes are requested, and never consumes past the end of that frame, so the
// caller can go back to reading the raw source right after a block (frames
// decompressed ahead, below, are only looked at in the source's buffer).
//
// A Read returns data from the current frame only and may therefore return
// fewer bytes than requested. Errors other than io.EOF at a frame boundary are
// sticky until Reset. Buffers and the zstd decoder are reused across frames
// and across Reset. A FrameReader is not safe for concurrent use.
//
// LZ4 frames are decoded by chnative's decoder (lz4Decode), ZSTD frames by klauspost/compress's
// (zstdFrames), with its memory bounded by the frame's announced size.
//
// When src is a buffered reader of the connection (internal/wire's Reader), frames are verified
// and decompressed where they lie in its buffer, and the next frames may be decompressed ahead.
//
// # Decompress-ahead
//
// While the decoder works on frame k, a goroutine decompresses frames k+1 and on, so that on a
// machine with a core to spare decompression leaves the decoder's path.
//
// A FrameReader cannot know where the next frame is: a block ends where its decoder says, and the
// bytes after it may be another frame of the block, a Data packet whose block starts with a
// frame, or any other packet. So it guesses, from bytes it already has: when a frame has just been
// taken, it looks in the source's buffered window for a frame header, right there or after a Data
// packet's code and table name, and then after that frame, up to aheadDepth (3) frames. An LZ4 or
// ZSTD frame of at most FrameChunk bytes that is wholly buffered is queued for the goroutine,
// which verifies and decompresses it where it lies into a buffer of its own. A frame that has
// begun to arrive is waited for (its bytes come as fast as the socket allows) if at least 4 KiB of
// its payload are there and well formed (an LZ4 block's sequences, a ZSTD frame header of the
// declared size): the header checks alone would let through about one packet in 10^4, and
// waiting for the rest of a frame that is not one would wait for bytes the server never sends.
//
// The guess is never trusted for correctness: a frame decompressed ahead is used only when the
// reader is later asked for a frame at exactly the stream offset the guess started at, where the
// bytes are the ones the goroutine read, so the result is what inline decompression gives. A wrong
// guess (the reader is asked for something else there) drops every frame ahead and wastes their
// work; a frame the goroutine found corrupt is read again inline, which reports the error the
// usual way.
//
// Ownership: the goroutine reads the frames' slices of the source's window and nothing else of
// the source; the source calls the reader's join (wire.Reader.SetHold) before it moves,
// overwrites or drops buffered bytes; every frame read and Reset joins first. One goroutine runs
// per FrameReader, while frames are queued, and ends when none are: nothing outlives a result.
// When the reader needs a frame the goroutine has not finished, it decompresses the last queued
// frame itself instead of waiting (with a ZSTD decoder of its own), so both cores decompress.
// Output goes to buffers of aheadPrefix+FrameChunk bytes that the decompressing wire.Reader above
// (the PacketReader's) takes whole in exchange for its own (SwapBuffer): the frame is not copied.
//
// It engages when GOMAXPROCS is at least 2 and a frame of at least 64 KiB has been read; the
// source's buffer then grows to 4 MiB, so that whole frames are buffered ahead, and three output
// buffers of 1.06 MiB are added: about 7 MiB per connection while it reads a large compressed
// result, given up when the result ends (Shrink, shrink.go). With GOMAXPROCS 1, or small frames,
// nothing changes.
type FrameReader struct {
	src  io.Reader
	buf  bufferedSource // src, when it is one; nil otherwise
	data []byte         // unread decompressed bytes of the current frame
	comp []byte         // whole current frame: checksum, header, payload
	out  []byte         // decompression buffer (LZ4, ZSTD)
	zd   *zstdFrames    // the inline reads' and the decompress-ahead goroutine's (never at once)
	// stealZD is the ZSTD decoder of frames the reader decompresses ahead itself (steal).
	stealZD *zstdFrames
	err     error
	// limit, when not 0, is the most bytes a frame may announce uncompressed (SetFrameLimit).
	limit uint32
	// direct, during Read, is the caller's buffer: a frame of at most len(direct) bytes is
	// decompressed into it and directN set to its size, instead of into out.
	direct  []byte
	directN int

	// Decompress-ahead (compress_ahead.go): a ring of aheadDepth frames, aheadN of them pending
	// from aheadHead on.
	ahead      []*aheadFrame
	queue      aheadQueue
	aheadHead  int
	aheadN     int
	busy       bool // data is in a frame-ahead buffer: nothing more ahead until it is drained
	noAhead    bool // decompress-ahead off (tests)
	aheadTaken int  // frames used from ahead (tests)
}

// NewFrameReader returns a FrameReader reading frames from src.
func NewFrameReader(src io.Reader) *FrameReader {
	r := &FrameReader{}
	r.setSource(src)
	return r
}

func (r *FrameReader) setSource(src io.Reader) {
	r.src = src
	r.buf, _ = src.(bufferedSource)
	if r.buf != nil {
		r.buf.SetHold(r.join)
	}
}

// Reset discards the current frame and any error and reads from src,
// keeping the allocated buffers.
func (r *FrameReader) Reset(src io.Reader) {
	r.dropAhead()
	r.busy = false
	r.setSource(src)
	r.data = nil
	r.err = nil
}

// SetFrameLimit refuses, from the next frame on, a frame that announces more than n bytes
// uncompressed (or, compressed, more than an incompressible payload of n bytes takes), with a
// *FrameError, before anything is allocated for it: the PacketReader sets its block budget, since
// a server cuts frames within a block, so a frame past the budget holds a block past it. n <= 0,
// or above MaxFrameUncompressed, leaves the package's limits alone.
func (r *FrameReader) SetFrameLimit(n int64) {
	r.limit = 0
	if n > 0 && n < MaxFrameUncompressed {
		r.limit = uint32(n)
	}
}

// checkLimit is checkHeader's test against SetFrameLimit's limit.
func (r *FrameReader) checkLimit(m Method, csize, usize uint32) error {
	if r.limit == 0 {
		return nil
	}
	// An incompressible payload: LZ4's worst case is n + n/255 + 16, ZSTD's less.
	if usize > r.limit || uint64(csize) > uint64(r.limit)+uint64(r.limit)/128+FrameHeaderSize+64 {
		return &FrameError{Reason: fmt.Sprintf("a frame of %d bytes (%d compressed) exceeds the block budget %d (block_memory_limit)", usize, csize, r.limit),
			Method: m, CompressedSize: csize, UncompressedSize: usize}
	}
	return nil
}

// Buffered returns the number of decompressed bytes of the current frame that
// have not been read yet.
func (r *FrameReader) Buffered() int { return len(r.data) }

// Read implements io.Reader. It returns io.EOF only when the source ends
// exactly at a frame boundary; a source ending inside a frame gives a
// *FrameError wrapping io.ErrUnexpectedEOF.
func (r *FrameReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if len(r.data) == 0 {
		// A frame that fits in p whole is decompressed straight into it (large column bodies
		// read with ReadFull), without the copy out of the frame buffer.
		r.direct = p
		err := r.next()
		r.direct = nil
		if r.directN > 0 {
			n := r.directN
			r.directN = 0
			return n, nil
		}
		if err != nil {
			return 0, err
		}
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// ReadByte implements io.ByteReader with the same framing rules as Read.
func (r *FrameReader) ReadByte() (byte, error) {
	if len(r.data) == 0 {
		if err := r.next(); err != nil {
			return 0, err
		}
	}
	b := r.data[0]
	r.data = r.data[1:]
	return b, nil
}

// next reads, verifies and decompresses the next frame into r.data.
func (r *FrameReader) next() error {
	if r.err != nil {
		return r.err
	}
	if r.src == nil {
		return io.EOF
	}
	err := r.readFrame()
	if err != nil && err != io.EOF {
		r.err = err
	}
	return err
}

func (r *FrameReader) readFrame() error {
	r.busy = false // called with data drained
	if a := r.takeAhead(); a != nil {
		r.useAhead(a)
		return nil
	}
	if r.buf != nil {
		if done, err := r.readFrameInPlace(); done {
			return err
		}
	}
	if cap(r.comp) < frameOverhead {
		r.comp = make([]byte, frameOverhead, 4096)
	}
	hdr := r.comp[:frameOverhead]
	if n, err := io.ReadFull(r.src, hdr); err != nil {
		if err == io.EOF && n == 0 {
			return io.EOF
		}
		return wrapReadErr(err, "truncated frame header", 0, 0, 0)
	}
	m, csize, usize := frameHeader(hdr)
	if err := checkHeader(m, csize, usize); err != nil {
		return err
	}
	if err := r.checkLimit(m, csize, usize); err != nil {
		return err
	}
	total := FrameChecksumSize + int(csize)
	frame, err := r.readRest(total)
	if err != nil {
		return wrapReadErr(err, "truncated frame payload", m, csize, usize)
	}
	if m == MethodNone {
		if err := verifyChecksum(frame, m, csize, usize); err != nil {
			return err
		}
		r.data = frame[frameOverhead:] // length checked in checkHeader
		return nil
	}
	if err := r.decodeInto(frame, m, csize, usize); err != nil {
		return err
	}
	r.speculate(int(usize)) // grows the source's buffer, for frames read in place from the next on
	return nil
}

// readFrameInPlace reads an LZ4 or ZSTD frame that fits in the source's buffer where it lies
// there. done is false, with nothing consumed, for a frame readFrame reads itself (uncompressed,
// or larger than the buffer).
func (r *FrameReader) readFrameInPlace() (done bool, err error) {
	hdr, err := r.buf.Peek(frameOverhead)
	if err != nil {
		if r.buf.Buffered() == 0 && errors.Is(err, io.ErrUnexpectedEOF) {
			return true, io.EOF
		}
		return true, wrapReadErr(err, "truncated frame header", 0, 0, 0)
	}
	m, csize, usize := frameHeader(hdr)
	if err := checkHeader(m, csize, usize); err != nil {
		return true, err
	}
	if err := r.checkLimit(m, csize, usize); err != nil {
		return true, err
	}
	total := FrameChecksumSize + int(csize)
	if m == MethodNone || total > r.buf.Size() {
		return false, nil
	}
	frame, err := r.buf.Peek(total)
	if err != nil {
		return true, wrapReadErr(err, "truncated frame payload", m, csize, usize)
	}
	if err := r.decodeInto(frame, m, csize, usize); err != nil {
		return true, err
	}
	// Decoded from the buffer; now consumed (the bytes are buffered, so this cannot fail).
	if err := r.buf.Skip(total); err != nil {
		return true, err
	}
	r.speculate(int(usize))
	return true, nil
}

// decodeInto decodes frame (checksum, header, payload; LZ4 or ZSTD) into the caller's buffer of
// Read when it fits there, else into the reader's own buffer.
func (r *FrameReader) decodeInto(frame []byte, m Method, csize, usize uint32) error {
	out, direct := r.output(int(usize))
	n, err := decodeFrame(frame, m, csize, usize, out, &r.zd)
	if err != nil {
		return err
	}
	if direct {
		r.directN = n
		return nil
	}
	r.data = out[:n]
	return nil
}

// verifyChecksum checks a whole frame's CityHash128.
func verifyChecksum(frame []byte, m Method, csize, usize uint32) error {
	var want [16]byte
	copy(want[:], frame[:16])
	if got := frameChecksum(frame[16:]); got != want {
		return &ChecksumError{Want: want, Got: got, Method: m, CompressedSize: csize, UncompressedSize: usize}
	}
	return nil
}

// decodeFrame verifies a whole LZ4 or ZSTD frame and decompresses its payload into out, which
// is exactly usize bytes. It runs on the reader's goroutine or, for a frame decompressed ahead,
// on that goroutine, never on both at once (the reader joins first): the ZSTD decoder is shared.
func decodeFrame(frame []byte, m Method, csize, usize uint32, out []byte, zdp **zstdFrames) (int, error) {
	if err := verifyChecksum(frame, m, csize, usize); err != nil {
		return 0, err
	}
	payload := frame[frameOverhead:]
	fe := func(reason string, err error) error {
		return &FrameError{Reason: reason, Method: m, CompressedSize: csize, UncompressedSize: usize, Err: err}
	}
	switch m {
	case MethodLZ4:
		n, err := lz4Decode(payload, out)
		if err != nil {
			return 0, fe("LZ4 decompression failed", err)
		}
		return n, nil
	case MethodZSTD:
		var h zstd.Header
		if err := h.Decode(payload); err != nil {
			return 0, fe("bad ZSTD frame header", err)
		}
		if h.HasFCS && h.FrameContentSize != uint64(usize) {
			return 0, fe(fmt.Sprintf("ZSTD frame content size %d differs from uncompressed_size", h.FrameContentSize), nil)
		}
		if *zdp == nil {
			*zdp = new(zstdFrames)
		}
		if err := (*zdp).decode(payload, out); err != nil {
			return 0, fe("ZSTD decompression failed", err)
		}
		return len(out), nil
	}
	panic("unreachable: method checked in checkHeader")
}

// readRest reads the rest of a frame of total bytes whose first frameOverhead
// bytes are in r.comp. The buffer grows with the data actually received, so a
// large declared size on a short stream does not allocate the declared size.
func (r *FrameReader) readRest(total int) ([]byte, error) {
	if cap(r.comp) >= total {
		b := r.comp[:total]
		_, err := io.ReadFull(r.src, b[frameOverhead:])
		return b, err
	}
	if spare := frameScratch(total); spare != nil {
		r.comp = append(spare, r.comp[:frameOverhead]...) // no allocation: a spare large enough
		b := r.comp[:total]
		_, err := io.ReadFull(r.src, b[frameOverhead:])
		return b, err
	}
	b := r.comp[:frameOverhead]
	for len(b) < total {
		if len(b) == cap(b) {
			c := min(total, max(2*cap(b), 64<<10))
			nb := make([]byte, len(b), c)
			copy(nb, b)
			b = nb
			r.comp = nb
		}
		n, err := io.ReadFull(r.src, b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return b, err
		}
	}
	return b, nil
}

// grow returns r.out resized to n bytes, reallocating only if needed.
func (r *FrameReader) grow(n int) []byte {
	if cap(r.out) < n {
		if r.out = frameScratch(n); r.out == nil {
			r.out = make([]byte, n)
		}
	}
	return r.out[:n]
}

func wrapReadErr(err error, reason string, m Method, csize, usize uint32) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &FrameError{Reason: reason, Method: m, CompressedSize: csize, UncompressedSize: usize, Err: io.ErrUnexpectedEOF}
	}
	return fmt.Errorf("nativeproto: reading compressed frame: %w", err)
}

// output returns where a frame of usize bytes decompresses to: straight into the caller's buffer
// (direct) when it fits there, else into the reader's own buffer.
//
// out has up to zstdSlack bytes of spare capacity where its memory allows (inside the caller's
// buffer, which io.Reader lets Read use whole as scratch; in the reader's own).
func (r *FrameReader) output(usize int) (out []byte, direct bool) {
	if usize <= len(r.direct) {
		return r.direct[:usize:min(len(r.direct), usize+zstdSlack)], true
	}
	return r.grow(usize + zstdSlack)[:usize], false
}

// zstdSlack is the spare output capacity the ZSTD decoder gets past a frame's end: with at least
// 32 bytes of it (klauspost/compress's compressedBlockOverAlloc) it decodes the frame's last
// block with its fast copies, which write whole 16- and 32-byte words, instead of its
// bounds-exact ones; without it, a frame of one block (ClickHouse's integer columns, 128 KiB)
// decodes entirely on the slow path. The decoder writes nothing past the frame's declared size
// there that is read: a frame decoding to more is refused.
const zstdSlack = 64
