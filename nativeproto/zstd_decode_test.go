package nativeproto

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// zstdRef decodes src with klauspost's decoder, the reference zstdDecoder is held to.
func zstdRef(t testing.TB, src []byte, size int) ([]byte, error) {
	t.Helper()
	zd, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(1<<30))
	if err != nil {
		t.Fatal(err)
	}
	defer zd.Close()
	return zd.DecodeAll(src, make([]byte, 0, size))
}

// zstdInputs are data of the shapes ClickHouse compresses: integer columns, text, floats,
// random bytes, runs, and nothing.
func zstdInputs() map[string][]byte {
	in := map[string][]byte{"empty": {}}
	r := rand.New(rand.NewPCG(1, 2))
	n := make([]byte, 0, 8<<16)
	for i := range uint64(1 << 16) {
		n = binary.LittleEndian.AppendUint64(n, i+1_000_000)
	}
	in["numbers"] = n
	var txt []byte
	for i := range 20000 {
		txt = fmt.Appendf(txt, "name-%d-%d,", i%1000, i)
	}
	in["text"] = txt
	f := make([]byte, 0, 8<<14)
	for i := range 1 << 14 {
		f = binary.LittleEndian.AppendUint64(f, uint64(float64(i)*0.25))
	}
	in["floats"] = f
	rnd := make([]byte, 300<<10)
	for i := range rnd {
		rnd[i] = byte(r.Uint32())
	}
	in["random"] = rnd
	in["zeros"] = make([]byte, 200<<10)
	skew := make([]byte, 256<<10)
	for i := range skew {
		skew[i] = byte(r.ExpFloat64() * 4)
	}
	in["skewed"] = skew
	in["short"] = []byte("abcabcabcabcabcab")
	// Small blocks' literals are Huffman-coded in one stream instead of four.
	in["small text"] = txt[:300]
	in["small mixed"] = append(append([]byte{}, n[:200]...), txt[:200]...)
	// Literals of one repeated byte are RLE-coded.
	var rle []byte
	for i := range 2000 {
		rle = fmt.Appendf(rle, "%sZ", "abcdefghijklmnopqrstuvwxyz"[:5+i*7%19])
	}
	in["one literal byte"] = rle
	return in
}

// TestZSTDDecode: frames klauspost's encoder makes of every input at every level decode to the
// input.
func TestZSTDDecode(t *testing.T) {
	var d zstdDecoder
	for name, in := range zstdInputs() {
		for _, lvl := range []zstd.EncoderLevel{zstd.SpeedFastest, zstd.SpeedDefault, zstd.SpeedBetterCompression, zstd.SpeedBestCompression} {
			for _, single := range []bool{true, false} {
				enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(lvl), zstd.WithEncoderCRC(false), zstd.WithSingleSegment(single))
				if err != nil {
					t.Fatal(err)
				}
				frame := enc.EncodeAll(in, nil)
				got := make([]byte, len(in))
				if err := d.decode(got, frame); err != nil || !bytes.Equal(got, in) {
					t.Fatalf("%s level %v single %v: %v, equal %v", name, lvl, single, err, bytes.Equal(got, in))
				}
			}
		}
	}
}

// TestZSTDServerFrames: the frames ClickHouse 26.7 sent decode to what klauspost's decoder
// makes of them, without falling back. (text's frames have several blocks each, some of whose
// literals reuse the Huffman table of the block before: treeless literals.)
func TestZSTDServerFrames(t *testing.T) {
	var d zstdDecoder
	for _, name := range []string{"numbers", "usf", "text"} {
		payloads, sizes := methodFrames(t, "zstd", name)
		for i, p := range payloads {
			want, err := zstdRef(t, p, sizes[i])
			if err != nil || len(want) != sizes[i] {
				t.Fatalf("%s frame %d: klauspost: %d bytes, %v", name, i, len(want), err)
			}
			got := make([]byte, sizes[i])
			if err := d.decode(got, p); err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s frame %d: %v, equal %v", name, i, err, bytes.Equal(got, want))
			}
		}
	}
}

// TestZSTDFallback: what the decoder leaves to klauspost's is said as errZSTDFallback.
func TestZSTDFallback(t *testing.T) {
	in := zstdInputs()["text"]
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderCRC(true))
	var d zstdDecoder
	if err := d.decode(make([]byte, len(in)), enc.EncodeAll(in, nil)); !errors.Is(err, errZSTDFallback) {
		t.Fatalf("checksummed frame: %v", err)
	}
	enc, _ = zstd.NewWriter(nil, zstd.WithEncoderCRC(false))
	two := enc.EncodeAll(in, nil)
	two = enc.EncodeAll(in, two)
	if err := d.decode(make([]byte, len(in)), two); err == nil {
		t.Fatal("two frames into one frame's size decoded")
	}
	if err := d.decode(make([]byte, 4), []byte{0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 1, 2, 3, 4}); !errors.Is(err, errZSTDFallback) {
		t.Fatalf("skippable frame: %v", err)
	}
}

