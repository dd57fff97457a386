package nativeproto

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/pierrec/lz4/v4"
)

// lz4Seeds are LZ4 blocks of the shapes the decoder's paths take: short sequences (numbers),
// long literals and matches (text), overlapping matches (runs), and output ends inside a word.
func lz4Seeds(t testing.TB) [][]byte {
	var out [][]byte
	inputs := [][]byte{
		numbersBenchData()[:4096], lz4BenchData()[:50000], bytes.Repeat([]byte{7}, 1000),
		bytes.Repeat([]byte("abc"), 777), []byte("x"), frameTestData("random", 300),
		append(bytes.Repeat([]byte("0123456789"), 40), "tail"...),
		// Runs of the integer shape (lz4IntRun) after a match of another offset, and not
		// aligned to 8 bytes.
		append(append(append([]byte{}, numbersBenchData()[:2048]...), lz4BenchData()[:300]...), numbersBenchData()[2051:4096]...),
	}
	for _, in := range inputs {
		comp := make([]byte, lz4.CompressBlockBound(len(in)))
		var c lz4.Compressor
		n, err := c.CompressBlock(in, comp)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 { // incompressible: one literal run
			comp = lz4LiteralRun(in)
			n = len(comp)
		}
		out = append(out, comp[:n])
	}
	return out
}

// lz4LiteralRun is the LZ4 block holding in as one literal run.
func lz4LiteralRun(in []byte) []byte {
	if len(in) < 15 {
		return append([]byte{byte(len(in) << 4)}, in...)
	}
	b := []byte{0xf0}
	n := len(in) - 15
	for ; n >= 255; n -= 255 {
		b = append(b, 255)
	}
	return append(append(b, byte(n)), in...)
}

// TestLZ4Decode: every seed decodes to what pierrec/lz4 decodes it to, and a cut or a too-short
// output is an error wrapping errLZ4Corrupt.
func TestLZ4Decode(t *testing.T) {
	for i, comp := range lz4Seeds(t) {
		want := make([]byte, MaxFrameUncompressed/64)
		n, err := lz4.UncompressBlock(comp, want)
		if err != nil {
			t.Fatalf("seed %d: pierrec: %v", i, err)
		}
		want = want[:n]
		got := make([]byte, n)
		if m, err := lz4Decode(comp, got); err != nil || m != n || !bytes.Equal(got, want) {
			t.Fatalf("seed %d: decoded %d bytes, err %v; want %d bytes equal to pierrec's", i, m, err, n)
		}
		if _, err := lz4Decode(comp, make([]byte, n+1)); !errors.Is(err, errLZ4Corrupt) {
			t.Errorf("seed %d: output one byte too long: err %v", i, err)
		}
		if n > 1 {
			if _, err := lz4Decode(comp, make([]byte, n-1)); !errors.Is(err, errLZ4Corrupt) {
				t.Errorf("seed %d: output one byte short: err %v", i, err)
			}
		}
		if len(comp) > 1 {
			if _, err := lz4Decode(comp[:len(comp)-1], make([]byte, n)); !errors.Is(err, errLZ4Corrupt) {
				t.Errorf("seed %d: input cut by one byte: err %v", i, err)
			}
		}
	}
}

// FuzzLZ4Decode: on any input and output size, lz4Decode does not panic; where it succeeds,
// the plain reference decoder (lz4RefDecode, one byte at a time) or pierrec/lz4 decodes the
// same bytes (the reference refuses a block that ends on a match, which pierrec accepts); and
// every block pierrec/lz4 decodes to exactly the output's size, lz4Decode decodes too, to the same
// bytes. (pierrec refuses a few blocks the reference accepts: a last token whose match nibble is
// not 0.)
func FuzzLZ4Decode(f *testing.F) {
	for _, s := range lz4Seeds(f) {
		f.Add(s, uint16(0))
	}
	f.Add([]byte{0x1f, 'a', 1, 0, 0xff, 0xff, 0x10, 'b'}, uint16(600))
	f.Fuzz(func(t *testing.T, comp []byte, size uint16) {
		ref := make([]byte, 1<<16)
		rn, rerr := lz4RefDecode(comp, ref)
		pier := make([]byte, 1<<16)
		pn, perr := lz4.UncompressBlock(comp, pier)
		n := int(size)
		if size == 0 && perr == nil {
			n = pn
		}
		if n == 0 {
			return // a frame declaring 0 bytes is refused before its payload is decoded
		}
		got := make([]byte, n)
		gn, err := lz4Decode(comp, got)
		if perr == nil && pn == n && (err != nil || !bytes.Equal(got, pier[:pn])) {
			t.Fatalf("pierrec decodes %d bytes; lz4Decode: %v, outputs equal: %v", pn, err, bytes.Equal(got, pier[:pn]))
		}
		if err != nil {
			if !errors.Is(err, errLZ4Corrupt) {
				t.Fatalf("error %v does not wrap errLZ4Corrupt", err)
			}
			return
		}
		refOK := rerr == nil && rn == n && bytes.Equal(got, ref[:rn])
		pierOK := perr == nil && pn == n && bytes.Equal(got, pier[:pn])
		if gn != n || !refOK && !pierOK {
			t.Fatalf("lz4Decode: %d bytes; reference: %d bytes, %v; pierrec: %d bytes, %v", gn, rn, rerr, pn, perr)
		}
	})
}

