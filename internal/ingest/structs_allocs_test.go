//go:build !purego

package ingest

import (
	"context"
	"testing"
	"time"

	"github.com/chnative/chnative/nativeproto"
)

type allocEvent struct {
	ID      uint64    `ch:"id"`
	TS      time.Time `ch:"ts"`
	Kind    string    `ch:"kind"`
	Payload string    `ch:"payload"`
	Value   float64   `ch:"value"`
}

// AppendStruct of a reused struct allocates nothing: it reads the struct in place (no copy in a
// new slice), finds its plan by type in the lane (no sync.Map), and every column of the issue's
// event takes its field without boxing (DateTime64 from time.Time, LowCardinality from string).
func TestAppendStructAllocs(t *testing.T) {
	e, err := New([]string{"id", "ts", "kind", "payload", "value"},
		[]string{"UInt64", "DateTime64(3)", "LowCardinality(String)", "String", "Float64"},
		Config{MaxRows: 1 << 20, MaxBytes: 1 << 40, MaxDelay: time.Hour, Lanes: 1},
		func(context.Context, int, *nativeproto.Block, string) error { return nil }, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	ctx := context.Background()
	ev := allocEvent{TS: time.Unix(1_700_000_000, 0), Kind: "click", Payload: "payload"}
	if err := e.AppendStruct(ctx, &ev); err != nil { // plans, makes the block, starts its timer
		t.Fatal(err)
	}
	for range 3000 { // the columns' growth amortised: AllocsPerRun rounds down
		if err := e.AppendStruct(ctx, &ev); err != nil {
			t.Fatal(err)
		}
	}
	allocs := testing.AllocsPerRun(1000, func() {
		ev.ID++
		ev.Value += 0.5
		if err := e.AppendStruct(ctx, &ev); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("AppendStruct: %v allocations a row, want 0", allocs)
	}
	if got := e.Stats().AppendedRows; got != 3001+1001 {
		t.Errorf("%d rows appended, want %d", got, 3001+1001)
	}
}
