package chnative

import (
	"context"
	"testing"
)

// INSERT ... SELECT does not wait for client data: the connection must stay in step after it.
func TestInsertSelectKeepsConnectionInStep(t *testing.T) {
	db := openDB(t)
	table := createTable(t, db, "inssel", "a UInt64, b String")
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, q := range []string{
		"INSERT INTO " + table + " (a, b) SELECT number, toString(number) FROM system.numbers LIMIT 10",
		"INSERT INTO " + table + " SELECT number, 'x' FROM system.numbers LIMIT 5",
		"INSERT INTO " + table + " WITH 1 AS one SELECT one, 'w'",
	} {
		if _, err := c.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var one int
		if err := c.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
			t.Fatalf("after %s: %d, %v", q, one, err)
		}
	}
	if n := count(t, db, table); n != 16 {
		t.Fatalf("%d rows, want 16", n)
	}
}
