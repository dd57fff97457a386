package wire

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// readerKinds are the ways a test feeds an encoding to a Reader: in place, one byte per Read,
// through the default buffer, through the smallest buffer, and in halves through an odd buffer.
var readerKinds = []struct {
	name string
	new  func([]byte) *Reader
}{
	{"bytes", func(b []byte) *Reader { return NewBytesReader(b) }},
	{"onebyte", func(b []byte) *Reader { return NewReaderSize(iotest.OneByteReader(bytes.NewReader(b)), 4096) }},
	{"default", func(b []byte) *Reader { return NewReader(bytes.NewReader(b)) }},
	{"small", func(b []byte) *Reader { return NewReaderSize(bytes.NewReader(b), MinReaderSize) }},
	{"half17", func(b []byte) *Reader { return NewReaderSize(iotest.HalfReader(bytes.NewReader(b)), 17) }},
}

// The Reader never writes into a caller's slice, even when reset to a stream afterwards.
func TestReaderResetDoesNotClobber(t *testing.T) {
	mine := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}
	keep := bytes.Clone(mine)
	r := NewBytesReader(mine)
	if _, err := r.Uint64(); err != nil {
		t.Fatal(err)
	}
	r.Reset(bytes.NewReader(bytes.Repeat([]byte{0xAA}, 100)))
	if _, err := r.Next(16); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(mine, keep) {
		t.Fatalf("caller's slice overwritten: % x", mine)
	}
}

func TestReaderEOF(t *testing.T) {
	for _, rk := range readerKinds {
		r := rk.new(nil)
		if _, err := r.Byte(); err != io.EOF {
			t.Errorf("%s: Byte at end: %v", rk.name, err)
		}
		if _, err := r.UVarInt(); err != io.EOF {
			t.Errorf("%s: UVarInt at end: %v", rk.name, err)
		}
		r = rk.new([]byte{0x80})
		if _, err := r.UVarInt(); err != io.ErrUnexpectedEOF {
			t.Errorf("%s: UVarInt cut: %v", rk.name, err)
		}
		r = rk.new([]byte{1, 2, 3})
		if _, err := r.Uint64(); err != io.ErrUnexpectedEOF {
			t.Errorf("%s: Uint64 cut: %v", rk.name, err)
		}
		r = rk.new([]byte{1, 2, 3})
		if err := r.ReadFull(make([]byte, 8)); err != io.ErrUnexpectedEOF {
			t.Errorf("%s: ReadFull cut: %v", rk.name, err)
		}
		r = rk.new([]byte{1, 2, 3})
		if err := r.Skip(4); err != io.ErrUnexpectedEOF {
			t.Errorf("%s: Skip cut: %v", rk.name, err)
		}
		r = rk.new([]byte{5, 'a'})
		if _, err := r.String("s", 10); err != io.ErrUnexpectedEOF {
			t.Errorf("%s: String cut: %v", rk.name, err)
		}
		r = rk.new([]byte{2})
		if _, err := r.Bool(); err == nil {
			t.Errorf("%s: Bool(2) accepted", rk.name)
		}
	}
}

