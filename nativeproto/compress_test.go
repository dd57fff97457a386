package nativeproto

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pierrec/lz4/v4"
)

var allFrameMethods = []Method{MethodNone, MethodLZ4, MethodZSTD}

// makeFrame builds a frame with a correct checksum around an arbitrary payload.
func makeFrame(m Method, usize uint32, payload []byte) []byte {
	f := make([]byte, frameOverhead+len(payload))
	f[16] = byte(m)
	binary.LittleEndian.PutUint32(f[17:21], uint32(FrameHeaderSize+len(payload)))
	binary.LittleEndian.PutUint32(f[21:25], usize)
	copy(f[frameOverhead:], payload)
	sum := frameChecksum(f[16:])
	copy(f[:16], sum[:])
	return f
}

func frameTestData(kind string, n int) []byte {
	b := make([]byte, n)
	switch kind {
	case "random":
		r := rand.New(rand.NewPCG(uint64(n), 1))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
	default: // compressible: repetitive text with some variation
		for i := 0; i < n; {
			i += copy(b[i:], fmt.Sprintf("row %d value %d;", i%977, (i/7)%13))
		}
	}
	return b
}

func mustCompressFrames(t testing.TB, data []byte, m Method, level int) []byte {
	t.Helper()
	out, err := AppendCompressed(nil, data, m, level)
	if err != nil {
		t.Fatalf("AppendCompressed(%v, %d): %v", m, level, err)
	}
	return out
}

// countFrames walks frame headers without decompressing.
func countFrames(t *testing.T, b []byte) int {
	t.Helper()
	n := 0
	for len(b) > 0 {
		if len(b) < frameOverhead {
			t.Fatalf("trailing %d bytes", len(b))
		}
		cs := binary.LittleEndian.Uint32(b[17:21])
		us := binary.LittleEndian.Uint32(b[21:25])
		if us > FrameChunk {
			t.Fatalf("frame %d holds %d uncompressed bytes", n, us)
		}
		b = b[FrameChecksumSize+int(cs):]
		n++
	}
	return n
}

func TestMethodString(t *testing.T) {
	for m, want := range map[Method]string{MethodNone: "NONE", MethodLZ4: "LZ4", MethodZSTD: "ZSTD", 0x91: "Method(0x91)"} {
		if got := m.String(); got != want {
			t.Errorf("%#x: %q, want %q", byte(m), got, want)
		}
	}
}

// TestGoldenLZ4: ch-go's golden LZ4 frame of "Hello!\n"x25 (its header; its payload is
// pierrec/lz4's block) has the checksum frameChecksum computes, and the Compressor's own frame of
// the same input is well formed, shorter (lz4Encoder finds the one match of offset 7 whole:
// 7 literals, a 163-byte match, 5 literals) and reads back.
func TestGoldenLZ4(t *testing.T) {
	data := []byte(strings.Repeat("Hello!\n", 25))
	goldHdr, _ := hex.DecodeString("c5bcbc07c11ec471fd74af8d5b0f00c5" + "82" + "26000000" + "af000000")
	payload := make([]byte, lz4.CompressBlockBound(len(data)))
	var pc lz4.Compressor
	n, err := pc.CompressBlock(data, payload)
	if err != nil || n != 29 {
		t.Fatalf("pierrec: %d bytes, %v; want 29", n, err)
	}
	gold := append(append([]byte(nil), goldHdr...), payload[:n]...)
	if got := frameChecksum(gold[16:]); !bytes.Equal(got[:], goldHdr[:16]) {
		t.Fatalf("checksum %x, want %x", got, goldHdr[:16])
	}
	if got, err := io.ReadAll(NewFrameReader(bytes.NewReader(gold))); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("golden frame read %q, %v", got, err)
	}

	out := mustCompressFrames(t, data, MethodLZ4, 0)
	want, _ := hex.DecodeString("7f48656c6c6f210a070090506c6c6f210a")
	if out[16] != 0x82 || binary.LittleEndian.Uint32(out[17:21]) != uint32(9+len(want)) ||
		binary.LittleEndian.Uint32(out[21:25]) != uint32(len(data)) || !bytes.Equal(out[25:], want) {
		t.Fatalf("frame %x, want method 82, sizes %d and %d, payload %x", out, 9+len(want), len(data), want)
	}
	if got := frameChecksum(out[16:]); !bytes.Equal(got[:], out[:16]) {
		t.Fatalf("checksum %x, frame has %x", got, out[:16])
	}
	if got, err := io.ReadAll(NewFrameReader(bytes.NewReader(out))); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read %q, %v", got, err)
	}

	none := mustCompressFrames(t, data, MethodNone, 0)
	if h := hex.EncodeToString(none[16:25]); h != "02b8000000af000000" {
		t.Errorf("NONE header %s", h)
	}
	z := mustCompressFrames(t, data, MethodZSTD, 0)
	if z[16] != 0x90 || !bytes.Equal(z[25:29], []byte{0x28, 0xb5, 0x2f, 0xfd}) {
		t.Errorf("ZSTD frame starts %x", z[:29])
	}
}

