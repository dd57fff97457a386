package columns

import (
	"fmt"
	"testing"
)

const benchRows = 65536

func benchDecode(b *testing.B, c Column, fill func(i int) any) {
	for i := range benchRows {
		if err := c.AppendValue(fill(i)); err != nil {
			b.Fatal(err)
		}
	}
	data := encode(c)
	dst, err := New(c.Type())
	if err != nil {
		b.Fatal(err)
	}
	r := NewBytesReader(nil)
	// Warm the reused column once so the loop measures steady state.
	r.ResetBytes(data)
	if err := decodeInto(dst, r, benchRows); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r.ResetBytes(data)
		if err := dst.ReadPrefix(r); err != nil {
			b.Fatal(err)
		}
		if err := dst.Read(r, benchRows); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeUInt64(b *testing.B) {
	benchDecode(b, NewFixed[uint64](""), func(i int) any { return uint64(i) * 7919 })
}

func BenchmarkDecodeString(b *testing.B) {
	benchDecode(b, NewString(), func(i int) any { return fmt.Sprintf("value%05d", i) })
}

func BenchmarkDecodeLowCardinalityString(b *testing.B) {
	c, _ := New("LowCardinality(String)")
	benchDecode(b, c, func(i int) any { return fmt.Sprintf("city-%03d", i%500) })
}

func BenchmarkDecodeNullableUInt64(b *testing.B) {
	c, _ := New("Nullable(UInt64)")
	benchDecode(b, c, func(i int) any {
		if i%3 == 0 {
			return nil
		}
		return uint64(i)
	})
}

func BenchmarkDecodeStringStream(b *testing.B) {
	c := NewString()
	for i := range benchRows {
		c.Append(fmt.Sprintf("value%05d", i))
	}
	data := encode(c)
	src := &loopReader{data: data}
	r := NewReader(src)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		src.off = 0
		r.Reset(src)
		if err := c.Read(r, benchRows); err != nil {
			b.Fatal(err)
		}
	}
}

type loopReader struct {
	data []byte
	off  int
}

func (l *loopReader) Read(p []byte) (int, error) {
	if l.off == len(l.data) {
		return 0, fmt.Errorf("EOF")
	}
	n := copy(p, l.data[l.off:])
	l.off += n
	return n, nil
}

func BenchmarkEncodeString(b *testing.B) {
	c := NewString()
	for i := range benchRows {
		c.Append(fmt.Sprintf("value%05d", i))
	}
	var w Writer
	b.ReportAllocs()
	for b.Loop() {
		w.Reset()
		c.Write(&w)
	}
	b.SetBytes(int64(w.Len()))
}

