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
