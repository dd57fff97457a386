package ingest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/chnative/chnative/nativeproto"
)

// BenchmarkAppendRow is the engine's cost per row from 1 and 16 goroutines (the send is a no-op:
// the appends alone, lock included).
func BenchmarkAppendRow(b *testing.B) {
	for _, g := range []int{1, 16} {
		b.Run(map[int]string{1: "1", 16: "16"}[g], func(b *testing.B) {
			e, err := New([]string{"id", "ts", "s"}, []string{"UInt64", "DateTime64(3)", "String"},
				Config{MaxRows: 100_000}, func(context.Context, int, *nativeproto.Block, string) error { return nil }, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close(context.Background())
			ctx := context.Background()
			ts := time.Unix(1, 0)
			per := b.N/g + 1
			b.ResetTimer()
			var wg sync.WaitGroup
			for range g {
				wg.Go(func() {
					for i := range per {
						if err := e.AppendRow(ctx, []any{uint64(i), ts, "payload"}); err != nil {
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

// BenchmarkAppendStruct is BenchmarkAppendRow through AppendStruct of a struct each goroutine
// reuses.
func BenchmarkAppendStruct(b *testing.B) {
	type row struct {
		ID uint64    `ch:"id"`
		TS time.Time `ch:"ts"`
		S  string    `ch:"s"`
	}
	for _, g := range []int{1, 16} {
		b.Run(map[int]string{1: "1", 16: "16"}[g], func(b *testing.B) {
			e, err := New([]string{"id", "ts", "s"}, []string{"UInt64", "DateTime64(3)", "String"},
				Config{MaxRows: 100_000}, func(context.Context, int, *nativeproto.Block, string) error { return nil }, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close(context.Background())
			ctx := context.Background()
			per := b.N/g + 1
			b.ResetTimer()
			var wg sync.WaitGroup
			for range g {
				wg.Go(func() {
					r := row{TS: time.Unix(1, 0), S: "payload"}
					for i := range per {
						r.ID = uint64(i)
						if err := e.AppendStruct(ctx, &r); err != nil {
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

// BenchmarkAppendStructs is BenchmarkAppendStruct/1 with the rows handed over 100 at a time.
func BenchmarkAppendStructs(b *testing.B) {
	type row struct {
		ID uint64    `ch:"id"`
		TS time.Time `ch:"ts"`
		S  string    `ch:"s"`
	}
	e, err := New([]string{"id", "ts", "s"}, []string{"UInt64", "DateTime64(3)", "String"},
		Config{MaxRows: 100_000}, func(context.Context, int, *nativeproto.Block, string) error { return nil }, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close(context.Background())
	ctx := context.Background()
	rows := make([]row, 100)
	for i := range rows {
		rows[i] = row{ID: uint64(i), TS: time.Unix(1, 0), S: "payload"}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i += len(rows) {
		if err := e.AppendStructs(ctx, rows); err != nil {
			b.Fatal(err)
		}
	}
}
