package chnative

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/chnative/chnative/nativeproto"
)

func TestInsertRowsAndStream(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	table := createTable(t, db, "helpers", "id UInt64, name String, v Nullable(Float64)")
	rows := [][]any{{1, "a", 1.5}, {2, "b", nil}, {3, "c", 3.5}}
	if err := InsertRows(ctx, db, "INSERT INTO "+table+" (id, name, v)", rows); err != nil {
		t.Fatal(err)
	}
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := InsertRows(WithBlockSize(ctx, 1), c, "INSERT INTO "+table+" (id, name, v) VALUES (?, ?, ?)", [][]any{{4, "d", 4.5}, {5, "e", 5}}); err != nil {
		t.Fatal(err)
	}
	// A bad row fails the call and sends nothing that was buffered.
	err = InsertRows(ctx, db, "INSERT INTO "+table+" (id, name, v)", [][]any{{6, "f", 1.0}, {"not a number", "g", 1.0}})
	var ce *ColumnError
	if !errors.As(err, &ce) || ce.Column != "id" {
		t.Fatalf("want a ColumnError for id, got %v", err)
	}
	if n := count(t, db, table); n != 5 {
		t.Fatalf("%d rows, want 5", n)
	}

	var sum uint64
	blocks := 0
	err = StreamBlocks(WithBlockSize(ctx, 2), db, "SELECT id FROM "+table+" WHERE id > ?", []any{0}, func(b *nativeproto.Block) error {
		blocks++
		for i := 0; i < b.Rows(); i++ {
			sum += b.Column(0).Value(i).(uint64)
		}
		return nil
	})
	if err != nil || sum != 15 || blocks == 0 {
		t.Fatalf("sum %d in %d blocks, %v", sum, blocks, err)
	}
	var names []string
	var nulls int
	err = StreamRows(ctx, c, "SELECT name, v FROM "+table+" ORDER BY id", nil, func(row []any) error {
		names = append(names, row[0].(string))
		if row[1] == nil {
			nulls++
		}
		return nil
	})
	if err != nil || len(names) != 5 || names[4] != "e" || nulls != 1 {
		t.Fatalf("%v %d %v", names, nulls, err)
	}
	// An error from the callback stops the query; the connection stays usable.
	stop := errors.New("stop")
	err = StreamRows(ctx, c, "SELECT number FROM (SELECT number FROM system.numbers LIMIT 1000000)", nil, func([]any) error { return stop })
	if !errors.Is(err, stop) {
		t.Fatal(err)
	}
	var one int
	if err := c.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatal(one, err)
	}
}

// Statements migration tools send: INSERT ... SELECT, INSERT with literal VALUES (rewritten as
// INSERT ... SELECT on servers that ignore data in the query text) and VALUES ($1, $2) (goose).
func TestInsertStatementsOfMigrationTools(t *testing.T) {
	db := openDB(t)
	db.SetMaxOpenConns(1) // every statement on one connection: a desync shows at once
	table := createTable(t, db, "migstmts", "x UInt16, d Date, s Nullable(String), a Array(UInt8)")
	for range 2 {
		mustExec(t, db, "INSERT INTO "+table+" (x) SELECT 1")
		mustExec(t, db, "INSERT INTO "+table+" VALUES (300, '2020-01-02', NULL, [1, 2]), (2, '2020-01-03', 'it''s (a) \\' [x]', []);")
		mustExec(t, db, "INSERT INTO "+table+" (s, x) VALUES ($2, $1)", 3, "three")
		mustExec(t, db, "INSERT INTO "+table+" (x, s) VALUES ($1, $2), ($3, $2)", 4, "four", 5)
	}
	if n := count(t, db, table); n != 12 {
		t.Fatalf("%d rows", n)
	}
	var s string
	var d time.Time
	if err := db.QueryRow("SELECT s, d FROM "+table+" WHERE x = 2 LIMIT 1").Scan(&s, &d); err != nil || s != `it's (a) ' [x]` || d.Format("2006-01-02") != "2020-01-03" {
		t.Fatal(s, d, err)
	}
	if err := db.QueryRow("SELECT s FROM " + table + " WHERE x = 3 LIMIT 1").Scan(&s); err != nil || s != "three" {
		t.Fatal(s, err)
	}
	var sum uint64
	if err := db.QueryRow("SELECT sum(x) FROM " + table + " WHERE s = 'four'").Scan(&sum); err != nil || sum != 18 {
		t.Fatal(sum, err)
	}
}
