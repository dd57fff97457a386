package chnative

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// Tests of how the arguments of an INSERT's VALUES list reach the columns (unit tests of the
// parser, then real-server tests on both servers), of a prepared INSERT ... SELECT, and of
// sql.Named arguments to QueryBlocks.

type abRow struct{ a, b string }

func readAB(t testing.TB, db *sql.DB, table string) []abRow {
	t.Helper()
	rows, err := db.Query("SELECT ifNull(a, 'NULL'), ifNull(b, 'NULL') FROM " + table + " ORDER BY a")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []abRow
	for rows.Next() {
		var r abRow
		if err := rows.Scan(&r.a, &r.b); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPreparedValuesNamedByName: a VALUES list of {name:Type} placeholders whose types hold
// parentheses and commas, with the named arguments in another order than the columns, inserts
// each argument into its placeholder's column, in a transaction (prepared batch) and through
// Exec. Before the fix the arguments were taken in order: a and b swapped silently.
func TestPreparedValuesNamedByName(t *testing.T) {
	db := openDB(t)
	table := createTable(t, db, "values_named", "a Nullable(String), b Nullable(String), c Array(UInt8)")
	q := "INSERT INTO " + table + " (a, b, c) VALUES ({a:Nullable(String)}, {b:Nullable(String)}, {c:Array(UInt8)})"
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	st, err := tx.Prepare(q)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Exec(sql.Named("b", "B1"), sql.Named("c", []uint8{1, 2}), sql.Named("a", "A1")); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Exec(sql.Named("c", []uint8{}), sql.Named("a", "A2"), sql.Named("b", nil)); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Exec(sql.Named("a", "A3"), sql.Named("b", "B3")); err == nil || !strings.Contains(err.Error(), "c") {
		t.Fatalf("Exec without the argument c: %v", err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(q, sql.Named("b", "B4"), sql.Named("a", "A4"), sql.Named("c", []uint8{4})); err != nil {
		t.Fatalf("Exec outside a transaction: %v", err)
	}
	got := fmt.Sprint(readAB(t, db, table))
	if want := "[{A1 B1} {A2 NULL} {A4 B4}]"; got != want {
		t.Fatalf("rows %s, want %s", got, want)
	}
	var sum uint64
	if err := db.QueryRow("SELECT sum(arraySum(c)) FROM " + table).Scan(&sum); err != nil || sum != 7 {
		t.Fatalf("sum of c: %d, %v", sum, err)
	}
}

// TestPreparedValuesRefusesLiterals: a prepared insert in a transaction takes every column from
// its arguments, so a VALUES list with a literal among the placeholders, or with two placeholder
// styles, fails at Prepare with a *BindError naming the value, and the connection goes on. (Exec
// outside a transaction binds such a list on the client and sends it as text: that works on
// both servers.)
func TestPreparedValuesRefusesLiterals(t *testing.T) {
	db := openDB(t)
	table := createTable(t, db, "values_literal", "a Nullable(String), b Nullable(String)")
	c := sqlConn(t, db)
	ctx := context.Background()
	for q, want := range map[string]string{
		"INSERT INTO " + table + " (a, b) VALUES (?, 'lit')": `"'lit'"`,
		"INSERT INTO " + table + " (a, b) VALUES (?, $1)":    "mixes placeholder styles",
		"INSERT INTO " + table + " (a, b) VALUES (@a, ?)":    "mixes placeholder styles",
	} {
		tx, err := c.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = tx.PrepareContext(ctx, q)
		var be *BindError
		if !errors.As(err, &be) || !strings.Contains(err.Error(), want) {
			t.Errorf("Prepare(%q): %v, want a *BindError with %s", q, err, want)
		}
		if err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
		selectOneOn(t, c)
	}
	if _, err := db.Exec("INSERT INTO "+table+" (a, b) VALUES (?, 'lit')", "x"); err != nil {
		t.Fatalf("Exec with a literal outside a transaction: %v", err)
	}
	if got := fmt.Sprint(readAB(t, db, table)); got != "[{x lit}]" {
		t.Fatalf("rows %s", got)
	}
}

// TestPreparedInsertSelect: tx.Prepare of INSERT ... SELECT with placeholders runs the
// statement on each Exec (server-side {name:Type} parameters on 26.7, CAST literals on 18.16;
// ? bound on the client) instead of opening a native insert, which the server refused.
func TestPreparedInsertSelect(t *testing.T) {
	db := openDB(t)
	table := createTable(t, db, "prep_insert_select", "a Nullable(String), b Nullable(String)")
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	st, err := tx.Prepare("INSERT INTO " + table + " SELECT {a:String}, {b:Nullable(String)}")
	if err != nil {
		t.Fatalf("Prepare INSERT ... SELECT {a:String}: %v", err)
	}
	if _, err := st.Exec(sql.Named("b", "one"), sql.Named("a", "1")); err != nil {
		t.Fatal(err)
	}
	st2, err := tx.Prepare("INSERT INTO " + table + " (a, b) SELECT ?, ?")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st2.Exec("2", "two"); err != nil {
		t.Fatal(err)
	}
	// VALUES after SELECT is a column (or the values() table function), not the data clause.
	st3, err := tx.Prepare("INSERT INTO " + table + " (a, b) SELECT values, ? FROM (SELECT '3' AS values)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st3.Exec("three"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(readAB(t, db, table)); got != "[{1 one} {2 two} {3 three}]" {
		t.Fatalf("rows %s", got)
	}
}

// TestQueryBlocksNamedArgs: sql.Named arguments of QueryBlocks (and of the helpers built on it)
// fill @name and {name:Type} placeholders, as QueryContext's do.
func TestQueryBlocksNamedArgs(t *testing.T) {
	db := openDB(t)
	c := sqlConn(t, db)
	ctx := context.Background()
	err := c.Raw(func(dc any) error {
		bs, err := dc.(Conn).QueryBlocks(ctx, "SELECT {a:String} AS a, @b AS b, ? AS c", sql.Named("a", "x"), sql.Named("b", "y"), "z")
		if err != nil {
			return err
		}
		defer bs.Close()
		if !bs.Next() {
			return fmt.Errorf("no block: %v", bs.Err())
		}
		b := bs.Block()
		if got := fmt.Sprintln(b.Column(0).Value(0), b.Column(1).Value(0), b.Column(2).Value(0)); got != "x y z\n" {
			return fmt.Errorf("row %s", got)
		}
		return bs.Close()
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := StreamRows(ctx, db, "SELECT {n:UInt8} + 1", []any{sql.Named("n", 41)}, func(row []any) error {
		got = append(got, fmt.Sprint(row...))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[42]" {
		t.Fatalf("StreamRows: %v", got)
	}
}
