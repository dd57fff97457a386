//go:build !purego

package columns

import "unsafe"

// Fixed-width columns (the numbers, dates, decimals, UUIDs, IPv6, wide integers, and the offsets,
// null maps and indexes inside composites) hold their values in one Go slice whose memory is the
// wire encoding. These helpers view that slice as its bytes, so a column is read with one copy
// from the input into its own slice, written with one append, and handed to the protocol layer
// without a copy at all (WireBytes).
//
// Why unsafe: the alternative (fixed_purego.go) decodes and encodes value by value, several times
// slower on the hottest paths of the driver, and WireBytes could not borrow.
//
// What it relies on: every T used here is a fixed-size type without pointers or padding whose
// memory, on a little-endian CPU, is exactly its ClickHouse encoding (integers, floats, arrays and
// structs of uint64s; endian_big.go stops the build on big-endian CPUs); every byte pattern is a
// valid T, so writing input bytes into a []T makes valid values; the byte view covers exactly
// len(s) elements of s's backing array (unsafe.Slice from unsafe.SliceData); and a view keeps the
// backing array reachable, so WireBytes' result stays valid for as long as the column's doc says.

// sizeOf returns the size in bytes of a T.
func sizeOf[T any]() int {
	var z T
	return int(unsafe.Sizeof(z))
}

// asBytes views a slice of fixed-width values as its bytes.
func asBytes[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*sizeOf[T]())
}

// readFixedInto fills dst with len(dst) values from r, reading straight into dst's memory.
func readFixedInto[T any](r *Reader, dst []T) error { return r.ReadFull(asBytes(dst)) }

// appendFixed appends the encoding of s to dst.
func appendFixed[T any](dst []byte, s []T) []byte { return append(dst, asBytes(s)...) }

// wireBytes returns the encoding of s as a view of s's memory.
func wireBytes[T any](s []T) []byte { return asBytes(s) }

// memOf is the memory of s for Window.Mem: s itself, viewed as bytes (borrowed).
func memOf[T any](s []T) []byte { return asBytes(s) }
