package columns

import (
	"errors"
	"fmt"
	"io"
	"math/big"
	"runtime"
	"strings"
	"testing"
)

// spec is the serialization a test encodes a column in: the kinds above DEFAULT, bottom first,
// and for a Tuple the element specs (nil: DEFAULT).
type spec struct {
	top   []Kind
	elems []*spec
}

var (
	specDefault = &spec{}
	specSparse  = &spec{top: []Kind{KindSparse}}
	specRepl    = &spec{top: []Kind{KindReplicated}}
	specSR      = &spec{top: []Kind{KindSparse, KindReplicated}} // replicated over sparse
	specRS      = &spec{top: []Kind{KindReplicated, KindSparse}} // sparse over replicated
)

func (sp *spec) elem(j int) *spec {
	if sp == nil || j >= len(sp.elems) || sp.elems[j] == nil {
		return specDefault
	}
	return sp.elems[j]
}

// encodeCustom encodes full as a server does in serialization sp: the kind stacks, then the
// state prefix, then the data. It is this test's model of SerializationSparse and
// SerializationReplicated; the decoded values must equal full's.
func encodeCustom(t testing.TB, full Column, sp *spec, width int) (kinds, body []byte) {
	t.Helper()
	var kw Writer
	writeKinds(&kw, full, sp)
	var prefix, data Writer
	encodeLayers(t, full, sp.top, sp, width, &prefix, &data)
	return kw.Buf, append(prefix.Buf, data.Buf...)
}

func writeKinds(w *Writer, col Column, sp *spec) {
	switch {
	case len(sp.top) == 0:
		w.Byte(stackDefault)
	case len(sp.top) == 1 && sp.top[0] == KindSparse:
		w.Byte(stackSparse)
	case len(sp.top) == 1 && sp.top[0] == KindReplicated:
		w.Byte(stackReplicated)
	default:
		w.Byte(stackCombination)
		w.UVarInt(uint64(len(sp.top) + 1))
		w.Byte(byte(KindDefault))
		for _, k := range sp.top {
			w.Byte(byte(k))
		}
	}
	if tup := tupleOf(col); tup != nil {
		for j, e := range tup.elems {
			writeKinds(w, e, sp.elem(j))
		}
	}
}

// isDefaultRow reports whether row i of c holds the value sparse data leaves out: the column's
// default, all zero bits (an Enum's is its value 0, which AppendDefault does not append when the
// enum has no 0), compared bitwise as the server does (-0.0 is not a default).
func isDefaultRow(t testing.TB, c Column, i int) bool {
	def, src := mustNew(t, c.Type()), mustNew(t, c.Type())
	if err := gather(def, src, []uint32{noRow}, nil); err != nil {
		t.Fatal(err)
	}
	return valueEqual(c.Value(i), def.Value(0))
}

func encodeLayers(t testing.TB, col Column, top []Kind, sp *spec, width int, prefix, data *Writer) {
	t.Helper()
	if len(top) == 0 {
		if tup := tupleOf(col); tup != nil && sp != nil && len(sp.elems) > 0 {
			for j, e := range tup.elems {
				es := sp.elem(j)
				encodeLayers(t, e, es.top, es, width, prefix, data)
			}
			return
		}
		col.WritePrefix(prefix)
		if col.Rows() > 0 {
			col.Write(data)
		}
		return
	}
	below := top[:len(top)-1]
	switch top[len(top)-1] {
	case KindSparse:
		nc := nullableOf(col)
		var vals Column
		if nc != nil && len(below) == 0 {
			vals = mustNew(t, nc.inner.Type())
		} else {
			vals = mustNew(t, col.Type())
			nc = nil
		}
		var offs Writer
		gap := uint64(0)
		var pos []uint32
		for i := range col.Rows() {
			if nc != nil && nc.IsNull(i) || nc == nil && isDefaultRow(t, col, i) {
				gap++
				continue
			}
			offs.UVarInt(gap)
			gap = 0
			pos = append(pos, uint32(i))
		}
		offs.UVarInt(gap | endOfGranule)
		copyRows(t, vals, col, pos, nc != nil)
		var inner Writer
		encodeLayers(t, vals, below, sp, width, prefix, &inner)
		data.Raw(offs.Buf)
		data.Raw(inner.Buf)
	case KindReplicated:
		distinct := mustNew(t, col.Type())
		var idx []int
		var first []uint32
		for i := range col.Rows() {
			k := -1
			for j, f := range first {
				if valueEqual(col.Value(int(f)), col.Value(i)) {
					k = j
					break
				}
			}
			if k < 0 {
				k = len(first)
				first = append(first, uint32(i))
			}
			idx = append(idx, k)
		}
		copyRows(t, distinct, col, first, false)
		data.UVarInt(uint64(col.Rows()))
		data.Byte(byte(width))
		for _, k := range idx {
			for b := range width {
				data.Byte(byte(uint64(k) >> (8 * b)))
			}
		}
		data.UVarInt(uint64(distinct.Rows()))
		encodeLayers(t, distinct, below, sp, width, prefix, data)
	}
}

