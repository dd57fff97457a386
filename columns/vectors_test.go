package columns

import (
	"bytes"
	"os"
	"testing"
)

// Hand-built byte vectors from protocol.md §5.
func TestKnownVectors(t *testing.T) {
	for _, tc := range []struct {
		typ  string
		vals []any
		hex  string
	}{
		{"UInt8", []any{1, 2, 255}, "01 02 ff"},
		{"Int16", []any{-2, 258}, "fe ff 02 01"},
		{"UInt32", []any{0x01020304}, "04 03 02 01"},
		{"Int64", []any{-1}, "ff ff ff ff ff ff ff ff"},
		{"Float32", []any{float32(1)}, "00 00 80 3f"},
		{"Float64", []any{-2.0}, "00 00 00 00 00 00 00 c0"},
		{"Int128", []any{-2}, "fe ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff"},
		{"UInt128", []any{"18446744073709551616"}, "00 00 00 00 00 00 00 00 01 00 00 00 00 00 00 00"},
		{"UInt256", []any{100}, "64" + " 00" + " 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"},
		{"String", []any{"foo", "", "ClickHouse"}, "03 666f6f 00 0a 436c69636b486f757365"},
		{"FixedString(3)", []any{"ab", "xyz"}, "61 62 00 78 79 7a"},
		{"Date", []any{"1970-01-02", "2149-06-06"}, "01 00 ff ff"},
		{"DateTime", []any{"1970-01-01 00:00:01"}, "01 00 00 00"},
		{"DateTime('Asia/Kolkata')", []any{"1970-01-01 05:30:01"}, "01 00 00 00"},
		{"Decimal(9, 2)", []any{"-1.00"}, "9c ff ff ff"},
		{"Decimal(18, 2)", []any{"1.23"}, "7b 00 00 00 00 00 00 00"},
		{"Decimal(38, 0)", []any{-1}, "ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff"},
		{"UUID", []any{"00112233-4455-6677-8899-aabbccddeeff"}, "77 66 55 44 33 22 11 00 ff ee dd cc bb aa 99 88"},
		{"Enum8('a' = 1, 'b' = -1)", []any{"a", "b"}, "01 ff"},
		{"Enum16('a' = 1000)", []any{"a"}, "e8 03"},
		{"Nothing", []any{nil, nil}, "30 30"},
		{"Nullable(Nothing)", []any{nil}, "01 30"},
		// Nullable: null map then every inner value, NULL rows holding the default.
		{"Nullable(String)", []any{"foo", nil, "bar", "baz"}, "00 01 00 00 03 666f6f 00 03 626172 03 62617a"},
		{"Nullable(UInt8)", []any{nil, 7}, "01 00 00 07"},
		// Array: cumulative UInt64 offsets, then all elements.
		{"Array(UInt8)", []any{[]int{1, 2}, []int{}, []int{3}}, "02 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00 03 00 00 00 00 00 00 00 01 02 03"},
		{"Array(Nullable(String))", []any{[]any{nil, "a"}}, "02 00 00 00 00 00 00 00 01 00 00 01 61"},
		{"Array(Array(UInt8))", []any{[]any{[]int{1}, []int{}}}, "02 00 00 00 00 00 00 00 01 00 00 00 00 00 00 00 01 00 00 00 00 00 00 00 01"},
		// Tuple: element columns in order; names do not change the data.
		{"Tuple(String, Int8)", []any{[]any{"a", 1}, []any{"b", 2}}, "01 61 01 62 01 02"},
		{"Tuple(s String, i Int8)", []any{[]any{"a", 1}, []any{"b", 2}}, "01 61 01 62 01 02"},
		// Map = Array(Tuple(K, V)): offsets, keys, values (keys sorted on append).
		{"Map(String, UInt8)", []any{map[string]int{"b": 2, "a": 1}}, "02 00 00 00 00 00 00 00 01 61 01 62 01 02"},
		// LowCardinality: version prefix 1, then one granule: flags (UInt8 keys | HasAdditionalKeys
		// | NeedUpdateDictionary), dictionary size and values, row count and indexes.
		{"LowCardinality(String)", []any{"foo", "bar", "foo"},
			"01 00 00 00 00 00 00 00  00 06 00 00 00 00 00 00  02 00 00 00 00 00 00 00 03 666f6f 03 626172  03 00 00 00 00 00 00 00 00 01 00"},
		// Nullable form: index 0 is NULL, its dictionary slot holds the default.
		{"LowCardinality(Nullable(String))", []any{nil, "a", nil},
			"01 00 00 00 00 00 00 00  00 06 00 00 00 00 00 00  02 00 00 00 00 00 00 00 00 01 61  03 00 00 00 00 00 00 00 00 01 00"},
		// Prefixes first, depth first, then the data of each element.
		{"Tuple(LowCardinality(String), Array(LowCardinality(String)))", []any{[]any{"x", []string{"y"}}},
			"01 00 00 00 00 00 00 00  01 00 00 00 00 00 00 00" +
				" 00 06 00 00 00 00 00 00 01 00 00 00 00 00 00 00 01 78 01 00 00 00 00 00 00 00 00" +
				" 01 00 00 00 00 00 00 00" +
				" 00 06 00 00 00 00 00 00 01 00 00 00 00 00 00 00 01 79 01 00 00 00 00 00 00 00 00"},
		// Zero elements: the LC prefix is there, its data is not.
		{"Array(LowCardinality(String))", []any{[]string{}}, "01 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00"},
	} {
		c := mustNew(t, tc.typ)
		appendAll(t, c, tc.vals...)
		want := hexBytes(t, tc.hex)
		if got := encode(c); !bytes.Equal(got, want) {
			t.Errorf("%s: encoded\n got % x\nwant % x", tc.typ, got, want)
			continue
		}
		checkRoundTrip(t, c, nil)
	}
}

