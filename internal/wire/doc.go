// Package wire is the byte layer under the driver's codecs: a buffered little-endian [Reader] of
// the ClickHouse binary encodings (LEB128 varints, fixed-width integers, length-prefixed strings)
// and the [Writer] that appends them to a byte slice.
//
// # Design
//
// Both package nativeproto (packets) and package columns (column data) read and write the same
// primitive encodings, often within one packet: a Data packet is a nativeproto header followed by
// columns' bodies on the same stream. The reader and writer therefore live below both, here, and
// know nothing of packets or column types; columns re-exports them under the names its public API uses
// (columns.Reader, columns.Writer, columns.NewReader, ...) as aliases, so the two names denote the
// same types.
//
// A Reader reads either a byte slice in place ([NewBytesReader], [Reader.ResetBytes]) or a stream
// through its own buffer ([NewReader], [NewReaderSize], [Reader.Reset]). It never reads more from a
// stream than the bytes asked for, rounded up to one Read of the source, so a caller that switches
// sources between packets (a raw socket, a decompressing frame reader) keeps one Reader per source.
//
// Ownership: slices returned by [Reader.Next], [Reader.Peek] and [Reader.Window] are borrowed from
// the Reader's buffer (or from the caller's slice for a bytes Reader) and are valid only until the
// next call on the Reader; [Reader.StringBytes] and [Reader.String] return memory of their own. A
// Reader never writes into a slice given to NewBytesReader or ResetBytes. A [Writer]'s Buf is the
// caller's to send, and is reused by [Writer.Reset].
//
// Hostile input: every count and length read through [Reader.Count] or [Reader.StringBytes] is
// checked against a caller's cap before anything is allocated for it ([*LimitError]); a string
// grows only as its bytes arrive, and a bytes Reader refuses a length longer than its remaining
// input ([Reader.InputLimit]). The end of input inside a value is io.ErrUnexpectedEOF
// ([ErrShortBuffer]); at the very start of a value it is io.EOF.
//
// Per-block budget: caps per value and per column do not bound a block of many columns, so a
// Reader also carries a budget ([Reader.SetBudget], set by nativeproto for each block to the
// DSN key block_memory_limit, default 1 GiB) of the bytes one block may make the client
// allocate: every byte consumed (after decompression) counts, and decoders [Reader.Charge] the
// memory the input does not account for (sparse and replicated rows, per-row offsets) before
// they allocate it. Past it, a [*LimitError] whose What names block_memory_limit. Error texts keep the "columns:"
// prefix they had before the package moved here, so callers matching them see no change.
package wire
