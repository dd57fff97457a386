package codecs

// #cgo LDFLAGS: -llz4
// #include <lz4.h>
import "C"

import (
	"errors"
	"unsafe"
)

// The reference LZ4 library as Debian ships it (liblz4-dev; scripts/test.sh installs it), called
// directly. The cgo binding that bundles its source, cloudflare/golz4 (LZ4 r1.5 of 2015, built
// -O3), decoded the third frame of 26.7's UInt64 read wrong without an error (an offset-2 match,
// from byte 50), and its symbols would shadow the system library's in one binary: it is not a
// candidate.

// liblz4Decompress decodes one raw LZ4 block into dst with LZ4_decompress_safe and returns the
// bytes written.
func liblz4Decompress(dst, src []byte) (int, error) {
	if len(src) == 0 || len(dst) == 0 {
		return 0, errors.New("liblz4: empty block or destination")
	}
	n := C.LZ4_decompress_safe((*C.char)(unsafe.Pointer(&src[0])), (*C.char)(unsafe.Pointer(&dst[0])),
		C.int(len(src)), C.int(len(dst)))
	if n < 0 {
		return 0, errors.New("liblz4: malformed block")
	}
	return int(n), nil
}

// liblz4Compress encodes src as one raw LZ4 block into dst with LZ4_compress_default
// (acceleration 1, ClickHouse's own default) and returns the bytes written.
func liblz4Compress(src, dst []byte) (int, error) {
	if len(src) == 0 || len(dst) == 0 {
		return 0, errors.New("liblz4: empty input or destination")
	}
	n := C.LZ4_compress_default((*C.char)(unsafe.Pointer(&src[0])), (*C.char)(unsafe.Pointer(&dst[0])),
		C.int(len(src)), C.int(len(dst)))
	if n <= 0 {
		return 0, errors.New("liblz4: destination too small")
	}
	return int(n), nil
}

// liblz4Bound is LZ4_compressBound.
func liblz4Bound(n int) int { return int(C.LZ4_compressBound(C.int(n))) }

// liblz4Version is the library's version number (major*10000 + minor*100 + release).
func liblz4Version() int { return int(C.LZ4_versionNumber()) }