func TestLowCardinalityKeyWidths(t *testing.T) {
	for _, tc := range []struct {
		distinct int
		flags    uint64
	}{{1, 0x600}, {256, 0x600}, {257, 0x601}, {65536, 0x601}, {65537, 0x602}} {
		c := NewLowCardinality(func() Column { return NewFixed[uint32]("") }, false)
		for i := range tc.distinct {
			appendAll(t, c, uint32(i))
		}
		appendAll(t, c, uint32(tc.distinct-1))
		data := encode(c)
		if flags := leUint64(data[8:]); flags != tc.flags {
			t.Errorf("%d distinct: flags %#x, want %#x", tc.distinct, flags, tc.flags)
		}
		d := NewLowCardinality(func() Column { return NewFixed[uint32]("") }, false)
		if err := decodeInto(d, NewBytesReader(data), c.Rows()); err != nil {
			t.Fatal(err)
		}
		if got, want := d.Value(d.Rows()-1), uint32(tc.distinct-1); got != want {
			t.Errorf("%d distinct: last value %v, want %v", tc.distinct, got, want)
		}
	}
}

// Decoding key widths the writer never picks: UInt64 and UInt16 keys with a small dictionary.
func TestLowCardinalityReadWideKeys(t *testing.T) {
	for _, tc := range []struct{ flags, keys string }{
		{"01 06 00 00 00 00 00 00", "01 00 00 00 00 00"},
		{"02 06 00 00 00 00 00 00", "01 00 00 00 00 00 00 00 00 00 00 00"},
		{"03 02 00 00 00 00 00 00", "01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"},
	} {
		data := hexBytes(t, "01 00 00 00 00 00 00 00"+tc.flags+"02 00 00 00 00 00 00 00 00 01 61 03 00 00 00 00 00 00 00"+tc.keys)
		c := mustNew(t, "LowCardinality(String)")
		if err := decodeInto(c, NewBytesReader(data), 3); err != nil {
			t.Fatalf("%s: %v", tc.flags, err)
		}
		if got := values(c); !sameValues(got, []any{"a", "", ""}) {
			t.Errorf("%s: %v", tc.flags, got)
		}
		requireNoShortRead(t, "LowCardinality(String)", data, 3)
	}
}

// Several granules in one block: later dictionaries are appended, indexes rebased, and in the
// nullable form index 0 of every granule is NULL.
func TestLowCardinalityGranules(t *testing.T) {
	data := hexBytes(t, "01 00 00 00 00 00 00 00"+
		"00 06 00 00 00 00 00 00 02 00 00 00 00 00 00 00 00 01 61 02 00 00 00 00 00 00 00 01 00"+
		"00 06 00 00 00 00 00 00 02 00 00 00 00 00 00 00 00 01 62 03 00 00 00 00 00 00 00 00 01 01")
	c := mustNew(t, "LowCardinality(Nullable(String))")
	if err := decodeInto(c, NewBytesReader(data), 5); err != nil {
		t.Fatal(err)
	}
	want := []any{"a", nil, nil, "b", "b"}
	if got := values(c); !sameValues(got, want) {
		t.Fatalf("got %#v, want %#v", got, want)
	}
	checkRoundTrip(t, c, want)
	requireNoShortRead(t, c.Type(), data, 5)

	c = mustNew(t, "LowCardinality(String)")
	if err := decodeInto(c, NewBytesReader(data), 5); err != nil {
		t.Fatal(err)
	}
	want = []any{"a", "", "", "b", "b"}
	if got := values(c); !sameValues(got, want) {
		t.Fatalf("got %#v, want %#v", got, want)
	}
	// Appending after a Read reuses the decoded dictionary.
	appendAll(t, c, "b", "new", "a")
	checkRoundTrip(t, c, append(want, "b", "new", "a"))
}