// zstdSeeds are valid frames of each input shape, some of them cut or with a byte changed.
func zstdSeeds(t testing.TB) [][]byte {
	var seeds [][]byte
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderCRC(false), zstd.WithEncoderLevel(zstd.SpeedFastest))
	for _, in := range zstdInputs() {
		if len(in) > 40<<10 {
			in = in[:40<<10]
		}
		seeds = append(seeds, enc.EncodeAll(in, nil))
	}
	p, _ := methodFrames(t, "zstd", "usf")
	seeds = append(seeds, p[0])
	return seeds
}

// FuzzZSTDDecode: on any input the decoder does not panic, and what it decodes is what
// klauspost's decoder decodes (the input's first 4 bytes are the content size).
func FuzzZSTDDecode(f *testing.F) {
	for _, s := range zstdSeeds(f) {
		var h zstd.Header
		if h.Decode(s) != nil {
			continue
		}
		f.Add(binary.LittleEndian.AppendUint32(nil, uint32(h.FrameContentSize)), s)
	}
	var d zstdDecoder
	ref, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(1<<30),
		zstd.WithDecoderMaxWindow(MaxFrameUncompressed))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, size []byte, frame []byte) {
		if len(size) < 4 {
			return
		}
		n := int(binary.LittleEndian.Uint32(size) % (1 << 20))
		got := make([]byte, n)
		err := d.decode(got, frame)
		if errors.Is(err, errZSTDFallback) {
			return
		}
		want, rerr := ref.DecodeAll(frame, make([]byte, 0, n))
		if err == nil && (rerr != nil || !bytes.Equal(got, want)) {
			t.Fatalf("decoded %d bytes; klauspost: %d bytes, %v, equal %v", n, len(want), rerr, bytes.Equal(got, want))
		}
		if err != nil {
			var ze *ZSTDError
			if !errors.As(err, &ze) {
				t.Fatalf("error %v is not a *ZSTDError", err)
			}
		}
	})
}

