package nativeproto

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"testing"

	"github.com/chnative/chnative/internal/wire"

	"github.com/pierrec/lz4/v4"

	"github.com/chnative/chnative/columns"
)

func BenchmarkFrameReader(b *testing.B) {
	for _, m := range allFrameMethods {
		for _, kind := range []string{"text", "random"} {
			b.Run(fmt.Sprintf("%v/%s/1MiB", m, kind), func(b *testing.B) {
				data := frameTestData(kind, FrameChunk)
				comp := mustCompressFrames(b, data, m, 0)
				src := bytes.NewReader(comp)
				r := NewFrameReader(src)
				out := make([]byte, len(data))
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for b.Loop() {
					src.Reset(comp)
					r.Reset(src)
					if _, err := io.ReadFull(r, out); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(len(comp))/float64(len(data)), "ratio")
			})
		}
	}
}

func BenchmarkCompressor(b *testing.B) {
	for _, m := range allFrameMethods {
		b.Run(fmt.Sprintf("%v/text/1MiB", m), func(b *testing.B) {
			data := frameTestData("text", FrameChunk)
			c, err := NewCompressor(m, 0)
			if err != nil {
				b.Fatal(err)
			}
			dst := make([]byte, 0, 2*FrameChunk)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if dst, err = c.Append(dst[:0], data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// lz4BenchData is one FrameChunk of a Native block body shaped like the suite's
// (UInt64, String, Float64) workload: ids, "name-<i%1000>-<i>" strings and i*0.25 floats.
func lz4BenchData() []byte {
	var w wire.Writer
	const rows = 40000
	ids, names, vals := columns.NewFixed[uint64](""), columns.NewString(), columns.NewFixed[float64]("")
	for i := range rows {
		ids.Append(uint64(i))
		names.Append("name-" + strconv.Itoa(i%1000) + "-" + strconv.Itoa(i))
		vals.Append(float64(i) * 0.25)
	}
	ids.Write(&w)
	names.Write(&w)
	vals.Write(&w)
	for len(w.Buf) < FrameChunk {
		w.Buf = append(w.Buf, w.Buf...)
	}
	return w.Buf[:FrameChunk]
}

// BenchmarkLZ4Block measures the pieces of reading one LZ4 frame: the block decoder (chnative's
// lz4Decode, which the FrameReader uses, against pierrec/lz4 and a plain Go decoder,
// lz4RefDecode), the CityHash128 checksum over the compressed frame, and a copy of the decompressed bytes (what an intermediate buffer costs). SetBytes is the
// decompressed size throughout, so MB/s compare directly.
func BenchmarkLZ4Block(b *testing.B) {
	data := lz4BenchData()
	comp := make([]byte, lz4.CompressBlockBound(len(data)))
	var c lz4.Compressor
	n, err := c.CompressBlock(data, comp)
	if err != nil || n == 0 {
		b.Fatal(n, err)
	}
	comp = comp[:n]
	out := make([]byte, len(data))
	check := func(b *testing.B, n int) {
		if n != len(data) || !bytes.Equal(out, data) {
			b.Fatalf("decoded %d bytes, want %d", n, len(data))
		}
	}
	b.Run("pierrec", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			n, err := lz4.UncompressBlock(comp, out)
			if err != nil {
				b.Fatal(err)
			}
			check(b, n)
		}
		b.ReportMetric(float64(len(comp))/float64(len(data)), "ratio")
	})
	b.Run("purego", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			n, err := lz4RefDecode(comp, out)
			if err != nil {
				b.Fatal(err)
			}
			check(b, n)
		}
	})
	b.Run("chnative", func(b *testing.B) { // lz4_decode.go
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			n, err := lz4Decode(comp, out)
			if err != nil {
				b.Fatal(err)
			}
			check(b, n)
		}
	})
	b.Run("cityhash128", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			_ = frameChecksum(comp)
		}
	})
	b.Run("copy", func(b *testing.B) {
		dst := make([]byte, len(data))
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			copy(dst, out)
		}
	})
}

// lz4RefDecode is a plain Go LZ4 block decoder, the reference the benchmark holds pierrec/lz4's
// assembly decoder against.
func lz4RefDecode(src, dst []byte) (int, error) {
	bad := errors.New("lz4: corrupt block")
	si, di := 0, 0
	for si < len(src) {
		tok := src[si]
		si++
		lit := int(tok >> 4)
		if lit == 15 {
			for {
				if si >= len(src) {
					return di, bad
				}
				v := src[si]
				si++
				lit += int(v)
				if v != 255 {
					break
				}
			}
		}
		if lit > len(src)-si || lit > len(dst)-di {
			return di, bad
		}
		di += copy(dst[di:], src[si:si+lit])
		si += lit
		if si == len(src) {
			return di, nil
		}
		if si+2 > len(src) {
			return di, bad
		}
		off := int(src[si]) | int(src[si+1])<<8
		si += 2
		if off == 0 || off > di {
			return di, bad
		}
		ml := int(tok&15) + 4
		if ml == 19 {
			for {
				if si >= len(src) {
					return di, bad
				}
				v := src[si]
				si++
				ml += int(v)
				if v != 255 {
					break
				}
			}
		}
		if ml > len(dst)-di {
			return di, bad
		}
		if off >= ml {
			di += copy(dst[di:di+ml], dst[di-off:di-off+ml])
			continue
		}
		for k := 0; k < ml; k++ {
			dst[di] = dst[di-off]
			di++
		}
	}
	return di, bad
}

// numbersBenchData is a block body of system.numbers_mt's shape: 65 536 consecutive UInt64.
func numbersBenchData() []byte {
	out := make([]byte, 0, 65536*8)
	for i := range uint64(65536) {
		out = binary.LittleEndian.AppendUint64(out, 40_000_000+i)
	}
	return out
}
