package chnative

import (
	"database/sql"
	"errors"
	"testing"
)

// Named placeholders in an INSERT's VALUES go to their columns by name, in a transaction's
// prepared batch and in a one-statement Exec; a missing or unused name is a BindError.
func TestInsertNamedPlaceholders(t *testing.T) {
	db := openDB(t)
	table := createTable(t, db, "stmtnamed", "a UInt32, b String")
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	st, err := tx.Prepare("INSERT INTO " + table + " (a, b) VALUES (@b, @a)")
	if err != nil {
		t.Fatal(err)
	}
	// Arguments in neither column order nor placeholder order.
	if _, err := st.Exec(sql.Named("a", "one"), sql.Named("b", 1)); err != nil {
		t.Fatal(err)
	}
	st2, err := tx.Prepare("INSERT INTO " + table + " (b, a) VALUES (@s1, @n1), (@s2, @n2)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st2.Exec(sql.Named("n2", 3), sql.Named("s1", "two"), sql.Named("s2", "three"), sql.Named("n1", 2)); err != nil {
		t.Fatal(err)
	}
	var be *BindError
	if _, err := st.Exec(sql.Named("a", "x")); !errors.As(err, &be) {
		t.Fatalf("missing @b: %v, want a *BindError", err)
	}
	if _, err := st.Exec(sql.Named("a", "x"), sql.Named("b", 9), sql.Named("c", 1)); !errors.As(err, &be) {
		t.Fatalf("unused @c: %v, want a *BindError", err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("INSERT INTO "+table+" (a, b) VALUES (@n, @s)", sql.Named("s", "four"), sql.Named("n", 4)); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query("SELECT a, b FROM " + table + " ORDER BY a")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var a uint32
		var b string
		if err := rows.Scan(&a, &b); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmtRow(a, b))
	}
	want := []string{"1 one", "2 two", "3 three", "4 four"}
	if len(got) != len(want) {
		t.Fatalf("rows %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("rows %q, want %q", got, want)
		}
	}
}
