package bench

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/ClickHouse/ch-go"
	"github.com/ClickHouse/ch-go/proto"

	"github.com/chnative/chnative"
	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/conformance/bench/fakeserver"
)

// qbitSpec is one QBit workload: 1024-dimension vectors of one element type.
type qbitSpec struct {
	elem   string // Float32, BFloat16
	shape  string // fake-server shape
	typ    string // ClickHouse type
	chgo   proto.ColumnType
	bytes  int // wire bytes per vector
	blocks int // blocks of qbitBlockRows vectors per read
}

// qbitBlockRows is the vectors per block the fake server streams (4 MiB of Float32 planes).
const qbitBlockRows = 1024

var qbitSpecs = []qbitSpec{
	{elem: "Float32", shape: "qbitf32", typ: fakeserver.QBitF32, chgo: proto.ColumnTypeFloat32, bytes: 4 * fakeserver.QBitDim, blocks: 8},
	{elem: "BFloat16", shape: "qbitbf16", typ: fakeserver.QBitBF16, chgo: proto.ColumnTypeBFloat16, bytes: 2 * fakeserver.QBitDim, blocks: 8},
}

func (q qbitSpec) rows() int { return max(q.blocks*qbitBlockRows/scale, qbitBlockRows) }

func (q qbitSpec) table() string {
	return fmt.Sprintf("%s_%dx%d", q.shape, qbitBlockRows, q.rows()/qbitBlockRows)
}

// qbitVectors are the vectors the insert arms send (the same for every arm).
func qbitVectors(n int) [][]float32 {
	if raceEnabled {
		n = min(n, 64)
	}
	v := make([][]float32, n)
	for i := range v {
		v[i] = fakeserver.Vector(i)
	}
	return v
}

// BenchmarkQBit reads and inserts QBit(T, 1024) vectors against the fake server. A row is one
// vector: ns/row is ns per vector, and MB/s is wire bytes (the bit planes) per second.
//
// Read arms: chnative-blocks and ch-go decode only (both keep the bit planes as they arrive);
// chnative-vectors and ch-go-vectors also turn the planes back into element values (chnative
// detransposes each block in one call, Float32s or BFloat16s into a reused slice; ch-go has only
// Row(i), a new []float32 per vector); clickhouse-go scans every row into a *[]float32; raw only
// walks the bytes. Insert arms append every vector as a []float32
// and send one block.
func BenchmarkQBit(b *testing.B) {
	for _, q := range qbitSpecs {
		b.Run("read/fake/"+q.elem, func(b *testing.B) {
			for _, arm := range []string{"chnative-blocks", "chnative-vectors", "ch-go", "ch-go-vectors", "clickhouse-go", "raw"} {
				b.Run(arm, func(b *testing.B) { qbitRead(b, q, arm) })
			}
		})
		b.Run("insert/fake/"+q.elem, func(b *testing.B) {
			for _, arm := range []string{"chnative-columnar", "chnative-append", "ch-go", "clickhouse-go-append"} {
				b.Run(arm, func(b *testing.B) { qbitInsert(b, q, arm) })
			}
		})
	}
}

// qbitMBps reports the vectors' wire bytes per second of the timed loop (measure's warm-up op is
// outside b.Elapsed).
func qbitMBps(b *testing.B, q qbitSpec, rows int) {
	if ns := b.Elapsed().Nanoseconds(); ns > 0 && b.N > 0 {
		b.ReportMetric(float64(b.N)*float64(rows)*float64(q.bytes)/float64(ns)*1e3, "MB/s")
	}
}

