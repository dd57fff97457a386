package chnative

import (
	"fmt"
	"testing"
)

// A prepared insert maps $N and multi-tuple placeholders to the right columns and rows.
func TestPreparedInsertPlaceholderOrder(t *testing.T) {
	db := openDB(t)
	table := createTable(t, db, "stmtorder", "a UInt32, b String")
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	st, err := tx.Prepare("INSERT INTO " + table + " (a, b) VALUES ($2, $1)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Exec("one", 1); err != nil {
		t.Fatal(err)
	}
	st2, err := tx.Prepare("INSERT INTO " + table + " (a, b) VALUES (?, ?), (?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st2.Exec(2, "two", 3, "three"); err != nil {
		t.Fatal(err)
	}
	// A bad value in the second tuple fails the whole Exec.
	if _, err := st2.Exec(4, "four", "bad", "x"); err == nil {
		t.Fatal("no error for a string in a UInt32 column")
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query("SELECT a, b FROM " + table + " ORDER BY a")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	want := []string{"1 one", "2 two", "3 three"}
	var got []string
	for rows.Next() {
		var a uint32
		var b string
		if err := rows.Scan(&a, &b); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmtRow(a, b))
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

func fmtRow(a uint32, b string) string { return fmt.Sprint(a, " ", b) }

// A prepared insert whose insert another statement finished (the next statement on the
// connection sends it) starts a new one at its next Exec: no row is refused or lost.
func TestPreparedInsertReopensAfterAnotherStatement(t *testing.T) {
	db := openDB(t)
	table := createTable(t, db, "stmtreopen", "a UInt32")
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	st, err := tx.Prepare("INSERT INTO " + table + " (a) VALUES (?)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Exec(1); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("SELECT 1"); err != nil { // finishes st's insert: row 1 is sent
		t.Fatal(err)
	}
	if _, err := st.Exec(2); err != nil {
		t.Fatalf("Exec after another statement: %v", err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var n, sum uint64
	if err := db.QueryRow("SELECT count(), sum(a) FROM "+table).Scan(&n, &sum); err != nil {
		t.Fatal(err)
	}
	if n != 2 || sum != 3 {
		t.Fatalf("%d rows summing to %d, want 2 rows summing to 3", n, sum)
	}
}