// copyRows fills dst with rows pos of src (of their inner values when inner, src being Nullable)
// and checks the copy holds src's values: Value and AppendValue do not round-trip every value
// (the extremes of DateTime64(9)), so the rows are copied raw.
func copyRows(t testing.TB, dst, src Column, pos []uint32, inner bool) {
	t.Helper()
	from := src
	if inner {
		from = nullableOf(src).inner
	}
	if err := gather(dst, from, pos, nil); err != nil {
		t.Fatal(err)
	}
	for j, p := range pos {
		if !valueEqual(dst.Value(j), src.Value(int(p))) {
			t.Fatalf("%s: copied row %d: %#v, want %#v", src.Type(), p, dst.Value(j), src.Value(int(p)))
		}
	}
}

// decodeCustom decodes kinds and body as a block column of rows rows of type typ, checking the
// input is consumed exactly.
func decodeCustom(typ string, kinds, body []byte, rows int, rk func([]byte) *Reader) (Column, error) {
	c, err := New(typ)
	if err != nil {
		return nil, err
	}
	var s Serialization
	if err := s.ReadKinds(NewBytesReader(kinds), c); err != nil {
		return c, err
	}
	r := rk(body)
	if err := s.ReadPrefix(r); err != nil {
		return c, err
	}
	if err := s.Read(r, rows); err != nil {
		return c, err
	}
	if c.Rows() != rows {
		return c, fmt.Errorf("Rows() = %d, want %d", c.Rows(), rows)
	}
	if _, err := r.Byte(); err != io.EOF {
		return c, fmt.Errorf("input not consumed exactly (%v)", err)
	}
	return c, nil
}

func bytesReader(b []byte) *Reader { return NewBytesReader(b) }