func qbitRead(b *testing.B, q qbitSpec, arm string) {
	rows, query := q.rows(), "SELECT * FROM "+q.table()
	ctx := context.Background()
	check := func(n int) error {
		if n != rows {
			return fmt.Errorf("read %d vectors, want %d", n, rows)
		}
		return nil
	}
	switch arm {
	case "chnative-blocks", "chnative-vectors":
		db := openChnative(b, fakeAddr, "default", "", "none")
		conn, err := db.Conn(ctx)
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close()
		var f32 []float32
		var bf16 []uint16
		measure(b, rows, func() error {
			return conn.Raw(func(dc any) error {
				blocks, err := dc.(chnative.Conn).QueryBlocks(ctx, query)
				if err != nil {
					return err
				}
				defer blocks.Close()
				n := 0
				var s float32
				for blocks.Next() {
					c := blocks.Block().Column(0).(*columns.QBit)
					switch {
					case arm == "chnative-blocks":
						s += float32(len(c.Plane(0)))
					case q.elem == "BFloat16":
						bf16 = c.BFloat16s(bf16[:0])
						for i := 0; i < len(bf16); i += fakeserver.QBitDim {
							s += math.Float32frombits(uint32(bf16[i]) << 16)
						}
					default:
						f32 = c.Float32s(f32[:0])
						for i := 0; i < len(f32); i += fakeserver.QBitDim {
							s += f32[i]
						}
					}
					n += c.Rows()
				}
				sink.f += float64(s)
				if err := blocks.Err(); err != nil {
					return err
				}
				return check(n)
			})
		})
	case "ch-go", "ch-go-vectors":
		c := openChgo(b, fakeAddr, "default", "", "none")
		col, err := proto.NewColQBit(q.chgo, fakeserver.QBitDim)
		if err != nil {
			b.Fatal(err)
		}
		measure(b, rows, func() error {
			n := 0
			var s float32
			err := c.Do(ctx, ch.Query{Body: query, Result: proto.Results{{Name: "v", Data: col}},
				OnResult: func(ctx context.Context, blk proto.Block) error {
					if arm == "ch-go-vectors" {
						for i := range col.Rows() {
							s += col.Row(i)[0]
						}
					}
					n += col.Rows()
					return nil
				}})
			sink.f += float64(s)
			if err != nil {
				return err
			}
			return check(n)
		})
	case "clickhouse-go":
		c := openClickhouseGo(b, fakeAddr, "default", "", "none", 1)
		measure(b, rows, func() error {
			rs, err := c.Query(ctx, query)
			if err != nil {
				return err
			}
			defer rs.Close()
			n := 0
			var s float32
			var vec []float32
			for rs.Next() {
				if err := rs.Scan(&vec); err != nil {
					return err
				}
				s += vec[0]
				n++
			}
			sink.f += float64(s)
			if err := rs.Err(); err != nil {
				return err
			}
			return check(n)
		})
	case "raw":
		rawRead(b, fake(), readSpec{query: query, rows: rows, codec: "none"})
	}
	qbitMBps(b, q, rows)
}

func qbitInsert(b *testing.B, q qbitSpec, arm string) {
	vecs := qbitVectors(q.rows())
	table := q.shape + "_1x1"
	ctx := context.Background()
	switch arm {
	case "chnative-columnar", "chnative-append":
		db := openChnative(b, fakeAddr, "default", "", "none")
		conn, err := db.Conn(ctx)
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close()
		measure(b, len(vecs), func() error {
			return conn.Raw(func(dc any) error {
				bt, err := dc.(chnative.Conn).PrepareBatch(ctx, "INSERT INTO "+table+" (v)")
				if err != nil {
					return err
				}
				col := bt.Column(0).(*columns.QBit)
				for _, v := range vecs {
					if arm == "chnative-append" {
						err = bt.Append(v)
					} else {
						err = col.AppendFloat32(v)
					}
					if err != nil {
						bt.Abort()
						return err
					}
				}
				return bt.Send()
			})
		})
	case "ch-go":
		c := openChgo(b, fakeAddr, "default", "", "none")
		col, err := proto.NewColQBit(q.chgo, fakeserver.QBitDim)
		if err != nil {
			b.Fatal(err)
		}
		measure(b, len(vecs), func() error {
			col.Reset()
			for _, v := range vecs {
				if err := col.Append(v); err != nil {
					return err
				}
			}
			input := proto.Input{{Name: "v", Data: col}}
			return c.Do(ctx, ch.Query{Body: input.Into(table), Input: input})
		})
	case "clickhouse-go-append":
		c := openClickhouseGo(b, fakeAddr, "default", "", "none", 1)
		measure(b, len(vecs), func() error {
			bt, err := c.PrepareBatch(ctx, "INSERT INTO "+table+" (v)")
			if err != nil {
				return err
			}
			for _, v := range vecs {
				if err := bt.Append(v); err != nil {
					return err
				}
			}
			return bt.Send()
		})
	}
	qbitMBps(b, q, len(vecs))
}
