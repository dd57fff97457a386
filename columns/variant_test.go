package columns

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// nativeBlock decodes a one-column FORMAT Native block (as chDB writes it: UVarInt columns,
// UVarInt rows, String name, String type, prefix, data) and returns the column.
func nativeBlock(t *testing.T, hexdata string) (Column, []byte) {
	t.Helper()
	data := hexBytes(t, hexdata)
	r := NewBytesReader(data)
	ncols, err := r.UVarInt()
	if err != nil || ncols != 1 {
		t.Fatalf("columns: %d %v", ncols, err)
	}
	rows, _ := r.UVarInt()
	if _, err := r.String("name", 1000); err != nil {
		t.Fatal(err)
	}
	typ, err := r.String("type", 1000)
	if err != nil {
		t.Fatal(err)
	}
	body := data[len(data)-r.Buffered():]
	c := mustNew(t, typ)
	if err := decodeInto(c, NewBytesReader(body), int(rows)); err != nil {
		t.Fatalf("%s: %v", typ, err)
	}
	// Every truncation fails cleanly.
	requireNoShortRead(t, typ, body, int(rows))
	return c, body
}

func dv(typ string, v any) any { return DynamicValue{Type: typ, Value: v} }

// Vectors captured from chDB 26.7 (FORMAT Native, revision 0: Dynamic V1, JSON V1).
var chdbVectors = []struct {
	name string
	hex  string
	want []any
}{
	{"variant nulls", // SELECT arrayJoin([1::Variant(UInt8,String), NULL, 'ab']) AS v
		"010301761656617269616e7428537472696e672c2055496e743829000000000000000001ff0002616201",
		[]any{VariantValue{"UInt8", uint8(1)}, nil, VariantValue{"String", "ab"}}},
	{"dynamic v1", // SELECT arrayJoin([toInt64(7)::Dynamic, 'hi'::Dynamic, NULL::Dynamic]) AS d
		"010301640744796e616d69630100000000000000020205496e74363406537472696e6700000000000000000002ff0700000000000000026869",
		[]any{dv("Int64", int64(7)), dv("String", "hi"), nil}},
	{"dynamic flattened", // same, output_format_native_use_flattened_dynamic_and_json_serialization=1
		"010301640744796e616d696303000000000000000205496e74363406537472696e670001020700000000000000026869",
		[]any{dv("Int64", int64(7)), dv("String", "hi"), nil}},
	{"dynamic shared variant", // Dynamic(max_types=1): String and Array(UInt8) in the SharedVariant
		"010401641444796e616d6963286d61785f74797065733d31290100000000000000010105496e74363400000000000000000001ff0107000000000000000415026869051e01020102",
		[]any{dv("Int64", int64(7)), dv("String", "hi"), nil, dv("Array(UInt8)", []uint8{1, 2})}},
	{"dynamic shared variant 2",
		"010501641444796e616d6963286d61785f74797065733d31290100000000000000010105496e74363400000000000000000001ff0100070000000000000008000000000000000415026869051e01020102",
		[]any{dv("Int64", int64(7)), dv("String", "hi"), nil, dv("Array(UInt8)", []uint8{1, 2}), dv("Int64", int64(8))}},
	{"json v1", // SELECT '{"a":{"b":1,"c":"x"},"arr":[1,2]}'::JSON AS j
		"0101016a044a534f4e0000000000000000030303612e6203612e63036172720100000000000000010105496e74363400000000000000000100000000000000010106537472696e67000000000000000001000000000000000101164172726179284e756c6c61626c6528496e743634292900000000000000000001000000000000000101780002000000000000000000010000000000000002000000000000000000000000000000",
		[]any{`{"a":{"b":1,"c":"x"},"arr":[1,2]}`}},
	{"json string", // output_format_native_write_json_as_string=1
		"0101016a044a534f4e0100000000000000217b2261223a7b2262223a312c2263223a2278227d2c22617272223a5b312c325d7d",
		[]any{`{"a":{"b":1,"c":"x"},"arr":[1,2]}`}},
	{"json flattened",
		"0101016a044a534f4e03000000000000000303612e6203612e630361727203000000000000000105496e74363403000000000000000106537472696e67030000000000000001164172726179284e756c6c61626c6528496e7436342929000100000000000000000178000200000000000000000001000000000000000200000000000000",
		[]any{`{"a":{"b":1,"c":"x"},"arr":[1,2]}`}},
	{"json shared data", // JSON(max_dynamic_paths=1): a.c and arr in the shared data; z:null dropped
		"0102016a194a534f4e286d61785f64796e616d69635f70617468733d31290000000000000000010103612e620100000000000000010105496e74363400000000000000000000010000000000000002000000000000000200000000000000020000000000000003612e630361727203150178161e230a02000100000000000000000200000000000000",
		[]any{`{"a":{"b":1,"c":"x"},"arr":[1,2]}`, `{"a":{"b":2}}`}},
	{"json typed path", // SELECT '{"a":{"b":1,"c":"x"}}'::JSON(a.b UInt32) AS j
		"0101016a124a534f4e2860612e62602055496e743332290000000000000000010103612e630100000000000000010106537472696e670000000000000000010000000101780000000000000000",
		[]any{`{"a":{"b":1,"c":"x"}}`}},
}

