package columns

import (
	"bytes"
	"testing"
)

// fuzzTypes covers every family New supports; FuzzDecode picks one by index.
var fuzzTypes = []string{
	"UInt8", "Int16", "UInt32", "Int64", "Float32", "Float64", "Int128", "UInt256",
	"String", "FixedString(3)", "Date", "DateTime", "DateTime('Asia/Kolkata')",
	"Decimal(9, 2)", "Decimal(18, 4)", "Decimal(38, 10)", "Decimal(76, 20)", "UUID",
	"Enum8('a' = -128, 'b' = 0, 'c\\'' = 127)", "Enum16('x' = -1000, 'y' = 1000)",
	"Nothing", "Nullable(Nothing)", "Nullable(String)", "Nullable(UInt64)",
	"Array(UInt8)", "Array(Nullable(String))", "Array(Array(UInt8))", "Array(Nothing)",
	"Tuple(String, Int32)", "Tuple(a String, b Array(Nullable(UInt8)))",
	"Map(String, UInt64)", "Map(String, Array(Nullable(UInt64)))", "Map(Nothing, Nothing)",
	"LowCardinality(String)", "LowCardinality(Nullable(String))", "Array(LowCardinality(String))",
	"Tuple(LowCardinality(String), Array(LowCardinality(String)))",
	"LowCardinality(Nullable(FixedString(2)))", "LowCardinality(Float64)", "LowCardinality(DateTime)",
	"LowCardinality(Date)", "LowCardinality(UUID)", "LowCardinality(Nullable(UInt8))",
	"Map(LowCardinality(String), LowCardinality(Nullable(String)))",
	"Bool", "BFloat16", "Date32", "DateTime64(0)", "DateTime64(3)", "DateTime64(9, 'America/St_Johns')",
	"Time", "Time64(3)", "IPv4", "IPv6", "IntervalSecond", "IntervalYear", "Decimal(76, 0)", "Int256",
	"Point", "Ring", "LineString", "MultiLineString", "Polygon", "MultiPolygon",
	"SimpleAggregateFunction(sum, UInt64)", "SimpleAggregateFunction(anyLast, Nullable(String))",
	"Nested(a UInt8, b String)", "Nullable(IPv4)", "Nullable(DateTime64(6, 'Asia/Kathmandu'))",
	"Array(Nullable(Int32))", "Map(IPv4, Bool)", "Tuple(Bool, IPv6, Date32, BFloat16)",
	"LowCardinality(Bool)", "LowCardinality(BFloat16)", "LowCardinality(Nullable(IPv6))", "LowCardinality(Int256)",
	"LowCardinality(Date32)", "LowCardinality(Time)", "Array(LowCardinality(Nullable(IPv6)))",
	"Variant(String, UInt8)", "Array(Variant(Array(UInt8), LowCardinality(String), String))",
	"Dynamic", "Dynamic(max_types=1)", "Array(Dynamic)", "Map(String, Dynamic)",
	"JSON", "JSON(a.b UInt32)", "Tuple(a Dynamic, b Array(JSON))",
	"QBit(Float32, 3)", "QBit(BFloat16, 17)", "QBit(Float64, 9)", "QBit(Int8, 16, 8)", "QBit(Float32, 24, 8)",
	"Nullable(QBit(Int8, 5))", "Array(QBit(BFloat16, 1))",
	"Nullable(JSON)", "Array(Nullable(JSON))", "Tuple(n Nullable(Int128), p Array(Point))",
}