// TestSparseBytes pins the sparse layout with hand-built bytes, as a 26.7 server sends it.
func TestSparseBytes(t *testing.T) {
	end := func(n int) string { // UVarInt of n | END_OF_GRANULE_FLAG, n < 128
		return fmt.Sprintf("%02x 80 80 80 80 80 80 80 40", n|0x80)
	}
	cases := []struct {
		name, typ, kinds, body string
		rows                   int
		want                   []any
	}{
		{"all defaults", "UInt64", "01", end(5)[:2] + " 80 80 80 80 80 80 80 40", 5, []any{uint64(0), uint64(0), uint64(0), uint64(0), uint64(0)}},
		{"no defaults", "UInt8", "01", "00 00 00 " + end(0) + " 07 08 09", 3, []any{uint8(7), uint8(8), uint8(9)}},
		{"trailing defaults", "Int32", "01", "01 " + end(3) + " ff ff ff ff", 5, []any{int32(0), int32(-1), int32(0), int32(0), int32(0)}},
		{"leading and between", "UInt16", "01", "02 01 " + end(0) + " 01 00 02 00", 5, []any{uint16(0), uint16(0), uint16(1), uint16(0), uint16(2)}},
		{"end of granule with zero trailing", "String", "01", "03 " + end(0) + ` 01 78`, 4, []any{"", "", "", "x"}},
		// A group of 200 defaults takes two bytes.
		{"long gap", "UInt8", "01", "00 c8 01 " + end(0) + " 01 02", 202, append(append([]any{uint8(1)}, repeat(uint8(0), 200)...), uint8(2))},
		// Captured from 26.7: SELECT a FROM sp LIMIT 12, a UInt64 = 3 at row 3.
		{"captured UInt64", "UInt64", "01", "03 88 80 80 80 80 80 80 80 40 03 00 00 00 00 00 00 00", 12,
			[]any{uint64(0), uint64(0), uint64(0), uint64(3), uint64(0), uint64(0), uint64(0), uint64(0), uint64(0), uint64(0), uint64(0), uint64(0)}},
		// Nullable: the values are the nested type's, with no null map; the default is NULL, and a
		// non-NULL empty string is a value.
		{"Nullable(String)", "Nullable(String)", "01", "01 01 " + end(1) + " 01 61 00", 5, []any{nil, "a", nil, "", nil}},
		{"Nullable(Int32) captured", "Nullable(Int32)", "01", "05 86 80 80 80 80 80 80 80 40 07 00 00 00", 12,
			[]any{nil, nil, nil, nil, nil, int32(7), nil, nil, nil, nil, nil, nil}},
		// Tuple: the tuple's own stack, then each element's; elements' data one after the other.
		// Captured from 26.7: Tuple(x Int32, y String) with x = 1 at row 6 and y all defaults.
		{"Tuple elements", "Tuple(x Int32, y String)", "00 01 01", "06 85 80 80 80 80 80 80 80 40 01 00 00 00 8c 80 80 80 80 80 80 80 40", 12,
			[]any{[]any{int32(0), ""}, []any{int32(0), ""}, []any{int32(0), ""}, []any{int32(0), ""}, []any{int32(0), ""}, []any{int32(0), ""},
				[]any{int32(1), ""}, []any{int32(0), ""}, []any{int32(0), ""}, []any{int32(0), ""}, []any{int32(0), ""}, []any{int32(0), ""}}},
		// A LowCardinality element keeps its prefix (version 1) before any data, then its
		// dictionary granule; the sparse sibling follows.
		{"Tuple LowCardinality and sparse", "Tuple(LowCardinality(String), UInt8)", "00 00 01",
			"01 00 00 00 00 00 00 00 | 00 06 00 00 00 00 00 00 02 00 00 00 00 00 00 00 00 01 61 02 00 00 00 00 00 00 00 00 01 | 01 " + end(0) + " 05",
			2, []any{[]any{"", uint8(0)}, []any{"a", uint8(5)}}},
		{"nested Tuple", "Tuple(a Int8, b Tuple(c Nullable(String), d UInt8))", "00 00 00 01 00", "00 01 | 01 " + end(0) + " 01 7a | 00 00",
			2, []any{[]any{int8(0), []any{nil, uint8(0)}}, []any{int8(1), []any{"z", uint8(0)}}}},
		// Replicated: rows, index width, indexes, distinct rows, their data.
		{"replicated String captured", "String", "04", "09 01 00 00 00 01 01 01 02 02 02 03 01 30 01 31 01 32", 9,
			[]any{"0", "0", "0", "1", "1", "1", "2", "2", "2"}},
		// Replicated over sparse, COMBINATION {DEFAULT, SPARSE, REPLICATED}, captured from 26.7
		// (an Int128 column of a sparse part through ARRAY JOIN).
		{"replicated over sparse", "Int128", "05 03 00 01 03", "06 02 00 00 00 00 01 00 01 00 02 00 02 00 03 01 " + end(1) + " 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00", 6,
			[]any{bigInt(0), bigInt(0), bigInt(1), bigInt(1), bigInt(0), bigInt(0)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			kinds, body := hexBytes(t, tc.kinds), hexBytes(t, tc.body)
			for _, rk := range readerKinds {
				c, err := decodeCustom(tc.typ, kinds, body, tc.rows, rk.new)
				if err != nil {
					t.Fatalf("%s: %v", rk.name, err)
				}
				if i, ok := valuesEqual(values(c), tc.want); !ok {
					t.Fatalf("%s: row %d: got %#v, want %#v", rk.name, i, values(c), tc.want)
				}
			}
			requireCustomShortRead(t, tc.typ, kinds, body, tc.rows)
		})
	}
}

func bigInt(v int64) any { return big.NewInt(v) }

