package chnative

import (
	"context"
	"database/sql"
	"testing"
	"time"
)

type structRow struct {
	ID    uint64    `ch:"id"`
	Name  string    `db:"name"`
	Value float64   // matched by name
	TS    time.Time `ch:"ts"`
	Note  *string   `ch:"note"`
	Tags  []uint32  `ch:"tags"`
	Kind  string    `ch:"kind"`
	Skip  int       `ch:"-"`
}

func TestSelectStructs(t *testing.T) {
	db := openDB(t)
	table := createTable(t, db, "structs", roundTripColumns)
	const n = 25_000
	insertPrepared(t, db, table, n)
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var got []structRow
	err = c.Raw(func(dc any) error {
		var err error
		got, err = Select[structRow](ctx, dc.(Conn), "SELECT id, name, value, ts, note, tags, kind FROM "+table+" ORDER BY id")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("%d rows, want %d", len(got), n)
	}
	for i, r := range got {
		compareRow(t, "structs", i, rtRow{id: r.ID, name: r.Name, value: r.Value, ts: r.TS, note: r.Note, tags: r.Tags, kind: r.Kind})
	}
	// A column with no field is an error naming it.
	err = c.Raw(func(dc any) error {
		_, err := Select[structRow](ctx, dc.(Conn), "SELECT 1 AS nope")
		return err
	})
	if err == nil {
		t.Fatal("no error for a column without a field")
	}
	// The connection is still usable.
	var one int
	if err := c.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		t.Fatal(err)
	}
	_ = sql.ErrNoRows
}
