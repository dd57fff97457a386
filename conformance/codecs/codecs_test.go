package codecs

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"testing"

	ddzstd "github.com/DataDog/zstd"
	bklz4 "github.com/bkaradzic/go-lz4"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"

	"github.com/chnative/chnative/nativeproto"
)

// corpora names the testdata files of each method.
var corpora = map[string][]string{
	"lz4":  {"numbers", "usf"},
	"zstd": {"numbers", "usf", "text"},
}

// decoder is one candidate: decode fills dst (the corpus's total uncompressed size) with the
// corpus's frames in order. The state it needs is built by newDecoder, outside the timed loop.
type decoder struct {
	name       string
	newDecoder func(t testing.TB, c corpus) func(dst []byte) error
}

// perFrame makes a decode of a codec taking one frame's payload: each frame is verified, then
// decoded into its part of dst, and must fill it exactly.
func perFrame(c corpus, fn func(dst, src []byte) (int, error)) func(dst []byte) error {
	return func(dst []byte) error {
		off := 0
		for i, f := range c.frames {
			if err := verify(f); err != nil {
				return fmt.Errorf("frame %d: %w", i, err)
			}
			n, err := fn(dst[off:off+f.size:off+f.size], f.payload)
			if err != nil {
				return fmt.Errorf("frame %d: %w", i, err)
			}
			if n != f.size {
				return fmt.Errorf("frame %d: %d bytes, want %d", i, n, f.size)
			}
			off += f.size
		}
		return nil
	}
}

// chnativeDecoder reads the whole corpus through nativeproto's FrameReader, as the driver does
// (from a bytes.Reader there is no decompress-ahead: one goroutine, like the other arms).
func chnativeDecoder(_ testing.TB, c corpus) func(dst []byte) error {
	src := bytes.NewReader(c.file)
	r := nativeproto.NewFrameReader(src)
	return func(dst []byte) error {
		src.Reset(c.file)
		r.Reset(src)
		_, err := io.ReadFull(r, dst)
		return err
	}
}

// bytesDecoder adapts a codec that returns the decoded slice (which must be dst's memory).
func bytesDecoder(fn func(dst, src []byte) ([]byte, error)) func(dst, src []byte) (int, error) {
	return func(dst, src []byte) (int, error) {
		res, err := fn(dst, src)
		if err == nil && len(res) > 0 && len(dst) > 0 && &res[0] != &dst[0] {
			return 0, fmt.Errorf("decoded into a new buffer")
		}
		return len(res), err
	}
}

var decoders = map[string][]decoder{
	"lz4": {
		{"chnative", chnativeDecoder},
		{"pierrec", func(_ testing.TB, c corpus) func([]byte) error {
			return perFrame(c, func(dst, src []byte) (int, error) { return lz4.UncompressBlock(src, dst) })
		}},
		{"bkaradzic", func(_ testing.TB, c corpus) func([]byte) error {
			// go-lz4's blocks start with the uncompressed size (4 bytes, little endian):
			// each payload is given one, once, here.
			prefixed := make(map[int][]byte, len(c.frames))
			for i, f := range c.frames {
				prefixed[i] = append(binary.LittleEndian.AppendUint32(nil, uint32(f.size)), f.payload...)
			}
			i := 0
			dec := perFrame(c, bytesDecoder(func(dst, _ []byte) ([]byte, error) {
				p := prefixed[i]
				i++
				return bklz4.Decode(dst, p)
			}))
			return func(dst []byte) error { i = 0; return dec(dst) }
		}},
		{"liblz4-cgo", func(_ testing.TB, c corpus) func([]byte) error {
			return perFrame(c, liblz4Decompress)
		}},
	},
	"zstd": {
		{"chnative", chnativeDecoder},
		{"klauspost", func(t testing.TB, c corpus) func([]byte) error {
			zd, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
			if err != nil {
				t.Fatal(err)
			}
			return perFrame(c, bytesDecoder(func(dst, src []byte) ([]byte, error) { return zd.DecodeAll(src, dst[:0]) }))
		}},
		{"datadog-cgo", func(_ testing.TB, c corpus) func([]byte) error {
			ctx := ddzstd.NewCtx()
			return perFrame(c, bytesDecoder(ctx.Decompress))
		}},
	},
}

