package chnative

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/testenv"
	"github.com/chnative/chnative/nativeproto"
)

// SimpleAggregateFunction(f, T) holds T's values: nullability, precision and scale are T's.
// (Built from the type name here; TestColumnTypeSimpleAggregateFunctionServer reads it from 26.7.)
func TestColumnTypeThroughSimpleAggregateFunction(t *testing.T) {
	for _, tc := range []struct {
		typ          string
		nullable     bool
		prec, scale  int64
		hasPrecScale bool
	}{
		{"SimpleAggregateFunction(any, Nullable(String))", true, 0, 0, false},
		{"SimpleAggregateFunction(sum, UInt64)", false, 0, 0, false},
		{"SimpleAggregateFunction(any, LowCardinality(Nullable(String)))", true, 0, 0, false},
		{"SimpleAggregateFunction(max, Nullable(Decimal(18, 4)))", true, 18, 4, true},
		{"SimpleAggregateFunction(sum, Decimal(38, 10))", false, 38, 10, true},
	} {
		c, err := columns.New(tc.typ)
		if err != nil {
			t.Fatalf("%s: %v", tc.typ, err)
		}
		// The rows of a result with one such column (the type name, and a block holding the column).
		b := nativeproto.NewBlock()
		b.Add("c", c)
		r := &rows{block: b}
		if got, ok := r.ColumnTypeNullable(0); got != tc.nullable || !ok {
			t.Errorf("%s: nullable %v (%v), want %v", tc.typ, got, ok, tc.nullable)
		}
		p, s, ok := r.ColumnTypePrecisionScale(0)
		if ok != tc.hasPrecScale || p != tc.prec || s != tc.scale {
			t.Errorf("%s: precision/scale %d, %d, %v; want %d, %d, %v", tc.typ, p, s, ok, tc.prec, tc.scale, tc.hasPrecScale)
		}
	}
}

// The same through the server: 26.7 has SimpleAggregateFunction and sends it as the type name
// of a result's column; 18.16 does not know the type and refuses the table.
func TestColumnTypeSimpleAggregateFunctionServer(t *testing.T) {
	server := testenv.Server(t)
	db := openDB(t)
	name := tableName("saf")
	_, err := db.Exec("CREATE TABLE " + name + " (k UInt8, s SimpleAggregateFunction(any, Nullable(String))," +
		" d SimpleAggregateFunction(max, Nullable(Decimal(18, 4))), n SimpleAggregateFunction(sum, UInt64))" +
		" ENGINE = AggregatingMergeTree ORDER BY k")
	if server == testenv.Legacy {
		if err == nil || !strings.Contains(err.Error(), "SimpleAggregateFunction") {
			t.Fatalf("%v: CREATE TABLE with SimpleAggregateFunction: %v, want an error naming the type", server, err)
		}
		return
	}
	if err != nil {
		t.Fatalf("%v: %v", server, err)
	}
	t.Cleanup(func() { _, _ = db.Exec("DROP TABLE IF EXISTS " + name) })
	mustExec(t, db, "INSERT INTO "+name+" VALUES (1, NULL, 1.5, 2), (1, 'x', 2.25, 3)")
	rows, err := db.Query("SELECT s, d, n FROM " + name + " FINAL")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct {
		typ         string
		nullable    bool
		prec, scale int64
		hasPS       bool
	}{
		{"SimpleAggregateFunction(any, Nullable(String))", true, 0, 0, false},
		{"SimpleAggregateFunction(max, Nullable(Decimal(18, 4)))", true, 18, 4, true},
		{"SimpleAggregateFunction(sum, UInt64)", false, 0, 0, false},
	} {
		ct := cts[i]
		nullable, ok := ct.Nullable()
		p, s, psOK := ct.DecimalSize()
		if ct.DatabaseTypeName() != want.typ || !ok || nullable != want.nullable || psOK != want.hasPS || p != want.prec || s != want.scale {
			t.Errorf("column %s: type %q nullable %v (%v) decimal %d, %d (%v); want %+v",
				ct.Name(), ct.DatabaseTypeName(), nullable, ok, p, s, psOK, want)
		}
	}
	if !rows.Next() {
		t.Fatalf("no row: %v", rows.Err())
	}
	var sv sql.NullString
	var d string
	var n uint64
	if err := rows.Scan(&sv, &d, &n); err != nil {
		t.Fatal(err)
	}
	// any() keeps a value of the merged rows (either), max() the largest, sum() the sum. The
	// Decimal's text has no trailing zeros, as clickhouse-go's.
	if d != "2.25" || n != 5 {
		t.Fatalf("merged row: s %v, d %q, n %d; want d 2.25 and n 5", sv, d, n)
	}
}
