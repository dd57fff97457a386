package wire

import (
	"bytes"
	"testing"
)

// Shrink gives back a grown buffer and keeps the bytes buffered, in order; it leaves a buffer
// alone when what is buffered does not fit, and a borrowed one always.
func TestReaderShrinkKeepsBufferedBytes(t *testing.T) {
	src := make([]byte, 1<<20)
	for i := range src {
		src[i] = byte(i * 7)
	}
	r := NewReader(bytes.NewReader(src))
	r.Grow(4 << 20)
	if _, err := r.Peek(1000); err != nil {
		t.Fatal(err)
	}
	if err := r.Skip(10); err != nil {
		t.Fatal(err)
	}
	off := r.Offset()
	r.Shrink(DefaultReaderSize)
	if r.Buffered() <= DefaultReaderSize && r.Size() != DefaultReaderSize {
		t.Fatalf("Size after Shrink = %d, want %d", r.Size(), DefaultReaderSize)
	}
	if r.Offset() != off {
		t.Fatalf("Offset moved from %d to %d", off, r.Offset())
	}
	rest := make([]byte, len(src)-10)
	if err := r.ReadFull(rest); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(rest, src[10:]) {
		t.Fatal("bytes changed across Shrink")
	}

	// More buffered than the new size: nothing changes.
	r = NewReader(bytes.NewReader(src))
	r.Grow(4 << 20)
	if _, err := r.Peek(1 << 20); err != nil {
		t.Fatal(err)
	}
	r.Shrink(DefaultReaderSize)
	if r.Size() != 4<<20 || r.Buffered() != 1<<20 {
		t.Errorf("Shrink with 1 MiB buffered: Size %d, Buffered %d", r.Size(), r.Buffered())
	}

	b := NewBytesReader(src)
	b.Shrink(DefaultReaderSize)
	if b.Size() != len(src) {
		t.Errorf("Shrink changed a borrowed buffer")
	}
}

// A Reader that reads a caller's slice (ResetBytes) keeps its own buffer, at its size before any
// Grow, and reads a stream again through it after Reset, without allocating; the slice is never
// written to.
func TestReaderResetBytesKeepsOwnBuffer(t *testing.T) {
	src := bytes.Repeat([]byte("abcdefgh"), 1<<16)
	r := NewReader(bytes.NewReader(src))
	r.Grow(1 << 20)
	if _, err := r.Peek(100); err != nil {
		t.Fatal(err)
	}
	caller := []byte("0123456789")
	r.ResetBytes(caller)
	if b, err := r.Peek(10); err != nil || string(b) != "0123456789" {
		t.Fatalf("reading the slice: %q, %v", b, err)
	}
	br := bytes.NewReader(src)
	allocs := testing.AllocsPerRun(10, func() {
		br.Reset(src)
		r.Reset(br)
		r.ResetBytes(caller)
	})
	if allocs != 0 {
		t.Errorf("Reset after ResetBytes allocated %.0f times: the own buffer was not kept", allocs)
	}
	r.Reset(bytes.NewReader(src))
	if r.Size() != DefaultReaderSize {
		t.Errorf("own buffer of %d bytes after Reset, want its size before Grow, %d", r.Size(), DefaultReaderSize)
	}
	got := make([]byte, len(src))
	if err := r.ReadFull(got); err != nil || !bytes.Equal(got, src) {
		t.Fatalf("reading the stream again: %v", err)
	}
	if string(caller) != "0123456789" {
		t.Errorf("the caller's slice was written to: %q", caller)
	}
}
