package nativeproto

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/chnative/chnative/internal/wire"
)

func TestBlockInfoBytes(t *testing.T) {
	var w wire.Writer
	info := BlockInfo{BucketNum: -1}
	info.Encode(&w, 54460)
	requireBytes(t, w.Buf, unhex(t, "01 00 02 ff ff ff ff 00"))
	w.Reset()
	info.Encode(&w, 54480)
	requireBytes(t, w.Buf, unhex(t, "01 00 02 ff ff ff ff 03 00 00"))

	var got BlockInfo
	for _, in := range []string{"02 05 00 00 00 00", "00", "01 01 00"} {
		if err := got.Decode(wire.NewBytesReader(unhex(t, in)), 54460); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
	}
	if got.Overflows != true || got.BucketNum != -1 {
		t.Fatalf("%+v", got)
	}
	err := got.Decode(wire.NewBytesReader(unhex(t, "03 00 00")), 54460)
	var pe *ProtocolError
	if !errors.As(err, &pe) {
		t.Fatalf("field 3 below 54480: %v", err)
	}
	if err := got.Decode(wire.NewBytesReader(unhex(t, "03 02 01000000 02000000 00")), 54480); err != nil || len(got.OutOfOrderBuckets) != 2 {
		t.Fatalf("%+v %v", got, err)
	}
}

