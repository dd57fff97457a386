package columns

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/chnative/chnative/internal/testenv"
	"github.com/chnative/chnative/qbit"
)

// qbitRefEncode is the scalar reference encoder of qbit.md §2.3/§2.6: rows of raw element bit
// patterns to the Native body of QBit(W-bit, d, s).
func qbitRefEncode(rows [][]uint64, d, s, w int) []byte {
	n := len(rows)
	b := (s + 7) / 8
	g := d / s
	body := make([]byte, w*g*n*b)
	for r, row := range rows {
		for i, word := range row {
			gi, li := i/s, i%s
			for k := 0; k < w; k++ {
				if word>>(w-1-k)&1 != 0 {
					body[(gi*w+k)*n*b+r*b+b-1-li/8] |= 1 << (li % 8)
				}
			}
		}
	}
	return body
}

var qbitElemBits = map[string]int{"BFloat16": 16, "Float32": 32, "Float64": 64, "Int8": 8}

// qbitGoRow converts raw bit patterns to the Go value type of elem.
func qbitGoRow(elem string, words []uint64) any {
	switch elem {
	case "Float32":
		out := make([]float32, len(words))
		for i, x := range words {
			out[i] = math.Float32frombits(uint32(x))
		}
		return out
	case "Float64":
		out := make([]float64, len(words))
		for i, x := range words {
			out[i] = math.Float64frombits(x)
		}
		return out
	case "BFloat16":
		out := make([]uint16, len(words))
		for i, x := range words {
			out[i] = uint16(x)
		}
		return out
	}
	out := make([]int8, len(words))
	for i, x := range words {
		out[i] = int8(x)
	}
	return out
}

// qbitSpecialWords returns interesting bit patterns of a w-bit element type, cycled with random
// ones.
func qbitSpecialWords(w int) []uint64 {
	switch w {
	case 32:
		return []uint64{0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0xFFC12345, 0x7FBFFFFF,
			0x00000001, 0x807FFFFF, 0x3F800000, 0xBF800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x00800000}
	case 64:
		return []uint64{0, 1 << 63, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000, 0x7FF0000000000001,
			0xFFF8DEADBEEF0001, 1, 0x800FFFFFFFFFFFFF, 0x3FF0000000000000, 0x7FEFFFFFFFFFFFFF, 0x0010000000000000}
	case 16:
		return []uint64{0, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0x7F81, 0xFFC1, 0x0001, 0x807F, 0x3F80, 0x7F7F}
	}
	return []uint64{0, 0x80, 0x7F, 0xFF, 0x01, 0xFE}
}

func qbitRandomRows(rng *rand.Rand, n, d, w int) [][]uint64 {
	special := qbitSpecialWords(w)
	mask := uint64(1)<<w - 1
	if w == 64 {
		mask = math.MaxUint64
	}
	rows := make([][]uint64, n)
	for r := range rows {
		rows[r] = make([]uint64, d)
		for i := range rows[r] {
			if rng.IntN(3) == 0 {
				rows[r][i] = special[rng.IntN(len(special))]
			} else {
				rows[r][i] = rng.Uint64() & mask
			}
		}
	}
	return rows
}

func qbitTypeName(elem string, d, s int) string {
	if s == 0 || s == d {
		return fmt.Sprintf("QBit(%s, %d)", elem, d)
	}
	return fmt.Sprintf("QBit(%s, %d, %d)", elem, d, s)
}

var qbitDims = []int{1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 40, 63, 64, 65, 100, 256, 768, 1024, 1536}

