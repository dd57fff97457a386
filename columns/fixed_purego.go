//go:build purego

package columns

import (
	"encoding/binary"
	"reflect"
)

// The safe twin of fixed_unsafe.go: fixed-width values are decoded and encoded little-endian by
// encoding/binary, value by value where its fast paths do not apply (named element types), and
// WireBytes returns a copy. Slower, with the same bytes on the wire.

// sizeOf returns the size in bytes of a T.
func sizeOf[T any]() int { return int(reflect.TypeFor[T]().Size()) }

// readFixedInto fills dst with len(dst) values from r. It decodes from the Reader's buffered window
// as many whole values as it holds, so reading allocates nothing; a value larger than a small
// stream Reader's buffer is read through a scratch slice of its own.
func readFixedInto[T any](r *Reader, dst []T) error {
	size := sizeOf[T]()
	for len(dst) > 0 {
		w := r.Window()
		k := min(len(dst), len(w)/size)
		if k == 0 {
			if size > MinReaderSize {
				buf := make([]byte, size)
				if err := r.ReadFull(buf); err != nil {
					return err
				}
				if _, err := binary.Decode(buf, binary.LittleEndian, dst[:1]); err != nil {
					return err
				}
				dst = dst[1:]
				continue
			}
			if _, err := r.Peek(size); err != nil { // fills the buffer with at least one value
				return err
			}
			continue
		}
		if _, err := binary.Decode(w[:k*size], binary.LittleEndian, dst[:k]); err != nil {
			return err
		}
		r.Consume(k * size)
		dst = dst[k:]
	}
	return nil
}

// appendFixed appends the encoding of s to dst.
func appendFixed[T any](dst []byte, s []T) []byte {
	if len(s) == 0 {
		return dst
	}
	out, err := binary.Append(dst, binary.LittleEndian, s)
	if err != nil {
		panic("columns: " + err.Error()) // every T here has a fixed size
	}
	return out
}

// wireBytes returns the encoding of s, in memory of its own.
func wireBytes[T any](s []T) []byte { return appendFixed[T](nil, s) }

// memOf is a copy of s's values, little-endian (their memory order on the machines the wire
// format assumes), under purego (Window.Mem is then the caller's;
// internal/boxing's purego boxer boxes each value through the column and never asks for it).
func memOf[T any](s []T) []byte { return appendFixed[T](nil, s) }