// Every primitive the Writer appends reads back the same through every kind of Reader.
func TestWriterReaderRoundTrip(t *testing.T) {
	var w Writer
	w.Byte(7)
	w.Bool(true)
	w.Bool(false)
	w.UVarInt(1<<63 + 5)
	w.Uint16(0xBEEF)
	w.Uint32(0xDEADBEEF)
	w.Int32(-3)
	w.Uint64(1<<64 - 2)
	w.Int64(-1 << 40)
	w.Float64(-2.5)
	w.String("hello")
	w.Bytes([]byte(strings.Repeat("x", 300)))
	w.Raw([]byte{9, 8})
	if w.Len() != len(w.Buf) {
		t.Fatalf("Len %d, len(Buf) %d", w.Len(), len(w.Buf))
	}
	for _, rk := range readerKinds {
		r := rk.new(w.Buf)
		check := func(what string, got, want any, err error) {
			t.Helper()
			if err != nil || got != want {
				t.Fatalf("%s: %s = %v, %v; want %v", rk.name, what, got, err, want)
			}
		}
		b, err := r.Byte()
		check("Byte", b, byte(7), err)
		v, err := r.Bool()
		check("Bool", v, true, err)
		v, err = r.Bool()
		check("Bool", v, false, err)
		u, err := r.UVarInt()
		check("UVarInt", u, uint64(1<<63+5), err)
		u16, err := r.Uint16()
		check("Uint16", u16, uint16(0xBEEF), err)
		u32, err := r.Uint32()
		check("Uint32", u32, uint32(0xDEADBEEF), err)
		i32, err := r.Int32()
		check("Int32", i32, int32(-3), err)
		u64, err := r.Uint64()
		check("Uint64", u64, uint64(1<<64-2), err)
		i64, err := r.Int64()
		check("Int64", i64, int64(-1<<40), err)
		f, err := r.Float64()
		check("Float64", f, -2.5, err)
		s, err := r.String("s", 10)
		check("String", s, "hello", err)
		s, err = r.String("s", 300)
		check("String", s, strings.Repeat("x", 300), err)
		p, err := r.Peek(2)
		check("Peek", string(p), "\x09\x08", err)
		p, err = r.Next(2)
		check("Next", string(p), "\x09\x08", err)
		if _, err := r.Byte(); err != io.EOF {
			t.Fatalf("%s: after the last value: %v, want io.EOF", rk.name, err)
		}
	}
	w.Reset()
	if w.Len() != 0 {
		t.Fatalf("Reset left %d bytes", w.Len())
	}
}

// Counts and lengths over their cap are refused with a *LimitError naming what was read.
func TestReaderLimits(t *testing.T) {
	var w Writer
	w.UVarInt(11)
	w.String(strings.Repeat("y", 11))
	for _, rk := range readerKinds {
		r := rk.new(w.Buf)
		_, err := r.Count("rows", 10)
		var le *LimitError
		if !errors.As(err, &le) || le.What != "rows" || le.Value != 11 || le.Max != 10 {
			t.Errorf("%s: Count over cap: %v", rk.name, err)
		}
		_, err = r.String("name", 10)
		if !errors.As(err, &le) || le.What != "name length" || le.Value != 11 {
			t.Errorf("%s: String over cap: %v", rk.name, err)
		}
	}
	// A bytes Reader refuses a length longer than the rest of its input before growing anything.
	r := NewBytesReader([]byte{0xff, 0xff, 0x03, 'a'})
	if _, err := r.StringBytes(nil, "s", MaxStringSize); err != io.ErrUnexpectedEOF {
		t.Errorf("declared length past the input: %v", err)
	}
	if got := NewBytesReader(make([]byte, 5)).InputLimit(); got != 5 {
		t.Errorf("InputLimit of a bytes Reader: %d", got)
	}
	if got := NewReader(bytes.NewReader(nil)).InputLimit(); got != -1 {
		t.Errorf("InputLimit of a stream: %d", got)
	}
}

// Window shows the buffered bytes without reading, Consume advances over them, and Consume past
// the window panics instead of corrupting the Reader.
func TestReaderWindow(t *testing.T) {
	r := NewReaderSize(bytes.NewReader([]byte("abcdefghijklmnopqrstuvwxyz")), MinReaderSize)
	if w := r.Window(); len(w) != 0 {
		t.Fatalf("Window before any read: %q", w)
	}
	if _, err := r.Byte(); err != nil {
		t.Fatal(err)
	}
	w := r.Window()
	if len(w) != r.Buffered() || string(w) != "bcdefghijklmnop" {
		t.Fatalf("Window %q, Buffered %d", w, r.Buffered())
	}
	r.Consume(3)
	if b, _ := r.Byte(); b != 'e' {
		t.Fatalf("after Consume(3): %q", b)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Consume past the window did not panic")
		}
	}()
	r.Consume(r.Buffered() + 1)
}

// Read passes the buffered bytes on, then the source's.
func TestReaderRead(t *testing.T) {
	src := []byte(strings.Repeat("0123456789", 10))
	for _, rk := range readerKinds {
		r := rk.new(src)
		if _, err := r.Byte(); err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, src[1:]) {
			t.Errorf("%s: ReadAll after one Byte: %q, %v", rk.name, got, err)
		}
	}
}