// TestQBitReference checks encode (appended rows) and decode (values, rows, bulk) against the
// scalar reference for every element type, the required dimensions and strided shapes.
func TestQBitReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	type shape struct{ d, s int }
	var shapes []shape
	for _, d := range qbitDims {
		shapes = append(shapes, shape{d, d})
	}
	shapes = append(shapes, shape{16, 8}, shape{24, 8}, shape{64, 16}, shape{1024, 256}, shape{1536, 512}, shape{8192, 8})
	for _, elem := range []string{"BFloat16", "Float32", "Float64", "Int8"} {
		w := qbitElemBits[elem]
		for _, sh := range shapes {
			for _, n := range []int{0, 1, 2, 5, 9} {
				if sh.d >= 1024 && n > 2 {
					continue
				}
				typ := qbitTypeName(elem, sh.d, sh.s)
				rows := qbitRandomRows(rng, n, sh.d, w)
				want := qbitRefEncode(rows, sh.d, sh.s, w)
				c := mustNew(t, typ).(*QBit)
				if c.Type() != typ {
					t.Fatalf("Type() = %q, want %q", c.Type(), typ)
				}
				var vals []any
				for _, r := range rows {
					v := qbitGoRow(elem, r)
					vals = append(vals, v)
					appendAll(t, c, v)
				}
				if got := encode(c); !bytes.Equal(got, want) {
					t.Fatalf("%s, %d rows: encode differs from the reference", typ, n)
				}
				dec := mustNew(t, typ).(*QBit)
				if err := decodeInto(dec, NewBytesReader(want), n); err != nil {
					t.Fatalf("%s: %v", typ, err)
				}
				if got := values(dec); !sameValues(got, vals) {
					t.Fatalf("%s, %d rows: decoded values differ", typ, n)
				}
				// Bulk decode.
				var bulk any
				switch elem {
				case "Float32":
					bulk = dec.Float32s(nil)
				case "Float64":
					bulk = dec.Float64s(nil)
				case "BFloat16":
					bulk = dec.BFloat16s(nil)
				default:
					bulk = dec.Int8s(nil)
				}
				var flat []uint64
				for _, r := range rows {
					flat = append(flat, r...)
				}
				if want := qbitGoRow(elem, flat); !valueEqual(bulk, want) {
					t.Fatalf("%s, %d rows: bulk decode differs", typ, n)
				}
				// Planes.
				pl := n * ((sh.s + 7) / 8)
				for p := 0; p < dec.NumPlanes(); p++ {
					if !bytes.Equal(dec.Plane(p), want[p*pl:(p+1)*pl]) {
						t.Fatalf("%s: Plane(%d) differs", typ, p)
					}
				}
				if again := encode(dec); !bytes.Equal(again, want) {
					t.Fatalf("%s: re-encoding a decoded column differs", typ)
				}
			}
		}
	}
}

