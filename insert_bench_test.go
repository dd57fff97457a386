package chnative

import (
	"strconv"
	"testing"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/chconn"
	"github.com/chnative/chnative/nativeproto"
)

// benchInsertState is an insert with no connection: (UInt64, String, Float64) columns that never
// fill a block.
func benchInsertState() *chconn.Insert {
	b := nativeproto.NewBlock()
	b.Add("id", columns.NewFixed[uint64](""))
	b.Add("name", columns.NewString())
	b.Add("val", columns.NewFixed[float64](""))
	return chconn.NewDetachedInsert(b, 1<<62)
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
	ins := benchInsertState()
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
	ins := benchInsertState()
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
	ins := benchInsertState()
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
