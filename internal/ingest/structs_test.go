package ingest

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/chnative/chnative/internal/chconn"
)

type idRow struct {
	ID uint64 `ch:"id"`
	S  any    `ch:"s"` // through AppendValue: a value that does not convert fails its row
}

// AppendStructs appends every element once, in blocks of MaxRows (as appends one by one would
// seal them); a field that does not convert fails the call at its element, the elements
// before it staying appended, and AppendStruct appends one row from a pointer.
func TestAppendStructs(t *testing.T) {
	f := newSink()
	e := start(t, Config{MaxRows: 100}, f)
	ctx := context.Background()
	rows := make([]idRow, 250)
	for i := range rows {
		rows[i] = idRow{ID: uint64(i), S: "x"}
	}
	if err := e.AppendStructs(ctx, rows); err != nil {
		t.Fatal(err)
	}
	bad := []idRow{{ID: 250, S: "y"}, {ID: 251, S: "y"}, {ID: 252, S: 1.5}, {ID: 253, S: "y"}}
	err := e.AppendStructs(ctx, bad)
	var ce *chconn.ColumnError
	if !errors.As(err, &ce) || ce.Row != 2 || ce.Column != "s" {
		t.Fatalf("a float in a String field: %v, want a ColumnError of column s, row 2", err)
	}
	if err := e.AppendStruct(ctx, &idRow{ID: 252, S: "z"}); err != nil {
		t.Fatal(err)
	}
	if err := e.AppendStructs(ctx, 5); err == nil {
		t.Error("AppendStructs of an int: no error")
	}
	if err := e.AppendStruct(ctx, idRow{}); err == nil {
		t.Error("AppendStruct of a struct, not a pointer: no error")
	}
	if err := e.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	want := make([]uint64, 253)
	for i := range want {
		want[i] = uint64(i)
	}
	if got := f.ids(); !slices.Equal(got, want) {
		t.Errorf("ids sent: %d of them, want 0..252 once each: %v", len(got), got)
	}
	if st := e.Stats(); st.Blocks != 3 || st.AppendedRows != 253 {
		t.Errorf("%d blocks, %d rows appended; want 3 blocks (100, 100, 53 rows), 253 rows", st.Blocks, st.AppendedRows)
	}
}
