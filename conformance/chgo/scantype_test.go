package chgo

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/chnative/chnative"
	"github.com/chnative/chnative/conformance/types"
	"github.com/chnative/chnative/internal/testenv"
)

// TestScanTypeFills: a variable of a column's ColumnTypeScanType takes every value of the
// column, NULL rows included (reflect.New(ScanType()) passed to Scan), for every type of the type
// suite that the server of CHNATIVE_DSN has: on 18.16 the cases its round trip runs, on 26.7
// every case with a 26.7 round trip (with the suite's session settings). scripts/test.sh runs it
// once per server.
func TestScanTypeFills(t *testing.T) {
	server := testenv.Server(t)
	dsn := testenv.DSN(t)
	if server == testenv.Modern {
		var err error
		if dsn, err = types.ModernDSN(dsn); err != nil {
			t.Fatal(err)
		}
	}
	db, err := sql.Open("chnative", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	n := 0
	for _, k := range types.AllCases() {
		if server == testenv.Legacy && !k.Server || server == testenv.Modern && k.NoModern != "" {
			continue
		}
		n++
		got, err := scanIntoScanType(ctx, db, types.SelectSQL(k))
		if err == nil && got != len(k.Values) {
			t.Errorf("%v: %s: %d rows scanned, want %d", server, k.Type, got, len(k.Values))
		}
		var se *chnative.Exception
		if err != nil && server == testenv.Legacy && errors.As(err, &se) {
			// 18.16 cannot evaluate some of the suite's value expressions (repeat(), 5e-324,
			// CAST between array depths, ...): each value on its own, at least one scanned.
			got, refused := 0, 0
			for i, v := range k.Values {
				m, err := scanIntoScanType(ctx, db, types.SelectSQL(types.Case{Type: k.Type, Values: []string{v}}))
				switch {
				case err != nil && errors.As(err, &se):
					refused++
				case err != nil:
					t.Errorf("%v: %s: value %d: %v", server, k.Type, i, err)
				default:
					got += m
				}
			}
			t.Logf("%v: %s: %d of %d values scanned, %d the server cannot evaluate", server, k.Type, got, len(k.Values), refused)
			if got == 0 {
				t.Errorf("%v: %s: no value scanned", server, k.Type)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %s: %v", server, k.Type, err)
		}
	}
	t.Logf("%v: %d types", server, n)
}

// scanIntoScanType runs q and scans each row into a fresh variable of the column's scan type,
// returning the rows scanned.
func scanIntoScanType(ctx context.Context, db *sql.DB, q string) (int, error) {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		return 0, err
	}
	st := cts[0].ScanType()
	got := 0
	for rows.Next() {
		d := reflect.New(st)
		if err := rows.Scan(d.Interface()); err != nil {
			return got, fmt.Errorf("row %d into *%v (ColumnTypeScanType): %w", got, st, err)
		}
		got++
	}
	return got, rows.Err()
}
