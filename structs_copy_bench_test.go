package chnative

import (
	"reflect"
	"testing"

	"github.com/chnative/chnative/internal/structmap"
	"github.com/chnative/chnative/nativeproto"
)

// benchCopy measures copying blk into []T, the struct tier's own work without the connection.
func benchCopy[T any](b *testing.B, blk *nativeproto.Block) {
	plan, err := structmap.PlanRead(reflect.TypeFor[T](), blk)
	if err != nil {
		b.Fatal(err)
	}
	n := blk.Rows()
	dst := make([]T, n)
	for b.Loop() {
		clear(dst)
		if err := structmap.CopyBlock(plan, blk, dst); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/row")
}
