package fakeserver

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/nativeproto"
)

// Column is one column of a shape: its name and ClickHouse type.
type Column struct {
	Name string
	Type string
}

// Shapes are the column sets the server can stream (by table name, see ParseTable).
//
//	one     SELECT 1: one UInt8 column "1"
//	u64     number UInt64
//	u64sf64 id UInt64, name String, val Float64
//	mixed   20 columns: Nullable, LowCardinality, Array, DateTime, Decimal, ...
//	typeK   one column of PerType[K] (per-type decode)
//	qbitf32  v QBit(Float32, 1024): 1024-dimension vectors (4 KiB each on the wire)
//	qbitbf16 v QBit(BFloat16, 1024) (2 KiB each)
var Shapes = map[string][]Column{
	"one":      {{"1", "UInt8"}},
	"u64":      {{"number", "UInt64"}},
	"u64sf64":  {{"id", "UInt64"}, {"name", "String"}, {"val", "Float64"}},
	"mixed":    Mixed,
	"qbitf32":  {{"v", QBitF32}},
	"qbitbf16": {{"v", QBitBF16}},
}

// The QBit types of the qbit shapes.
const (
	QBitF32  = "QBit(Float32, 1024)"
	QBitBF16 = "QBit(BFloat16, 1024)"
	QBitDim  = 1024
)

// Vector returns vector i of the qbit shapes: QBitDim float32 values, deterministic, with varied
// signs, exponents and mantissas (every bit plane carries information).
func Vector(i int) []float32 {
	v := make([]float32, QBitDim)
	x := uint32(i)*2654435761 + 1
	for k := range v {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		v[k] = (float32(x%20001) - 10000) / float32(1+int(x>>24)%97)
	}
	return v
}

// Mixed is the 20-column shape. DateTime64 is absent: the committed columns package has no
// DateTime64 yet.
var Mixed = []Column{
	{"id", "UInt64"},
	{"i32", "Int32"},
	{"u8", "UInt8"},
	{"f32", "Float32"},
	{"f64", "Float64"},
	{"s", "String"},
	{"fs", "FixedString(16)"},
	{"ns", "Nullable(String)"},
	{"ni", "Nullable(Int64)"},
	{"nf", "Nullable(Float64)"},
	{"lc", "LowCardinality(String)"},
	{"u32", "UInt32"}, // not LowCardinality(Nullable(String)): ch-go cannot infer it
	{"au", "Array(UInt64)"},
	{"as", "Array(String)"},
	{"dt", "DateTime"},
	{"d", "Date"},
	{"dec", "Decimal(18, 4)"},
	{"dec9", "Decimal(9, 2)"},
	{"uuid", "UUID"},
	{"e", "Enum8('a' = 1, 'b' = 2)"},
}

// PerType are the 16 types of the per-type decode workload.
var PerType = []string{
	"UInt8", "Int32", "UInt64", "Int64", "Float32", "Float64", "String", "FixedString(16)",
	"Date", "DateTime", "UUID", "Decimal(18, 4)", "Decimal(38, 10)", "Nullable(Int64)",
	"LowCardinality(String)", "Array(UInt64)",
}

// TypeSlug turns a type into a benchmark-name-safe token.
func TypeSlug(t string) string {
	r := strings.NewReplacer("(", "_", ")", "", ", ", "_", " ", "", "'", "", "=", "")
	return r.Replace(t)
}

func init() {
	for i, t := range PerType {
		Shapes["type"+strconv.Itoa(i)] = []Column{{"v", t}}
	}
}

// Table names a dataset: shape, rows per block, number of blocks and the codec the server uses
// when the client asked for compression. Its text form is shape[_RxB][_codec], e.g.
// "u64_65536x153_lz4"; missing parts default to 65536x1 and lz4.
type Table struct {
	Shape  string
	Rows   int
	Blocks int
	Codec  nativeproto.Method
}

// Name returns the table's text form.
func (t Table) Name() string {
	c := "lz4"
	if t.Codec == nativeproto.MethodZSTD {
		c = "zstd"
	}
	return fmt.Sprintf("%s_%dx%d_%s", t.Shape, t.Rows, t.Blocks, c)
}

// TotalRows is Rows*Blocks.
func (t Table) TotalRows() int { return t.Rows * t.Blocks }

