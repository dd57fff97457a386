//go:build purego || !(amd64 || arm64)

package nativeproto

import "encoding/binary"

// zstdLoad64 and zstdStore64 are the sequence loop's little-endian word loads and stores; this
// is the safe twin of zstd_mem_unsafe.go, whose doc says why that one exists.
func zstdLoad64(b []byte, i int) uint64 { return binary.LittleEndian.Uint64(b[i:]) }

func zstdStore64(b []byte, i int, v uint64) { binary.LittleEndian.PutUint64(b[i:], v) }
