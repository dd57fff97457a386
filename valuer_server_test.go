package chnative

import (
	"database/sql"
	"testing"

	"github.com/chnative/chnative/columns"
)

// A sql.Null[columns.Decimal] argument binds and inserts as its Decimal (NULL when not Valid):
// columns.Decimal is a driver.Valuer, so sql.Null's own Value converts it to its exact text.
func TestNullDecimalArgument(t *testing.T) {
	db := openDB(t)
	d, err := columns.ParseDecimal("12.5", 2)
	if err != nil {
		t.Fatal(err)
	}
	valid, null := sql.Null[columns.Decimal]{V: d, Valid: true}, sql.Null[columns.Decimal]{}
	var eq uint8
	if err := db.QueryRow("SELECT toDecimal32(?, 2) = toDecimal32('12.5', 2)", valid).Scan(&eq); err != nil || eq != 1 {
		t.Fatalf("bound: equal %d, %v", eq, err)
	}
	var isNull uint8
	if err := db.QueryRow("SELECT isNull(?)", null).Scan(&isNull); err != nil || isNull != 1 {
		t.Fatalf("bound NULL: %d, %v", isNull, err)
	}
	table := createTable(t, db, "null_decimal", "d Nullable(Decimal(9, 2))")
	for _, v := range []any{valid, null} {
		if _, err := db.Exec("INSERT INTO "+table+" (d)", v); err != nil { // the native insert
			t.Fatal(err)
		}
		if _, err := db.Exec("INSERT INTO "+table+" VALUES (?)", v); err != nil { // VALUES tuples
			t.Fatal(err)
		}
	}
	var n, nulls int
	if err := db.QueryRow("SELECT countIf(d = toDecimal32('12.5', 2)), countIf(isNull(d)) FROM "+table).Scan(&n, &nulls); err != nil || n != 2 || nulls != 2 {
		t.Fatalf("%d rows of 12.50 and %d NULLs, want 2 and 2 (%v)", n, nulls, err)
	}
}
