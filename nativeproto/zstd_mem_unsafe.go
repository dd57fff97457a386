//go:build !purego && (amd64 || arm64)

package nativeproto

import "unsafe"

// zstdLoad64 and zstdStore64 are the sequence loop's little-endian word loads and stores,
// without bounds checks: every caller has checked that b[i:i+8] is within b (each call says
// where).
//
// Why unsafe: ClickHouse's integer columns are one zstd sequence per value, so the loop's cost
// is per sequence, and the checks that a slice expression adds to each of its few loads and
// stores were a good part of it. BenchmarkZSTDFrames measures both twins (go test -bench
// ZSTDFrames, then with -tags purego; zstd_mem_purego.go is the safe one). Loads and stores
// are little-endian (amd64 and arm64 only).
func zstdLoad64(b []byte, i int) uint64 {
	return *(*uint64)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), i))
}

func zstdStore64(b []byte, i int, v uint64) {
	*(*uint64)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), i)) = v
}