// frameOneByteReader returns at most one byte per Read from the underlying reader.
type frameOneByteReader struct{ r io.Reader }

func (o frameOneByteReader) Read(p []byte) (int, error) {
	if len(p) > 1 {
		p = p[:1]
	}
	return o.r.Read(p)
}

func TestRoundTrip(t *testing.T) {
	sizes := []int{0, 1, 1000, 1 << 20, 3<<20 + 1<<19}
	for _, m := range allFrameMethods {
		for _, level := range []int{0, 1} {
			if m == MethodNone && level != 0 {
				continue
			}
			for _, kind := range []string{"random", "text"} {
				for _, n := range sizes {
					t.Run(fmt.Sprintf("%v/L%d/%s/%d", m, level, kind, n), func(t *testing.T) {
						data := frameTestData(kind, n)
						comp := mustCompressFrames(t, data, m, level)
						if want := (n + FrameChunk - 1) / FrameChunk; countFrames(t, comp) != want {
							t.Fatalf("frames %d, want %d", countFrames(t, comp), want)
						}
						got, err := io.ReadAll(NewFrameReader(bytes.NewReader(comp)))
						if err != nil || !bytes.Equal(got, data) {
							t.Fatalf("ReadAll: len %d err %v", len(got), err)
						}
						// 1-byte reads from a 1-byte source.
						r := NewFrameReader(frameOneByteReader{bytes.NewReader(comp)})
						var buf [1]byte
						got = got[:0]
						for {
							k, err := r.Read(buf[:])
							got = append(got, buf[:k]...)
							if err == io.EOF {
								break
							}
							if err != nil {
								t.Fatal(err)
							}
						}
						if !bytes.Equal(got, data) {
							t.Fatalf("1-byte reads: got %d bytes", len(got))
						}
					})
				}
			}
		}
	}
}

func TestCompressorReuse(t *testing.T) {
	data := frameTestData("text", 100_000)
	for _, m := range allFrameMethods {
		c, err := NewCompressor(m, 0)
		if err != nil {
			t.Fatal(err)
		}
		if c.Method() != m {
			t.Fatal(c.Method())
		}
		dst := make([]byte, 0, 1<<20)
		allocs := testing.AllocsPerRun(20, func() {
			if _, err := c.Append(dst[:0], data); err != nil {
				t.Fatal(err)
			}
		})
		if allocs > 0 && !raceEnabled {
			t.Errorf("%v: Compressor.Append allocates %.1f times per call", m, allocs)
		}
		comp, _ := c.Append(nil, data)
		r := NewFrameReader(bytes.NewReader(comp))
		out := make([]byte, len(data))
		if _, err := io.ReadFull(r, out); err != nil {
			t.Fatal(err)
		}
		src := bytes.NewReader(comp)
		allocs = testing.AllocsPerRun(20, func() {
			src.Reset(comp)
			r.Reset(src)
			if _, err := io.ReadFull(r, out); err != nil {
				t.Fatal(err)
			}
		})
		if allocs > 0 && !raceEnabled {
			t.Errorf("%v: FrameReader allocates %.1f times per frame after warm-up", m, allocs)
		}
		if !bytes.Equal(out, data) {
			t.Fatal("mismatch")
		}
	}
}