func repeat(v any, n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// requireCustomShortRead checks that every truncation of body fails with io.ErrUnexpectedEOF and
// leaves the column empty.
func requireCustomShortRead(t *testing.T, typ string, kinds, body []byte, rows int) {
	t.Helper()
	for n := range len(body) {
		c, err := decodeCustom(typ, kinds, body[:n], rows, bytesReader)
		if err == nil {
			t.Fatalf("%d of %d bytes decoded", n, len(body))
		}
		if !errors.Is(err, io.ErrUnexpectedEOF) && !(n == 0 && errors.Is(err, io.EOF)) {
			t.Fatalf("%d of %d bytes: %T %v is not io.ErrUnexpectedEOF", n, len(body), err, err)
		}
		if c.Rows() != 0 {
			t.Fatalf("%d of %d bytes: failed Read left %d rows", n, len(body), c.Rows())
		}
	}
	for n := range len(kinds) {
		c := mustNew(t, typ)
		var s Serialization
		if err := s.ReadKinds(NewBytesReader(kinds[:n]), c); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("kinds cut at %d of %d: %v", n, len(kinds), err)
		}
	}
}

// withDefaults returns a column of typ holding vals with default rows around and between them:
// pattern 0 puts one default before each value and three after the last, 1 none at all, 2 only
// defaults (vals ignored).
func withDefaults(t testing.TB, typ string, vals []any, pattern int) Column {
	c := mustNew(t, typ)
	switch pattern {
	case 0:
		for _, v := range vals {
			c.AppendDefault()
			appendAll(t, c, v)
		}
		c.AppendDefault()
		c.AppendDefault()
		c.AppendDefault()
	case 1:
		appendAll(t, c, vals...)
	case 2:
		for range 4 {
			c.AppendDefault()
		}
	}
	return c
}

// TestCustomRoundTrip encodes the values of every round-trip case in sparse, replicated and both
// stacks, with defaults in different places and every index width, and decodes them.
func TestCustomRoundTrip(t *testing.T) {
	specs := []struct {
		name string
		sp   *spec
	}{{"sparse", specSparse}, {"replicated", specRepl}, {"replicated-over-sparse", specSR}, {"sparse-over-replicated", specRS}}
	for _, tc := range roundTripCases() {
		for _, sc := range specs {
			for pattern := range 3 {
				full := withDefaults(t, tc.typ, tc.vals, pattern)
				want := values(full)
				width := []int{1, 2, 4, 8}[pattern%4]
				if sc.sp == specRepl {
					width = 8 >> pattern
				}
				kinds, body := encodeCustom(t, full, sc.sp, width)
				name := fmt.Sprintf("%s/%s/%d", tc.typ, sc.name, pattern)
				rks := readerKinds[:1]
				if pattern == 0 {
					rks = readerKinds
				}
				for _, rk := range rks {
					c, err := decodeCustom(tc.typ, kinds, body, full.Rows(), rk.new)
					if err != nil {
						t.Fatalf("%s/%s: %v", name, rk.name, err)
					}
					if i, ok := valuesEqual(values(c), want); !ok {
						t.Fatalf("%s/%s: row %d: got %#v, want %#v", name, rk.name, i, c.Value(i), want[i])
					}
				}
			}
		}
	}
}

