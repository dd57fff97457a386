package nativeproto

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/chnative/chnative/internal/testenv"
	"github.com/pierrec/lz4/v4"
)

// rawFrameHeader builds checksum (zero) + header, with no payload.
func rawFrameHeader(m Method, csize, usize uint32) []byte {
	h := make([]byte, frameOverhead)
	h[16] = byte(m)
	binary.LittleEndian.PutUint32(h[17:21], csize)
	binary.LittleEndian.PutUint32(h[21:25], usize)
	return h
}

func TestHeaderLimits(t *testing.T) {
	payload := bytes.Repeat([]byte{1}, 100)
	cases := []struct {
		name   string
		stream []byte
		reason string
	}{
		{"usize 4GiB", rawFrameHeader(MethodLZ4, 1000, 0xFFFFFFFF), "uncompressed_size 4294967295 exceeds"},
		{"usize over cap", rawFrameHeader(MethodZSTD, 1000, MaxFrameUncompressed+1), "exceeds the limit"},
		{"csize 4GiB", rawFrameHeader(MethodLZ4, 0xFFFFFFFF, 100), "compressed_size 4294967295 exceeds"},
		{"csize over cap", rawFrameHeader(MethodNone, MaxFrameSize+1, MaxFrameSize+1-9), "compressed_size"},
		{"csize < 9", rawFrameHeader(MethodLZ4, 8, 100), "less than the header size"},
		{"usize 0", rawFrameHeader(MethodLZ4, 100, 0), "uncompressed_size is 0"},
		{"unknown method", rawFrameHeader(0x95, 100, 100), "unknown compression method byte 0x95"},
		{"NONE size mismatch", rawFrameHeader(MethodNone, 109, 101), "differs from payload length"},
		{"LZ4 ratio", rawFrameHeader(MethodLZ4, 9+10, MaxFrameUncompressed), "impossible for an LZ4 payload"},
		{"ZSTD ratio", rawFrameHeader(MethodZSTD, 9+10, MaxFrameUncompressed), "impossible for a ZSTD payload"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// Stream has plenty of payload bytes after the header; none must be read.
			src := &frameCountingReader{r: bytes.NewReader(append(tc.stream, payload...))}
			var err error
			grew := testenv.AllocatedBy(func() {
				_, err = NewFrameReader(src).Read(make([]byte, 10))
			})
			var fe *FrameError
			if !errors.As(err, &fe) || !strings.Contains(fe.Reason, tc.reason) {
				t.Fatalf("err %v, want FrameError with %q", err, tc.reason)
			}
			if src.n != frameOverhead {
				t.Errorf("consumed %d bytes, want only the %d-byte header", src.n, frameOverhead)
			}
			if grew > 1<<20 {
				t.Errorf("allocated %d bytes", grew)
			}
		})
	}
}

// A large but legal declared compressed size on a short stream must not
// allocate the declared size.
func TestShortStreamLargeDeclared(t *testing.T) {
	stream := append(rawFrameHeader(MethodLZ4, MaxFrameSize, MaxFrameSize), make([]byte, 1000)...)
	var err error
	grew := testenv.AllocatedBy(func() {
		_, err = NewFrameReader(bytes.NewReader(stream)).Read(make([]byte, 10))
	})
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err %v", err)
	}
	if grew > 1<<20 {
		t.Errorf("allocated %d bytes for a 1 KB stream", grew)
	}
}

