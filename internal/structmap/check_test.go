package structmap

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/fieldslice"
	"github.com/chnative/chnative/nativeproto"
)

// A read plan is made from a query's first block, and each copier stores values of that block's
// column types. A later block whose columns differ (finding 2: Int8 then Int64, also inside
// Nullable and Array; before, the Int64 values were written over the next field, or past a
// Nullable's or an Array's values) is refused before anything is copied; the structs stay zero.

type typeChangeRow struct {
	I  int8   `ch:"i"`
	Q  int8   `ch:"q"`
	P  *int8  `ch:"p"`
	Ar []int8 `ch:"ar"`
}

func TestCopyBlockRefusesTypeChange(t *testing.T) {
	const lie = int64(0x4141414141414141)
	for _, tc := range []struct {
		name        string
		first, next []testColumn
		want        string
	}{
		{"Int8ThenInt64", []testColumn{{"q", "Int8", []any{int8(7)}}, {"i", "Int8", []any{int8(1)}}},
			[]testColumn{{"q", "Int8", []any{int8(7), int8(7)}}, {"i", "Int64", []any{lie, lie}}}, "column i is Int64 in this block, Int8"},
		{"NullableInt8ThenInt64", []testColumn{{"p", "Nullable(Int8)", []any{int8(1)}}},
			[]testColumn{{"p", "Nullable(Int64)", []any{lie, lie}}}, "Nullable(Int64)"},
		{"ArrayInt8ThenInt64", []testColumn{{"ar", "Array(Int8)", []any{[]int8{1}}}},
			[]testColumn{{"ar", "Array(Int64)", []any{[]int64{lie, lie, lie}, []int64{lie}}}}, "Array(Int64)"},
		{"FewerColumns", []testColumn{{"q", "Int8", []any{int8(7)}}, {"i", "Int8", []any{int8(1)}}},
			[]testColumn{{"q", "Int8", []any{int8(7), int8(7)}}}, "a block of 1 columns for a struct plan of 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := PlanRead(reflect.TypeFor[typeChangeRow](), testBlock(t, tc.first...))
			if err != nil {
				t.Fatal(err)
			}
			next := testBlock(t, tc.next...)
			dst := make([]typeChangeRow, next.Rows())
			err = CopyBlock(plan, next, dst)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one naming %q", err, tc.want)
			}
			for i, r := range dst {
				if !reflect.DeepEqual(r, typeChangeRow{}) {
					t.Errorf("row %d written before the refusal: %+v", i, r)
				}
			}
		})
	}
}

// A block asking for more rows than a column has is refused.
func TestCopyBlockRefusesShortColumn(t *testing.T) {
	b := nativeproto.NewBlock()
	q, i := columns.NewFixed[int8]("Int8"), columns.NewFixed[int8]("Int8")
	q.Append(1)
	q.Append(2)
	i.Append(1)
	b.Add("q", q)
	b.Add("i", i)
	plan, err := PlanRead(reflect.TypeFor[typeChangeRow](), b)
	if err != nil {
		t.Fatal(err)
	}
	if err := CopyBlock(plan, b, make([]typeChangeRow, 2)); err == nil || !strings.Contains(err.Error(), "column i has 1 rows, 2 asked for") {
		t.Fatalf("error %v", err)
	}
}

// Should a copier store what its field cannot take anyway, fieldslice's check panics before the
// store and CopyBlock returns that as an error.
func TestCopyBlockTurnsFieldsliceRefusalIntoError(t *testing.T) {
	b := testBlock(t, testColumn{"i", "Int8", []any{int8(1), int8(2)}})
	plan, err := PlanRead(reflect.TypeFor[typeChangeRow](), b)
	if err != nil {
		t.Fatal(err)
	}
	plan.fields[0].copy = func(col columns.Column, dst fieldslice.Slice, n int) error {
		for i := range n {
			fieldslice.Set(dst, i, int64(0x4141414141414141))
		}
		return nil
	}
	dst := make([]typeChangeRow, 2)
	err = CopyBlock(plan, b, dst)
	if err == nil || !strings.Contains(err.Error(), "a 8-byte value in a 1-byte field") {
		t.Fatalf("error %v", err)
	}
	if !reflect.DeepEqual(dst, make([]typeChangeRow, 2)) {
		t.Errorf("rows written: %+v", dst)
	}
}

// An append plan is made from an insert's block; a block whose columns are of other types (an
// insert that went on with another header) is refused before anything is appended, where the
// plan's typed appender would otherwise be handed a column of another type.
func TestAppendRowsRefusesOtherColumns(t *testing.T) {
	type row struct {
		I int8 `ch:"i"`
	}
	mk := func(typ string) *nativeproto.Block {
		c, err := columns.New(typ)
		if err != nil {
			t.Fatal(err)
		}
		b := nativeproto.NewBlock()
		b.Add("i", c)
		return b
	}
	first := mk("Int8")
	p, err := PlanAppend(reflect.TypeFor[row](), first)
	if err != nil {
		t.Fatal(err)
	}
	if err := AppendRows(p, first, []row{{1}, {2}}); err != nil || first.Rows() != 2 {
		t.Fatalf("append to the planned block: %v, %d rows", err, first.Rows())
	}
	same := mk("Int8") // another block of the same types: planned appenders still fit
	if err := AppendRows(p, same, []row{{3}}); err != nil || same.Rows() != 1 {
		t.Fatalf("append to a block of the same types: %v", err)
	}
	for _, typ := range []string{"Int64", "String", "Nullable(Int8)"} {
		other := mk(typ)
		err := AppendRows(p, other, []row{{1}})
		var pm *PlanMismatchError
		if !errors.As(err, &pm) || other.Rows() != 0 {
			t.Errorf("%s: %v, %d rows appended, want a *PlanMismatchError", typ, err, other.Rows())
		}
	}
	two := mk("Int8")
	c, _ := columns.New("String")
	two.Add("s", c)
	if err := AppendRows(p, two, []row{{1}}); !errors.As(err, new(*PlanMismatchError)) {
		t.Errorf("a block of two columns: %v", err)
	}
}
