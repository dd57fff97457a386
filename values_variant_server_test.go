package chnative

import (
	"database/sql"
	"fmt"
	"testing"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/testenv"
)

// Variant and Dynamic values inserted as a given type (clickhouse-go's
// NewVariantWithType/NewDynamicWithType are columns.VariantValue and columns.DynamicValue here),
// and the type read back. 26.7 only: 18.16 has neither type.

func openVariantServer(t *testing.T) *sql.DB {
	return openParamsServer(t, testenv.ModernDSN(t)+"?allow_experimental_variant_type=1&allow_experimental_dynamic_type=1"+
		"&allow_suspicious_variant_types=1&allow_suspicious_low_cardinality_types=1")
}

// TestValuesInVariantTyped: a value given with its type goes to that type, by every insert path:
// 5 as Int64 or UInt64, "x" as String or LowCardinality(String), in a Variant holding all four
// and in a Dynamic. Read back, each row has its type, in variantType/dynamicType and in the
// scanned VariantValue/DynamicValue. As a ? literal the value is a CAST to its type, which the
// server then converts (26.7 takes a String into this Variant as LowCardinality(String)).
func TestValuesInVariantTyped(t *testing.T) {
	db := openVariantServer(t)
	table := createTable(t, db, "chnative_variant_typed", "n UInt8, v Variant(Int64, UInt64, String, LowCardinality(String)), d Dynamic")
	cases := []struct {
		typ string
		val any
	}{{"Int64", 5}, {"UInt64", 5}, {"String", "x"}, {"LowCardinality(String)", "x"}, {"UInt64", uint8(5)}, {"Int64", int64(-5)}}
	paths := insertPaths
	for i, tc := range cases {
		for _, p := range paths {
			row := []any{uint8(i), columns.VariantValue{Type: tc.typ, Value: tc.val}, columns.DynamicValue{Type: tc.typ, Value: tc.val}}
			if err := p.insert(db, table, row); err != nil {
				t.Errorf("%s of %s %v: %v", p.name, tc.typ, tc.val, err)
			}
		}
	}
	rows, err := db.Query("SELECT n, variantType(v), dynamicType(d), toString(v), toString(d), v, d FROM " + table + " ORDER BY n")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := 0
	for rows.Next() {
		var n int
		var vt, dt, vs, ds string
		var vv columns.VariantValue
		var dv columns.DynamicValue
		if err := rows.Scan(&n, &vt, &dt, &vs, &ds, &vv, &dv); err != nil {
			t.Fatal(err)
		}
		tc := cases[n]
		want := fmt.Sprint(tc.val)
		if vt != tc.typ || dt != tc.typ || vs != want || ds != want || vv.Type != tc.typ || dv.Type != tc.typ ||
			fmt.Sprint(vv.Value) != want || fmt.Sprint(dv.Value) != want {
			t.Errorf("row %d (%s %v): variantType %s, dynamicType %s, %q %q, scanned %#v %#v", n, tc.typ, tc.val, vt, dt, vs, ds, vv, dv)
		}
		got++
	}
	if err := rows.Err(); err != nil || got != len(cases)*len(paths) {
		t.Errorf("%d rows (want %d), %v", got, len(cases)*len(paths), err)
	}

	const vt = "Variant(Int64, UInt64, String, LowCardinality(String))"
	for _, tc := range []struct{ typ, val, q, want string }{
		{"UInt64", "5", "SELECT variantType(CAST(? AS " + vt + "))", "UInt64"},
		{"Int64", "5", "SELECT variantType(CAST(? AS " + vt + "))", "Int64"},
		{"LowCardinality(String)", "x", "SELECT variantType(CAST(? AS " + vt + "))", "LowCardinality(String)"},
		{"String", "x", "SELECT variantType(CAST(? AS " + vt + "))", "LowCardinality(String)"}, // the server's choice
		{"UInt64", "5", "SELECT dynamicType(CAST(? AS Dynamic))", "UInt64"},
		{"LowCardinality(String)", "x", "SELECT dynamicType(CAST(? AS Dynamic))", "LowCardinality(String)"},
		{"String", "x", "SELECT toTypeName(?)", "String"},
		{"LowCardinality(String)", "x", "SELECT toTypeName(?)", "LowCardinality(String)"},
	} {
		var s string
		if err := db.QueryRow(tc.q, columns.DynamicValue{Type: tc.typ, Value: tc.val}).Scan(&s); err != nil || s != tc.want {
			t.Errorf("%s with %s %s: %q, %v; want %q", tc.q, tc.typ, tc.val, s, err, tc.want)
		}
	}

	// A {p:Variant(...)} or {p:Dynamic} parameter is text, and 26.7 picks the type from the
	// text (Int64 for 5 in the Variant, String in the Dynamic), whatever the value's type; a
	// CAST of a parameter of the wanted type keeps it.
	arg := sql.Named("p", columns.VariantValue{Type: "UInt64", Value: 5})
	for _, tc := range []struct{ q, want string }{
		{"SELECT variantType({p:Variant(Int64, UInt64)})", "Int64"},
		{"SELECT dynamicType({p:Dynamic})", "String"},
		{"SELECT variantType(CAST({p:UInt64} AS Variant(Int64, UInt64)))", "UInt64"},
		{"SELECT dynamicType(CAST({p:UInt64} AS Dynamic))", "UInt64"},
	} {
		var s string
		if err := db.QueryRow(tc.q, arg).Scan(&s); err != nil || s != tc.want {
			t.Errorf("%s: %q, %v; 26.7 gives %q", tc.q, s, err, tc.want)
		}
	}
}