func TestChDBVectors(t *testing.T) {
	for _, tc := range chdbVectors {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := nativeBlock(t, tc.hex)
			if got := values(c); !sameValues(got, tc.want) {
				t.Fatalf("got %#v\nwant %#v", got, tc.want)
			}
			// Re-encoding (FLATTENED / STRING) decodes to the same values and is stable.
			checkRoundTrip(t, c, tc.want)
		})
	}
}

func TestVariantAppend(t *testing.T) {
	c := mustNew(t, "Variant(UInt64, String, Array(Int64))")
	if c.Type() != "Variant(Array(Int64), String, UInt64)" {
		t.Fatalf("type %s", c.Type())
	}
	appendAll(t, c, "x", uint64(5), 7, nil, []int64{1, 2}, VariantValue{"UInt64", 9}, &VariantValue{"String", "y"})
	want := []any{VariantValue{"String", "x"}, VariantValue{"UInt64", uint64(5)}, VariantValue{"UInt64", uint64(7)}, nil,
		VariantValue{"Array(Int64)", []int64{1, 2}}, VariantValue{"UInt64", uint64(9)}, VariantValue{"String", "y"}}
	data := checkRoundTrip(t, c, want)
	if !bytes.HasPrefix(data, make([]byte, 8)) {
		t.Fatalf("mode prefix: % x", data[:8])
	}
	amb := mustNew(t, "Variant(Int64, UInt64)")
	err := amb.AppendValue(5)
	var tm *TypeMismatchError
	if !errors.As(err, &tm) || !strings.Contains(err.Error(), "ambiguous") || amb.Rows() != 0 {
		t.Fatalf("ambiguous: %v", err)
	}
	if err := amb.AppendValue(VariantValue{"Float64", 1.0}); err == nil {
		t.Fatal("unknown variant accepted")
	}
	appendAll(t, amb, int64(-1), uint64(1), VariantValue{"UInt64", 3})
	c.Truncate(2)
	checkRoundTrip(t, c, want[:2])
	for _, bad := range []string{"Variant(Nullable(String))", "Variant(String, String)", "Variant()", "Variant(Dynamic)"} {
		if _, err := New(bad); err == nil {
			t.Errorf("New(%q) succeeded", bad)
		}
	}
	compact := hexBytes(t, "01 00 00 00 00 00 00 00")
	if err := mustNew(t, "Variant(String, UInt8)").ReadPrefix(NewBytesReader(compact)); err == nil || !strings.Contains(err.Error(), "COMPACT") {
		t.Fatalf("compact mode: %v", err)
	}
}

func TestDynamicAppend(t *testing.T) {
	c := mustNew(t, "Dynamic")
	appendAll(t, c, 1, "s", nil, 2.5, []string{"a"}, DynamicValue{"UInt8", 3}, map[string]int64{"k": 1}, int64(4),
		DynamicValue{"Decimal(9, 2)", "1.25"}, VariantValue{"String", "v"})
	want := []any{dv("Int64", int64(1)), dv("String", "s"), nil, dv("Float64", 2.5), dv("Array(String)", []string{"a"}),
		dv("UInt8", uint8(3)), dv("Map(String, Int64)", map[string]int64{"k": 1}), dv("Int64", int64(4)),
		dv("Decimal(9, 2)", mustDecimal(t, "Decimal(9, 2)", "1.25")), dv("String", "v")}
	checkRoundTrip(t, c, want)
	if err := c.AppendValue(struct{}{}); err == nil || c.Rows() != len(want) {
		t.Fatalf("struct: %v", err)
	}
	if err := c.AppendValue(DynamicValue{"Nullable(Int64)", 1}); err == nil {
		t.Fatal("Nullable type accepted")
	}
	c.Truncate(3)
	checkRoundTrip(t, c, want[:3])
	d := mustNew(t, "Dynamic(max_types=3)")
	if d.Type() != "Dynamic(max_types=3)" {
		t.Fatal(d.Type())
	}
	appendAll(t, d, "x")
	checkRoundTrip(t, d, nil)
	// Unknown structure versions name the version.
	if err := d.ReadPrefix(NewBytesReader(hexBytes(t, "04 00 00 00 00 00 00 00"))); err == nil || !strings.Contains(err.Error(), "version 4") {
		t.Fatal(err)
	}
}