// FuzzDecode decodes arbitrary bytes as rows values of a type: it must never panic, and whatever
// decodes must re-encode to bytes that decode to the same values and re-encode identically.
func FuzzDecode(f *testing.F) {
	for i, typ := range fuzzTypes {
		c, err := New(typ)
		if err != nil {
			f.Fatal(err)
		}
		for range 3 {
			c.AppendDefault()
		}
		f.Add(uint8(i), uint16(3), encode(c))
	}
	for _, tc := range roundTripCases() {
		for i, typ := range fuzzTypes {
			if typ != tc.typ {
				continue
			}
			c, _ := New(typ)
			for _, v := range tc.vals {
				if err := c.AppendValue(v); err != nil {
					f.Fatal(err)
				}
			}
			f.Add(uint8(i), uint16(c.Rows()), encode(c))
		}
	}
	f.Fuzz(func(t *testing.T, typeIndex uint8, rows uint16, data []byte) {
		typ := fuzzTypes[int(typeIndex)%len(fuzzTypes)]
		c, err := New(typ)
		if err != nil {
			t.Fatal(err)
		}
		r := NewBytesReader(data)
		if err := c.ReadPrefix(r); err != nil {
			return
		}
		if err := c.Read(r, int(rows)); err != nil {
			if c.Rows() != 0 {
				t.Fatalf("%s: failed Read left %d rows", typ, c.Rows())
			}
			return
		}
		if c.Rows() != int(rows) {
			t.Fatalf("%s: Rows() = %d, want %d", typ, c.Rows(), rows)
		}
		first := values(c)
		checkSQLValues(t, c)
		enc := encode(c)
		d, _ := New(typ)
		r2 := NewBytesReader(enc)
		if err := d.ReadPrefix(r2); err != nil {
			t.Fatalf("%s: re-encoded prefix: %v", typ, err)
		}
		if err := d.Read(r2, int(rows)); err != nil {
			t.Fatalf("%s: re-encoded data % x: %v", typ, enc, err)
		}
		if r2.Buffered() != 0 {
			t.Fatalf("%s: %d re-encoded bytes left over", typ, r2.Buffered())
		}
		if i, ok := valuesEqual(first, values(d)); !ok {
			t.Fatalf("%s: row %d: %#v became %#v", typ, i, first[i], d.Value(i))
		}
		if again := encode(d); !bytes.Equal(again, enc) {
			t.Fatalf("%s: re-encoding is not stable\n% x\n% x", typ, enc, again)
		}
		// Appending after a decode keeps the column consistent.
		d.AppendDefault()
		if d.Rows() != int(rows)+1 {
			t.Fatalf("%s: AppendDefault after Read: Rows() = %d", typ, d.Rows())
		}
		_ = encode(d)
	})
}

// FuzzDecodeCustom decodes arbitrary bytes as a column in a custom serialization (kind stacks,
// then prefix and data: sparse, replicated, tuple elements): it must never panic, a failed decode
// leaves the column empty, and what decodes re-encodes in the type's own encoding to the same
// values.
func FuzzDecodeCustom(f *testing.F) {
	specs := []*spec{specSparse, specRepl, specSR, specRS}
	for i, typ := range fuzzTypes {
		full := withDefaults(f, typ, nil, 2)
		for j, sp := range specs {
			if (i+j)%3 == 0 {
				kinds, body := encodeCustom(f, full, sp, 1+j%2)
				f.Add(uint8(i), uint16(full.Rows()), append(kinds, body...))
			}
		}
	}
	for _, tc := range roundTripCases() {
		for i, typ := range fuzzTypes {
			if typ != tc.typ {
				continue
			}
			full := withDefaults(f, typ, tc.vals, 0)
			kinds, body := encodeCustom(f, full, specs[i%len(specs)], 2)
			f.Add(uint8(i), uint16(full.Rows()), append(kinds, body...))
		}
	}
	tupleTyp := "Tuple(a String, b Array(Nullable(UInt8)))"
	for i, typ := range fuzzTypes {
		if typ == tupleTyp {
			full := withDefaults(f, typ, []any{[]any{"x", []any{nil, 1}}, []any{"", []any{}}}, 0)
			kinds, body := encodeCustom(f, full, &spec{elems: []*spec{specSparse, specRepl}}, 1)
			f.Add(uint8(i), uint16(full.Rows()), append(kinds, body...))
		}
	}
	f.Fuzz(func(t *testing.T, typeIndex uint8, rows uint16, data []byte) {
		typ := fuzzTypes[int(typeIndex)%len(fuzzTypes)]
		c, err := New(typ)
		if err != nil {
			t.Fatal(err)
		}
		r := NewBytesReader(data)
		var s Serialization
		if err := s.ReadKinds(r, c); err != nil {
			return
		}
		if err := s.ReadPrefix(r); err != nil {
			return
		}
		if err := s.Read(r, int(rows)); err != nil {
			if c.Rows() != 0 {
				t.Fatalf("%s %s: failed Read left %d rows", typ, s.String(), c.Rows())
			}
			return
		}
		if c.Rows() != int(rows) {
			t.Fatalf("%s %s: Rows() = %d, want %d", typ, s.String(), c.Rows(), rows)
		}
		first := values(c)
		checkSQLValues(t, c)
		d, _ := New(typ)
		if err := decodeInto(d, NewBytesReader(encode(c)), int(rows)); err != nil {
			t.Fatalf("%s %s: re-encoded: %v", typ, s.String(), err)
		}
		if i, ok := valuesEqual(first, values(d)); !ok {
			t.Fatalf("%s %s: row %d: %#v became %#v", typ, s.String(), i, first[i], d.Value(i))
		}
	})
}
