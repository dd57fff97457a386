package bench

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/ch-go"
	"github.com/ClickHouse/ch-go/proto"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/chnative/chnative"
	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/conformance/bench/fakeserver"
	_ "github.com/chnative/chnative/conformance/bench/noopdriver"
	"github.com/chnative/chnative/conformance/bench/rawreader"
	"github.com/chnative/chnative/nativeproto"
)

// target is a server to read from or insert into: the fake server or a real one (see server).
type target struct {
	name, addr, user, password string
	server                     bool // a real ClickHouse server
	chgo                       bool // ch-go can query it
}

func fake() target { return target{name: "fake", addr: fakeAddr, user: "default", chgo: true} }

// runs says whether arm can run against t. Arms that cannot are left out rather than skipped (CI
// fails on any skip): the noop arms, which talk to no server and are the floors of the fake
// server's groups, on real servers; ch-go where it cannot query (18.16).
func (t target) runs(arm string) bool {
	switch {
	case strings.HasPrefix(arm, "noop"):
		return !t.server
	case arm == "ch-go":
		return t.chgo
	}
	return true
}

// readSpec is one read workload: the query per target and the shape of its rows.
type readSpec struct {
	shape string // u64, u64sf64, mixed, typeK
	query string
	rows  int
	codec string // none, lz4, zstd
}

func fakeRead(shape string, total int, codec string) readSpec {
	name, rows := tableFor(shape, total, codec)
	return readSpec{shape: shape, query: "SELECT * FROM " + name, rows: rows, codec: codec}
}

// ---- consumers: every arm touches every value of the fixed-width and String columns ----

func consumeBlock(blk *nativeproto.Block) (n int) {
	for i := 0; i < blk.NumColumns(); i++ {
		switch c := blk.Column(i).(type) {
		case *columns.UInt64:
			var s uint64
			for _, v := range c.Values() {
				s += v
			}
			sink.u += s
		case *columns.Float64:
			var s float64
			for _, v := range c.Values() {
				s += v
			}
			sink.f += s
		case *columns.String:
			s := 0
			for j := 0; j < c.Rows(); j++ {
				s += len(c.Bytes(j))
			}
			sink.u += uint64(s)
		}
	}
	return blk.Rows()
}

func chnativeBlocks(b *testing.B, db *sql.DB, q readSpec, value bool) {
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	measure(b, q.rows, func() error {
		return conn.Raw(func(dc any) error {
			blocks, err := dc.(chnative.Conn).QueryBlocks(ctx, q.query)
			if err != nil {
				return err
			}
			defer blocks.Close()
			n := 0
			var last any
			for blocks.Next() {
				blk := blocks.Block()
				if value {
					rows := blk.Rows()
					for i := 0; i < blk.NumColumns(); i++ {
						col := blk.Column(i)
						for r := 0; r < rows; r++ {
							last = col.Value(r)
						}
					}
					n += rows
				} else {
					n += consumeBlock(blk)
				}
			}
			sink.a = last
			if err := blocks.Err(); err != nil {
				return err
			}
			if n != q.rows {
				return fmt.Errorf("read %d rows, want %d", n, q.rows)
			}
			return nil
		})
	})
}

// scanner scans rows of a shape into typed destinations (u64, u64sf64) or *any (others).
type scanner interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close() error
}

