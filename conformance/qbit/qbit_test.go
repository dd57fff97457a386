// Package qbit_test checks columns.QBit against chDB (ClickHouse 26.7 as a library) in both
// directions, byte for byte: the engine's FORMAT Native output decodes to the values the engine
// reports, a Native file written by columns.QBit reads back in the engine to the values it was
// built from, and the two encodings of the same rows are identical.
package qbit_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/conformance/chdb"
	"github.com/chnative/chnative/nativeproto"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if err := chdb.CloseShared(); err != nil {
		println("chdb: CloseShared:", err.Error())
	}
	os.Exit(code)
}

func query(t *testing.T, e *chdb.Engine, sql, format string) []byte {
	t.Helper()
	out, err := e.Query(sql, format)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

var elemSize = map[string]int{"BFloat16": 2, "Float32": 4, "Float64": 8, "Int8": 1}

// sourceExpr returns an Array(elem) expression of d deterministic elements for row `number`:
// special values (NaN, ±Inf, -0, denormals, extremes) every fifth element, arbitrary bit patterns
// (NaN payloads included) elsewhere.
func sourceExpr(elem string, d int) string {
	pick := func(specials []string, random string) string {
		return fmt.Sprintf("arrayMap(i -> if((i + number) %% 5 = 0, [%s][intDiv(i + number, 5) %% %d + 1], %s), range(%d))",
			strings.Join(specials, ", "), len(specials), random, d)
	}
	f32Specials := []string{"toFloat32(nan)", "toFloat32(inf)", "toFloat32(-inf)", "toFloat32(-0.)", "toFloat32(0.)",
		"reinterpretAsFloat32(toUInt32(1))", "reinterpretAsFloat32(toUInt32(2155872255))", "reinterpretAsFloat32(toUInt32(2139095041))",
		"reinterpretAsFloat32(toUInt32(4294967295))", "toFloat32(3.4028234663852886e38)", "toFloat32(-1)", "toFloat32(0.0667378604)"}
	f32Random := "reinterpretAsFloat32(toUInt32(cityHash64(i, number) % 4294967296))"
	switch elem {
	case "Float32":
		return pick(f32Specials, f32Random)
	case "BFloat16":
		return "CAST(" + pick(f32Specials, f32Random) + " AS Array(BFloat16))"
	case "Float64":
		return pick([]string{"nan", "inf", "-inf", "-0.", "0.", "reinterpretAsFloat64(toUInt64(1))",
			"reinterpretAsFloat64(toUInt64(9218868437227405313))", "reinterpretAsFloat64(toUInt64(18446744073709551615))",
			"1.7976931348623157e308", "-2.2250738585072014e-308", "0.1"},
			"reinterpretAsFloat64(cityHash64(i, number))")
	case "Int8":
		return pick([]string{"toInt8(-128)", "toInt8(127)", "toInt8(0)", "toInt8(-1)", "toInt8(1)"},
			"toInt8(cityHash64(i, number) % 256 - 128)")
	}
	panic(elem)
}

// parseRowBinaryArrays parses RowBinary rows of one Array(T) (or QBit) column into raw element bit
// patterns.
func parseRowBinaryArrays(t *testing.T, b []byte, size int) [][]uint64 {
	t.Helper()
	var rows [][]uint64
	for len(b) > 0 {
		n, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < n*uint64(size) {
			t.Fatalf("malformed RowBinary at %d bytes from the end", len(b))
		}
		b = b[k:]
		row := make([]uint64, n)
		for i := range row {
			var x uint64
			for j := size - 1; j >= 0; j-- {
				x = x<<8 | uint64(b[j])
			}
			row[i] = x
			b = b[size:]
		}
		rows = append(rows, row)
	}
	return rows
}

// goRow converts raw bit patterns to the Go slice type QBit.Value returns for elem.
func goRow(elem string, words []uint64) any {
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

// rowBits returns the raw bit patterns of a value QBit.Value returned.
func rowBits(v any) []uint64 {
	var out []uint64
	switch x := v.(type) {
	case []float32:
		for _, f := range x {
			out = append(out, uint64(math.Float32bits(f)))
		}
	case []float64:
		for _, f := range x {
			out = append(out, math.Float64bits(f))
		}
	case []uint16:
		for _, f := range x {
			out = append(out, uint64(f))
		}
	case []int8:
		for _, f := range x {
			out = append(out, uint64(uint8(f)))
		}
	default:
		panic(fmt.Sprintf("%T", v))
	}
	return out
}

func equalRows(a, b [][]uint64) (int, bool) {
	if len(a) != len(b) {
		return -1, false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return i, false
		}
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				return i, false
			}
		}
	}
	return 0, true
}

