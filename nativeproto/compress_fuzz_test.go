package nativeproto

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"
)

func FuzzFrameReader(f *testing.F) {
	hello := []byte(strings.Repeat("Hello!\n", 25))
	for _, m := range allFrameMethods {
		for _, d := range [][]byte{hello, frameTestData("text", 3000), frameTestData("random", 200), {0}} {
			b, err := AppendCompressed(nil, d, m, 0)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
			f.Add(append(b, b...))
		}
	}
	f.Add([]byte{})
	f.Add([]byte("garbage that is not a frame at all, long enough for a header"))
	f.Add(rawFrameHeader(MethodLZ4, 0xFFFFFFFF, 0xFFFFFFFF))
	f.Add(makeFrame(MethodZSTD, 1000, []byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0}))
	f.Add(makeFrame(MethodLZ4, 1000, []byte{0xf0, 0xff, 0xff, 0xff}))

	f.Fuzz(func(t *testing.T, in []byte) {
		checkFrameReader(t, in)
		// Also feed the decompressors arbitrary payloads: fix up the checksum
		// of the first frame so that it passes verification.
		if len(in) >= frameOverhead {
			csize := int(binary.LittleEndian.Uint32(in[17:21]))
			if csize >= FrameHeaderSize && csize <= len(in)-FrameChecksumSize {
				fixed := append([]byte(nil), in...)
				sum := frameChecksum(fixed[16 : 16+csize])
				copy(fixed, sum[:])
				checkFrameReader(t, fixed)
			}
		}
	})
}

// checkFrameReader reads in to the end and checks the invariants.
func checkFrameReader(t *testing.T, in []byte) {
	t.Helper()
	src := &frameCountingReader{r: bytes.NewReader(in)}
	r := NewFrameReader(src)
	buf := make([]byte, 4096)
	total := 0
	for {
		n, err := r.Read(buf)
		total += n
		if n > len(buf) || r.Buffered() < 0 {
			t.Fatalf("bad counts n=%d buffered=%d", n, r.Buffered())
		}
		if err == io.EOF {
			if src.n != len(in) {
				t.Fatalf("EOF after consuming %d of %d bytes", src.n, len(in))
			}
			break
		}
		if err != nil {
			var fe *FrameError
			var ce *ChecksumError
			if !errors.As(err, &fe) && !errors.As(err, &ce) {
				t.Fatalf("unexpected error type %T: %v", err, err)
			}
			break
		}
	}
	// Allocation bound: decompressed output per frame is limited by the
	// ratio caps, so the total cannot exceed 32K times the input.
	if total > len(in)*maxZSTDRatio {
		t.Fatalf("decoded %d bytes from %d input bytes", total, len(in))
	}
	// Valid input must re-encode and read back identically.
	if total > 0 {
		r.Reset(bytes.NewReader(in))
		got, err := io.ReadAll(r)
		if err == nil {
			re, err := AppendCompressed(nil, got, MethodLZ4, 0)
			if err != nil {
				t.Fatal(err)
			}
			back, err := io.ReadAll(NewFrameReader(bytes.NewReader(re)))
			if err != nil || !bytes.Equal(back, got) {
				t.Fatalf("re-encode round trip: %v", err)
			}
		}
	}
}