// TestCustomTupleElements decodes tuples whose elements have serializations of their own, as
// 26.7 sends Tuple, Point and nested tuples of sparse parts.
func TestCustomTupleElements(t *testing.T) {
	cases := []struct {
		typ  string
		sp   *spec
		vals []any
	}{
		{"Tuple(x Int32, y Nullable(String), z Tuple(p UInt8, q String))",
			&spec{elems: []*spec{specSparse, specSparse, {elems: []*spec{specSparse, specSparse}}}},
			[]any{[]any{1, "w", []any{1, "r"}}, []any{0, nil, []any{0, ""}}, []any{5, "", []any{0, "q"}}}},
		{"Tuple(a LowCardinality(String), b Nullable(Int64), c Tuple(d Float32, e String))",
			&spec{elems: []*spec{nil, specSparse, {elems: []*spec{specSparse, specSparse}}}},
			[]any{[]any{"lc", nil, []any{0, ""}}, []any{"", -3, []any{1.5, ""}}, []any{"lc", nil, []any{0, "e"}}}},
		{"Point", &spec{elems: []*spec{specSparse, specSparse}}, []any{Point{1.5, 2.5}, Point{0, 0}, Point{0, -1}}},
		// The tuple replicated, its elements sparse below it (26.7, ARRAY JOIN of a sparse part).
		{"Tuple(UInt8, String)", &spec{top: []Kind{KindReplicated}, elems: []*spec{specSparse, specSparse}}, []any{[]any{3, "s"}, []any{0, ""}, []any{3, "s"}}},
		{"Tuple(a Array(String), b Map(String, UInt8))", &spec{top: []Kind{KindSparse}, elems: []*spec{specRepl, nil}},
			[]any{[]any{[]string{"a"}, map[string]uint8{"k": 1}}, []any{[]string{}, map[string]uint8{}}}},
		{"SimpleAggregateFunction(sum, UInt64)", specSparse, []any{uint64(4), uint64(0)}},
		{"SimpleAggregateFunction(anyLast, Nullable(String))", specSparse, []any{nil, "a", ""}},
		{"Nested(a UInt8, b String)", specRepl, []any{[]any{[]any{1, "x"}}, []any{}, []any{[]any{1, "x"}}}},
		// Types gathered by boxing each value (26.7 sends them replicated, never sparse).
		{"Dynamic", specRepl, []any{int64(1), "x", nil, []int64{1, 2}}},
		{"Dynamic", specSparse, []any{int64(1), "x", nil}},
		{"Variant(String, UInt8)", specRepl, []any{VariantValue{"UInt8", uint8(1)}, "s", nil}},
		{"JSON", specRepl, []any{`{"a":1}`, `{"b":"x"}`}},
		{"JSON(a.b UInt32)", specSR, []any{`{"a":{"b":1}}`, `{"c":2}`}},
		{"QBit(Float32, 3)", specRepl, []any{[]float32{1, 2, 3}, []float32{0, 0, 0}}},
		{"Array(Dynamic)", specRepl, []any{[]any{int64(1), "x"}, []any{}}},
		{"Map(String, Nullable(UInt8))", specRS, []any{map[string]any{"k": nil}, map[string]any{"a": 1}}},
		{"LowCardinality(Nullable(String))", specRepl, []any{"a", nil, ""}},
		{"LowCardinality(String)", specSR, []any{"a", "", "b"}},
		{"Array(LowCardinality(String))", specRepl, []any{[]string{"a", ""}, []string{}}},
		{"Ring", specRepl, []any{Ring{{1, 2}, {3, 4}}, Ring{}}},
		{"Nothing", specRepl, []any{nil, nil}},
	}
	for _, tc := range cases {
		for pattern := range 3 {
			full := withDefaults(t, tc.typ, tc.vals, pattern)
			want := values(full)
			kinds, body := encodeCustom(t, full, tc.sp, 1)
			for _, rk := range readerKinds {
				c, err := decodeCustom(tc.typ, kinds, body, full.Rows(), rk.new)
				if err != nil {
					t.Fatalf("%s/%d/%s: %v", tc.typ, pattern, rk.name, err)
				}
				if i, ok := valuesEqual(values(c), want); !ok {
					t.Fatalf("%s/%d/%s: row %d: got %#v, want %#v", tc.typ, pattern, rk.name, i, c.Value(i), want[i])
				}
			}
			if pattern == 0 {
				requireCustomShortRead(t, tc.typ, kinds, body, full.Rows())
			}
		}
	}
}

