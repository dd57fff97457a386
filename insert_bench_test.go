package chnative

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/chnative/chnative/dsn"
	"github.com/chnative/chnative/internal/chconn"
	"github.com/chnative/chnative/internal/faketest"
)

// benchInsertState opens an insert into (UInt64, String, Float64) columns on a fake server that
// answers with the table header and then only reads; rows and bytes per block are set so high
// that the benchmarks' appends never send.
func benchInsertState(b *testing.B) *chconn.Insert {
	b.Helper()
	hdr, err := faketest.EmptyBlock([2]string{"id", "UInt64"}, [2]string{"name", "String"}, [2]string{"val", "Float64"})
	if err != nil {
		b.Fatal(err)
	}
	script, err := faketest.HeaderPacket(nil, faketest.Revision, false, hdr)
	if err != nil {
		b.Fatal(err)
	}
	srv, err := faketest.NewServer(func(s *faketest.Session) {
		if s.Handshake() != nil {
			return
		}
		if _, err := s.ReadQuery(); err != nil {
			return
		}
		if s.Write(script) != nil {
			return
		}
		s.Drain(time.Hour)
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close() })
	cfg, err := dsn.Parse("clickhouse://default@" + srv.Addr() + "/default?insert_block_rows=2000000000&insert_block_bytes=0")
	if err != nil {
		b.Fatal(err)
	}
	c, err := chconn.Dial(context.Background(), cfg, srv.Addr(), chconn.Dialer{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	ins, err := c.OpenInsert(context.Background(), "INSERT INTO t (id, name, val) VALUES", nil, true)
	if err != nil {
		b.Fatal(err)
	}
	return ins
}

var benchNames = func() []string {
	s := make([]string, 4096)
	for i := range s {
		s[i] = "name-" + strconv.Itoa(i*7919)
	}
	return s
}()

// BenchmarkInsertAppendRow measures Batch.Append's own cost per row (the caller boxes the values).
func BenchmarkInsertAppendRow(b *testing.B) {
	ins := benchInsertState(b)
	bt := &Batch{ins: ins}
	i := 0
	for b.Loop() {
		if err := bt.Append(uint64(i)+1000, benchNames[i&4095], float64(i)*0.25); err != nil {
			b.Fatal(err)
		}
		i++
		if i&(1<<16-1) == 0 {
			for c := range 3 {
				ins.Block().Column(c).Reset()
			}
		}
	}
}

// BenchmarkInsertStructs measures AppendStructs per row.
func BenchmarkInsertStructs(b *testing.B) {
	type row struct {
		ID   uint64 `ch:"id"`
		Name string
		Val  float64
	}
	rows := make([]row, 1<<16)
	for i := range rows {
		rows[i] = row{uint64(i), benchNames[i&4095], float64(i)}
	}
	ins := benchInsertState(b)
	bt := &Batch{ins: ins}
	for b.Loop() {
		if err := AppendStructs(bt, rows); err != nil {
			b.Fatal(err)
		}
		for c := range 3 {
			ins.Block().Column(c).Reset()
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(rows)), "ns/row")
}

// BenchmarkInsertAppendBoxedRow measures Batch.Append of rows whose values are already boxed: the
// driver's own cost per row, without the caller's boxing.
func BenchmarkInsertAppendBoxedRow(b *testing.B) {
	rows := make([][]any, 1<<12)
	for i := range rows {
		rows[i] = []any{uint64(i) + 1000, benchNames[i&4095], float64(i) * 0.25}
	}
	ins := benchInsertState(b)
	bt := &Batch{ins: ins}
	i := 0
	for b.Loop() {
		if err := bt.Append(rows[i&(1<<12-1)]...); err != nil {
			b.Fatal(err)
		}
		i++
		if i&(1<<16-1) == 0 {
			for c := range 3 {
				ins.Block().Column(c).Reset()
			}
		}
	}
}