func TestBlockGolden(t *testing.T) {
	// ch-go proto/_golden/block_int8_uint64.raw (EncodeBlock, rev 54460).
	want := unhex(t, `01 00 02 ff ff ff ff 00 | 02 05 | 05 "count" 04 "Int8" 00 | 01 02 03 04 05 |
		05 "users" 06 "UInt64" 00 |
		0100000000000000 0200000000000000 0300000000000000 0400000000000000 0500000000000000`)
	b := NewBlock()
	b.Add("count", mustCol(t, "Int8", int8(1), int8(2), int8(3), int8(4), int8(5)))
	b.Add("users", mustCol(t, "UInt64", uint64(1), uint64(2), uint64(3), uint64(4), uint64(5)))
	var w wire.Writer
	if err := WriteBlock(&w, 54460, true, b); err != nil {
		t.Fatal(err)
	}
	requireBytes(t, w.Buf, want)

	got, err := ReadBlock(wire.NewBytesReader(want), 54460, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Rows() != 5 || got.NumColumns() != 2 || got.Name(1) != "users" || got.Type(0) != "Int8" ||
		got.Column(1).Value(4) != uint64(5) || got.Info.BucketNum != -1 {
		t.Fatalf("bad block")
	}
	requireNoShortRead(t, want, func(r *wire.Reader) error {
		_, err := ReadBlock(r, 54460, true, nil)
		return err
	})
}

func TestBlockRevisions(t *testing.T) {
	b := NewBlock()
	b.Add("s", mustCol(t, "String", "a", "", "ccc"))
	b.Add("arr", mustCol(t, "Array(LowCardinality(String))", []string{"x"}, []string{}, []string{"x", "y"}))
	for _, rev := range testRevisions {
		for _, info := range []bool{false, true} {
			var w wire.Writer
			if err := WriteBlock(&w, rev, info, b); err != nil {
				t.Fatal(err)
			}
			got, err := ReadBlock(wire.NewBytesReader(w.Buf), rev, info, nil)
			if err != nil {
				t.Fatalf("rev %d: %v", rev, err)
			}
			if got.Rows() != 3 || got.Column(0).Value(2) != "ccc" {
				t.Fatalf("rev %d: %v", rev, got.Column(0).Value(2))
			}
			var w2 wire.Writer
			_ = WriteBlock(&w2, rev, info, got)
			requireBytes(t, w2.Buf, w.Buf)
			requireNoShortRead(t, w.Buf, func(r *wire.Reader) error {
				_, err := ReadBlock(r, rev, info, nil)
				return err
			})
		}
	}
}

func TestBlockHeaderOnly(t *testing.T) {
	b := NewBlock()
	b.Add("a", mustCol(t, "UInt8"))
	b.Add("b", mustCol(t, "LowCardinality(String)"))
	var w wire.Writer
	if err := WriteBlock(&w, 54460, true, b); err != nil {
		t.Fatal(err)
	}
	requireBytes(t, w.Buf, unhex(t, `01 00 02 ffffffff 00 02 00 01 "a" 05 "UInt8" 00 01 "b" 16 "LowCardinality(String)" 00`))
	got, err := ReadBlock(wire.NewBytesReader(w.Buf), 54460, true, nil)
	if err != nil || got.Rows() != 0 || got.NumColumns() != 2 {
		t.Fatal(err)
	}
}

func TestBlockReuse(t *testing.T) {
	mk := func(vals ...any) []byte {
		b := NewBlock()
		b.Add("n", mustCol(t, "UInt64", vals...))
		b.Add("s", mustCol(t, "String", make([]any, 0)...))
		for range vals {
			_ = b.Column(1).AppendValue("v")
		}
		var w wire.Writer
		_ = WriteBlock(&w, 54460, true, b)
		return w.Buf
	}
	one, two := mk(uint64(1), uint64(2)), mk(uint64(3))
	b, err := ReadBlock(wire.NewBytesReader(one), 54460, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	c0, c1 := b.Column(0), b.Column(1)
	b2, err := ReadBlock(wire.NewBytesReader(two), 54460, true, b)
	if err != nil {
		t.Fatal(err)
	}
	if b2 != b || b.Column(0) != c0 || b.Column(1) != c1 || b.Rows() != 1 || b.Column(0).Value(0) != uint64(3) {
		t.Fatal("columns not reused")
	}
	r := wire.NewBytesReader(nil)
	var scratch []byte
	allocs := testing.AllocsPerRun(100, func() {
		r.ResetBytes(two)
		if _, err := readBlock(r, 54460, true, b, &scratch); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1 && !raceEnabled {
		t.Fatalf("%v allocations per reused decode", allocs)
	}
	// A different type at the same index replaces the column.
	other := NewBlock()
	other.Add("n", mustCol(t, "Int8", int8(1)))
	var w wire.Writer
	_ = WriteBlock(&w, 54460, true, other)
	if _, err := ReadBlock(wire.NewBytesReader(w.Buf), 54460, true, b); err != nil {
		t.Fatal(err)
	}
	if b.NumColumns() != 1 || b.Type(0) != "Int8" {
		t.Fatal("not replaced")
	}
}

// A block without columns (the empty block that ends every result) hides the columns of a reused
// block instead of dropping them: the next block of the same types decodes into the same column
// objects, with the capacity they reached. Clear drops them.
func TestBlockReuseAcrossEmptyBlock(t *testing.T) {
	enc := func(b *Block) []byte {
		var w wire.Writer
		if err := WriteBlock(&w, 54460, true, b); err != nil {
			t.Fatal(err)
		}
		return w.Buf
	}
	full := NewBlock()
	full.Add("a", mustCol(t, "UInt64", uint64(1), uint64(2), uint64(3)))
	full.Add("s", mustCol(t, "String", "x", "y", "z"))
	data, empty := enc(full), enc(NewBlock())
	b, err := ReadBlock(wire.NewBytesReader(data), 54460, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	c0, c1 := b.Column(0), b.Column(1)
	if _, err := ReadBlock(wire.NewBytesReader(empty), 54460, true, b); err != nil {
		t.Fatal(err)
	}
	if b.NumColumns() != 0 || b.Rows() != 0 {
		t.Fatalf("empty block decoded to %d columns, %d rows", b.NumColumns(), b.Rows())
	}
	if _, err := ReadBlock(wire.NewBytesReader(data), 54460, true, b); err != nil {
		t.Fatal(err)
	}
	if b.NumColumns() != 2 || b.Column(0) != c0 || b.Column(1) != c1 || b.Column(1).Value(2) != "z" {
		t.Fatal("hidden columns not reused")
	}
	// A narrower block of another type at index 0 replaces only that column; index 1 stays hidden
	// and comes back for a block of the old shape.
	other := NewBlock()
	other.Add("n", mustCol(t, "Int8", int8(1)))
	if _, err := ReadBlock(wire.NewBytesReader(enc(other)), 54460, true, b); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadBlock(wire.NewBytesReader(data), 54460, true, b); err != nil {
		t.Fatal(err)
	}
	if b.Column(0) == c0 || b.Column(1) != c1 || b.Name(0) != "a" || b.Name(1) != "s" {
		t.Fatal("unexpected reuse after a narrower block of another type")
	}
	b.Clear()
	if _, err := ReadBlock(wire.NewBytesReader(data), 54460, true, b); err != nil {
		t.Fatal(err)
	}
	if b.Column(1) == c1 {
		t.Fatal("Clear kept a column")
	}
}

func TestBlockLimits(t *testing.T) {
	hdr := func(cols, rows uint64) []byte {
		var w wire.Writer
		w.UVarInt(cols)
		w.UVarInt(rows)
		w.String("x")
		w.String("UInt64")
		w.Raw([]byte{1, 2, 3})
		return w.Buf
	}
	var le *wire.LimitError
	if _, err := ReadBlock(wire.NewBytesReader(hdr(1, 1<<40)), 0, false, nil); !errors.As(err, &le) {
		t.Fatalf("2^40 rows: %v", err)
	}
	if _, err := ReadBlock(wire.NewBytesReader(hdr(1<<40, 1)), 0, false, nil); !errors.As(err, &le) {
		t.Fatalf("2^40 columns: %v", err)
	}
	// 2^30 rows declared with 3 bytes of data: must fail without allocating 8 GiB.
	for _, typ := range []string{"UInt64", "String", "Array(String)", "LowCardinality(String)", "Nullable(UInt8)"} {
		var w wire.Writer
		w.UVarInt(1)
		w.UVarInt(1 << 30)
		w.String("x")
		w.String(typ)
		w.Raw([]byte{1, 2, 3})
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := ReadBlock(wire.NewBytesReader(w.Buf), 0, false, nil)
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Fatalf("%s: no error", typ)
		}
		if d := after.TotalAlloc - before.TotalAlloc; d > 64<<20 {
			t.Fatalf("%s: allocated %d bytes for a hostile row count", typ, d)
		}
	}
}

func TestBlockErrors(t *testing.T) {
	b := NewBlock()
	b.Add("a", mustCol(t, "UInt8", uint8(1)))
	b.Add("b", mustCol(t, "UInt8"))
	var w wire.Writer
	var pe *ProtocolError
	if err := WriteBlock(&w, 54460, true, b); !errors.As(err, &pe) {
		t.Fatalf("unequal rows: %v", err)
	}
	raw := unhex(t, `01 01 01 "x" 07 "Nope(1)"`)
	if _, err := ReadBlock(wire.NewBytesReader(raw), 0, false, nil); err == nil || !strings.Contains(err.Error(), "Nope") {
		t.Fatalf("unknown type: %v", err)
	}
	if _, err := ReadBlock(wire.NewBytesReader(unhex(t, "09")), 54460, true, nil); !errors.As(err, &pe) {
		t.Fatalf("unknown block info field: %v", err)
	}
}

func TestBlockBuilder(t *testing.T) {
	b := NewBlock()
	b.Add("a", mustCol(t, "UInt8", uint8(1), uint8(2)))
	if b.Rows() != 2 || b.Index("a") != 0 || b.Index("z") != -1 {
		t.Fatal("builder")
	}
	b.Reset()
	if b.Rows() != 0 || b.NumColumns() != 1 {
		t.Fatal("reset")
	}
	b.Clear()
	if b.NumColumns() != 0 || b.Info.BucketNum != -1 {
		t.Fatal("clear")
	}
}
