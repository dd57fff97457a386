package chnative

import (
	"context"
	"strings"
	"testing"
)

// TestStructsFromSQLDB: Select, ScanStructs and InsertStructs take a *sql.DB (one connection for
// the call) or a *sql.Conn as well as a Conn; anything else is an error naming its type.
func TestStructsFromSQLDB(t *testing.T) {
	type row struct {
		ID   uint64 `ch:"id"`
		Name string `ch:"name"`
	}
	db := openDB(t)
	ctx := context.Background()
	table := createTable(t, db, "structs_sqldb", "id UInt64, name String")
	rows := []row{{1, "a"}, {2, "b"}, {3, "c"}}
	if err := InsertStructs(ctx, db, "INSERT INTO "+table, rows); err != nil {
		t.Fatal(err)
	}
	q := "SELECT id, name FROM " + table + " ORDER BY id"
	got, err := Select[row](ctx, db, q)
	if err != nil || len(got) != 3 || got[2] != rows[2] {
		t.Fatalf("Select from *sql.DB: %v, %v", got, err)
	}
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := InsertStructs(ctx, c, "INSERT INTO "+table, rows[:1]); err != nil {
		t.Fatal(err)
	}
	n := 0
	err = ScanStructs(ctx, c, q, nil, func(rs []row) error { n += len(rs); return nil })
	if err != nil || n != 4 {
		t.Fatalf("ScanStructs from *sql.Conn: %d rows, %v", n, err)
	}
	if _, err := Select[row](ctx, "not a connection", q); err == nil || !strings.Contains(err.Error(), "not string") {
		t.Fatalf("Select from a string: %v", err)
	}
	// The pool's connection went back in step.
	if got := count(t, db, table); got != 4 {
		t.Fatalf("count %d", got)
	}
}