// BenchmarkZSTDFrames decodes ClickHouse 26.7's own ZSTD frames (testdata/zstd, level 1, the
// codec's default) with klauspost's DecodeAll (what ch-go and clickhouse-go run), with
// zstdDecoder alone, and with zstdFrames, the two as the FrameReader chooses between them.
// SetBytes is the decompressed size.
func BenchmarkZSTDFrames(b *testing.B) {
	for _, name := range []string{"numbers", "usf", "text"} {
		payloads, sizes := methodFrames(b, "zstd", name)
		total := 0
		outs := make([][]byte, len(sizes))
		for i, n := range sizes {
			outs[i] = make([]byte, n)
			total += n
		}
		zd, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
		var d zstdDecoder
		var z zstdFrames
		for _, arm := range []struct {
			name string
			fn   func(dst, src []byte) error
		}{
			{"klauspost", func(dst, src []byte) error {
				res, err := zd.DecodeAll(src, dst[:0])
				if err == nil && len(res) != len(dst) {
					err = fmt.Errorf("%d bytes", len(res))
				}
				return err
			}},
			{"zstdDecoder", d.decode},
			{"zstdFrames", func(dst, src []byte) error { return z.decode(src, dst) }},
		} {
			b.Run(name+"/"+arm.name, func(b *testing.B) {
				b.SetBytes(int64(total))
				for b.Loop() {
					for i, p := range payloads {
						if err := arm.fn(outs[i], p); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		}
	}
}

// TestZSTDFramesChoice: zstdFrames keeps the integer frames on zstdDecoder and gives the
// mixed ones (text and floats besides integers) to klauspost's decoder for zstdGeneralRun
// frames, then measures one again; every frame decodes the same either way.
func TestZSTDFramesChoice(t *testing.T) {
	for _, c := range []struct {
		name string
		skip int
	}{{"numbers", 0}, {"usf", zstdGeneralRun}} {
		payloads, sizes := methodFrames(t, "zstd", c.name)
		big := 0
		for i := range sizes {
			if sizes[i] > sizes[big] {
				big = i
			}
		}
		want, err := zstdRef(t, payloads[big], sizes[big])
		if err != nil {
			t.Fatal(err)
		}
		var z zstdFrames
		for round := range zstdGeneralRun + 2 {
			got := make([]byte, sizes[big])
			if err := z.decode(payloads[big], got); err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s round %d: %v, equal %v", c.name, round, err, bytes.Equal(got, want))
			}
			wantSkip := 0
			if c.skip > 0 { // measured in rounds 0 and skip+1, given away in between
				wantSkip = c.skip
				if r := round % (c.skip + 1); r != 0 {
					wantSkip = c.skip - r
				}
			}
			if z.skip != wantSkip {
				t.Fatalf("%s round %d: skip %d, want %d (%d of %d sequences of the integer shape)",
					c.name, round, z.skip, wantSkip, z.fast.intSeqs, z.fast.seqs)
			}
		}
	}
}

// TestZSTDHandmadeFrames: parts of the format no encoder here writes (RLE literals, RLE and raw
// blocks, a frame content size of 2 bytes) decode as klauspost's decoder decodes them.
func TestZSTDHandmadeFrames(t *testing.T) {
	frame := func(fcs []byte, blocks ...[]byte) []byte {
		f := []byte{0x28, 0xb5, 0x2f, 0xfd}
		switch len(fcs) {
		case 1:
			f = append(f, 0x20) // single segment, 1-byte content size
		case 2:
			f = append(f, 0x60) // single segment, 2-byte content size (+256)
		}
		f = append(f, fcs...)
		for i, b := range blocks {
			if i == len(blocks)-1 {
				b[0] |= 1 // last block
			}
			f = append(f, b...)
		}
		return f
	}
	block := func(typ, size int, body ...byte) []byte {
		h := uint32(size)<<3 | uint32(typ)<<1
		return append([]byte{byte(h), byte(h >> 8), byte(h >> 16)}, body...)
	}
	for _, c := range []struct {
		name  string
		frame []byte
		size  int
	}{
		// A compressed block of 20 RLE literals 'x' (1-byte header: size<<3 | RLE) and no sequences.
		{"RLE literals", frame([]byte{20}, block(2, 3, 20<<3|1, 'x', 0)), 20},
		{"raw then RLE block", frame([]byte{7}, block(0, 4, 'a', 'b', 'c', 'd'), block(1, 3, 'z')), 7},
		{"2-byte content size", frame([]byte{44, 0}, block(1, 300, '-')), 300},
		{"empty raw block last", frame([]byte{3}, block(0, 3, 'a', 'b', 'c'), block(0, 0)), 3},
	} {
		want, err := zstdRef(t, c.frame, c.size)
		if err != nil || len(want) != c.size {
			t.Fatalf("%s: klauspost: %d bytes, %v", c.name, len(want), err)
		}
		var d zstdDecoder
		got := make([]byte, c.size)
		if err := d.decode(got, c.frame); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: %v, %q, want %q", c.name, err, got, want)
		}
	}
}

// TestZSTDCorrupt: every cut and every changed byte of valid frames either fails with a
// *ZSTDError or decodes to what klauspost's decoder makes of it, and nothing panics.
func TestZSTDCorrupt(t *testing.T) {
	ref, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(MaxFrameUncompressed))
	if err != nil {
		t.Fatal(err)
	}
	var d zstdDecoder
	check := func(what string, frame []byte, size int) {
		got := make([]byte, size)
		err := d.decode(got, frame)
		if errors.Is(err, errZSTDFallback) {
			return
		}
		if err != nil {
			var ze *ZSTDError
			if !errors.As(err, &ze) {
				t.Fatalf("%s: error %v is not a *ZSTDError", what, err)
			}
			return
		}
		if want, rerr := ref.DecodeAll(frame, nil); rerr != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: decoded %d bytes; klauspost: %d bytes, %v", what, size, len(want), rerr)
		}
	}
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderCRC(false), zstd.WithEncoderLevel(zstd.SpeedFastest))
	in := zstdInputs()
	for _, name := range []string{"small text", "small mixed", "one literal byte"} {
		f := enc.EncodeAll(in[name], nil)
		size := len(in[name])
		for n := range len(f) {
			check(fmt.Sprintf("%s cut to %d", name, n), f[:n], size)
		}
		for i := range f {
			for _, x := range []byte{0x01, 0x80, 0xff} {
				g := bytes.Clone(f)
				g[i] ^= x
				check(fmt.Sprintf("%s byte %d ^ %#x", name, i, x), g, size)
			}
		}
	}
}