// Zero allocations per decode into a reused column.
func TestDecodeReusedAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip()
	}
	for _, tc := range []struct {
		typ  string
		fill func(i int) any
	}{
		{"UInt64", func(i int) any { return i }},
		{"String", func(i int) any { return fmt.Sprint(i) }},
		{"LowCardinality(String)", func(i int) any { return fmt.Sprint(i % 300) }},
		{"LowCardinality(Nullable(String))", func(i int) any {
			if i%5 == 0 {
				return nil
			}
			return fmt.Sprint(i % 70000)
		}},
		{"Nullable(UInt64)", func(i int) any { return nil }},
		{"Array(String)", func(i int) any { return []string{"a", "b"} }},
		{"Map(String, UInt64)", func(i int) any { return map[string]int{"a": i} }},
		{"Tuple(String, Nullable(Float64))", func(i int) any { return []any{"x", 1.5} }},
		{"UUID", func(i int) any { return [16]byte{byte(i)} }},
		{"FixedString(4)", func(i int) any { return "abcd" }},
		{"DateTime64(3, 'Asia/Kolkata')", func(i int) any { return int64(i) }},
		{"IPv6", func(i int) any { return [16]byte{byte(i)} }},
		{"Bool", func(i int) any { return i%2 == 0 }},
		{"BFloat16", func(i int) any { return float32(i) }},
		{"Point", func(i int) any { return Point{float64(i), 1} }},
		{"Polygon", func(i int) any { return Polygon{{{1, 2}, {3, 4}}} }},
		{"Nested(a UInt8, b String)", func(i int) any { return []any{[]any{1, "x"}} }},
		{"SimpleAggregateFunction(sum, UInt64)", func(i int) any { return i }},
		{"LowCardinality(Nullable(IPv6))", func(i int) any { return [16]byte{byte(i)} }},
	} {
		c := mustNew(t, tc.typ)
		for i := range 4096 {
			appendAll(t, c, tc.fill(i))
		}
		data := encode(c)
		dst := mustNew(t, tc.typ)
		r := NewBytesReader(data)
		if err := decodeInto(dst, r, c.Rows()); err != nil {
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(10, func() {
			r.ResetBytes(data)
			if err := dst.ReadPrefix(r); err != nil {
				t.Fatal(err)
			}
			if err := dst.Read(r, c.Rows()); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per decode", tc.typ, allocs)
		}
	}
}

// benchDecodeCustom decodes benchRows rows of typ in serialization sp, every tenth row not the
// default: the cost of expanding sparse and replicated data, against BenchmarkDecode* of the own
// encoding.
func benchDecodeCustom(b *testing.B, typ string, sp *spec, fill func(i int) any) {
	full, err := New(typ)
	if err != nil {
		b.Fatal(err)
	}
	for i := range benchRows {
		if i%10 != 0 {
			full.AppendDefault()
		} else if err := full.AppendValue(fill(i)); err != nil {
			b.Fatal(err)
		}
	}
	kinds, body := encodeCustom(b, full, sp, 4)
	dst, _ := New(typ)
	var s Serialization
	kr, r := NewBytesReader(nil), NewBytesReader(nil)
	decode := func() {
		kr.ResetBytes(kinds)
		r.ResetBytes(body)
		if err := s.ReadKinds(kr, dst); err != nil {
			b.Fatal(err)
		}
		if err := s.ReadPrefix(r); err != nil {
			b.Fatal(err)
		}
		if err := s.Read(r, benchRows); err != nil {
			b.Fatal(err)
		}
	}
	decode()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		decode()
	}
}

func BenchmarkDecodeSparseUInt64(b *testing.B) {
	benchDecodeCustom(b, "UInt64", specSparse, func(i int) any { return uint64(i) * 7919 })
}

func BenchmarkDecodeSparseString(b *testing.B) {
	benchDecodeCustom(b, "String", specSparse, func(i int) any { return fmt.Sprintf("value%05d", i) })
}

func BenchmarkDecodeSparseNullableUInt64(b *testing.B) {
	benchDecodeCustom(b, "Nullable(UInt64)", specSparse, func(i int) any { return uint64(i) })
}

func BenchmarkDecodeReplicatedString(b *testing.B) {
	benchDecodeCustom(b, "String", specRepl, func(i int) any { return fmt.Sprintf("value%02d", i%50) })
}

// BenchmarkAppend appends rows of boxed values with Append, one op a row of three: hot is the
// types Append compares first (UInt64, String, Float64), other is three that it reaches through
// its type switch (Int16, Float32, UInt8). See appendfast.go.
func BenchmarkAppend(b *testing.B) {
	for _, bc := range []struct {
		name string
		cols []Column
		row  func(i int) []any
	}{
		{"hot", []Column{&UInt64{}, &String{}, &Float64{}}, func(i int) []any { return []any{uint64(i), "name", float64(i)} }},
		{"other", []Column{&Int16{}, &Float32{}, &UInt8{}}, func(i int) []any { return []any{int16(i), float32(i), uint8(i)} }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			rows := make([][]any, 4096)
			for i := range rows {
				rows[i] = bc.row(i)
			}
			i := 0
			for b.Loop() {
				for j, v := range rows[i&4095] {
					if err := Append(bc.cols[j], v); err != nil {
						b.Fatal(err)
					}
				}
				if i++; i&65535 == 0 {
					for _, c := range bc.cols {
						c.Reset()
					}
				}
			}
		})
	}
}