// TestCustomErrors feeds malformed kind stacks and data: each is a *DecodeError (or names the
// limit), never a panic, and the column is left empty.
func TestCustomErrors(t *testing.T) {
	cases := []struct {
		name, typ, kinds, body string
		rows                   int
		want                   string
	}{
		{"detached", "UInt8", "02", "", 1, "Detached"},
		{"detached over sparse", "UInt8", "03", "", 1, "Detached"},
		{"unknown stack", "UInt8", "06", "", 1, "unknown serialization kind stack 6"},
		{"combination without default", "UInt8", "05 01 01", "", 1, "does not start with Default"},
		{"combination with detached", "UInt8", "05 02 00 02", "", 1, "Detached"},
		{"combination with unknown kind", "UInt8", "05 02 00 09", "", 1, "Kind(9)"},
		{"combination too long", "UInt8", "05 09", "", 1, "serialization kinds"},
		{"tuple element detached", "Tuple(UInt8, UInt8)", "00 00 02", "", 1, "Detached"},
		{"defaults past the rows", "UInt8", "01", "04 80 80 80 80 80 80 80 80 40", 3, "pass the block's 3 rows"},
		{"value past the rows", "UInt8", "01", "00 00 00 80 80 80 80 80 80 80 80 40 01 02 03", 2, "past the block's 2 rows"},
		{"offsets short of the rows", "UInt8", "01", "00 81 80 80 80 80 80 80 80 40 01", 3, "cover 2 rows, the block has 3"},
		{"bit 63 in a group", "UInt8", "01", "ff ff ff ff ff ff ff ff ff 01", 3, "pass the block's"},
		{"replicated row count", "UInt8", "04", "02 01 00 00 01 05", 3, "2 rows in a block of 3"},
		{"replicated width 3", "UInt8", "04", "01 03 00 00 00 01 05", 1, "width 3"},
		{"replicated index out of range", "String", "04", "02 01 00 02 02 01 61 01 62", 2, "index 2, but there are 2 distinct rows"},
		{"replicated 8-byte index", "UInt8", "04", "01 08 00 00 00 00 00 00 00 80 01 05", 1, "distinct rows"},
		{"replicated distinct rows too many", "UInt8", "04", "01 01 00 ff ff ff ff 0f", 1, "replicated distinct rows"},
		{"sparse values short", "String", "01", "00 80 80 80 80 80 80 80 80 40", 1, "unexpected EOF"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := decodeCustom(tc.typ, hexBytes(t, tc.kinds), hexBytes(t, tc.body), tc.rows, bytesReader)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("%T %v is not a *DecodeError", err, err)
			}
			if c.Rows() != 0 {
				t.Fatalf("failed decode left %d rows", c.Rows())
			}
		})
	}
}

// TestCustomLimits checks that a few bytes cannot make the decoder allocate for an expansion past
// MaxExpandedRows or MaxExpandedBytes.
func TestCustomLimits(t *testing.T) {
	var w Writer
	w.UVarInt(uint64(MaxExpandedRows+1) | endOfGranule)
	lenientAlloc(t, "sparse rows", 1<<20, func() error {
		_, err := decodeCustom("UInt256", []byte{stackSparse}, w.Buf, MaxExpandedRows+1, bytesReader)
		return err
	}, "sparse column rows")

	// 2^20 rows each repeating one string of 2^11 bytes: 2 GiB from 1 MiB of input.
	rows := 1 << 20
	var rw Writer
	rw.UVarInt(uint64(rows))
	rw.Byte(1)
	rw.Raw(make([]byte, rows))
	rw.UVarInt(1)
	rw.String(strings.Repeat("x", 1<<11))
	lenientAlloc(t, "replicated String", 16<<20, func() error {
		_, err := decodeCustom("String", []byte{stackReplicated}, rw.Buf, rows, bytesReader)
		return err
	}, "expanded String bytes")

	// A sparse FixedString(4096) column of 2^19 rows is 2 GiB of zeros.
	var fw Writer
	fw.UVarInt(uint64(1<<19) | endOfGranule)
	lenientAlloc(t, "sparse FixedString", 16<<20, func() error {
		_, err := decodeCustom("FixedString(4096)", []byte{stackSparse}, fw.Buf, 1<<19, bytesReader)
		return err
	}, "expanded FixedString bytes")

	// 2^11 rows repeating one array of 2^15 elements: 2^26 elements.
	var aw Writer
	aw.UVarInt(1 << 11)
	aw.Byte(1)
	aw.Raw(make([]byte, 1<<11))
	aw.UVarInt(1)
	aw.Uint64(1 << 15)
	aw.Raw(make([]byte, 1<<15))
	lenientAlloc(t, "replicated Array", 16<<20, func() error {
		_, err := decodeCustom("Array(UInt8)", []byte{stackReplicated}, aw.Buf, 1<<11, bytesReader)
		return err
	}, "expanded array elements")
}

// TestSparseOffsetsCharged: a sparse column's positions (4 bytes each, from one byte of input)
// count against the block's budget as they grow, before the values and their expansion are read.
func TestSparseOffsetsCharged(t *testing.T) {
	rows := 1 << 20
	var w Writer
	w.Raw(make([]byte, rows))   // every row a value: no defaults before any
	w.UVarInt(0 | endOfGranule) // none after the last
	w.Raw(make([]byte, rows))   // the UInt8 values
	budget := func(b []byte) *Reader { r := NewBytesReader(b); r.SetBudget(5 << 19); return r }
	lenientAlloc(t, "sparse offsets", 16<<20, func() error { // append's growth: about 5x the positions held
		_, err := decodeCustom("UInt8", []byte{stackSparse}, w.Buf, rows, budget)
		return err
	}, "sparse offsets")
	// Within the budget the same column decodes.
	if _, err := decodeCustom("UInt8", []byte{stackSparse}, w.Buf, rows, bytesReader); err != nil {
		t.Fatal(err)
	}
}