func leUint64(b []byte) uint64 {
	var v uint64
	for i := 7; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

func readCapture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../nativeproto/testdata/captures/" + name)
	if err != nil {
		t.Fatalf("capture %s: %v", name, err)
	}
	return b
}

// block is one decoded FORMAT Native block.
type block struct {
	names []string
	cols  []Column
	start []int // offset in the input where each column's prefix starts
}

// readNativeBlocks decodes a FORMAT Native stream (no BlockInfo) with columns.New directly.
func readNativeBlocks(t *testing.T, data []byte) []block {
	t.Helper()
	r := NewBytesReader(data)
	var out []block
	for {
		ncols, err := r.UVarInt()
		if err != nil {
			if err.Error() == "EOF" {
				return out
			}
			t.Fatalf("block %d: %v", len(out), err)
		}
		nrows, err := r.Count("rows", 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		var b block
		for range ncols {
			name, err := r.String("name", 1<<10)
			if err != nil {
				t.Fatal(err)
			}
			typ, err := r.String("type", 1<<10)
			if err != nil {
				t.Fatal(err)
			}
			c := mustNew(t, typ)
			b.start = append(b.start, len(data)-r.Buffered())
			if nrows > 0 {
				if err := c.ReadPrefix(r); err != nil {
					t.Fatal(err)
				}
				if err := c.Read(r, nrows); err != nil {
					t.Fatalf("%s %s: %v", name, typ, err)
				}
			}
			b.names = append(b.names, name)
			b.cols = append(b.cols, c)
		}
		out = append(out, b)
	}
}

func TestCaptureSelectLC(t *testing.T) {
	data := readCapture(t, "select_lc.raw")
	blocks := readNativeBlocks(t, data)
	if len(blocks) != 1 || len(blocks[0].cols) != 1 {
		t.Fatalf("blocks %+v", blocks)
	}
	c := blocks[0].cols[0]
	if c.Type() != "Array(LowCardinality(String))" || blocks[0].names[0] != "v" {
		t.Fatalf("column %s %s", blocks[0].names[0], c.Type())
	}
	want := []any{
		[]string{"foo", "bar", "baz"}, []string{"foo"}, []string{"bar", "bar"},
		[]string{"foo", "foo"}, []string{"bar", "bar", "bar", "bar"},
	}
	if got := values(c); !sameValues(got, want) {
		t.Fatalf("got %#v", got)
	}
	lc := c.(*Array).Elem().(*LowCardinality)
	if d := lc.Dictionary(); d.Rows() != 4 || d.Value(0) != "" {
		t.Fatalf("dictionary %v", values(d))
	}
	// Re-encoding gives the server's bytes exactly: same dictionary, same UInt8 keys, and our
	// flags match the server's (0x600).
	colData := data[blocks[0].start[0]:]
	if got := encode(c); !bytes.Equal(got, colData) {
		t.Fatalf("re-encoded\n got % x\nwant % x", got, colData)
	}
	requireNoShortRead(t, c.Type(), colData, 5)
	for _, rk := range readerKinds {
		d := mustNew(t, c.Type())
		if err := decodeInto(d, rk.new(colData), 5); err != nil {
			t.Fatalf("%s: %v", rk.name, err)
		}
		if got := values(d); !sameValues(got, want) {
			t.Fatalf("%s: got %#v", rk.name, got)
		}
	}
	// The same values appended by a client encode to a dictionary without the "" slot.
	e := mustNew(t, c.Type())
	appendAll(t, e, want...)
	checkRoundTrip(t, e, want)
}

func TestCaptureDumpNative(t *testing.T) {
	data := readCapture(t, "test_dump_native.raw")
	blocks := readNativeBlocks(t, data)
	if len(blocks) != 2 {
		t.Fatalf("%d blocks", len(blocks))
	}
	want := [][][]any{{{int8(1)}, {"First"}}, {{int8(2), int8(3)}, {"Second", "Third"}}}
	var re []byte
	for i, b := range blocks {
		if b.names[0] != "id" || b.names[1] != "v" || b.cols[0].Type() != "Int8" || b.cols[1].Type() != "String" {
			t.Fatalf("block %d: %v %s %s", i, b.names, b.cols[0].Type(), b.cols[1].Type())
		}
		for j, c := range b.cols {
			if got := values(c); !sameValues(got, want[i][j]) {
				t.Errorf("block %d col %d: %#v", i, j, got)
			}
		}
		// Rebuild the block bytes with our writer.
		var w Writer
		w.UVarInt(uint64(len(b.cols)))
		w.UVarInt(uint64(b.cols[0].Rows()))
		for j, c := range b.cols {
			w.String(b.names[j])
			w.String(c.Type())
			c.WritePrefix(&w)
			c.Write(&w)
		}
		re = append(re, w.Buf...)
	}
	if !bytes.Equal(re, data) {
		t.Fatalf("re-encoded\n got % x\nwant % x", re, data)
	}
}