func mustDecimal(t *testing.T, typ, s string) any {
	c := mustNew(t, typ)
	appendAll(t, c, s)
	return c.Value(0)
}

func TestJSONAppend(t *testing.T) {
	c := mustNew(t, "JSON(a.b UInt32, max_dynamic_paths=8)")
	appendAll(t, c, `{"a":{"b":1}}`, []byte(` {"x":[1,2]} `), map[string]any{"k": "v"}, json.RawMessage(`{}`))
	c.AppendDefault()
	checkRoundTrip(t, c, []any{`{"a":{"b":1}}`, `{"x":[1,2]}`, `{"k":"v"}`, `{}`, `{}`})
	for _, bad := range []any{"[1]", "{", nil, 5} {
		if err := c.AppendValue(bad); err == nil {
			t.Errorf("AppendValue(%#v) succeeded", bad)
		}
	}
	if err := c.ReadPrefix(NewBytesReader(hexBytes(t, "07 00 00 00 00 00 00 00"))); err == nil || !strings.Contains(err.Error(), "output_format_native_write_json_as_string") {
		t.Fatal(err)
	}
}

// Prefixes at depth: the whole prefix tree precedes the data.
func TestStatefulNested(t *testing.T) {
	for _, tc := range []struct {
		typ  string
		vals []any
	}{
		{"Array(Variant(String, UInt8))", []any{[]any{"a", uint8(1), nil}, nil, []any{VariantValue{"UInt8", 2}}}},
		{"Tuple(a Dynamic, b Array(JSON))", []any{[]any{1, []string{`{"a":1}`}}, []any{"s", nil}}},
		{"Map(String, Dynamic)", []any{map[string]any{"x": 1, "y": "z"}, map[string]any{}}},
		{"Array(Dynamic)", []any{[]any{1, "a", []int64{1}}, []any{nil, 2.5}}},
		{"Tuple(LowCardinality(String), Variant(LowCardinality(String), UInt8), Dynamic)", []any{[]any{"a", "b", DynamicValue{"LowCardinality(String)", "c"}}}},
	} {
		c := mustNew(t, tc.typ)
		appendAll(t, c, tc.vals...)
		checkRoundTrip(t, c, nil)
	}
}

func TestBinaryType(t *testing.T) {
	for _, tc := range []struct{ hex, want string }{
		{"0a", "Int64"},
		{"1e 23 0a", "Array(Nullable(Int64))"},
		{"12 03 55 54 43", "DateTime('UTC')"},
		{"14 03 03 55 54 43", "DateTime64(3, 'UTC')"},
		{"17 02 01 61 01 01 62 ff", "Enum8('a' = 1, 'b' = -1)"},
		{"1a 12 04", "Decimal(18, 4)"},
		{"20 02 01 61 15 01 62 1e 01", "Tuple(a String, b Array(UInt8))"},
		{"27 15 2b 05", "Map(String, Dynamic(max_types=5))"},
		{"2a 02 15 01", "Variant(String, UInt8)"},
		{"26 23 15", "LowCardinality(Nullable(String))"},
		{"16 10", "FixedString(16)"},
		{"30 00 80 08 20 01 03 61 2e 62 03 00 00", "JSON(`a.b` UInt32)"},
	} {
		got, err := DecodeBinaryType(NewBytesReader(hexBytes(t, tc.hex)))
		if err != nil || got != tc.want {
			t.Errorf("%s: %q %v, want %q", tc.hex, got, err, tc.want)
		}
	}
	var bt *BinaryTypeError
	if _, err := DecodeBinaryType(NewBytesReader([]byte{0x25})); !errors.As(err, &bt) {
		t.Errorf("AggregateFunction: %v", err)
	}
	if _, err := DecodeBinaryType(NewBytesReader([]byte{0x1e})); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("truncated: %v", err)
	}
	// Values of common types in the binary format.
	for _, tc := range []struct {
		hex  string
		typ  string
		want any
	}{
		{"23 15 00 02 68 69", "Nullable(String)", "hi"},
		{"23 15 01", "Nullable(String)", nil},
		{"27 15 01 01 01 6b 07", "Map(String, UInt8)", map[string]uint8{"k": 7}},
		{"1f 02 01 15 05 01 61", "Tuple(UInt8, String)", []any{uint8(5), "a"}},
		{"2a 02 15 01 01 09", "Variant(String, UInt8)", VariantValue{"UInt8", uint8(9)}},
		{"26 15 02 68 69", "LowCardinality(String)", "hi"},
		{"16 02 61 62", "FixedString(2)", "ab"},
		{"00", "Nothing", nil},
	} {
		typ, v, err := decodeBinaryValue(hexBytes(t, tc.hex))
		if err != nil || typ != tc.typ || !valueEqual(v, tc.want) {
			t.Errorf("%s: %s %#v %v, want %s %#v", tc.hex, typ, v, err, tc.typ, tc.want)
		}
	}
}

