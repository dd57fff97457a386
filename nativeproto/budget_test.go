package nativeproto

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/chnative/chnative/internal/wire"
)

// The per-block budget (PacketReader.SetBlockMemoryLimit): a block whose decoded bytes, sparse
// or replicated expansion or per-row storage pass it ends in a *wire.LimitError naming
// block_memory_limit, before the memory is allocated. Each case reads one Data packet and
// measures the bytes the read allocated (TotalAlloc, an upper bound of the peak it added).

// budgetCol is one column of a hand-made block at LatestRevision: custom is the serialization
// bytes after has_custom = 1 (nil: has_custom = 0), data the column's prefix and data.
type budgetCol struct {
	name, typ string
	custom    []byte
	data      []byte
}

// budgetBlock encodes a block body (BlockInfo, counts, columns) at LatestRevision.
func budgetBlock(rows uint64, cols ...budgetCol) []byte {
	var w wire.Writer
	info := BlockInfo{BucketNum: -1}
	info.Encode(&w, LatestRevision)
	w.UVarInt(uint64(len(cols)))
	w.UVarInt(rows)
	for _, c := range cols {
		w.String(c.name)
		w.String(c.typ)
		if c.custom == nil {
			w.Byte(0)
		} else {
			w.Byte(1)
			w.Raw(c.custom)
		}
		w.Raw(c.data)
	}
	return w.Buf
}

// dataPacket is a Data packet's code and empty table name followed by body (already framed
// when the stream is compressed).
func dataPacket(body []byte) []byte {
	return append([]byte{byte(ServerCodeData), 0}, body...)
}

// readBudgeted reads one Data packet from stream with the given limit and returns the error
// and the bytes the read allocated.
func readBudgeted(t *testing.T, stream []byte, compressed bool, limit int64) (error, uint64) {
	t.Helper()
	pr := NewPacketReader(bytes.NewReader(stream))
	pr.SetRevision(LatestRevision)
	pr.SetCompression(compressed)
	pr.SetBlockMemoryLimit(limit)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	code, err := pr.ReadCode()
	if err != nil || code != ServerCodeData {
		t.Fatalf("code %v, %v", code, err)
	}
	_, _, err = pr.ReadBlock(nil)
	runtime.ReadMemStats(&after)
	return err, after.TotalAlloc - before.TotalAlloc
}

// requireBudgetError checks err is the budget's *wire.LimitError and alloc stayed under most.
func requireBudgetError(t *testing.T, err error, alloc, most uint64) {
	t.Helper()
	var le *wire.LimitError
	if !errors.As(err, &le) || !strings.Contains(le.What, wire.BudgetName) {
		t.Fatalf("want a LimitError naming %s, got %v", wire.BudgetName, err)
	}
	if alloc > most {
		t.Fatalf("the read allocated %d MiB, want at most %d MiB (%v)", alloc>>20, most>>20, err)
	}
	t.Logf("%v; allocated %d KiB", err, alloc>>10)
}

// sparseAllDefault is a sparse column's data of rows rows, all of them default: one offsets
// group, the trailing defaults with the end-of-granule flag, and no values.
func sparseAllDefault(rows uint64) []byte {
	var w wire.Writer
	w.UVarInt(rows | 1<<62)
	return w.Buf
}

// TestBudgetSparseFixedString: finding 3, five sparse FixedString(64) columns of 2^24 default
// rows (a few bytes on the wire, 1 GiB each expanded) under the default limit.
func TestBudgetSparseFixedString(t *testing.T) {
	const rows = 1 << 24
	var cols []budgetCol
	for i := range 5 {
		cols = append(cols, budgetCol{name: "f" + string(rune('0'+i)), typ: "FixedString(64)", custom: []byte{1}, data: sparseAllDefault(rows)})
	}
	err, alloc := readBudgeted(t, dataPacket(budgetBlock(rows, cols...)), false, DefaultBlockMemoryLimit)
	requireBudgetError(t, err, alloc, 16<<20)
}

// TestBudgetSparseUInt64: finding 3, forty sparse UInt64 columns of 2^24 default rows (128 MiB
// each expanded): the block stops at the limit, so it allocates about the limit, not 5 GiB.
// A 64 MiB limit keeps the test light; the bound is the same at any limit.
func TestBudgetSparseUInt64(t *testing.T) {
	const rows = 1 << 24
	var cols []budgetCol
	for i := range 40 {
		cols = append(cols, budgetCol{name: "u" + string(rune('0'+i)), typ: "UInt64", custom: []byte{1}, data: sparseAllDefault(rows)})
	}
	err, alloc := readBudgeted(t, dataPacket(budgetBlock(rows, cols...)), false, 64<<20)
	requireBudgetError(t, err, alloc, 80<<20)
}

