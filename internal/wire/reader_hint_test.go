package wire

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

// hintRecorder is a ReadHinter source that records its hints and, for each Read that follows
// a hint, whether it asked for exactly the hinted bytes.
type hintRecorder struct {
	r      io.Reader
	hints  []int
	misfit int // Reads after a hint n > 0 whose slice was not n bytes long
}

func (h *hintRecorder) HintRead(n int) { h.hints = append(h.hints, n) }

func (h *hintRecorder) Read(p []byte) (int, error) {
	if k := len(h.hints); k > 0 && h.hints[k-1] > 0 && len(p) != h.hints[k-1] {
		h.misfit++
	}
	return h.r.Read(p)
}

// A large ReadFull hints before every Read the bytes still missing, never more, and ends with
// a hint of 0; small reads are not hinted.
func TestReadFullHints(t *testing.T) {
	data := make([]byte, 3*hintMin+100)
	for i := range data {
		data[i] = byte(i * 7)
	}
	src := &hintRecorder{r: iotest.HalfReader(bytes.NewReader(data))}
	r := NewReader(src)
	small := make([]byte, 100)
	if err := r.ReadFull(small); err != nil {
		t.Fatal(err)
	}
	if len(src.hints) != 0 {
		t.Fatalf("a 100-byte read was hinted: %v", src.hints)
	}
	big := make([]byte, len(data)-100)
	if err := r.ReadFull(big); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(small, data[:100]) || !bytes.Equal(big, data[100:]) {
		t.Fatal("data read differs from data sent")
	}
	h := src.hints
	if src.misfit != 0 {
		t.Fatalf("%d Reads asked for other than the bytes hinted", src.misfit)
	}
	if len(h) < 3 || h[len(h)-1] != 0 {
		t.Fatalf("hints %v: want several, the last 0", h)
	}
	// Each hint is what was missing: the buffered prefix is taken first, then HalfReader's
	// halves; the hints strictly shrink and never exceed the read.
	for i := 1; i < len(h)-1; i++ {
		if h[i] >= h[i-1] {
			t.Fatalf("hints %v do not shrink at %d", h, i)
		}
	}
	if h[0] > len(big) {
		t.Fatalf("first hint %d is more than the read's %d bytes", h[0], len(big))
	}
	if r.Offset() != int64(len(data)) {
		t.Fatalf("Offset %d, want %d", r.Offset(), len(data))
	}
}

// A hinted read keeps ReadFull's ends: io.EOF with nothing read, io.ErrUnexpectedEOF inside,
// and the hint is ended either way.
func TestReadFullHintsEOF(t *testing.T) {
	src := &hintRecorder{r: bytes.NewReader(nil)}
	if err := NewReader(src).ReadFull(make([]byte, hintMin)); err != io.EOF {
		t.Fatalf("empty source: %v, want io.EOF", err)
	}
	if h := src.hints; len(h) != 2 || h[0] != hintMin || h[1] != 0 {
		t.Fatalf("hints %v, want [%d 0]", h, hintMin)
	}
	src = &hintRecorder{r: bytes.NewReader(make([]byte, hintMin+5))}
	err := NewReader(src).ReadFull(make([]byte, 2*hintMin))
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("short source: %v, want io.ErrUnexpectedEOF", err)
	}
	if h := src.hints; h[len(h)-1] != 0 {
		t.Fatalf("hints %v do not end with 0", h)
	}
}
