package nativeproto

import (
	"bytes"
	"fmt"
	"io"
	"testing"
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