// TestQBitWorkedExamples checks the examples of qbit.md and server captures byte for byte.
func TestQBitWorkedExamples(t *testing.T) {
	z := func(n int) string { return strings.Repeat("00 ", n) }
	seq := func(neg bool) []float64 {
		var out []float64
		for i := 1; i <= 16; i++ {
			x := float64(i)
			if neg && i%2 == 0 {
				x = -x
			}
			out = append(out, x)
		}
		return out
	}
	cases := []struct {
		typ  string
		rows []any
		hex  string
	}{
		{"QBit(Float32, 3)", []any{[]float32{1, 2, 3}}, "00 06 01 01 01 01 01 01 01 04" + z(22)},
		{"QBit(Float32, 3)", []any{[]float32{1, -2, 0.5}, []float32{0, 0, 0}},
			"02 00 02 00 05 00 05 00 05 00 05 00 05 00 05 00 01 00" + z(46)},
		{"QBit(Float32, 3)", []any{[]float32{1, -2, 0.5}, []float32{0, 0, 0}, []float32{float32(math.Copysign(0, -1)), 2, 3}},
			"02 00 01  02 00 06" + strings.Repeat(" 05 00 00", 6) + " 01 00 00  00 00 04" + z(66)},
		{"QBit(Float32, 10)", []any{[]float32{1, 0, 0, 0, 0, 0, 0, 0, 0, -1}},
			"02 00  00 00" + strings.Repeat(" 02 01", 7) + z(46)},
		{"QBit(Float32, 4)", []any{[]float32{1, 2, 3, 4}}, "00 0E 01 01 01 01 01 01 09 04" + z(22)},
		{"QBit(Float32, 16)", []any{seq(true)}, "AA AA FF FE 00 01 00 01 00 01 00 01 00 01 FF 81 80 79 78 64 66 50 55 00" + z(40)},
		{"QBit(Int8, 16)", []any{[]int8{1, -2, 3, -4, 5, -6, 7, -8, 9, -10, 11, -12, 13, -14, 15, -16}},
			"AA AA AA AA AA AA AA AA 55 AA 5A 5A 66 66 55 55"},
		{"QBit(BFloat16, 3)", []any{[]float32{1, -2, 0.5}}, "02 02 05 05 05 05 05 05 01 00 00 00 00 00 00 00"},
		{"QBit(Float64, 3)", []any{[]float64{1, -2, 0.5}}, "02 02 05 05 05 05 05 05 05 05 05 01" + z(52)},
		{"QBit(Int8, 3)", []any{[]int8{1, -2, 127}}, "02 06 06 06 06 06 06 05"},
		// chDB 26.7: SELECT arrayMap(x->toFloat32(x), range(1,17))::QBit(Float32, 16, 8) FORMAT Native
		{"QBit(Float32, 16, 8)", []any{seq(false)},
			"00 FE 01 01 01 01 01 81 79 64 50" + z(21) + "00 FF 00 00 00 00 00 FF 80 78 66 55" + z(20)},
		// chDB 26.7: SELECT arrayMap(x->toInt8(x*(number+1)), range(1,17))::QBit(Int8, 16, 8) FROM numbers(2)
		{"QBit(Int8, 16, 8)", []any{
			[]int8{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
			[]int8{2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32}},
			"00 00 00 00 00 00 00 80 80 78 78 66 66 55 55 00  00 00 00 00 00 80 80 7f 7f 78 78 66 66 55 55 00"},
	}
	for _, tc := range cases {
		c := mustNew(t, tc.typ)
		appendAll(t, c, tc.rows...)
		want := hexBytes(t, tc.hex)
		if got := encode(c); !bytes.Equal(got, want) {
			t.Fatalf("%s: encode\n got % x\nwant % x", tc.typ, got, want)
		}
		dec := mustNew(t, tc.typ)
		if err := decodeInto(dec, NewBytesReader(want), len(tc.rows)); err != nil {
			t.Fatal(err)
		}
		if got := values(dec); !sameValues(got, values(c)) {
			t.Fatalf("%s: decode\n got %v\nwant %v", tc.typ, got, values(c))
		}
	}
}

func TestQBitRoundTrip(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	nan := math.Float32frombits(0x7FC01234)
	cases := []struct {
		typ  string
		vals []any
	}{
		{"QBit(Float32, 3)", []any{[]float32{1, -2, 0.5}, []float32{negZero, float32(math.Inf(-1)), nan}, []float32{0, 0, 0}}},
		{"QBit(Float32, 17)", []any{make([]float32, 17), func() []float32 {
			v := make([]float32, 17)
			for i := range v {
				v[i] = float32(i) - 8.25
			}
			v[16] = math.Float32frombits(1) // denormal
			return v
		}()}},
		{"QBit(Float64, 9)", []any{[]float64{1, math.Inf(1), math.NaN(), -0.0, math.SmallestNonzeroFloat64, math.MaxFloat64, -1e-300, 3, 4}}},
		{"QBit(BFloat16, 5)", []any{[]uint16{0x3F80, 0x8000, 0x7FC1, 0xFF80, 0x0001}}},
		{"QBit(Int8, 9)", []any{[]int8{-128, -1, 0, 1, 127, 2, -2, 64, -64}}},
		{"QBit(Float32, 16, 8)", []any{make([]float32, 16), func() []float32 {
			v := make([]float32, 16)
			for i := range v {
				v[i] = float32(i*i) - 7
			}
			return v
		}()}},
		{"Nullable(QBit(Float32, 3))", []any{[]float32{1, 2, 3}, nil, []float32{-1, 0, 1}}},
		{"Array(QBit(Int8, 3))", []any{[][]int8{{1, 2, 3}, {-1, -2, -3}}, [][]int8{}, [][]int8{{0, 0, 1}}}},
		{"Tuple(String, QBit(BFloat16, 9))", []any{[]any{"a", make([]uint16, 9)}}},
	}
	for _, tc := range cases {
		c := mustNew(t, tc.typ)
		appendAll(t, c, tc.vals...)
		want := make([]any, len(tc.vals))
		for i := range tc.vals {
			want[i] = c.Value(i)
		}
		checkRoundTrip(t, c, want)
		// Zero rows: empty body.
		e := mustNew(t, tc.typ)
		if b := encode(e); len(b) != 0 {
			t.Fatalf("%s: empty column encodes to % x", tc.typ, b)
		}
	}
}

func TestQBitPlaneZeroCopy(t *testing.T) {
	c := mustNew(t, "QBit(Float32, 17)").(*QBit)
	for i := range 5 {
		row := make([]float32, 17)
		row[i] = float32(i + 1)
		appendAll(t, c, row)
	}
	data := encode(c)
	dec := mustNew(t, c.Type()).(*QBit)
	if err := decodeInto(dec, NewBytesReader(data), 5); err != nil {
		t.Fatal(err)
	}
	pl := 5 * 3
	for p := 0; p < 32; p++ {
		a, b := dec.Plane(p), dec.Plane(p)
		if len(a) != pl || cap(a) != pl {
			t.Fatalf("Plane(%d): len %d cap %d, want %d", p, len(a), cap(a), pl)
		}
		if unsafe.SliceData(a) != unsafe.SliceData(b) || unsafe.SliceData(a) != &dec.body[p*pl] {
			t.Fatalf("Plane(%d) is not a view of the decoded body", p)
		}
		if !bytes.Equal(a, data[p*pl:(p+1)*pl]) {
			t.Fatalf("Plane(%d) differs from the input", p)
		}
	}
	// Decoding from a byte slice copies: the planes never alias the input.
	if unsafe.SliceData(dec.Plane(0)) == unsafe.SliceData(data) {
		t.Fatal("Plane aliases the Reader's input")
	}
	if n := testing.AllocsPerRun(100, func() { _ = dec.Plane(7) }); n != 0 {
		t.Fatalf("Plane allocates %v times", n)
	}
	dst := make([]float32, 17)
	// The qbit kernels allocate their staging buffers (2 allocations per call); the column adds none.
	if n := testing.AllocsPerRun(100, func() { dst = dec.RowFloat32(3, dst) }); n > 2 {
		t.Fatalf("RowFloat32 allocates %v times", n)
	}
	// Reading again reuses the body's memory.
	before := unsafe.SliceData(dec.body)
	if err := decodeInto(dec, NewBytesReader(data), 5); err != nil {
		t.Fatal(err)
	}
	if unsafe.SliceData(dec.body) != before {
		t.Fatal("Read did not reuse the body")
	}
	if out := dec.Plane(0); len(out) != 15 {
		t.Fatal(len(out))
	}
	if n := testing.AllocsPerRun(20, func() { _ = dec.Read(NewBytesReader(data), 5) }); n > 1 {
		t.Fatalf("Read into a used column allocates %v times", n)
	}
}

func TestQBitPaddingIgnored(t *testing.T) {
	for _, typ := range []string{"QBit(Float32, 3)", "QBit(Float32, 17)", "QBit(BFloat16, 1)", "QBit(Float64, 9)", "QBit(Int8, 100)"} {
		c := mustNew(t, typ).(*QBit)
		rng := rand.New(rand.NewPCG(3, 4))
		rows := qbitRandomRows(rng, 4, c.Dim(), c.Bits())
		for _, r := range rows {
			appendAll(t, c, qbitGoRow(c.Elem(), r))
		}
		clean := encode(c)
		dirty := bytes.Clone(clean)
		b := c.RowBytes()
		padMask := ^byte(1<<(c.Dim()%8) - 1)
		for o := 0; o < len(dirty); o += b {
			dirty[o] |= padMask
		}
		if bytes.Equal(clean, dirty) {
			t.Fatal("no padding in", typ)
		}
		dec := mustNew(t, typ).(*QBit)
		if err := decodeInto(dec, NewBytesReader(dirty), 4); err != nil {
			t.Fatal(err)
		}
		if !sameValues(values(dec), values(c)) {
			t.Fatalf("%s: padding bits changed the values", typ)
		}
		if got := encode(dec); !bytes.Equal(got, clean) {
			t.Fatalf("%s: padding bits re-encoded", typ)
		}
		if !bytes.Equal(dec.Plane(0), clean[:4*b]) {
			t.Fatalf("%s: padding bits in Plane", typ)
		}
	}
}

// TestQBitMixed appends rows to a decoded column and checks Write, Plane, Row and Truncate.
func TestQBitMixed(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, typ := range []string{"QBit(Float32, 17)", "QBit(Float64, 64)", "QBit(BFloat16, 24, 8)", "QBit(Int8, 3)"} {
		probe := mustNew(t, typ).(*QBit)
		d, s, w := probe.Dim(), probe.Stride(), probe.Bits()
		rows := qbitRandomRows(rng, 7, d, w)
		dec := mustNew(t, typ).(*QBit)
		if err := decodeInto(dec, NewBytesReader(qbitRefEncode(rows[:4], d, s, w)), 4); err != nil {
			t.Fatal(err)
		}
		for _, r := range rows[4:] {
			appendAll(t, dec, qbitGoRow(probe.Elem(), r))
		}
		if got, want := encode(dec), qbitRefEncode(rows, d, s, w); !bytes.Equal(got, want) {
			t.Fatalf("%s: mixed Write differs", typ)
		}
		for i, r := range rows {
			if !valueEqual(dec.Value(i), qbitGoRow(probe.Elem(), r)) {
				t.Fatalf("%s: Value(%d) differs", typ, i)
			}
		}
		// Truncate inside the staged rows, then inside the decoded rows.
		dec.Truncate(6)
		if got, want := encode(dec), qbitRefEncode(rows[:6], d, s, w); !bytes.Equal(got, want) {
			t.Fatalf("%s: Truncate(6)", typ)
		}
		dec.Truncate(2)
		if got, want := encode(dec), qbitRefEncode(rows[:2], d, s, w); !bytes.Equal(got, want) || dec.Rows() != 2 {
			t.Fatalf("%s: Truncate(2)", typ)
		}
		// Plane flushes staged rows.
		appendAll(t, dec, qbitGoRow(probe.Elem(), rows[2]))
		want := qbitRefEncode(rows[:3], d, s, w)
		pl := 3 * ((s + 7) / 8)
		for p := 0; p < dec.NumPlanes(); p++ {
			if !bytes.Equal(dec.Plane(p), want[p*pl:(p+1)*pl]) {
				t.Fatalf("%s: Plane(%d) after append", typ, p)
			}
		}
		if dec.staged() != 0 || dec.Rows() != 3 {
			t.Fatalf("%s: Plane did not flush", typ)
		}
		if got := encode(dec); !bytes.Equal(got, want) {
			t.Fatalf("%s: Write after flush", typ)
		}
		for i := range 3 {
			if !valueEqual(dec.Value(i), qbitGoRow(probe.Elem(), rows[i])) {
				t.Fatalf("%s: Value(%d) after flush", typ, i)
			}
		}
		dec.Truncate(0)
		if dec.Rows() != 0 || len(encode(dec)) != 0 {
			t.Fatalf("%s: Truncate(0)", typ)
		}
		dec.Reset()
		dec.AppendDefault()
		if got := encode(dec); !bytes.Equal(got, make([]byte, dec.NumPlanes()*dec.RowBytes())) {
			t.Fatalf("%s: AppendDefault", typ)
		}
	}
}

func TestQBitConversions(t *testing.T) {
	f32 := mustNew(t, "QBit(Float32, 2)").(*QBit)
	f64 := mustNew(t, "QBit(Float64, 2)").(*QBit)
	bf := mustNew(t, "QBit(BFloat16, 2)").(*QBit)
	i8 := mustNew(t, "QBit(Int8, 2)").(*QBit)
	type myVec []float32
	ok := []struct {
		c    Column
		in   any
		want any
	}{
		{f32, []float32{1.5, -2}, []float32{1.5, -2}},
		{f32, []float64{0.1, math.Copysign(0, -1)}, []float32{float32(0.1), float32(math.Copysign(0, -1))}},
		{f32, []uint16{0x3F80, 0xC000}, []float32{1, -2}},
		{f32, myVec{3, 4}, []float32{3, 4}},
		{f32, [2]float32{5, 6}, []float32{5, 6}},
		{f32, &[]float32{7, 8}, []float32{7, 8}},
		{f64, []float32{0.1, 2}, []float64{float64(float32(0.1)), 2}},
		{f64, []float64{0.1, 2}, []float64{0.1, 2}},
		{f64, []uint16{0x3F80, 0x7F80}, []float64{1, math.Inf(1)}},
		// BFloat16 truncates: 0.0667378604 → 0.06640625 (03363_qbit_create_insert_select).
		{bf, []float32{0.0667378604, 1.0001}, []uint16{uint16(math.Float32bits(0.06640625) >> 16), 0x3F80}},
		{bf, []float64{0.0667378604, -1}, []uint16{uint16(math.Float32bits(0.06640625) >> 16), 0xBF80}},
		{bf, []uint16{1, 2}, []uint16{1, 2}},
		{i8, []int8{-128, 127}, []int8{-128, 127}},
		{i8, [2]int8{1, 2}, []int8{1, 2}},
	}
	for i, tc := range ok {
		tc.c.Reset()
		if err := tc.c.AppendValue(tc.in); err != nil {
			t.Fatalf("#%d %s ← %T: %v", i, tc.c.Type(), tc.in, err)
		}
		if got := tc.c.Value(0); !valueEqual(got, tc.want) {
			t.Fatalf("#%d %s ← %T: got %v want %v", i, tc.c.Type(), tc.in, got, tc.want)
		}
		if reflect.TypeOf(tc.c.Value(0)) != tc.c.ScanType() {
			t.Fatalf("#%d: ScanType %v, Value %T", i, tc.c.ScanType(), tc.c.Value(0))
		}
	}
	bad := []struct {
		c  Column
		in any
	}{
		{f32, []float32{1}}, {f32, []float32{1, 2, 3}}, {f32, nil}, {f32, (*[]float32)(nil)},
		{f32, []float64{1e39, 0}}, {f32, []int8{1, 2}}, {f32, "x"}, {f32, []int{1, 2}},
		{bf, []int8{1, 2}}, {i8, []float32{1, 2}}, {i8, []float64{1, 2}}, {i8, []uint16{1, 2}},
		{f64, []int8{1, 2}}, {f64, []float64{1}},
	}
	for i, tc := range bad {
		tc.c.Reset()
		err := tc.c.AppendValue(tc.in)
		var tm *TypeMismatchError
		if !errors.As(err, &tm) {
			t.Fatalf("#%d %s ← %T: err %v, want *TypeMismatchError", i, tc.c.Type(), tc.in, err)
		}
		if tc.c.Rows() != 0 {
			t.Fatalf("#%d: failed append left %d rows", i, tc.c.Rows())
		}
	}
	// Row conversions.
	bf.Reset()
	appendAll(t, bf, []uint16{0x3F80, 0xC000})
	if got := bf.RowFloat32(0, nil); !valueEqual(got, []float32{1, -2}) {
		t.Fatal(got)
	}
	if got := bf.RowFloat64(0, nil); !valueEqual(got, []float64{1, -2}) {
		t.Fatal(got)
	}
	i8.Reset()
	appendAll(t, i8, []int8{-3, 4})
	if got := i8.RowFloat64(0, nil); !valueEqual(got, []float64{-3, 4}) {
		t.Fatal(got)
	}
	for name, f := range map[string]func(){
		"RowFloat32 on Float64": func() { f64.AppendDefault(); f64.RowFloat32(0, nil) },
		"RowInt8 on Float32":    func() { f32.AppendDefault(); f32.RowInt8(0, nil) },
		"RowBFloat16 on Int8":   func() { i8.RowBFloat16(0, nil) },
		"row out of range":      func() { i8.RowInt8(5, nil) },
		"plane out of range":    func() { i8.Plane(8) },
		"Float32s on Int8":      func() { i8.Float32s(nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			f()
		}()
	}
}

func TestQBitNew(t *testing.T) {
	good := map[string]string{
		"QBit(Float32, 3)":           "QBit(Float32, 3)",
		"QBit(BFloat16, 1536)":       "QBit(BFloat16, 1536)",
		"QBit(Int8, 17)":             "QBit(Int8, 17)",
		"QBit(Float64, 16, 16)":      "QBit(Float64, 16)",
		"QBit(Float32, 16, 8)":       "QBit(Float32, 16, 8)",
		"QBit(Float32, 8192, 8)":     "QBit(Float32, 8192, 8)",
		"Nullable(QBit(Float32, 3))": "Nullable(QBit(Float32, 3))",
		"Array(QBit(Int8, 3, 3))":    "Array(QBit(Int8, 3))",
	}
	for in, want := range good {
		c, err := New(in)
		if err != nil {
			t.Fatalf("New(%q): %v", in, err)
		}
		if c.Type() != want {
			t.Fatalf("New(%q).Type() = %q, want %q", in, c.Type(), want)
		}
	}
	for _, in := range []string{
		"QBit", "QBit()", "QBit(Float32)", "QBit(Float32, 0)", "QBit(UInt8, 3)", "QBit(Float16, 3)",
		"QBit(Int16, 3)", "QBit(String, 3)", "QBit(Nullable(Float32), 3)", "QBit(Float32, 3, 1)",
		"QBit(Float32, 16, 4)", "QBit(Float32, 16, 12)", "QBit(Float32, 8, 16)", "QBit(Float32, 8200, 8)",
		"QBit(Float32, -3)", "QBit(Float32, 'a')", "QBit(Float32, 3, 3, 3)", "QBit(3, Float32)",
		"QBit(Float32, 3, 0)", "QBit(Float32, 1.5)", "QBit(Float32, 99999999999)", "LowCardinality(QBit(Float32, 3))",
		"QBit(x Float32, 3)",
	} {
		if c, err := New(in); err == nil {
			t.Errorf("New(%q) = %s, want an error", in, c.Type())
		} else if !strings.Contains(err.Error(), "QBit") {
			t.Errorf("New(%q): error %q does not name the type", in, err)
		}
	}
}

// TestQBitHostileRows checks that a huge row count over a short input fails without allocating
// for the declared size.
func TestQBitHostileRows(t *testing.T) {
	c := mustNew(t, "QBit(Float64, 1024)")
	if err := c.Read(NewBytesReader(make([]byte, 100)), 1<<30); err == nil || c.Rows() != 0 {
		t.Fatalf("err %v rows %d", err, c.Rows())
	}
	if err := c.Read(NewBytesReader(nil), 1<<40); err == nil {
		t.Fatal("absurd row count accepted")
	}
	if err := c.Read(NewBytesReader(nil), -1); err == nil {
		t.Fatal("negative row count accepted")
	}
	// A stream: allocation follows the input received.
	got := testenv.AllocatedBy(func() {
		r := NewReaderSize(bytes.NewReader(make([]byte, 1000)), 64)
		if err := c.Read(r, 1<<24); err == nil {
			t.Error("short stream accepted")
		}
	})
	if got > allocBudget {
		t.Fatalf("a 1000-byte stream claiming 2^24 rows allocated %d bytes", got)
	}
	got = testenv.AllocatedBy(func() { _ = c.Read(NewBytesReader(make([]byte, 100)), 1<<30) })
	if got > 1<<20 {
		t.Fatalf("a 100-byte input claiming 2^30 rows allocated %d bytes", got)
	}
}

// BenchmarkQBitAppendWrite measures the chosen encode path (rows staged untransposed, one block
// transpose at Write) against transposing each row as it is appended and gathering the planes at
// Write ("perRow"), for 1024 rows of QBit(Float32, 1024).
func BenchmarkQBitAppendWrite(b *testing.B) {
	const rows, dim = 1024, 1024
	src := make([][]float32, rows)
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range src {
		src[i] = make([]float32, dim)
		for j := range src[i] {
			src[i][j] = rng.Float32()
		}
	}
	b.Run("staged", func(b *testing.B) {
		c := mustNew(b, fmt.Sprintf("QBit(Float32, %d)", dim)).(*QBit)
		var w Writer
		b.SetBytes(rows * dim * 4)
		for b.Loop() {
			c.Reset()
			for _, r := range src {
				_ = c.AppendFloat32(r)
			}
			w.Reset()
			c.Write(&w)
		}
	})
	b.Run("perRow", func(b *testing.B) {
		const bpr = dim / 8
		rowMajor := make([]byte, rows*32*bpr)
		var out []byte
		b.SetBytes(rows * dim * 4)
		for b.Loop() {
			for i, r := range src {
				qbit.TransposeFloat32(rowMajor[i*32*bpr:(i+1)*32*bpr], r, dim)
			}
			out = out[:0]
			for k := 0; k < 32; k++ {
				for i := 0; i < rows; i++ {
					out = append(out, rowMajor[i*32*bpr+k*bpr:i*32*bpr+(k+1)*bpr]...)
				}
			}
		}
	})
}