// The destinations are passed as a slice built once: rs is an interface here, and a call through
// an interface makes Scan's variadic arguments escape, so Scan(&v) would allocate its argument
// slice every row (about 35 ns a row here). An application calling (*sql.Rows).Scan(&v) pays no
// such allocation, because database/sql does not keep the slice.
func scanAll(rs scanner, shape string, ncols int, dest []any) (int, error) {
	defer rs.Close()
	n := 0
	switch shape {
	case "u64", "one":
		var v uint64
		var u8 uint8
		args := []any{&v}
		if shape == "one" {
			args = []any{&u8}
		}
		for rs.Next() {
			if err := rs.Scan(args...); err != nil {
				return n, err
			}
			sink.u += v
			n++
		}
	case "u64sf64":
		var id uint64
		var name string
		var val float64
		args := []any{&id, &name, &val}
		for rs.Next() {
			if err := rs.Scan(args...); err != nil {
				return n, err
			}
			sink.u += id + uint64(len(name))
			sink.f += val
			n++
		}
	default:
		if dest == nil {
			vals := make([]any, ncols)
			dest = make([]any, ncols)
			for i := range vals {
				dest[i] = &vals[i]
			}
		}
		for rs.Next() {
			if err := rs.Scan(dest...); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, rs.Err()
}

func sqlRows(b *testing.B, db *sql.DB, q readSpec) {
	ctx := context.Background()
	measure(b, q.rows, func() error {
		rs, err := db.QueryContext(ctx, q.query)
		if err != nil {
			return err
		}
		cols, _ := rs.Columns()
		n, err := scanAll(rs, q.shape, len(cols), nil)
		if err != nil {
			return err
		}
		if n != q.rows {
			return fmt.Errorf("read %d rows, want %d", n, q.rows)
		}
		return nil
	})
}

func chgoRead(b *testing.B, t target, q readSpec) {
	c := openChgo(b, t.addr, t.user, t.password, q.codec)
	ctx := context.Background()
	measure(b, q.rows, func() error {
		n := 0
		var query ch.Query
		switch q.shape {
		case "u64":
			var col proto.ColUInt64
			query = ch.Query{Body: q.query, Result: proto.Results{{Name: "number", Data: &col}},
				OnResult: func(ctx context.Context, blk proto.Block) error {
					var s uint64
					for _, v := range col {
						s += v
					}
					sink.u += s
					n += col.Rows()
					return nil
				}}
		case "u64sf64":
			var id proto.ColUInt64
			var name proto.ColStr
			var val proto.ColFloat64
			query = ch.Query{Body: q.query, Result: proto.Results{{Name: "id", Data: &id}, {Name: "name", Data: &name}, {Name: "val", Data: &val}},
				OnResult: func(ctx context.Context, blk proto.Block) error {
					var s uint64
					for _, v := range id {
						s += v
					}
					for _, p := range name.Pos {
						s += uint64(p.End - p.Start)
					}
					var f float64
					for _, v := range val {
						f += v
					}
					sink.u += s
					sink.f += f
					n += id.Rows()
					return nil
				}}
		default:
			var res proto.Results
			query = ch.Query{Body: q.query, Result: res.Auto(),
				OnResult: func(ctx context.Context, blk proto.Block) error {
					n += blk.Rows
					return nil
				}}
		}
		if err := c.Do(ctx, query); err != nil {
			return err
		}
		if n != q.rows {
			return fmt.Errorf("read %d rows, want %d", n, q.rows)
		}
		return nil
	})
}

func clickhouseGoRead(b *testing.B, t target, q readSpec) {
	c := openClickhouseGo(b, t.addr, t.user, t.password, q.codec, 1)
	ctx := context.Background()
	measure(b, q.rows, func() error {
		rs, err := c.Query(ctx, q.query)
		if err != nil {
			return err
		}
		var dest []any
		cts := rs.ColumnTypes()
		for _, ct := range cts {
			dest = append(dest, reflect.New(ct.ScanType()).Interface())
		}
		n, err := scanAll(rs, q.shape, len(cts), dest)
		if err != nil {
			return err
		}
		if n != q.rows {
			return fmt.Errorf("read %d rows, want %d", n, q.rows)
		}
		return nil
	})
}

func rawRead(b *testing.B, t target, q readSpec) {
	if q.codec != "none" && q.codec != "" {
		b.Fatal("raw reader reads uncompressed only (readArms leaves it out of compressed reads)")
	}
	c, err := rawreader.Dial(t.addr, t.user, t.password)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	measure(b, q.rows, func() error {
		n, err := c.Query(q.query)
		if err != nil {
			return err
		}
		if n != q.rows {
			return fmt.Errorf("read %d rows, want %d", n, q.rows)
		}
		return nil
	})
}

func noopRead(b *testing.B, q readSpec, mode string) {
	db, err := sql.Open("noop", fmt.Sprintf("%s:%d:%s", q.shape, q.rows, mode))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	sqlRows(b, db, q)
}

// ---- struct tier: every row read into a Go struct, all rows of the result into one []T ----

// usfRow is the (UInt64, String, Float64) shape as a struct (both drivers map it alike).
type usfRow struct {
	ID   uint64  `ch:"id"`
	Name string  `ch:"name"`
	Val  float64 `ch:"val"`
}

// mixedRow is the mixed shape as a struct; D is the Decimal type.
type mixedRow[D any] struct {
	ID   uint64    `ch:"id"`
	I32  int32     `ch:"i32"`
	U8   uint8     `ch:"u8"`
	F32  float32   `ch:"f32"`
	F64  float64   `ch:"f64"`
	S    string    `ch:"s"`
	FS   string    `ch:"fs"`
	NS   *string   `ch:"ns"`
	NI   *int64    `ch:"ni"`
	NF   *float64  `ch:"nf"`
	LC   string    `ch:"lc"`
	U32  uint32    `ch:"u32"`
	AU   []uint64  `ch:"au"`
	AS   []string  `ch:"as"`
	DT   time.Time `ch:"dt"`
	D    time.Time `ch:"d"`
	Dec  D         `ch:"dec"`
	Dec9 D         `ch:"dec9"`
	UUID uuid.UUID `ch:"uuid"`
	E    string    `ch:"e"`
}

// mixedCH is the mixed shape as clickhouse-go maps it: Nullable as pointers, Decimal as
// shopspring decimal.Decimal, UUID as uuid.UUID, Enum8 and FixedString as string.
type mixedCH = mixedRow[decimal.Decimal]

// mixedNative is the mixed shape as chnative maps it best: the same, but Decimal as
// columns.Decimal (exact, what chnative's Decimal columns return).
type mixedNative = mixedRow[columns.Decimal]

// mixedSum touches every field of a mixed row (the decimals by sign and scale).
func mixedSum(id uint64, i32 int32, u8 uint8, f32 float32, f64 float64, s, fs string, ns *string, ni *int64, nf *float64,
	lc string, u32 uint32, au []uint64, as []string, dt, d time.Time, dec, dec9 int, id16 [16]byte, e string) (uint64, float64) {
	u := id + uint64(i32) + uint64(u8) + uint64(len(s)+len(fs)+len(lc)+len(e)) + uint64(u32) +
		uint64(len(au)+len(as)) + uint64(dt.Unix()+d.Unix()) + uint64(dec+dec9) + uint64(id16[0])
	f := float64(f32) + f64
	if ns != nil {
		u += uint64(len(*ns))
	}
	if ni != nil {
		u += uint64(*ni)
	}
	if nf != nil {
		f += *nf
	}
	return u, f
}

func consumeStructs[T any](rows []T, sum func(*T) (uint64, float64)) int {
	var u uint64
	var f float64
	for i := range rows {
		a, b := sum(&rows[i])
		u += a
		f += b
	}
	sink.u += u
	sink.f += f
	return len(rows)
}

func usfSum(r *usfRow) (uint64, float64) { return r.ID + uint64(len(r.Name)), r.Val }

func mixedCHSum(r *mixedCH) (uint64, float64) {
	return mixedSum(r.ID, r.I32, r.U8, r.F32, r.F64, r.S, r.FS, r.NS, r.NI, r.NF, r.LC, r.U32, r.AU, r.AS, r.DT, r.D,
		int(r.Dec.Exponent())+r.Dec.Sign(), int(r.Dec9.Exponent())+r.Dec9.Sign(), r.UUID, r.E)
}

func mixedNativeSum(r *mixedNative) (uint64, float64) {
	return mixedSum(r.ID, r.I32, r.U8, r.F32, r.F64, r.S, r.FS, r.NS, r.NI, r.NF, r.LC, r.U32, r.AU, r.AS, r.DT, r.D,
		r.Dec.Scale+r.Dec.Unscaled.Sign(), r.Dec9.Scale+r.Dec9.Unscaled.Sign(), r.UUID, r.E)
}

// chnativeStructs reads the result with chnative.Select[T] (through sql.Conn.Raw).
func chnativeStructs[T any](b *testing.B, db *sql.DB, q readSpec, sum func(*T) (uint64, float64)) {
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	measure(b, q.rows, func() error {
		return conn.Raw(func(dc any) error {
			rows, err := chnative.Select[T](ctx, dc.(chnative.Conn), q.query)
			if err != nil {
				return err
			}
			if n := consumeStructs(rows, sum); n != q.rows {
				return fmt.Errorf("read %d rows, want %d", n, q.rows)
			}
			return nil
		})
	})
}

// clickhouseGoStructs reads the result with clickhouse-go's conn.Select(ctx, &[]T, query).
func clickhouseGoStructs[T any](b *testing.B, t target, q readSpec, sum func(*T) (uint64, float64)) {
	c := openClickhouseGo(b, t.addr, t.user, t.password, q.codec, 1)
	ctx := context.Background()
	measure(b, q.rows, func() error {
		var rows []T
		if err := c.Select(ctx, &rows, q.query); err != nil {
			return err
		}
		if n := consumeStructs(rows, sum); n != q.rows {
			return fmt.Errorf("read %d rows, want %d", n, q.rows)
		}
		return nil
	})
}

func structArm(b *testing.B, t target, q readSpec, native bool) {
	// The arms leave hundreds of MB of garbage: hand it back to the OS now, so that the next arm
	// does not pay for this one (the background scavenger's madvise calls and page faults).
	b.Cleanup(debug.FreeOSMemory)
	switch q.shape {
	case "u64sf64":
		if native {
			chnativeStructs(b, openChnative(b, t.addr, t.user, t.password, q.codec), q, usfSum)
		} else {
			clickhouseGoStructs(b, t, q, usfSum)
		}
	case "mixed":
		if native {
			chnativeStructs(b, openChnative(b, t.addr, t.user, t.password, q.codec), q, mixedNativeSum)
		} else {
			clickhouseGoStructs(b, t, q, mixedCHSum)
		}
	default:
		b.Fatalf("no struct type for shape %s", q.shape)
	}
}

// readArms runs every arm of a read workload. Arms that cannot run it are left out rather than
// skipped (CI fails on any skip): those target.runs refuses, and the raw reader on compressed
// reads, which it does not decompress.
func readArms(b *testing.B, t target, q readSpec, arms ...string) {
	if len(arms) == 0 {
		arms = []string{"chnative-blocks", "chnative-rows", "chnative-value", "ch-go", "clickhouse-go", "clickhouse-go-sql", "raw", "noop"}
		if q.shape == "u64" || q.shape == "u64sf64" {
			arms = append(arms, "noop-fresh")
		}
		if q.shape == "u64sf64" {
			arms = append(arms, "chnative-struct", "clickhouse-go-struct")
		}
	}
	for _, arm := range arms {
		if !t.runs(arm) {
			continue
		}
		if arm == "raw" && q.codec != "none" && q.codec != "" {
			continue
		}
		b.Run(arm, func(b *testing.B) {
			switch arm {
			case "chnative-blocks":
				chnativeBlocks(b, openChnative(b, t.addr, t.user, t.password, q.codec), q, false)
			case "chnative-value":
				chnativeBlocks(b, openChnative(b, t.addr, t.user, t.password, q.codec), q, true)
			case "chnative-rows":
				sqlRows(b, openChnative(b, t.addr, t.user, t.password, q.codec), q)
			case "ch-go":
				chgoRead(b, t, q)
			case "clickhouse-go":
				clickhouseGoRead(b, t, q)
			case "clickhouse-go-sql":
				sqlRows(b, openClickhouseGoDB(b, t.addr, t.user, t.password, q.codec, 1), q)
			case "chnative-struct":
				structArm(b, t, q, true)
			case "clickhouse-go-struct":
				structArm(b, t, q, false)
			case "raw":
				rawRead(b, t, q)
			case "noop":
				noopRead(b, q, "")
			case "noop-fresh":
				noopRead(b, q, "fresh")
			}
		})
	}
}

// BenchmarkReadU64 reads 10M UInt64: from the fake server, from 18.16 (real) and from 26.7
// (modern), the latter also LZ4-compressed (modern/lz4), where ch-go runs on a real server too.
func BenchmarkReadU64(b *testing.B) {
	b.Run("fake", func(b *testing.B) { readArms(b, fake(), fakeRead("u64", rowsN(10_000_000), "none")) })
	b.Run("real", func(b *testing.B) {
		t := realT(b)
		readArms(b, t, u64Read(setupReal(b), "none"))
	})
	b.Run("modern", func(b *testing.B) {
		t := modernT(b)
		readArms(b, t, u64Read(setupModern(b), "none"))
	})
	b.Run("modern/lz4", func(b *testing.B) {
		t := modernT(b)
		readArms(b, t, u64Read(setupModern(b), "lz4"),
			"chnative-blocks", "chnative-rows", "ch-go", "clickhouse-go", "clickhouse-go-sql")
	})
}

// BenchmarkReadUSF reads 1M (UInt64, String, Float64) from the fake server, 18.16 and 26.7.
func BenchmarkReadUSF(b *testing.B) {
	b.Run("fake", func(b *testing.B) { readArms(b, fake(), fakeRead("u64sf64", rowsN(1_000_000), "none")) })
	b.Run("real", func(b *testing.B) {
		t := realT(b)
		readArms(b, t, usfRead(setupReal(b), "none"))
	})
	b.Run("modern", func(b *testing.B) {
		t := modernT(b)
		readArms(b, t, usfRead(setupModern(b), "none"))
	})
}

// BenchmarkReadMixed reads 1M rows of 20 mixed columns (fake server only: 18.16 lacks some types).
func BenchmarkReadMixed(b *testing.B) {
	b.Run("fake", func(b *testing.B) {
		readArms(b, fake(), fakeRead("mixed", rowsN(1_000_000), "none"),
			"chnative-blocks", "chnative-rows", "chnative-value", "chnative-struct", "ch-go", "clickhouse-go", "clickhouse-go-sql", "clickhouse-go-struct", "noop")
	})
}

// BenchmarkReadType decodes 1M values of each of 16 types (block tiers only).
func BenchmarkReadType(b *testing.B) {
	for i, typ := range fakeserver.PerType {
		b.Run("fake/"+fakeserver.TypeSlug(typ), func(b *testing.B) {
			arms := []string{"chnative-blocks", "ch-go"}
			if w := rawWidthOK(typ); w {
				arms = append(arms, "raw")
			}
			readArms(b, fake(), fakeRead(fmt.Sprintf("type%d", i), rowsN(1_000_000), "none"), arms...)
		})
	}
}

func rawWidthOK(t string) bool {
	switch t {
	case "Nullable(Int64)", "LowCardinality(String)", "Array(UInt64)", "Decimal(18, 4)", "Decimal(38, 10)":
		return false
	}
	return true
}

// BenchmarkReadCompression reads 1M (UInt64, String, Float64) with each codec, the same on
// both sides (the fake server compresses with the codec its table names): from the fake server
// (fake/<codec>), 18.16 (real/<codec>) and 26.7 (modern/<codec>).
//
// modern/<codec> (issue 18) is the mixed-shape read where ch-go runs on a real server too; the
// target is chnative-blocks' client CPU <= 0.5x ch-go's with LZ4 (modern/lz4). chnative and ch-go
// ask the server for the codec (network_compression_method); clickhouse-go cannot (see
// serverCompressionMethod), so its modern/zstd arm reads LZ4.
func BenchmarkReadCompression(b *testing.B) {
	for _, codec := range []string{"none", "lz4", "zstd"} {
		b.Run("fake/"+codec, func(b *testing.B) {
			readArms(b, fake(), fakeRead("u64sf64", rowsN(1_000_000), codec),
				"chnative-blocks", "chnative-rows", "ch-go", "clickhouse-go", "raw")
		})
		b.Run("real/"+codec, func(b *testing.B) {
			t := realT(b)
			readArms(b, t, usfRead(setupReal(b), codec), "chnative-blocks", "chnative-rows", "clickhouse-go", "raw")
		})
		b.Run("modern/"+codec, func(b *testing.B) {
			t := modernT(b)
			readArms(b, t, usfRead(setupModern(b), codec), "chnative-blocks", "chnative-rows", "ch-go", "clickhouse-go")
		})
	}
}
