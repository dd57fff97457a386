// Package codecs measures the LZ4 and ZSTD codecs the Go ecosystem has against chnative's own,
// on ClickHouse 26.7's own compressed frames (the root module's nativeproto/testdata/lz4 and
// testdata/zstd: a 100M-row UInt64 read, the (UInt64, String, Float64) read, a text column).
//
// The candidates, each doing what a driver does with a frame (the CityHash128 checksum, then the
// codec; the frame header is parsed outside the timed loop):
//
//   - LZ4 decoders: chnative's FrameReader (lz4Decode, pure Go with an unsafe fast loop),
//     pierrec/lz4/v4 (Go with amd64 and arm64 assembly; what ch-go and clickhouse-go run),
//     bkaradzic/go-lz4 (pure Go) and liblz4 (cgo: the reference C library, Debian's 1.9.4,
//     called directly; lz4_cgo.go says why not through cloudflare/golz4).
//   - ZSTD decoders: chnative's FrameReader (klauspost's decoder behind the frame checks and the
//     frame's memory limits), klauspost/compress/zstd (Go with amd64 assembly; what ch-go
//     and clickhouse-go run) and DataDog/zstd (cgo: the reference C library, 1.5.7, built from
//     the source the package ships; valyala/gozstd links the same library from a static
//     archive, and the two cannot share a binary, their C symbols clash, so it is left out).
//   - Encoders of the same frames' content, at the level a driver sends by default (LZ4's
//     default, ZSTD level 1): chnative's Compressor, pierrec, bkaradzic, liblz4; klauspost
//     (SpeedFastest) and DataDog.
//
// TestCandidates checks every decoder gives the reference's bytes on every frame and every
// encoder's output decodes back; BenchmarkDecode and BenchmarkEncode report MB/s of
// uncompressed data (`go test -run '^$' -bench . ./codecs/` in conformance/; run.sh runs them
// as part of `make bench`, into conformance/bench/results/codecs.txt). The cgo candidates are
// measured here only: chnative's driver stays pure Go.
//
// The package has no non-test code; nothing imports it.
package codecs
