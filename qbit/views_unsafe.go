//go:build !purego

package qbit

import "unsafe"

// The kernels work on raw bit patterns. These views reinterpret a slice as the unsigned integer
// type of the same size and alignment (no copy), which lets the kernels load elements straight
// into integer registers (and, for Int8, eight elements with one 64-bit load) and write decoded
// patterns straight into the caller's slice.
//
// Why unsafe: without the views every Transpose copies its source into a []uint32/[]uint64/[]byte
// first and every Detranspose copies its result back, doubling the memory traffic of a transform
// that is otherwise bandwidth-bound. views_purego.go is that copying twin.
//
// What it relies on: float32 and uint32, float64 and uint64, int8 and byte have the same size and
// alignment, and every bit pattern is a valid value of each (unsafe.Pointer rule 1, conversion of
// *T1 to *T2 for types of equivalent memory layout); unsafe.Slice of len(s) elements from
// unsafe.SliceData(s) stays inside s's backing array; and the view does not outlive the call, so
// s stays reachable for the garbage collector throughout.

func encodeFloat32(dst []byte, src []float32, dim int) { encode(dst, f32Bits(src), dim, 32, enc32) }
func decodeFloat32(dst []float32, src []byte, dim int) { decode(f32Bits(dst), src, dim, 32, dec32) }
func encodeFloat64(dst []byte, src []float64, dim int) { encode(dst, f64Bits(src), dim, 64, enc64) }
func decodeFloat64(dst []float64, src []byte, dim int) { decode(f64Bits(dst), src, dim, 64, dec64) }
func encodeInt8(dst []byte, src []int8, dim int)       { encode(dst, int8Bytes(src), dim, 8, enc8) }
func decodeInt8(dst []int8, src []byte, dim int)       { decode(int8Bytes(dst), src, dim, 8, dec8) }

func int8Bytes(s []int8) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

func f32Bits(s []float32) []uint32 {
	return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

func f64Bits(s []float64) []uint64 {
	return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}