// encoder is one candidate: encode appends the data as checksummed frames of one frame's content
// each (the corpus's own frame boundaries) and returns the extended dst.
type encoder struct {
	name       string
	newEncoder func(t testing.TB, method string) func(dst, data []byte) ([]byte, error)
}

// framed makes an encode of a codec that appends one block: it writes the frame's header around
// what the codec appends and seals it with the checksum.
func framed(method nativeproto.Method, fn func(dst, data []byte) ([]byte, error)) func(dst, data []byte) ([]byte, error) {
	return func(dst, data []byte) ([]byte, error) {
		start := len(dst)
		dst = append(dst, make([]byte, frameOverhead)...)
		dst, err := fn(dst, data)
		if err != nil {
			return dst, err
		}
		f := dst[start:]
		f[checksumSize] = byte(method)
		binary.LittleEndian.PutUint32(f[checksumSize+1:], uint32(len(f)-checksumSize))
		binary.LittleEndian.PutUint32(f[checksumSize+5:], uint32(len(data)))
		seal(f)
		return dst, nil
	}
}

// grow returns dst with room for n more bytes beyond its length.
func grow(dst []byte, n int) []byte {
	if cap(dst)-len(dst) < n {
		dst = append(dst[:cap(dst)], make([]byte, n)...)[:len(dst)]
	}
	return dst
}

func lz4Block(fn func(src, dst []byte) (int, error), bound func(int) int) func(dst, data []byte) ([]byte, error) {
	return func(dst, data []byte) ([]byte, error) {
		dst = grow(dst, bound(len(data)))
		n, err := fn(data, dst[len(dst):cap(dst)])
		return dst[:len(dst)+n], err
	}
}

var encoders = map[string][]encoder{
	"lz4": {
		{"chnative", chnativeEncoder(nativeproto.MethodLZ4, 0)},
		{"pierrec", func(testing.TB, string) func(dst, data []byte) ([]byte, error) {
			var c lz4.Compressor
			return framed(nativeproto.MethodLZ4, lz4Block(c.CompressBlock, lz4.CompressBlockBound))
		}},
		{"bkaradzic", func(testing.TB, string) func(dst, data []byte) ([]byte, error) {
			var buf []byte
			return framed(nativeproto.MethodLZ4, func(dst, data []byte) ([]byte, error) {
				var err error
				if buf, err = bklz4.Encode(buf[:cap(buf)], data); err != nil {
					return dst, err
				}
				return append(dst, buf[4:]...), nil // its own 4-byte size prefix dropped
			})
		}},
		{"liblz4-cgo", func(testing.TB, string) func(dst, data []byte) ([]byte, error) {
			return framed(nativeproto.MethodLZ4, lz4Block(liblz4Compress, liblz4Bound))
		}},
	},
	"zstd": {
		{"chnative", chnativeEncoder(nativeproto.MethodZSTD, 0)},
		{"chnative-level1", chnativeEncoder(nativeproto.MethodZSTD, 1)},
		{"klauspost", func(t testing.TB, _ string) func(dst, data []byte) ([]byte, error) {
			ze, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1),
				zstd.WithLowerEncoderMem(true))
			if err != nil {
				t.Fatal(err)
			}
			return framed(nativeproto.MethodZSTD, func(dst, data []byte) ([]byte, error) { return ze.EncodeAll(data, dst), nil })
		}},
		{"datadog-cgo", func(testing.TB, string) func(dst, data []byte) ([]byte, error) {
			ctx := ddzstd.NewCtx()
			return framed(nativeproto.MethodZSTD, func(dst, data []byte) ([]byte, error) {
				dst = grow(dst, ddzstd.CompressBound(len(data)))
				res, err := ctx.CompressLevel(dst[len(dst):cap(dst)], data, 1)
				if err != nil {
					return dst, err
				}
				return append(dst, res...), nil // res is dst's spare room unless it did not fit
			})
		}},
	},
}