func TestDecompressedSizeMismatch(t *testing.T) {
	data := frameTestData("text", 5000)
	lz := make([]byte, lz4.CompressBlockBound(len(data)))
	n, err := lz4.CompressBlock(data, lz, nil)
	if err != nil {
		t.Fatal(err)
	}
	lz = lz[:n]
	zs := mustCompressFrames(t, data, MethodZSTD, 0)[frameOverhead:]
	for _, tc := range []struct {
		m       Method
		payload []byte
		usize   uint32
	}{
		{MethodLZ4, lz, 4999}, {MethodLZ4, lz, 5001}, {MethodLZ4, lz, 100},
		{MethodZSTD, zs, 4999}, {MethodZSTD, zs, 5001},
		{MethodZSTD, []byte("not a zstd frame at all"), 100},
		{MethodLZ4, []byte{0xff, 0xff, 0xff}, 100},
	} {
		f := makeFrame(tc.m, tc.usize, tc.payload)
		_, err := io.ReadAll(NewFrameReader(bytes.NewReader(f)))
		var fe *FrameError
		if !errors.As(err, &fe) {
			t.Errorf("%v usize %d: %v, want FrameError", tc.m, tc.usize, err)
		}
	}
	// Correct declared sizes decode.
	for _, f := range [][]byte{makeFrame(MethodLZ4, 5000, lz), makeFrame(MethodZSTD, 5000, zs)} {
		got, err := io.ReadAll(NewFrameReader(bytes.NewReader(f)))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("valid frame: %v", err)
		}
	}
}

// frameErrReader fails with a non-EOF error after n bytes.
type frameErrReader struct {
	r   io.Reader
	n   int
	err error
}

func (e *frameErrReader) Read(p []byte) (int, error) {
	if e.n == 0 {
		return 0, e.err
	}
	p = p[:min(len(p), e.n)]
	n, err := e.r.Read(p)
	e.n -= n
	return n, err
}

func TestSourceErrorPropagates(t *testing.T) {
	comp := mustCompressFrames(t, frameTestData("text", 1000), MethodLZ4, 0)
	boom := errors.New("boom")
	for _, cut := range []int{0, 5, 30} {
		r := NewFrameReader(&frameErrReader{r: bytes.NewReader(comp), n: cut, err: boom})
		if _, err := r.Read(make([]byte, 1)); !errors.Is(err, boom) {
			t.Errorf("cut %d: %v", cut, err)
		}
	}
}

// SetFrameLimit (the PacketReader's block budget) refuses a frame that announces more than it
// before its payload is read: a server cannot make a connection hold a 64 MiB frame under a
// smaller block_memory_limit. Frames within it read as before, by every method.
func TestFrameLimit(t *testing.T) {
	for _, m := range allFrameMethods {
		small, big := frameTestData("random", 4000), frameTestData("random", 6000)
		var frames [][]byte
		for _, data := range [][]byte{small, big} {
			comp, err := NewCompressor(m, 0)
			if err != nil {
				t.Fatal(err)
			}
			f, err := comp.appendFrame(nil, data)
			if err != nil {
				t.Fatal(err)
			}
			frames = append(frames, f)
		}
		r := NewFrameReader(bytes.NewReader(frames[0]))
		r.SetFrameLimit(5000)
		if got, err := io.ReadAll(r); err != nil || !bytes.Equal(got, small) {
			t.Fatalf("%v: a frame within the limit: %d bytes, %v", m, len(got), err)
		}
		src := &frameCountingReader{r: bytes.NewReader(frames[1])}
		r = NewFrameReader(src)
		r.SetFrameLimit(5000)
		_, err := io.ReadAll(r)
		var fe *FrameError
		if !errors.As(err, &fe) || !strings.Contains(fe.Reason, "block_memory_limit") {
			t.Fatalf("%v: a frame past the limit: %v, want a *FrameError naming block_memory_limit", m, err)
		}
		if src.n != frameOverhead {
			t.Errorf("%v: consumed %d bytes, want only the header", m, src.n)
		}
		r.Reset(bytes.NewReader(frames[1]))
		r.SetFrameLimit(0) // the package's limits again
		if got, err := io.ReadAll(r); err != nil || !bytes.Equal(got, big) {
			t.Fatalf("%v: with no limit: %d bytes, %v", m, len(got), err)
		}
	}
	p := NewPacketReader(bytes.NewReader(nil))
	if p.SetBlockMemoryLimit(5000); p.frames.limit != 5000 {
		t.Errorf("block_memory_limit 5000 limits frames to %d", p.frames.limit)
	}
	if p.SetBlockMemoryLimit(0); p.frames.limit != 0 {
		t.Errorf("the default block_memory_limit (1 GiB) limits frames to %d, want MaxFrameUncompressed", p.frames.limit)
	}
}
