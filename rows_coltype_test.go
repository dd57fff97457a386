package chnative

import (
	"testing"

	"github.com/chnative/chnative/columns"
)

// SimpleAggregateFunction(f, T) holds T's values: nullability, precision and scale are T's.
// (18.16 has no SimpleAggregateFunction, so the column is built from its type name here.)
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
		if got := columnNullable(c); got != tc.nullable {
			t.Errorf("%s: nullable %v, want %v", tc.typ, got, tc.nullable)
		}
		r := &rows{types: []string{tc.typ}}
		p, s, ok := r.ColumnTypePrecisionScale(0)
		if ok != tc.hasPrecScale || p != tc.prec || s != tc.scale {
			t.Errorf("%s: precision/scale %d, %d, %v; want %d, %d, %v", tc.typ, p, s, ok, tc.prec, tc.scale, tc.hasPrecScale)
		}
	}
}
