package ingest

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/chnative/chnative/nativeproto"
)

// benchRow is the benchmarks' struct of the (id, ts, s) columns benchEngine takes.
type benchRow struct {
	ID uint64    `ch:"id"`
	TS time.Time `ch:"ts"`
	S  string    `ch:"s"`
}

// benchEngine is an engine of (id UInt64, ts DateTime64(3), s String) whose send is a no-op:
// the appends alone, lock included, are measured. It is closed when b ends.
func benchEngine(b *testing.B) *Engine {
	e, err := New([]string{"id", "ts", "s"}, []string{"UInt64", "DateTime64(3)", "String"},
		Config{MaxRows: 100_000}, func(context.Context, int, *nativeproto.Block, string) error { return nil }, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close(context.Background()) })
	return e
}

// inParallel runs appends from 1 and from 16 goroutines (sub-benchmarks "1" and "16"), each
// b.N/g+1 of them; appendOne(e) gives a goroutine its append of call number i.
func inParallel(b *testing.B, appendOne func(e *Engine) func(i int) error) {
	for _, g := range []int{1, 16} {
		b.Run(strconv.Itoa(g), func(b *testing.B) {
			e := benchEngine(b)
			per := b.N/g + 1
			b.ResetTimer()
			var wg sync.WaitGroup
			for range g {
				wg.Go(func() {
					one := appendOne(e)
					for i := range per {
						if err := one(i); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
		})
	}
}

// BenchmarkAppendRow is the engine's cost per row from 1 and 16 goroutines.
func BenchmarkAppendRow(b *testing.B) {
	ctx, ts := context.Background(), time.Unix(1, 0)
	inParallel(b, func(e *Engine) func(int) error {
		return func(i int) error { return e.AppendRow(ctx, []any{uint64(i), ts, "payload"}) }
	})
}

// BenchmarkAppendStruct is BenchmarkAppendRow through AppendStruct of a struct each goroutine
// reuses.
func BenchmarkAppendStruct(b *testing.B) {
	ctx := context.Background()
	inParallel(b, func(e *Engine) func(int) error {
		r := benchRow{TS: time.Unix(1, 0), S: "payload"}
		return func(i int) error {
			r.ID = uint64(i)
			return e.AppendStruct(ctx, &r)
		}
	})
}

// BenchmarkAppendStructs is BenchmarkAppendStruct/1 with the rows handed over 100 at a time.
func BenchmarkAppendStructs(b *testing.B) {
	e := benchEngine(b)
	ctx := context.Background()
	rows := make([]benchRow, 100)
	for i := range rows {
		rows[i] = benchRow{ID: uint64(i), TS: time.Unix(1, 0), S: "payload"}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i += len(rows) {
		if err := e.AppendStructs(ctx, rows); err != nil {
			b.Fatal(err)
		}
	}
}