// TestValuesInVariantExamples runs clickhouse-go's documented Variant and Dynamic examples
// (examples/std/variant.go and dynamic.go) on database/sql: a statement prepared in a
// transaction takes true, int64(42), "example", a value with its type (clickhouse.NewVariantWithType
// there) and nil, and each row is read back with its type.
func TestValuesInVariantExamples(t *testing.T) {
	db := openVariantServer(t)
	for _, kind := range []struct {
		column string
		typed  func(v any, typ string) any
		typeOf string
	}{
		{"Variant(Bool, Int64, String)", func(v any, typ string) any { return columns.VariantValue{Type: typ, Value: v} }, "variantType"},
		{"Dynamic", func(v any, typ string) any { return columns.DynamicValue{Type: typ, Value: v} }, "dynamicType"},
	} {
		table := createTable(t, db, "chnative_variant_example", "c "+kind.column)
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		batch, err := tx.Prepare("INSERT INTO " + table + " (c)")
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []any{true, int64(42), "example", kind.typed("example with specific type", "String"), nil} {
			if _, err := batch.Exec(v); err != nil {
				t.Fatalf("%s: Exec(%#v): %v", kind.column, v, err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		rows, err := db.Query("SELECT c, " + kind.typeOf + "(c) FROM " + table)
		if err != nil {
			t.Fatal(err)
		}
		// As the examples do: scan each row into the Variant (Dynamic) value and switch on its type
		// name ("" for NULL).
		var got []string
		for rows.Next() {
			var vv columns.VariantValue
			var dv columns.DynamicValue
			var typ string
			var dest any = &vv
			if kind.column == "Dynamic" {
				dest = &dv
			}
			if err := rows.Scan(dest, &typ); err != nil {
				t.Fatal(err)
			}
			if kind.column == "Dynamic" {
				vv = columns.VariantValue(dv)
			}
			if vv.Type == "" {
				got = append(got, fmt.Sprintf("NULL:%s:%v", typ, vv.Value))
				continue
			}
			got = append(got, fmt.Sprintf("%s:%v:%T", vv.Type, vv.Value, vv.Value))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		want := "[Bool:true:bool Int64:42:int64 String:example:string String:example with specific type:string NULL:None:<nil>]"
		if fmt.Sprint(got) != want {
			t.Errorf("%s: %v, want %s", kind.column, got, want)
		}
	}
}