func TestCompressorErrors(t *testing.T) {
	for _, tc := range []struct {
		m     Method
		level int
	}{{0x91, 0}, {0, 0}, {MethodLZ4, -1}, {MethodLZ4, MaxLZ4Level + 1}, {MethodZSTD, -1}} {
		if _, err := NewCompressor(tc.m, tc.level); err == nil {
			t.Errorf("NewCompressor(%#x, %d): no error", byte(tc.m), tc.level)
		}
		if _, err := AppendCompressed(nil, []byte("x"), tc.m, tc.level); err == nil {
			t.Errorf("AppendCompressed(%#x, %d): no error", byte(tc.m), tc.level)
		}
	}
	out, err := AppendCompressed([]byte("prefix"), nil, MethodLZ4, 0)
	if err != nil || string(out) != "prefix" {
		t.Errorf("empty data: %q %v", out, err)
	}
}

func TestMixedMethodsAndLevels(t *testing.T) {
	var stream, want []byte
	for i, m := range []Method{MethodLZ4, MethodNone, MethodZSTD, MethodLZ4, MethodZSTD} {
		d := frameTestData("text", 5000+i*333)
		var err error
		stream, err = AppendCompressed(stream, d, m, i%3*3)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, d...)
	}
	got, err := io.ReadAll(NewFrameReader(bytes.NewReader(stream)))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("len %d err %v", len(got), err)
	}
}

// frameCountingReader counts bytes consumed from the underlying reader.
type frameCountingReader struct {
	r io.Reader
	n int
}