// lenientAlloc runs f, which must fail with a *LimitError naming what, allocating at most max bytes.
func lenientAlloc(t *testing.T, name string, max uint64, f func() error, what string) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err := f()
	runtime.ReadMemStats(&after)
	var le *LimitError
	if !errors.As(err, &le) || !strings.Contains(le.What, what) {
		t.Fatalf("%s: got %v, want a *LimitError on %s", name, err, what)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > max {
		t.Fatalf("%s: allocated %d bytes", name, d)
	}
}

// TestCustomReuse decodes sparse, replicated and tuple-element blocks again into the same column
// and Serialization: nothing is allocated once the scratch memory has grown.
func TestCustomReuse(t *testing.T) {
	cases := []struct {
		typ  string
		sp   *spec
		vals []any
	}{
		{"UInt64", specSparse, []any{uint64(1), uint64(2)}},
		{"String", specSparse, []any{"a", "bc"}},
		{"Nullable(String)", specSparse, []any{"a", ""}},
		{"Tuple(a UInt8, b Nullable(String))", &spec{elems: []*spec{specSparse, specSparse}}, []any{[]any{1, "x"}, []any{2, nil}}},
		{"String", specRepl, []any{"a", "bc"}},
		{"Int128", specSR, []any{1, 2}},
		{"Tuple(a Array(String), b Nullable(UInt8))", &spec{top: []Kind{KindReplicated}, elems: []*spec{nil, specSparse}}, []any{[]any{[]string{"x"}, 1}, []any{[]string{}, nil}}},
		{"Map(String, UInt64)", specRepl, []any{map[string]uint64{"a": 1}, map[string]uint64{}}},
	}
	for _, tc := range cases {
		full := withDefaults(t, tc.typ, tc.vals, 0)
		kinds, body := encodeCustom(t, full, tc.sp, 1)
		c := mustNew(t, tc.typ)
		var s Serialization
		kr, br := NewBytesReader(nil), NewBytesReader(nil)
		decode := func() {
			kr.ResetBytes(kinds)
			br.ResetBytes(body)
			if err := s.ReadKinds(kr, c); err != nil {
				t.Fatal(err)
			}
			if err := s.ReadPrefix(br); err != nil {
				t.Fatal(err)
			}
			if err := s.Read(br, full.Rows()); err != nil {
				t.Fatal(err)
			}
		}
		decode()
		if n := testing.AllocsPerRun(20, decode); n != 0 {
			t.Errorf("%s %v: %v allocations per reused decode", tc.typ, tc.sp.top, n)
		}
		if !sameValues(values(c), values(full)) {
			t.Fatalf("%s: %#v", tc.typ, values(c))
		}
	}
}

// TestSerializationString names the kinds as system.parts_columns does.
func TestSerializationString(t *testing.T) {
	c := mustNew(t, "Tuple(a UInt8, b Tuple(c String, d UInt8))")
	var s Serialization
	if err := s.ReadKinds(NewBytesReader(hexBytes(t, "04 01 00 05 03 00 03 01 00")), c); err != nil {
		t.Fatal(err)
	}
	if got, want := s.String(), "Replicated(Sparse, Default(Replicated/Sparse, Default))"; got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
	if s.IsDefault() || !s.Elem(1).Elem(1).IsDefault() || s.Elem(5) != nil {
		t.Fatal("IsDefault / Elem")
	}
	var d Serialization
	if err := d.ReadKinds(NewBytesReader([]byte{0, 0, 0, 0, 0}), c); err != nil || !d.IsDefault() || d.String() != "Default(Default, Default(Default, Default))" {
		t.Fatalf("all default: %v %q", err, d.String())
	}
	if KindSparse.String() != "Sparse" || Kind(7).String() != "Kind(7)" {
		t.Fatal("Kind.String")
	}
}
