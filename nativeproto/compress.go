package nativeproto

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"

	"github.com/go-faster/city"
)

// Method is the compression method byte of a compressed frame
// (ClickHouse CompressionMethodByte).
type Method byte

// Compression methods that can appear on the native protocol.
const (
	MethodNone Method = 0x02 // payload is the raw data (still checksummed)
	MethodLZ4  Method = 0x82 // payload is one LZ4 block (raw block format); also used for LZ4HC
	MethodZSTD Method = 0x90 // payload is a zstd frame
)

// String returns the method name, or "Method(0xNN)" for an unknown byte.
func (m Method) String() string {
	switch m {
	case MethodNone:
		return "NONE"
	case MethodLZ4:
		return "LZ4"
	case MethodZSTD:
		return "ZSTD"
	}
	return fmt.Sprintf("Method(0x%02x)", byte(m))
}

// Frame layout and limits.
const (
	// FrameChecksumSize is the size of the CityHash128 checksum that starts every frame.
	FrameChecksumSize = 16
	// FrameHeaderSize is the size of method byte + compressed_size + uncompressed_size.
	// It is counted in compressed_size.
	FrameHeaderSize = 9

	// MaxFrameSize is the largest compressed_size (header + payload) the reader
	// accepts. The server's own limit is 1 GiB; real frames are about 1 MiB.
	MaxFrameSize = 64 << 20
	// MaxFrameUncompressed is the largest uncompressed_size the reader accepts.
	// Servers cut frames at 1 MiB of uncompressed data.
	MaxFrameUncompressed = 64 << 20

	// FrameChunk is how much uncompressed data AppendCompressed and Compressor.Append put into
	// one frame, as servers cut theirs (DBMS_DEFAULT_BUFFER_SIZE), and the most a frame read
	// ahead holds.
	FrameChunk = 1 << 20

	// WriteFrame is how much uncompressed data the packet writer puts into one LZ4 frame of a
	// Data block: a quarter of the servers' size (ClickHouse takes frames from 64 KiB; LZ4 looks
	// back 64 KiB only, so smaller frames cost it nothing), so that the writer's buffers, a frame
	// and its compressed form, stay within keepWriteBuffer. ZSTD frames, which cost per frame,
	// stay at FrameChunk.
	WriteFrame = 256 << 10

	// maxLZ4Ratio bounds uncompressed/payload for LZ4: one byte of an LZ4
	// block never expands to more than 255 bytes.
	maxLZ4Ratio = 255
	// maxZSTDRatio bounds uncompressed/payload for ZSTD: a zstd block is at
	// least 4 bytes (an RLE block) and decodes to at most 128 KiB.
	maxZSTDRatio = 128 << 10 / 4
)

const frameOverhead = FrameChecksumSize + FrameHeaderSize

// frameHeader returns the method and the two sizes of the frame whose first frameOverhead bytes
// (checksum, then header) are h.
func frameHeader(h []byte) (m Method, csize, usize uint32) {
	return Method(h[16]), binary.LittleEndian.Uint32(h[17:21]), binary.LittleEndian.Uint32(h[21:25])
}

// ChecksumError reports a frame whose stored CityHash128 does not match its content.
// Want and Got are in wire order (low 64 bits LE, then high 64 bits LE).
type ChecksumError struct {
	Want             [16]byte // checksum stored in the frame
	Got              [16]byte // checksum computed over the frame
	Method           Method
	CompressedSize   uint32
	UncompressedSize uint32
}

func (e *ChecksumError) Error() string {
	return fmt.Sprintf("nativeproto: compressed frame checksum mismatch: stored %s, computed %s (method 0x%02x, compressed_size %d, uncompressed_size %d)",
		hex.EncodeToString(e.Want[:]), hex.EncodeToString(e.Got[:]), byte(e.Method), e.CompressedSize, e.UncompressedSize)
}

// FrameError reports a malformed compressed frame: bad method byte, sizes out
// of range, truncated frame, or a payload that does not decompress to exactly
// the declared size. Err, if set, is the underlying cause (for example
// io.ErrUnexpectedEOF or a codec error) and is returned by Unwrap.
type FrameError struct {
	Reason           string
	Method           Method
	CompressedSize   uint32
	UncompressedSize uint32
	Err              error
}

func (e *FrameError) Error() string {
	s := fmt.Sprintf("nativeproto: bad compressed frame (method 0x%02x %s, compressed_size %d, uncompressed_size %d): %s",
		byte(e.Method), e.Method, e.CompressedSize, e.UncompressedSize, e.Reason)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *FrameError) Unwrap() error { return e.Err }

// frameChecksum computes the checksum of a frame from its method byte to the
// end of the payload, in wire order.
func frameChecksum(b []byte) (sum [16]byte) {
	h := city.CH128(b)
	binary.LittleEndian.PutUint64(sum[0:8], h.Low)
	binary.LittleEndian.PutUint64(sum[8:16], h.High)
	return sum
}

// checkHeader validates the 9-byte header fields before anything is
// allocated or read for the payload.
func checkHeader(m Method, csize, usize uint32) error {
	fe := func(reason string) error {
		return &FrameError{Reason: reason, Method: m, CompressedSize: csize, UncompressedSize: usize}
	}
	switch m {
	case MethodNone, MethodLZ4, MethodZSTD:
	default:
		return fe(fmt.Sprintf("unknown compression method byte 0x%02x", byte(m)))
	}
	if csize < FrameHeaderSize {
		return fe(fmt.Sprintf("compressed_size %d is less than the header size %d", csize, FrameHeaderSize))
	}
	if csize > MaxFrameSize {
		return fe(fmt.Sprintf("compressed_size %d exceeds the limit %d", csize, MaxFrameSize))
	}
	if usize == 0 {
		return fe("uncompressed_size is 0")
	}
	if usize > MaxFrameUncompressed {
		return fe(fmt.Sprintf("uncompressed_size %d exceeds the limit %d", usize, MaxFrameUncompressed))
	}
	payload := uint64(csize - FrameHeaderSize)
	switch m {
	case MethodNone:
		if uint64(usize) != payload {
			return fe(fmt.Sprintf("uncompressed_size %d differs from payload length %d for method NONE", usize, payload))
		}
	case MethodLZ4:
		if uint64(usize) > payload*maxLZ4Ratio {
			return fe(fmt.Sprintf("uncompressed_size %d is impossible for an LZ4 payload of %d bytes", usize, payload))
		}
	case MethodZSTD:
		if uint64(usize) > payload*maxZSTDRatio {
			return fe(fmt.Sprintf("uncompressed_size %d is impossible for a ZSTD payload of %d bytes", usize, payload))
		}
	}
	return nil
}