// serverFrames returns the LZ4 frames of testdata/lz4/name.frames (captured from ClickHouse
// 26.7 by testdata/lz4/gen.go): each frame's payload and its declared uncompressed size.
func serverFrames(t testing.TB, name string) (payloads [][]byte, sizes []int) {
	return methodFrames(t, "lz4", name)
}

// methodFrames is serverFrames for the frames of method (lz4, zstd) in testdata/method.
func methodFrames(t testing.TB, method, name string) (payloads [][]byte, sizes []int) {
	b, err := os.ReadFile("testdata/" + method + "/" + name + ".frames")
	if err != nil {
		t.Fatal(err)
	}
	for len(b) > 0 {
		if len(b) < frameOverhead {
			t.Fatalf("%s: %d bytes left, not a frame", name, len(b))
		}
		_, csize, usize := frameHeader(b)
		payloads = append(payloads, b[frameOverhead:FrameChecksumSize+csize])
		sizes = append(sizes, int(usize))
		b = b[FrameChecksumSize+csize:]
	}
	return payloads, sizes
}

// TestLZ4ServerFrames: the frames ClickHouse 26.7 sent decode the same with lz4Decode and
// pierrec/lz4.
func TestLZ4ServerFrames(t *testing.T) {
	for _, name := range []string{"numbers", "usf"} {
		payloads, sizes := serverFrames(t, name)
		for i, p := range payloads {
			want := make([]byte, sizes[i])
			if n, err := lz4.UncompressBlock(p, want); err != nil || n != sizes[i] {
				t.Fatalf("%s frame %d: pierrec: %d bytes, %v", name, i, n, err)
			}
			got := make([]byte, sizes[i])
			if n, err := lz4Decode(p, got); err != nil || n != sizes[i] || !bytes.Equal(got, want) {
				t.Fatalf("%s frame %d: lz4Decode: %d bytes, %v, equal %v", name, i, n, err, bytes.Equal(got, want))
			}
		}
	}
}

// BenchmarkLZ4Frames decodes ClickHouse 26.7's own frames (testdata/lz4: numbers, usf) and
// lz4Encoder's frames of the insert workload's 1M-row block (insert: what chnative sends, and
// what the benchmark suite's fake server answers with) with each LZ4 block decoder:
// pierrec/lz4 (assembly on amd64 and arm64; the decoder until lz4Decode measured faster) and
// chnative's lz4Decode (pure Go, the FrameReader's). SetBytes is the decompressed size.
func BenchmarkLZ4Frames(b *testing.B) {
	for _, name := range []string{"numbers", "usf", "insert"} {
		var payloads [][]byte
		var sizes []int
		if name == "insert" {
			payloads, sizes = encoderFrames(b, lz4InsertData())
		} else {
			payloads, sizes = serverFrames(b, name)
		}
		total := 0
		outs := make([][]byte, len(sizes))
		for i, n := range sizes {
			outs[i] = make([]byte, n)
			total += n
		}
		for _, d := range []struct {
			name string
			fn   func(src, dst []byte) (int, error)
		}{{"pierrec", lz4.UncompressBlock}, {"chnative", lz4Decode}} {
			b.Run(name+"/"+d.name, func(b *testing.B) {
				b.SetBytes(int64(total))
				for b.Loop() {
					for i, p := range payloads {
						if n, err := d.fn(p, outs[i]); err != nil || n != sizes[i] {
							b.Fatal(n, err)
						}
					}
				}
			})
		}
	}
}

// encoderFrames encodes data in FrameChunk pieces with lz4Encoder and returns each block and
// its decoded size, as serverFrames does.
func encoderFrames(t testing.TB, data []byte) (payloads [][]byte, sizes []int) {
	var e lz4Encoder
	for rest := data; len(rest) > 0; {
		chunk := rest[:min(len(rest), FrameChunk)]
		rest = rest[len(chunk):]
		dst := make([]byte, lz4CompressBound(len(chunk)))
		n, err := e.encode(chunk, dst)
		if err != nil {
			t.Fatal(err)
		}
		payloads = append(payloads, dst[:n])
		sizes = append(sizes, len(chunk))
	}
	return payloads, sizes
}