func (c *frameCountingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func TestNoReadAhead(t *testing.T) {
	for _, m := range allFrameMethods {
		d1, d2 := frameTestData("text", 3000), frameTestData("random", 2000)
		f1 := mustCompressFrames(t, d1, m, 0)
		f2 := mustCompressFrames(t, d2, m, 0)
		trailer := []byte("raw packet bytes")
		stream := append(append(append([]byte(nil), f1...), f2...), trailer...)
		src := &frameCountingReader{r: bytes.NewReader(stream)}
		r := NewFrameReader(src)
		if src.n != 0 || r.Buffered() != 0 {
			t.Fatal("constructor read")
		}
		head := make([]byte, 10)
		if _, err := io.ReadFull(r, head); err != nil {
			t.Fatal(err)
		}
		if src.n != len(f1) {
			t.Fatalf("%v: consumed %d after first read, frame is %d", m, src.n, len(f1))
		}
		if r.Buffered() != len(d1)-10 {
			t.Fatalf("Buffered %d", r.Buffered())
		}
		rest := make([]byte, len(d1)-10)
		if _, err := io.ReadFull(r, rest); err != nil {
			t.Fatal(err)
		}
		if src.n != len(f1) || r.Buffered() != 0 {
			t.Fatalf("%v: consumed %d after frame 1, frame is %d", m, src.n, len(f1))
		}
		got2 := make([]byte, len(d2))
		if _, err := io.ReadFull(r, got2); err != nil {
			t.Fatal(err)
		}
		if src.n != len(f1)+len(f2) || !bytes.Equal(got2, d2) {
			t.Fatalf("%v: consumed %d after frame 2, want %d", m, src.n, len(f1)+len(f2))
		}
		raw, _ := io.ReadAll(src)
		if !bytes.Equal(raw, trailer) {
			t.Fatalf("%v: raw stream continues with %q", m, raw)
		}
	}
}

func isFrameOrChecksumErr(err error) bool {
	var fe *FrameError
	var ce *ChecksumError
	return errors.As(err, &fe) || errors.As(err, &ce)
}

func TestBitFlip(t *testing.T) {
	for _, m := range allFrameMethods {
		data := frameTestData("text", 700)
		comp := mustCompressFrames(t, data, m, 0)
		mut := make([]byte, len(comp))
		for i := range comp {
			for bit := range 8 {
				copy(mut, comp)
				mut[i] ^= 1 << bit
				got, err := io.ReadAll(NewFrameReader(bytes.NewReader(mut)))
				if err == nil {
					t.Fatalf("%v: flip byte %d bit %d: no error (got %d bytes)", m, i, bit, len(got))
				}
				if !isFrameOrChecksumErr(err) {
					t.Fatalf("%v: flip byte %d bit %d: unexpected error type %T: %v", m, i, bit, err, err)
				}
				var ce *ChecksumError
				if i >= frameOverhead && !errors.As(err, &ce) {
					t.Fatalf("%v: flip in payload byte %d: %v, want ChecksumError", m, i, err)
				}
			}
		}
	}
}

func TestTruncation(t *testing.T) {
	for _, m := range allFrameMethods {
		d1, d2 := frameTestData("text", 400), frameTestData("random", 300)
		f1 := mustCompressFrames(t, d1, m, 0)
		stream := append(append([]byte(nil), f1...), mustCompressFrames(t, d2, m, 0)...)
		for cut := 0; cut < len(stream); cut++ {
			got, err := io.ReadAll(NewFrameReader(bytes.NewReader(stream[:cut])))
			switch cut {
			case 0:
				if err != nil || len(got) != 0 {
					t.Fatalf("%v: empty stream: %d bytes, %v", m, len(got), err)
				}
				continue
			case len(f1):
				if err != nil || !bytes.Equal(got, d1) {
					t.Fatalf("%v: cut at frame boundary: %d bytes, %v", m, len(got), err)
				}
				continue
			}
			var fe *FrameError
			if !errors.Is(err, io.ErrUnexpectedEOF) || !errors.As(err, &fe) {
				t.Fatalf("%v: cut at %d: %v", m, cut, err)
			}
		}
	}
}

func TestStickyErrorAndReset(t *testing.T) {
	good := mustCompressFrames(t, []byte("hello"), MethodLZ4, 0)
	bad := append([]byte(nil), good...)
	bad[0] ^= 1
	r := NewFrameReader(bytes.NewReader(append(bad, good...)))
	var ce *ChecksumError
	if _, err := r.Read(make([]byte, 5)); !errors.As(err, &ce) {
		t.Fatalf("want ChecksumError, got %v", err)
	}
	if ce.Want == ce.Got || !strings.Contains(ce.Error(), "checksum") {
		t.Fatalf("bad ChecksumError %+v", ce)
	}
	if _, err := r.Read(make([]byte, 5)); !errors.As(err, &ce) {
		t.Fatalf("error not sticky: %v", err)
	}
	r.Reset(bytes.NewReader(good))
	if b, err := io.ReadAll(r); err != nil || string(b) != "hello" {
		t.Fatalf("after Reset: %q %v", b, err)
	}
	if _, err := r.ReadByte(); err != io.EOF {
		t.Fatalf("ReadByte at end: %v", err)
	}
}

func TestReadByte(t *testing.T) {
	data := frameTestData("text", 3000)
	comp := append(mustCompressFrames(t, data[:1000], MethodZSTD, 0), mustCompressFrames(t, data[1000:], MethodLZ4, 0)...)
	r := NewFrameReader(bytes.NewReader(comp))
	for i := range data {
		b, err := r.ReadByte()
		if err != nil || b != data[i] {
			t.Fatalf("byte %d: %v", i, err)
		}
	}
	if _, err := r.ReadByte(); err != io.EOF {
		t.Fatal(err)
	}
}

// Reads into buffers larger than a frame decompress straight into them; reads of every size in
// between must give the same bytes, whatever mixes the direct and the buffered path.
func TestFrameReaderDirect(t *testing.T) {
	for _, m := range allFrameMethods {
		data := frameTestData("text", 3*FrameChunk+12345)
		comp := mustCompressFrames(t, data, m, 0)
		for _, size := range []int{1, 4096, FrameChunk - 1, FrameChunk, FrameChunk + 7, 2*FrameChunk + 1, len(data)} {
			r := NewFrameReader(bytes.NewReader(comp))
			got := make([]byte, 0, len(data))
			buf := make([]byte, size)
			for {
				n, err := r.Read(buf)
				got = append(got, buf[:n]...)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("%v size %d: %v", m, size, err)
				}
			}
			if !bytes.Equal(got, data) {
				t.Fatalf("%v size %d: read %d bytes, differ from the %d written", m, size, len(got), len(data))
			}
		}
	}
}
