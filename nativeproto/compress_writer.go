package nativeproto

import (
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// MaxLZ4Level is the highest LZ4HC level accepted (search depth 1<<(8+level),
// as in ch-go). Level 0 means plain fast LZ4.
const MaxLZ4Level = 12

// Compressor appends data as compressed frames using one method and level.
// It holds the codec state so that repeated calls do not allocate beyond
// growing dst. A Compressor is not safe for concurrent use.
type Compressor struct {
	method Method
	level  int
	lz4    *lz4Encoder
	lz4hc  *lz4.CompressorHC
	zenc   *zstd.Encoder
}

// NewCompressor returns a Compressor for method m. level 0 selects the codec
// default: fast LZ4, zstd level 3. For LZ4, level 1..MaxLZ4Level selects LZ4HC
// with search depth 1<<(8+level). For ZSTD, level is a zstd level mapped by
// zstd.EncoderLevelFromZstd. level is ignored for MethodNone.
func NewCompressor(m Method, level int) (*Compressor, error) {
	c := &Compressor{method: m, level: level}
	switch m {
	case MethodNone:
	case MethodLZ4:
		if level < 0 || level > MaxLZ4Level {
			return nil, fmt.Errorf("nativeproto: LZ4 level %d out of range 0..%d", level, MaxLZ4Level)
		}
		if level == 0 {
			c.lz4 = new(lz4Encoder)
		} else {
			c.lz4hc = &lz4.CompressorHC{Level: lz4.CompressionLevel(1) << (8 + level)}
		}
	case MethodZSTD:
		if level < 0 {
			return nil, fmt.Errorf("nativeproto: ZSTD level %d is negative", level)
		}
		enc, err := newZSTDEncoder(level, 1)
		if err != nil {
			return nil, err
		}
		c.zenc = enc
	default:
		return nil, fmt.Errorf("nativeproto: cannot compress with method byte 0x%02x", byte(m))
	}
	return c, nil
}

// newZSTDEncoder creates an encoder for EncodeAll; concurrency bounds how many
// EncodeAll calls run in parallel (0 = GOMAXPROCS).
func newZSTDEncoder(level, concurrency int) (*zstd.Encoder, error) {
	opts := []zstd.EOption{
		zstd.WithEncoderConcurrency(concurrency),
		zstd.WithEncoderCRC(false),   // the frame is protected by CityHash128
		zstd.WithSingleSegment(true), // chunks are <= 1 MiB; always write the content size
	}
	if level > 0 {
		opts = append(opts, zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(level)))
	}
	enc, err := zstd.NewWriter(nil, opts...)
	if err != nil {
		return nil, fmt.Errorf("nativeproto: creating ZSTD encoder: %w", err)
	}
	return enc, nil
}

// Method returns the compressor's method.
func (c *Compressor) Method() Method { return c.method }

// Append appends data to dst as one or more frames of at most FrameChunk
// uncompressed bytes each and returns the extended slice. Empty data appends
// nothing (a frame cannot be empty).
func (c *Compressor) Append(dst, data []byte) ([]byte, error) {
	return c.appendFrames(dst, data, FrameChunk)
}

// writeFrame is the uncompressed size of the frames the packet writer makes with c: WriteFrame,
// or FrameChunk for ZSTD (whose encoder costs per frame: a quarter of the size costs it about a
// quarter more CPU).
func (c *Compressor) writeFrame() int {
	if c.method == MethodZSTD {
		return FrameChunk
	}
	return WriteFrame
}

// appendFrames is Append with frames of at most size uncompressed bytes.
func (c *Compressor) appendFrames(dst, data []byte, size int) ([]byte, error) {
	for len(data) > 0 {
		chunk := data[:min(len(data), size)]
		data = data[len(chunk):]
		var err error
		dst, err = c.appendFrame(dst, chunk)
		if err != nil {
			return dst, err
		}
	}
	return dst, nil
}

