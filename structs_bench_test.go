package chnative

import (
	"context"
	"database/sql"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/nativeproto"
)

// benchStructRow is the struct the struct-tier read benchmarks fill: the fast paths of fixed
// numbers, strings, Nullable, Array, LowCardinality and DateTime.
type benchStructRow struct {
	ID   uint64    `ch:"id"`
	Name string    `ch:"name"`
	Val  float64   `ch:"val"`
	Opt  *int64    `ch:"opt"`
	Tags []uint32  `ch:"tags"`
	Kind string    `ch:"kind"`
	TS   time.Time `ch:"ts"`
}

const (
	benchStructBlocks = 4
	benchStructRows   = 16384 // per block
)

// benchStructBlock is one block of benchStructRows rows of benchStructRow's columns.
func benchStructBlock(tb testing.TB, rows int) *nativeproto.Block {
	b := nativeproto.NewBlock()
	for _, c := range []struct{ name, typ string }{
		{"id", "UInt64"}, {"name", "String"}, {"val", "Float64"}, {"opt", "Nullable(Int64)"},
		{"tags", "Array(UInt32)"}, {"kind", "LowCardinality(String)"}, {"ts", "DateTime"},
	} {
		col, err := columns.New(c.typ)
		if err != nil {
			tb.Fatal(err)
		}
		for i := range rows {
			var v any
			switch c.name {
			case "id":
				v = uint64(i)
			case "name":
				v = benchNames[i&4095]
			case "val":
				v = float64(i) * 0.25
			case "opt":
				if i%3 != 0 {
					v = int64(i)
				}
			case "tags":
				v = []uint32{uint32(i), uint32(i + 1)}[:i%3]
			case "kind":
				v = "kind-" + strconv.Itoa(i%7)
			case "ts":
				v = time.Unix(int64(1_700_000_000+i), 0)
			}
			if err := col.AppendValue(v); err != nil {
				tb.Fatal(err)
			}
		}
		b.Add(c.name, col)
	}
	return b
}

// benchStructConn is a connection to a fake server that answers every query with
// benchStructBlocks blocks of benchStructRow's columns.
func benchStructConn(b *testing.B) *sql.Conn {
	header, data := benchStructBlock(b, 0), benchStructBlock(b, benchStructRows)
	var mu sync.Mutex
	answers := map[[2]any][]byte{}
	srv := fakeModern(b, fakeHello, serveQueries(func(c *fakeConn, q *nativeproto.Query) []byte {
		mu.Lock()
		defer mu.Unlock()
		k := [2]any{c.rev, c.comp}
		if a, ok := answers[k]; ok {
			return a
		}
		a := c.data(header)
		for range benchStructBlocks {
			a = append(a, c.data(data)...)
		}
		a = join(a, c.endOfData(), eos())
		answers[k] = a
		return a
	}))
	_, c := connAt(b, srv.Addr())
	return c
}

// BenchmarkSelectStructs measures Select of benchStructBlocks blocks from a fake server.
func BenchmarkSelectStructs(b *testing.B) {
	c := benchStructConn(b)
	ctx := context.Background()
	for b.Loop() {
		err := c.Raw(func(dc any) error {
			rows, err := Select[benchStructRow](ctx, dc.(Conn), "SELECT")
			if err == nil && len(rows) != benchStructBlocks*benchStructRows {
				b.Fatalf("%d rows", len(rows))
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(benchStructBlocks*benchStructRows), "ns/row")
}

// BenchmarkScanStructs measures ScanStructs of benchStructBlocks blocks from a fake server.
func BenchmarkScanStructs(b *testing.B) {
	c := benchStructConn(b)
	ctx := context.Background()
	for b.Loop() {
		n := 0
		err := c.Raw(func(dc any) error {
			return ScanStructs(ctx, dc.(Conn), "SELECT", nil, func(rows []benchStructRow) error {
				n += len(rows)
				return nil
			})
		})
		if err != nil {
			b.Fatal(err)
		}
		if n != benchStructBlocks*benchStructRows {
			b.Fatalf("%d rows", n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(benchStructBlocks*benchStructRows), "ns/row")
}

// BenchmarkCopyStructs measures copying one block of benchStructRow's columns into structs.
func BenchmarkCopyStructs(b *testing.B) {
	benchCopy[benchStructRow](b, benchStructBlock(b, benchStructRows))
}

// BenchmarkCopyStructsNumbers measures copying a block of three number columns into structs.
func BenchmarkCopyStructsNumbers(b *testing.B) {
	type row struct {
		ID  uint64  `ch:"id"`
		Val float64 `ch:"val"`
		N   int32   `ch:"n"`
	}
	blk := nativeproto.NewBlock()
	id, val, n := columns.NewFixed[uint64]("UInt64"), columns.NewFixed[float64]("Float64"), columns.NewFixed[int32]("Int32")
	for i := range benchStructRows {
		id.Append(uint64(i))
		val.Append(float64(i))
		n.Append(int32(i))
	}
	blk.Add("id", id)
	blk.Add("val", val)
	blk.Add("n", n)
	benchCopy[row](b, blk)
}
