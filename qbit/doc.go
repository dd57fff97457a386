//go:generate go run gen_kernels.go

// Package qbit converts vectors to and from the ClickHouse QBit Native body.
//
// A QBit(T, D) column of N rows is sent as W = bits(T) bit planes, plane 0
// first. Plane k holds bit W-1-k of every element's raw bit pattern (plane 0
// is the sign bit). Each plane is N row bitmaps of B = ceil(D/8) bytes, row r
// at offset r*B, so the body is W*N*B bytes (see Size).
//
// Inside a row bitmap the bytes run in reverse element order: element i is in
// byte B-1-i/8, at bit i%8 (least significant bit first). Equivalently, the
// bitmap is the big-endian encoding of a B-byte integer whose bit i is the
// plane's bit of element i. When D is not a multiple of 8 the unused high
// bits of byte 0 are padding; the encoders write them as zero and the decoders
// ignore them.
//
// Element bit patterns are used unchanged: float32 and float64 via
// math.Float32bits/Float64bits (NaN payloads, signed zeros, infinities and
// denormals round-trip bit for bit), BFloat16 as its raw 16-bit pattern,
// Int8 as its two's-complement byte.
//
// Only the unstrided layout QBit(T, D) is handled here (a strided
// QBit(T, D, S) is the same transform applied per stride group).
//
// # Preconditions
//
// For every Transpose/Detranspose function dim must be > 0 and the vector
// slice length a multiple of dim (rows = len/dim); the byte slice must hold at
// least Size(rows, dim, W) bytes. Violations panic; nothing is written in
// that case. Only the first Size(rows, dim, W) bytes of a longer byte slice are
// read or written. Every byte of that range is written by a Transpose, so
// the destination does not need to be zeroed. Source and destination must not
// overlap.
//
// # Implementation
//
// The kernels work on chunks of 64 elements of one row: the 64×W bit matrix
// is held in W uint64 words and transposed with log2(64) delta-swap stages
// (the word-parallel generalisation of the 8×8 transpose), so that each word
// becomes one plane's 64-bit slice of the row bitmap, stored big-endian.
// Rows with fewer than 64 elements are packed several to a chunk. Blocks of
// rows are staged in a small buffer laid out like the body (one plane run per
// plane, with a stride chosen to avoid cache-set and TLB aliasing) and each
// plane run is then copied to (or from) the body, because the planes of a
// large body sit at a power-of-two distance from each other.
package qbit