// FuzzDecodeStateful is FuzzDecode seeded with the chDB captures (V1, FLATTENED, STRING and
// SharedVariant structures), whose prefixes random bytes rarely reach.
func FuzzDecodeStateful(f *testing.F) {
	var types []string
	for _, tc := range chdbVectors {
		data := hexBytes(f, tc.hex)
		r := NewBytesReader(data)
		_, _ = r.UVarInt()
		rows, _ := r.UVarInt()
		_, _ = r.String("name", 1000)
		typ, _ := r.String("type", 1000)
		types = append(types, typ)
		f.Add(uint8(len(types)-1), uint16(rows), data[len(data)-r.Buffered():])
	}
	f.Fuzz(func(t *testing.T, ti uint8, rows uint16, data []byte) {
		typ := types[int(ti)%len(types)]
		c, _ := New(typ)
		r := NewBytesReader(data)
		if c.ReadPrefix(r) != nil {
			return
		}
		if err := c.Read(r, int(rows)); err != nil {
			if c.Rows() != 0 {
				t.Fatalf("%s: failed Read left %d rows", typ, c.Rows())
			}
			return
		}
		first := values(c)
		enc := encode(c)
		d, _ := New(typ)
		if err := decodeInto(d, NewBytesReader(enc), int(rows)); err != nil {
			t.Fatalf("%s: re-encoded: %v", typ, err)
		}
		if i, ok := valuesEqual(first, values(d)); !ok {
			t.Fatalf("%s: row %d: %#v became %#v", typ, i, first[i], d.Value(i))
		}
		if again := encode(d); !bytes.Equal(again, enc) {
			t.Fatalf("%s: re-encoding is not stable", typ)
		}
	})
}

// V2 structures are V1 without the max_dynamic_types / max_dynamic_paths field (chDB, a
// revision-0 writer, only writes V1; these are derived from its V1 captures).
func TestV2Structures(t *testing.T) {
	_, dynV1 := nativeBlock(t, chdbVectors[1].hex)
	dynV2 := append([]byte{2, 0, 0, 0, 0, 0, 0, 0}, dynV1[9:]...)
	c := mustNew(t, "Dynamic")
	if err := decodeInto(c, NewBytesReader(dynV2), 3); err != nil {
		t.Fatal(err)
	}
	if got := values(c); !sameValues(got, chdbVectors[1].want) {
		t.Fatalf("Dynamic V2: %#v", got)
	}
	requireNoShortRead(t, "Dynamic", dynV2, 3)
	_, jsonV1 := nativeBlock(t, chdbVectors[5].hex)
	jsonV2 := append([]byte{2, 0, 0, 0, 0, 0, 0, 0}, jsonV1[9:]...)
	j := mustNew(t, "JSON")
	if err := decodeInto(j, NewBytesReader(jsonV2), 1); err != nil {
		t.Fatal(err)
	}
	if got := values(j); !sameValues(got, chdbVectors[5].want) {
		t.Fatalf("JSON V2: %#v", got)
	}
}

// TestVariantNullAppendsBack: the zero VariantValue that Value returns for NULL appends back as
// NULL, also inside Array and Map (the prepared insert of a value read from the server).
func TestVariantNullAppendsBack(t *testing.T) {
	for _, typ := range []string{"Variant(Int64, String)", "Array(Variant(Int64, String))", "Map(String, Variant(String, UInt64))"} {
		c, err := New(typ)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		switch typ {
		case "Variant(Int64, String)":
			v = nil
		case "Array(Variant(Int64, String))":
			v = []any{nil, "a", int64(3)}
		default:
			v = map[string]any{"n": nil, "s": "x"}
		}
		if err := c.AppendValue(v); err != nil {
			t.Fatalf("%s: AppendValue(%v): %v", typ, v, err)
		}
		if err := c.AppendValue(c.Value(0)); err != nil {
			t.Fatalf("%s: appending Value(0) = %#v back: %v", typ, c.Value(0), err)
		}
		if got, want := fmt.Sprint(c.Value(1)), fmt.Sprint(c.Value(0)); got != want {
			t.Fatalf("%s: appended back %s, want %s", typ, got, want)
		}
	}
}