// ParseTable parses a table name (a database prefix "db." is ignored).
func ParseTable(name string) (Table, error) {
	name = strings.Trim(name, "`\"")
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	t := Table{Rows: 65536, Blocks: 1, Codec: nativeproto.MethodLZ4}
	parts := strings.Split(name, "_")
	t.Shape = parts[0]
	if _, ok := Shapes[t.Shape]; !ok {
		return t, fmt.Errorf("fakeserver: unknown shape %q", t.Shape)
	}
	for _, p := range parts[1:] {
		switch {
		case p == "lz4":
			t.Codec = nativeproto.MethodLZ4
		case p == "zstd":
			t.Codec = nativeproto.MethodZSTD
		case strings.Contains(p, "x"):
			r, b, _ := strings.Cut(p, "x")
			var err1, err2 error
			t.Rows, err1 = strconv.Atoi(r)
			t.Blocks, err2 = strconv.Atoi(b)
			if err1 != nil || err2 != nil || t.Rows < 0 || t.Blocks < 0 {
				return t, fmt.Errorf("fakeserver: bad size %q", p)
			}
		default:
			return t, fmt.Errorf("fakeserver: bad table part %q", p)
		}
	}
	return t, nil
}

// BuildBlock returns a block of the shape with rows rows of deterministic data.
func BuildBlock(shape string, rows int) (*nativeproto.Block, error) {
	cols, ok := Shapes[shape]
	if !ok {
		return nil, fmt.Errorf("fakeserver: unknown shape %q", shape)
	}
	b := nativeproto.NewBlock()
	for _, c := range cols {
		col, err := columns.New(c.Type)
		if err != nil {
			return nil, err
		}
		for i := 0; i < rows; i++ {
			if err := col.AppendValue(Value(c.Type, i)); err != nil {
				return nil, fmt.Errorf("fakeserver: %s row %d: %w", c.Type, i, err)
			}
		}
		b.Add(c.Name, col)
	}
	return b, nil
}

var base = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// Value returns the value of row i of a column of type t, as a Go value every client accepts.
func Value(t string, i int) any {
	switch t {
	case "UInt8":
		return uint8(i)
	case "UInt32":
		return uint32(i * 7)
	case "Int32":
		return int32(i - 500000)
	case "UInt64":
		return uint64(i)
	case "Int64":
		return int64(i) * 1000003
	case "Float32":
		return float32(i) * 0.5
	case "Float64":
		return float64(i) * 0.25
	case "String":
		return Str(i)
	case "FixedString(16)":
		return fmt.Sprintf("%016d", i%100000)
	case "Nullable(String)":
		if i%3 == 0 {
			return nil
		}
		return Str(i)
	case "Nullable(Int64)":
		if i%3 == 0 {
			return nil
		}
		return int64(i)
	case "Nullable(Float64)":
		if i%5 == 0 {
			return nil
		}
		return float64(i) / 3
	case "LowCardinality(String)":
		return "category-" + strconv.Itoa(i%100)
	case "LowCardinality(Nullable(String))":
		if i%7 == 0 {
			return nil
		}
		return "lc-" + strconv.Itoa(i%50)
	case "Array(UInt64)":
		n := i % 4
		a := make([]uint64, n)
		for k := range a {
			a[k] = uint64(i + k)
		}
		return a
	case "Array(String)":
		n := i % 3
		a := make([]string, n)
		for k := range a {
			a[k] = "e" + strconv.Itoa(k)
		}
		return a
	case "DateTime":
		return base.Add(time.Duration(i) * time.Second)
	case "Date":
		return base.AddDate(0, 0, i%3650)
	case "Decimal(18, 4)":
		return fmt.Sprintf("%d.%04d", i, i%10000)
	case "Decimal(9, 2)":
		return fmt.Sprintf("%d.%02d", i%1000000, i%100)
	case "Decimal(38, 10)":
		return fmt.Sprintf("%d.%010d", i*7919, i%10000)
	case "UUID":
		var u [16]byte
		for k := range 8 {
			u[k] = byte(i >> (8 * k))
		}
		u[6] = u[6]&0x0f | 0x40
		u[8] = 0x80
		return u
	case QBitF32, QBitBF16:
		return Vector(i)
	case "Enum8('a' = 1, 'b' = 2)":
		if i%2 == 0 {
			return "a"
		}
		return "b"
	}
	panic("fakeserver: no generator for " + t)
}

// Str is the String value of row i: 8 to 17 bytes.
func Str(i int) string { return "name-" + strconv.Itoa(i%1000) + "-" + strconv.Itoa(i) }