// chnativeEncoder is the driver's own: nativeproto's Compressor at a level (0: its default),
// one Append a frame's content (each at most FrameChunk, so one frame each).
func chnativeEncoder(m nativeproto.Method, level int) func(t testing.TB, _ string) func(dst, data []byte) ([]byte, error) {
	return func(t testing.TB, _ string) func(dst, data []byte) ([]byte, error) {
		c, err := nativeproto.NewCompressor(m, level)
		if err != nil {
			t.Fatal(err)
		}
		return c.Append
	}
}

// contents decodes a corpus with the reference decoder of its method (pierrec, klauspost) into
// one buffer and returns it with each frame's part.
func contents(t testing.TB, method string, c corpus) (whole []byte, parts [][]byte) {
	t.Helper()
	whole = make([]byte, c.total)
	if err := decoders[method][1].newDecoder(t, c)(whole); err != nil {
		t.Fatalf("%s/%s: reference decoder: %v", method, c.name, err)
	}
	off := 0
	for _, f := range c.frames {
		parts = append(parts, whole[off:off+f.size])
		off += f.size
	}
	return whole, parts
}

// TestCandidates: every decoder gives the reference's bytes for every corpus, and every
// encoder's frames read back through chnative's FrameReader to the same bytes.
func TestCandidates(t *testing.T) {
	for method, names := range corpora {
		for _, name := range names {
			c := loadCorpus(t, method, name)
			want, parts := contents(t, method, c)
			for _, d := range decoders[method] {
				got := make([]byte, c.total)
				dec := d.newDecoder(t, c)
				for round := range 2 { // state reused across calls, as in the benchmark
					clear(got)
					if err := dec(got); err != nil || !bytes.Equal(got, want) {
						t.Fatalf("%s/%s/%s round %d: %v, equal %v", method, name, d.name, round, err, bytes.Equal(got, want))
					}
				}
			}
			for _, e := range encoders[method] {
				enc := e.newEncoder(t, method)
				var out []byte
				for _, p := range parts {
					var err error
					if out, err = enc(out, p); err != nil {
						t.Fatalf("%s/%s/%s: encode: %v", method, name, e.name, err)
					}
				}
				got := make([]byte, c.total)
				if _, err := io.ReadFull(nativeproto.NewFrameReader(bytes.NewReader(out)), got); err != nil || !bytes.Equal(got, want) {
					t.Fatalf("%s/%s/%s: read back: %v, equal %v", method, name, e.name, err, bytes.Equal(got, want))
				}
			}
		}
	}
}

// BenchmarkDecode: each decoder over each corpus; MB/s of uncompressed bytes.
func BenchmarkDecode(b *testing.B) {
	for _, method := range []string{"lz4", "zstd"} {
		for _, name := range corpora[method] {
			c := loadCorpus(b, method, name)
			dst := make([]byte, c.total)
			for _, d := range decoders[method] {
				b.Run(method+"/"+name+"/"+d.name, func(b *testing.B) {
					dec := d.newDecoder(b, c)
					b.SetBytes(int64(c.total))
					for b.Loop() {
						if err := dec(dst); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// BenchmarkEncode: each encoder over each corpus's content, frame by frame as the server cut
// it; MB/s of uncompressed bytes, and the ratio (compressed over uncompressed, frames whole).
func BenchmarkEncode(b *testing.B) {
	for _, method := range []string{"lz4", "zstd"} {
		for _, name := range corpora[method] {
			c := loadCorpus(b, method, name)
			_, parts := contents(b, method, c)
			for _, e := range encoders[method] {
				b.Run(method+"/"+name+"/"+e.name, func(b *testing.B) {
					enc := e.newEncoder(b, method)
					var out []byte
					b.SetBytes(int64(c.total))
					for b.Loop() {
						out = out[:0]
						for _, p := range parts {
							var err error
							if out, err = enc(out, p); err != nil {
								b.Fatal(err)
							}
						}
					}
					b.ReportMetric(float64(len(out))/float64(c.total), "ratio")
				})
			}
		}
	}
}
