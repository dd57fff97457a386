package wire

import (
	"bytes"
	"io"
	"testing"
	"testing/iotest"
)

// TestReaderOffset: Offset counts every consumed byte, whether it came through the buffer, a
// compaction, or straight from the source into a large ReadFull or Read.
func TestReaderOffset(t *testing.T) {
	data := make([]byte, 10_000)
	for i := range data {
		data[i] = byte(i)
	}
	r := NewReaderSize(iotest.HalfReader(bytes.NewReader(data)), 64)
	at := 0
	step := func(n int, read func() error) {
		t.Helper()
		if err := read(); err != nil {
			t.Fatal(err)
		}
		at += n
		if r.Offset() != int64(at) {
			t.Fatalf("after %d bytes Offset is %d", at, r.Offset())
		}
		if w := r.Window(); len(w) > 0 && w[0] != byte(at) {
			t.Fatalf("Window starts with %d at offset %d", w[0], at)
		}
	}
	step(1, func() error { _, err := r.Byte(); return err })
	step(8, func() error { _, err := r.Uint64(); return err })
	step(40, func() error { return r.Skip(40) })
	step(500, func() error { return r.ReadFull(make([]byte, 500)) }) // straight from the source
	step(3, func() error { _, err := r.Next(3); return err })
	p := make([]byte, 100)
	step(r.Buffered(), func() error { return r.Skip(r.Buffered()) })
	n, err := r.Read(p) // buffer empty, p larger than it: straight from the source
	if err != nil {
		t.Fatal(err)
	}
	step(n, func() error { return nil })
	r.Grow(4096)
	step(0, func() error { return nil })
	step(2000, func() error { return r.Skip(2000) })
	r.Reset(bytes.NewReader(data))
	at = 0
	step(0, func() error { return nil })
}

// TestReaderHold: the hold function runs before the buffer's bytes move (a compaction, Grow,
// Reset), so a slice of the Window taken before is intact until then; and a fill with room at
// the buffer's tail does not compact.
func TestReaderHold(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 1000)
	r := NewReaderSize(iotest.OneByteReader(bytes.NewReader(data)), 1024)
	var win, want []byte
	holds := 0
	r.SetHold(func() {
		holds++
		if !bytes.Equal(win, want) {
			t.Fatalf("hold %d: the window slice changed before hold", holds)
		}
		win, want = nil, nil
	})
	if _, err := r.Peek(100); err != nil {
		t.Fatal(err)
	}
	if holds != 0 {
		t.Fatalf("%d holds while filling an empty buffer", holds)
	}
	r.Skip(50)
	// 50 bytes buffered from offset 50; a Peek of 200 fills at the tail (room: 924 bytes).
	win = r.Window()[:40]
	want = bytes.Clone(win)
	if _, err := r.Peek(200); err != nil {
		t.Fatal(err)
	}
	if holds != 0 {
		t.Fatalf("%d holds for a fill with room at the tail", holds)
	}
	if !bytes.Equal(win, want) {
		t.Fatal("a fill at the tail changed buffered bytes")
	}
	// A Peek of 1000 from offset 50 does not fit after it: the buffer compacts, after hold.
	if _, err := r.Peek(1000); err != nil {
		t.Fatal(err)
	}
	if holds != 1 {
		t.Fatalf("%d holds for a compacting fill, want 1", holds)
	}
	win = r.Window()[:10]
	want = bytes.Clone(win)
	r.Grow(4096)
	win = r.Window()[:10]
	want = bytes.Clone(win)
	r.Reset(bytes.NewReader(data))
	if holds != 3 {
		t.Fatalf("%d holds after Grow and Reset, want 3", holds)
	}
	r.SetHold(nil)
	if _, err := io.ReadAll(r); err != nil {
		t.Fatal(err)
	}
}

// swapSource hands its Reader whole buffers (BufferSwapper): each holds "keep" then next.
type swapSource struct {
	chunks [][]byte
	taken  [][]byte // buffers given back by the Reader
}

func (s *swapSource) Read(p []byte) (int, error) { return 0, io.EOF }

func (s *swapSource) SwapBuffer(old, keep []byte) ([]byte, int, int, bool) {
	if len(s.chunks) == 0 {
		return nil, 0, 0, false
	}
	nb := make([]byte, len(old))
	start := 16 - len(keep)
	copy(nb[start:], keep)
	end := 16 + copy(nb[16:], s.chunks[0])
	s.chunks = s.chunks[1:]
	s.taken = append(s.taken, old)
	return nb, start, end, true
}

// TestReaderBufferSwapper: a Reader over a BufferSwapper takes its buffers instead of reading,
// keeps a value that spans two of them whole, and counts Offset across swaps.
func TestReaderBufferSwapper(t *testing.T) {
	src := &swapSource{chunks: [][]byte{{1, 0, 0, 0, 0, 0}, {0, 0, 2, 3}}}
	r := NewReaderSize(src, 64)
	v, err := r.Uint64() // 6 bytes from the first buffer, 2 from the second
	if err != nil || v != 1 {
		t.Fatalf("Uint64 %d, %v", v, err)
	}
	b, err := r.Byte()
	if err != nil || b != 2 || r.Offset() != 9 {
		t.Fatalf("Byte %d, %v, offset %d", b, err, r.Offset())
	}
	if len(src.taken) != 2 {
		t.Fatalf("%d buffers swapped out, want 2", len(src.taken))
	}
	if b, _ := r.Byte(); b != 3 {
		t.Fatalf("last byte %d", b)
	}
	if _, err := r.Byte(); err != io.EOF {
		t.Fatalf("after the last swap: %v, want io.EOF", err)
	}
}
