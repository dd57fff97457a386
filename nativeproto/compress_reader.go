package nativeproto

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// FrameReader decompresses a stream of compressed frames. It reads the next
// frame from the source only when the current frame is exhausted and more
// bytes are requested, and never reads past the end of that frame, so the
// caller can go back to reading the raw source right after a block.
//
// A Read returns data from the current frame only and may therefore return
// fewer bytes than requested. Errors other than io.EOF at a frame boundary are
// sticky until Reset. Buffers and the zstd decoder are reused across frames
// and across Reset. A FrameReader is not safe for concurrent use.
type FrameReader struct {
	src  io.Reader
	data []byte // unread decompressed bytes of the current frame
	comp []byte // whole current frame: checksum, header, payload
	out  []byte // decompression buffer (LZ4, ZSTD)
	zd   *zstd.Decoder
	err  error
	// direct, during Read, is the caller's buffer: a frame of at most len(direct) bytes is
	// decompressed into it and directN set to its size, instead of into out.
	direct  []byte
	directN int
}

// NewFrameReader returns a FrameReader reading frames from src.
func NewFrameReader(src io.Reader) *FrameReader {
	return &FrameReader{src: src}
}

// Reset discards the current frame and any error and reads from src,
// keeping the allocated buffers.
func (r *FrameReader) Reset(src io.Reader) {
	r.src = src
	r.data = nil
	r.err = nil
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
	m := Method(hdr[16])
	csize := binary.LittleEndian.Uint32(hdr[17:21])
	usize := binary.LittleEndian.Uint32(hdr[21:25])
	if err := checkHeader(m, csize, usize); err != nil {
		return err
	}
	total := FrameChecksumSize + int(csize)
	frame, err := r.readRest(total)
	if err != nil {
		return wrapReadErr(err, "truncated frame payload", m, csize, usize)
	}

	var want [16]byte
	copy(want[:], frame[:16])
	if got := frameChecksum(frame[16:]); got != want {
		return &ChecksumError{Want: want, Got: got, Method: m, CompressedSize: csize, UncompressedSize: usize}
	}
	payload := frame[frameOverhead:]
	fe := func(reason string, err error) error {
		return &FrameError{Reason: reason, Method: m, CompressedSize: csize, UncompressedSize: usize, Err: err}
	}

	switch m {
	case MethodNone:
		r.data = payload // length checked in checkHeader
		return nil
	case MethodLZ4:
		out, direct := r.output(int(usize))
		n, err := lz4.UncompressBlock(payload, out)
		if err != nil {
			return fe("LZ4 decompression failed", err)
		}
		if n != len(out) {
			return fe(fmt.Sprintf("LZ4 payload decompressed to %d bytes", n), nil)
		}
		if direct {
			r.directN = n
			return nil
		}
		r.data = out
		return nil
	case MethodZSTD:
		var h zstd.Header
		if err := h.Decode(payload); err != nil {
			return fe("bad ZSTD frame header", err)
		}
		if h.HasFCS && h.FrameContentSize != uint64(usize) {
			return fe(fmt.Sprintf("ZSTD frame content size %d differs from uncompressed_size", h.FrameContentSize), nil)
		}
		if r.zd == nil {
			zd, err := zstd.NewReader(nil,
				zstd.WithDecoderConcurrency(1),
				zstd.WithDecoderMaxMemory(MaxFrameUncompressed),
				zstd.WithDecoderMaxWindow(MaxFrameUncompressed),
				zstd.WithDecodeAllCapLimit(true),
			)
			if err != nil {
				return fe("creating ZSTD decoder", err)
			}
			r.zd = zd
		}
		out, direct := r.output(int(usize))
		// The cap limit (WithDecodeAllCapLimit) keeps the output in out's memory.
		res, err := r.zd.DecodeAll(payload, out[:0:len(out)])
		if err != nil {
			return fe("ZSTD decompression failed", err)
		}
		if len(res) != len(out) {
			return fe(fmt.Sprintf("ZSTD payload decompressed to %d bytes", len(res)), nil)
		}
		if direct {
			r.directN = len(res)
			return nil
		}
		r.data = res
		return nil
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
		r.out = make([]byte, n)
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
func (r *FrameReader) output(usize int) (out []byte, direct bool) {
	if usize <= len(r.direct) {
		return r.direct[:usize], true
	}
	return r.grow(usize), false
}
