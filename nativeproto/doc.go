// Package nativeproto encodes and decodes the packets of the ClickHouse native TCP protocol and
// the Native data format.
//
// The package is the wire layer of the driver: it knows the packet layouts and the protocol
// revision gates, but nothing of database/sql, connections or timeouts. Column data is encoded by
// package columns; a [Block] is a list of named columns.
//
// # Layout
//
// One file per packet, with its encoder and decoder side by side: hello.go (client and server
// Hello, addendum), query.go with client_info.go and settings.go, exception.go, progress.go,
// profile_info.go, table_columns.go, tables_status.go, block.go (Data/Totals/Extremes/Log/
// ProfileEvents block body), server_logs.go and profile_events.go (the rows of Log and
// ProfileEvents blocks as [LogEntry] and [ProfileEvent] values), native.go (the Native format),
// and packet_reader.go / packet_writer.go, the connection-level helpers the driver drives.
// compress*.go hold the compression frames, lz4_decode.go and lz4_encode.go the LZ4 block codec
// (lz4_fast_*.go the decoder's fast loop, unsafe with a purego twin), chunked.go the (declined) chunked packet negotiation,
// feature.go the revision gates with what was verified of each.
//
// # Conventions
//
// Encode methods append a whole packet, packet code included, to a [wire.Writer]. Decode
// methods read a packet body from a [wire.Reader]; the packet code has already been read by
// [PacketReader.ReadCode] (or by the caller). Methods taking a [Revision] gate every field on it;
// after the handshake that revision is the negotiated one, min(advertised revision, server
// revision) (see [Negotiate]); the driver advertises [ClientRevision] unless told otherwise,
// within [OldestRevision] and [LatestRevision].
//
// Decoders never panic on malformed input and bound every count and length they read before
// allocating for it; errors are typed ([*ProtocolError], [*UnexpectedPacketError],
// [*wire.LimitError], [*FrameError], [*ChecksumError]) and usable with errors.As. After any
// decoding error the stream is out of sync and the connection must be closed.
//
// # Limits
//
// Per value, per column and per packet caps stay where they were (each named where it is
// defined), and per block one budget bounds them all: what one Data, Totals, Extremes, Log or
// ProfileEvents block may make the client allocate (its decoded bytes after decompression, the
// rows sparse and replicated columns expand to, per-row indexes and offsets beyond the input,
// column names and types), [DefaultBlockMemoryLimit] (1 GiB) unless
// [PacketReader.SetBlockMemoryLimit] (the DSN key block_memory_limit) says otherwise. A query
// holds at most the blocks in flight times that. The other limits a server meets:
//
//	limit                     default   bounds
//	block_memory_limit        1 GiB     what one block makes the client allocate
//	MaxFrameSize              64 MiB    one compressed frame (and at most block_memory_limit)
//	MaxFrameUncompressed      64 MiB    one frame's decompressed bytes (and the ZSTD window; and
//	                                    at most block_memory_limit)
//	MaxColumnNameSize, -Type  1 GiB     one column name or type (the server's String cap)
//	MaxBlockColumns           2^20      columns of one block
//	MaxLogBlockRows           2^20      rows of one Log or ProfileEvents block
//	MaxExceptionDepth         64        records of one exception chain
//	MaxExceptionSize          8 MiB     bytes of one exception chain
//	OldestRevision            54412     the lowest server revision accepted in a Hello
//
// and in package columns: MaxTypeDepth (128) and MaxTypeNameLength (1 MiB) for type names,
// MaxJSONPathDepth (1000) parts of a JSON path, MaxExpandedRows (2^24) and MaxExpandedBytes
// (1 GiB) per sparse or replicated column, 255 Variant members, 65,536 Dynamic types.
//
// The byte reader and writer live in internal/wire, below this package and columns, which share
// them; outside this module they are named [columns.Reader], [columns.Writer] and
// [columns.LimitError], aliases of the same types.
package nativeproto