// TestBudgetSparseUnderLimit: sparse columns whose expansion fits the limit decode.
func TestBudgetSparseUnderLimit(t *testing.T) {
	const rows = 1 << 16
	cols := []budgetCol{{name: "a", typ: "UInt64", custom: []byte{1}, data: sparseAllDefault(rows)},
		{name: "b", typ: "FixedString(64)", custom: []byte{1}, data: sparseAllDefault(rows)}}
	err, _ := readBudgeted(t, dataPacket(budgetBlock(rows, cols...)), false, 8<<20)
	if err != nil {
		t.Fatal(err)
	}
	err, _ = readBudgeted(t, dataPacket(budgetBlock(rows, cols...)), false, 4<<20)
	requireBudgetError(t, err, 0, 1<<30)
}

// replicatedString is a replicated String column's data: rows indexes of width 1, all 0, into
// one distinct value of n bytes.
func replicatedString(rows uint64, n int) []byte {
	var w wire.Writer
	w.UVarInt(rows)
	w.Byte(1)
	w.Raw(make([]byte, rows))
	w.UVarInt(1)
	w.UVarInt(uint64(n))
	w.Raw(bytes.Repeat([]byte{'x'}, n))
	return w.Buf
}

// TestBudgetReplicatedStrings: finding 3, five replicated columns repeating one 1 MiB string
// over 1024 rows (1 GiB each expanded) under the default limit.
func TestBudgetReplicatedStrings(t *testing.T) {
	const rows = 1024
	var cols []budgetCol
	for i := range 5 {
		cols = append(cols, budgetCol{name: "s" + string(rune('0'+i)), typ: "String", custom: []byte{4}, data: replicatedString(rows, 1<<20)})
	}
	stream := dataPacket(budgetBlock(rows, cols...))
	err, alloc := readBudgeted(t, stream, false, DefaultBlockMemoryLimit)
	requireBudgetError(t, err, alloc, 32<<20)
}

// TestBudgetZSTDStrings: finding 3, ZSTD frames of 1 MiB of zeros each (a few hundred bytes on
// the wire) make a String column of four 1 GiB values: the decompressed bytes count, so the
// block stops at the limit (32 MiB here).
func TestBudgetZSTDStrings(t *testing.T) {
	var head wire.Writer
	body := budgetBlock(4, budgetCol{name: "s", typ: "String"})
	head.Raw(body)
	head.UVarInt(1 << 30) // the first value's length; its bytes follow in the frames below
	first, err := AppendCompressed(nil, head.Buf, MethodZSTD, 0)
	if err != nil {
		t.Fatal(err)
	}
	zeros, err := AppendCompressed(nil, make([]byte, FrameChunk), MethodZSTD, 0)
	if err != nil {
		t.Fatal(err)
	}
	stream := dataPacket(first)
	for range 64 { // 64 MiB decoded, past the limit
		stream = append(stream, zeros...)
	}
	t.Logf("%d bytes on the wire", len(stream))
	// TotalAlloc adds up every allocation: the value's buffer doubles on its way to the limit
	// (about twice the limit in all), and the connection's frame and decompression buffers.
	err, alloc := readBudgeted(t, stream, true, 32<<20)
	requireBudgetError(t, err, alloc, 200<<20)
}

// TestBudgetColumnName: a column named after a 2 MiB expression (26.7 names a column after the
// whole expression, a 1 MiB query parameter included) decodes under the default limit; the
// name counts against a small one.
func TestBudgetColumnName(t *testing.T) {
	name := "length('" + strings.Repeat("p", 2<<20) + "')"
	var data wire.Writer
	data.Uint64(7)
	stream := dataPacket(budgetBlock(1, budgetCol{name: name, typ: "UInt64", data: data.Buf}))
	err, _ := readBudgeted(t, stream, false, DefaultBlockMemoryLimit)
	if err != nil {
		t.Fatal(err)
	}
	err, _ = readBudgeted(t, stream, false, 1<<20)
	requireBudgetError(t, err, 0, 1<<30)
}