func (c *Compressor) appendFrame(dst, chunk []byte) ([]byte, error) {
	start := len(dst)
	switch c.method {
	case MethodNone:
		dst = growFrame(dst, frameOverhead+len(chunk))
		copy(dst[start+frameOverhead:], chunk)
	case MethodLZ4:
		bound := lz4CompressBound(len(chunk))
		dst = growFrame(dst, frameOverhead+bound)
		buf := dst[start+frameOverhead : start+frameOverhead+bound]
		var n int
		var err error
		if c.lz4hc != nil {
			n, err = c.lz4hc.CompressBlock(chunk, buf)
		} else {
			n, err = c.lz4.encode(chunk, buf)
		}
		if err != nil || n == 0 {
			return dst[:start], fmt.Errorf("nativeproto: LZ4 compression failed (n=%d): %v", n, err)
		}
		dst = dst[:start+frameOverhead+n]
	case MethodZSTD:
		dst = growFrame(dst, frameOverhead)
		dst = c.zenc.EncodeAll(chunk, dst)
	}
	csize := len(dst) - start - FrameChecksumSize
	if csize > MaxFrameSize {
		return dst[:start], fmt.Errorf("nativeproto: compressed frame of %d bytes exceeds MaxFrameSize", csize)
	}
	f := dst[start:]
	f[16] = byte(c.method)
	binary.LittleEndian.PutUint32(f[17:21], uint32(csize))
	binary.LittleEndian.PutUint32(f[21:25], uint32(len(chunk)))
	sum := frameChecksum(f[16:])
	copy(f[:16], sum[:])
	return dst, nil
}

// growFrame extends dst by n bytes (contents unspecified), reallocating at most once.
func growFrame(dst []byte, n int) []byte {
	if cap(dst)-len(dst) < n {
		nd := make([]byte, len(dst), max(2*cap(dst), len(dst)+n))
		copy(nd, dst)
		dst = nd
	}
	return dst[:len(dst)+n]
}

// Shared codec state for AppendCompressed. zstd encoders are safe for
// concurrent EncodeAll; LZ4 compressors are not and are pooled.
var (
	lz4Pool   sync.Pool // *Compressor, MethodLZ4 level 0
	zstdMu    sync.Mutex
	zstdCache = map[int]*Compressor{}
)

// AppendCompressed appends data to dst as frames compressed with method m at
// the given level (see NewCompressor) and returns the extended slice. Frames
// are cut at FrameChunk bytes of uncompressed data; empty data appends
// nothing. Codec state is shared and reused across calls for the default
// levels; use a Compressor to control reuse explicitly.
func AppendCompressed(dst, data []byte, m Method, level int) ([]byte, error) {
	if len(data) == 0 {
		if _, err := compressorFor(m, level); err != nil {
			return dst, err
		}
		return dst, nil
	}
	c, err := compressorFor(m, level)
	if err != nil {
		return dst, err
	}
	dst, err = c.Append(dst, data)
	if c.method == MethodLZ4 && c.lz4 != nil {
		lz4Pool.Put(c)
	}
	return dst, err
}

func compressorFor(m Method, level int) (*Compressor, error) {
	switch {
	case m == MethodNone:
		return &Compressor{method: MethodNone}, nil
	case m == MethodLZ4 && level == 0:
		if c, ok := lz4Pool.Get().(*Compressor); ok {
			return c, nil
		}
	case m == MethodZSTD && level >= 0:
		zstdMu.Lock()
		defer zstdMu.Unlock()
		if c := zstdCache[level]; c != nil {
			return c, nil
		}
		enc, err := newZSTDEncoder(level, 0)
		if err != nil {
			return nil, err
		}
		c := &Compressor{method: m, level: level, zenc: enc}
		if len(zstdCache) < 32 {
			zstdCache[level] = c
		}
		return c, nil
	}
	return NewCompressor(m, level)
}