// decodeNative reads a whole FORMAT Native output with one column and returns its rows' bit
// patterns, the number of blocks, and the (last) decoded column.
func decodeNative(t *testing.T, data []byte) ([][]uint64, int, *columns.QBit) {
	t.Helper()
	nr := nativeproto.NewNativeReader(bytes.NewReader(data))
	var rows [][]uint64
	blocks := 0
	var col *columns.QBit
	for {
		b, err := nr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("NativeReader: %v", err)
		}
		blocks++
		if b.NumColumns() != 1 || b.Name(0) != "v" {
			t.Fatalf("block: %d columns, first %q", b.NumColumns(), b.Name(0))
		}
		c, ok := b.Column(0).(*columns.QBit)
		if !ok {
			t.Fatalf("column is %T (%s), want *columns.QBit", b.Column(0), b.Type(0))
		}
		for i := 0; i < c.Rows(); i++ {
			v := c.Value(i)
			if c.Elem() == "BFloat16" {
				v = c.RowBFloat16(i, nil) // Value widens to []float32; compare the raw bits
			}
			rows = append(rows, rowBits(v))
		}
		col = c
	}
	return rows, blocks, col
}

// nativeOf returns the FORMAT Native bytes of one block holding col as "v".
func nativeOf(t *testing.T, col columns.Column) []byte {
	t.Helper()
	var buf bytes.Buffer
	blk := nativeproto.NewBlock()
	blk.Add("v", col)
	if err := nativeproto.NewNativeWriter(&buf).Write(blk); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func diff(a, b []byte) string {
	for i := 0; i < min(len(a), len(b)); i++ {
		if a[i] != b[i] {
			lo := max(0, i-16)
			return fmt.Sprintf("lengths %d/%d, first difference at byte %d:\n got %s\nwant %s", len(a), len(b), i,
				hex.EncodeToString(a[lo:min(len(a), i+16)]), hex.EncodeToString(b[lo:min(len(b), i+16)]))
		}
	}
	return fmt.Sprintf("lengths %d/%d", len(a), len(b))
}

type shape struct {
	elem      string
	dim, strd int // strd 0: unstrided
}

func (s shape) typ() string {
	if s.strd == 0 || s.strd == s.dim {
		return fmt.Sprintf("QBit(%s, %d)", s.elem, s.dim)
	}
	return fmt.Sprintf("QBit(%s, %d, %d)", s.elem, s.dim, s.strd)
}

func shapes() []shape {
	var out []shape
	for _, elem := range []string{"BFloat16", "Float32", "Float64", "Int8"} {
		for _, d := range []int{3, 16, 17, 100, 1024} {
			out = append(out, shape{elem, d, 0})
		}
		out = append(out, shape{elem, 16, 8}, shape{elem, 1024, 256})
	}
	return out
}

// TestQBitOracle runs, for every shape: (a) decode of the engine's Native output against the
// engine's own RowBinary rendering of CAST(v AS Array(T)); (b) encode: a Native file written from
// Go values, read by the engine with file(), renders to the same RowBinary; (c) the Native bytes of
// the Go-built column, and of the decoded column re-written unchanged, equal the engine's.
func TestQBitOracle(t *testing.T) {
	e := chdb.ForTest(t)
	dir := t.TempDir()
	for _, s := range shapes() {
		t.Run(strings.NewReplacer("(", "_", ")", "", ", ", "_").Replace(s.typ()), func(t *testing.T) {
			n := 7
			if s.dim >= 1024 {
				n = 3
			}
			typ := s.typ()
			src := fmt.Sprintf("SELECT CAST(%s AS %s) AS v FROM numbers(%d) ORDER BY number", sourceExpr(s.elem, s.dim), typ, n)
			native := query(t, e, src+" FORMAT Native", "")
			// The engine's values, exactly: RowBinary of the QBit cast back to Array(T), and of the source array.
			arrT := "Array(" + s.elem + ")"
			rb := query(t, e, fmt.Sprintf("SELECT CAST(v AS %s) FROM (%s) FORMAT RowBinary", arrT, src), "")
			want := parseRowBinaryArrays(t, rb, elemSize[s.elem])
			srcRB := query(t, e, fmt.Sprintf("SELECT CAST(%s AS %s) FROM numbers(%d) ORDER BY number FORMAT RowBinary",
				sourceExpr(s.elem, s.dim), arrT, n), "")
			if !bytes.Equal(srcRB, rb) {
				t.Fatalf("engine: CAST(CAST(src AS %s) AS %s) differs from src", typ, arrT)
			}
			if len(want) != n || len(want[0]) != s.dim {
				t.Fatalf("engine returned %d rows of %d elements", len(want), len(want[0]))
			}

			// (a) decode.
			got, blocks, dec := decodeNative(t, native)
			if i, ok := equalRows(got, want); !ok {
				t.Fatalf("(a) decoded row %d differs:\n got %x\nwant %x", i, got[max(i, 0)], want[max(i, 0)])
			}
			if blocks != 1 {
				t.Fatalf("engine wrote %d blocks; the byte comparison needs 1", blocks)
			}
			if dec.Type() != typ {
				t.Fatalf("decoded type %q, want %q", dec.Type(), typ)
			}

			// (c) bytes: the decoded column written back unchanged (plane pass-through) ...
			if again := nativeOf(t, dec); !bytes.Equal(again, native) {
				t.Fatalf("(c) re-written decoded column differs from the engine's Native: %s", diff(again, native))
			}
			// ... and a column built from Go values.
			col, err := columns.New(typ)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range want {
				if err := col.AppendValue(goRow(s.elem, r)); err != nil {
					t.Fatal(err)
				}
			}
			ours := nativeOf(t, col)
			if !bytes.Equal(ours, native) {
				t.Fatalf("(c) Native of the Go-built column differs from the engine's: %s", diff(ours, native))
			}

			// (b) encode: the engine reads our file.
			path := filepath.Join(dir, strings.NewReplacer("(", "_", ")", "_", ", ", "_").Replace(typ)+".native")
			if err := os.WriteFile(path, ours, 0o644); err != nil {
				t.Fatal(err)
			}
			fromFile := query(t, e, fmt.Sprintf("SELECT CAST(v AS %s) FROM file('%s', Native, 'v %s') FORMAT RowBinary", arrT, path, typ), "")
			if !bytes.Equal(fromFile, rb) {
				gotRows := parseRowBinaryArrays(t, fromFile, elemSize[s.elem])
				i, _ := equalRows(gotRows, want)
				t.Fatalf("(b) the engine read our file as different values (row %d)", i)
			}
			// The engine's own re-encoding of what it read from our file is our file.
			if back := query(t, e, fmt.Sprintf("SELECT v FROM file('%s', Native, 'v %s') FORMAT Native", path, typ), ""); !bytes.Equal(back, ours) {
				t.Fatalf("(b) engine re-encoding of our file differs: %s", diff(back, ours))
			}
			// Server-side evaluation on our file, independent of the cast path: plane 1 (sign) of row 0.
			if s.strd == 0 {
				hexSign := strings.TrimSpace(string(query(t, e, fmt.Sprintf(
					"SELECT hex(v.1) FROM file('%s', Native, 'v %s') LIMIT 1", path, typ), "TabSeparated")))
				b := (s.dim + 7) / 8
				if w := strings.ToUpper(hex.EncodeToString(dec.Plane(0)[:b])); hexSign != w {
					t.Fatalf("v.1 of row 0: engine %s, Plane(0) %s", hexSign, w)
				}
			}
		})
	}
}

// TestQBitBFloat16Truncation checks that appending float32 to a BFloat16 column truncates as the
// engine's CAST does (NaN payloads in the low bits become infinities in both).
func TestQBitBFloat16Truncation(t *testing.T) {
	e := chdb.ForTest(t)
	for _, d := range []int{3, 17, 100} {
		f32 := fmt.Sprintf("SELECT CAST(%s AS Array(Float32)) AS a FROM numbers(5) ORDER BY number", sourceExpr("Float32", d))
		rows := parseRowBinaryArrays(t, query(t, e, f32+" FORMAT RowBinary", ""), 4)
		typ := fmt.Sprintf("QBit(BFloat16, %d)", d)
		native := query(t, e, fmt.Sprintf("SELECT CAST(a AS %s) AS v FROM (%s) FORMAT Native", typ, f32), "")
		col, _ := columns.New(typ)
		for _, r := range rows {
			if err := col.AppendValue(goRow("Float32", r)); err != nil {
				t.Fatal(err)
			}
		}
		if ours := nativeOf(t, col); !bytes.Equal(ours, native) {
			t.Fatalf("%s from float32: %s", typ, diff(ours, native))
		}
	}
}

// TestQBitComposite checks Nullable(QBit), Array(QBit) and a strided QBit inside a Tuple against
// the engine's Native bytes, both ways.
func TestQBitComposite(t *testing.T) {
	e := chdb.ForTest(t)
	dir := t.TempDir()
	cases := []struct{ typ, expr string }{
		// The vector under a NULL is zero here (see src below), as a Go-built column writes it.
		{"Nullable(QBit(Float32, 17))", "if(number % 3 = 1, NULL, CAST(if(number % 3 = 1, arrayWithConstant(17, toFloat32(0)), " +
			sourceExpr("Float32", 17) + ") AS QBit(Float32, 17)))"},
		{"Array(QBit(Int8, 9))", "arrayMap(k -> CAST(arrayMap(i -> toInt8((i * 37 + k * 11 + number) % 256 - 128), range(9)) AS QBit(Int8, 9)), range(number % 4))"},
		{"Tuple(String, QBit(BFloat16, 24, 8))", "tuple(toString(number), CAST(" + sourceExpr("BFloat16", 24) + " AS QBit(BFloat16, 24, 8)))"},
	}
	for i, tc := range cases {
		// Without short-circuit evaluation the inner if() really yields zeros under the NULLs.
		src := fmt.Sprintf("SELECT CAST(%s AS %s) AS v FROM numbers(6) ORDER BY number SETTINGS short_circuit_function_evaluation = 'disable'", tc.expr, tc.typ)
		native := query(t, e, src+" FORMAT Native", "")
		blk, err := nativeproto.NewNativeReader(bytes.NewReader(native)).Next()
		if err != nil {
			t.Fatalf("%s: %v", tc.typ, err)
		}
		if blk.Type(0) != tc.typ || blk.Rows() != 6 {
			t.Fatalf("%s: decoded %s, %d rows", tc.typ, blk.Type(0), blk.Rows())
		}
		col := blk.Column(0)
		if again := nativeOf(t, col); !bytes.Equal(again, native) {
			t.Fatalf("%s: re-written: %s", tc.typ, diff(again, native))
		}
		// Rebuild from Go values.
		fresh, _ := columns.New(tc.typ)
		for r := 0; r < col.Rows(); r++ {
			if err := fresh.AppendValue(col.Value(r)); err != nil {
				t.Fatalf("%s: row %d: %v", tc.typ, r, err)
			}
		}
		ours := nativeOf(t, fresh)
		if !bytes.Equal(ours, native) {
			t.Fatalf("%s: Go-built: %s", tc.typ, diff(ours, native))
		}
		path := filepath.Join(dir, fmt.Sprintf("c%d.native", i))
		if err := os.WriteFile(path, ours, 0o644); err != nil {
			t.Fatal(err)
		}
		a := query(t, e, fmt.Sprintf("SELECT toString(v) FROM file('%s', Native, 'v %s') FORMAT TabSeparated", path, tc.typ), "")
		b := query(t, e, fmt.Sprintf("SELECT toString(v) FROM (%s) FORMAT TabSeparated", src), "")
		if !bytes.Equal(a, b) {
			t.Fatalf("%s: engine reads our file as\n%s\nwant\n%s", tc.typ, a, b)
		}
	}
}