// TestBudgetStringEnds: a String column of 2^24 empty values (one byte each on the wire, an
// 8-byte end offset each in memory) counts its offsets, not just its input.
func TestBudgetStringEnds(t *testing.T) {
	const rows = 1 << 24
	stream := dataPacket(budgetBlock(rows, budgetCol{name: "s", typ: "String", data: make([]byte, rows)}))
	err, alloc := readBudgeted(t, stream, false, 64<<20)
	requireBudgetError(t, err, alloc, 8<<20)
}

// TestExceptionTotalSize: a chain of records under MaxExceptionDepth, each with strings under
// MaxExceptionStringSize, is still capped in all (MaxExceptionSize), read from a stream.
func TestExceptionTotalSize(t *testing.T) {
	var w wire.Writer
	big := strings.Repeat("s", MaxExceptionStringSize)
	for range 20 {
		w.Int32(1)
		w.String("DB::Exception")
		w.String("m")
		w.String(big)
		w.Bool(true)
	}
	var e Exception
	err := e.Decode(wire.NewReader(bytes.NewReader(w.Buf)))
	var le *wire.LimitError
	if !errors.As(err, &le) || !strings.Contains(le.What, "exception size") {
		t.Fatalf("want a LimitError naming the exception size, got %v", err)
	}
	// A chain within it decodes, and the reader has no budget after it.
	w.Reset()
	for i := range 3 {
		w.Int32(int32(i))
		w.String("DB::Exception")
		w.String("m")
		w.String(big)
		w.Bool(i < 2)
	}
	w.Raw(bytes.Repeat([]byte{1}, 16<<20))
	r := wire.NewReader(bytes.NewReader(w.Buf))
	if err := e.Decode(r); err != nil || e.Nested == nil || e.Nested.Nested == nil {
		t.Fatalf("3 records: %v", err)
	}
	if err := r.Skip(16 << 20); err != nil {
		t.Fatalf("after the exception: %v", err)
	}
}

// TestBudgetRowIndexes: columns whose rows take more memory than their input (LowCardinality's
// 4-byte index from a 1-byte one, Variant's and Dynamic's offsets from a 1-byte discriminator)
// charge it: 2^22 rows of 1-byte input each, under a 12 MiB limit.
func TestBudgetRowIndexes(t *testing.T) {
	const rows = 1 << 22
	var lc wire.Writer
	lc.Uint64(1)            // keys version
	lc.Uint64(1<<9 | 1<<10) // UInt8 indexes, additional keys, update dictionary
	lc.Uint64(1)
	lc.String("a")
	lc.Uint64(rows)
	lc.Raw(make([]byte, rows))
	var v wire.Writer
	v.Uint64(0) // discriminators mode BASIC
	v.Raw(bytes.Repeat([]byte{255}, rows))
	for _, c := range []budgetCol{{name: "lc", typ: "LowCardinality(String)", data: lc.Buf},
		{name: "v", typ: "Variant(String, UInt64)", data: v.Buf}} {
		stream := dataPacket(budgetBlock(rows, c))
		err, _ := readBudgeted(t, stream, false, 8<<20)
		requireBudgetError(t, err, 0, 1<<30)
		if err, _ := readBudgeted(t, stream, false, 64<<20); err != nil {
			t.Fatalf("%s under 64 MiB: %v", c.typ, err)
		}
	}
}

// TestBudgetReplicatedDynamic: a replicated Dynamic column (gathered value by value) repeating
// one 1 MiB string over 1024 rows charges the strings it copies (a 64 MiB limit here).
func TestBudgetReplicatedDynamic(t *testing.T) {
	const rows = 1024
	var d wire.Writer
	d.Uint64(3) // Dynamic FLATTENED prefix: one type, String
	d.UVarInt(1)
	d.String("String")
	d.UVarInt(rows) // replicated: rows, 1-byte indexes, one distinct row
	d.Byte(1)
	d.Raw(make([]byte, rows))
	d.UVarInt(1)
	d.Byte(0) // the distinct row: type 0 (String), its value
	d.String(strings.Repeat("x", 1<<20))
	stream := dataPacket(budgetBlock(rows, budgetCol{name: "d", typ: "Dynamic", custom: []byte{4}, data: d.Buf}))
	// TotalAlloc counts every boxed copy the value-by-value gather makes (each row's value is
	// copied out of the distinct row, then into the column, whose buffer doubles): several
	// times the limit in all, against 1 GiB without the charge.
	err, alloc := readBudgeted(t, stream, false, 64<<20)
	requireBudgetError(t, err, alloc, 512<<20)
}
