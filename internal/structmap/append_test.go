package structmap

import (
	"database/sql/driver"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/chnative/chnative/columns"
)

type myName string

type myBytes []byte

// upper is a driver.Valuer: appended through AppendValue, not the String loop.
type upper string

func (u upper) Value() (driver.Value, error) { return strings.ToUpper(string(u)), nil }

// bin has MarshalBinary on its pointer only.
type bin struct{ b byte }

func (b *bin) MarshalBinary() ([]byte, error) { return []byte{b.b, b.b}, nil }

type appendRow struct {
	ID    myU64     `ch:"id"`
	Name  myName    `ch:"name"`
	Raw   myBytes   `ch:"raw"`
	Up    upper     `ch:"up"`
	Bin   bin       `ch:"bin"`
	Opt   *int32    `ch:"opt"`
	TS    time.Time `ch:"ts"`
	Extra int       // no column: ignored
}

func TestAppendRows(t *testing.T) {
	b := testBlock(t,
		testColumn{"id", "UInt64", nil}, testColumn{"name", "String", nil}, testColumn{"raw", "String", nil},
		testColumn{"up", "String", nil}, testColumn{"bin", "FixedString(2)", nil}, testColumn{"opt", "Nullable(Int32)", nil},
		testColumn{"ts", "DateTime", nil},
	)
	plan, err := PlanAppend(reflect.TypeFor[appendRow](), b)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Type() != reflect.TypeFor[appendRow]() {
		t.Errorf("Type() = %v", plan.Type())
	}
	for i, name := range []string{"id", "name", "raw"} {
		if fa, ok := b.Column(i).(columns.FieldAppender); !ok || fa.FieldAppendFunc(plan.fields[i].field.Type) == nil {
			t.Errorf("column %s: no typed loop", name)
		}
	}
	five := int32(5)
	rows := []appendRow{
		{ID: 1, Name: "a", Raw: myBytes("r1"), Up: "x", Bin: bin{'p'}, Opt: &five, TS: time.Unix(10, 0)},
		{ID: 2, Name: "b", Raw: nil, Up: "y", Bin: bin{'q'}, TS: time.Unix(20, 0)},
	}
	if err := AppendRows(plan, b, rows); err != nil {
		t.Fatal(err)
	}
	if err := AppendRows(plan, b, SliceOfOne(&rows[0])); err != nil {
		t.Fatal(err)
	}
	want := [][]any{
		{uint64(1), uint64(2), uint64(1)}, {"a", "b", "a"}, {"r1", "", "r1"}, {"X", "Y", "X"},
		{"pp", "qq", "pp"}, {int32(5), nil, int32(5)}, {time.Unix(10, 0).UTC(), time.Unix(20, 0).UTC(), time.Unix(10, 0).UTC()},
	}
	for j, w := range want {
		col := b.Column(j)
		if col.Rows() != len(w) {
			t.Fatalf("column %s: %d rows", b.Name(j), col.Rows())
		}
		for i, v := range w {
			if got := col.Value(i); !reflect.DeepEqual(got, v) {
				t.Errorf("column %s row %d: %#v, want %#v", b.Name(j), i, got, v)
			}
		}
	}
}

// The first failing row of any column cuts every column back to the rows before it.
func TestAppendRowsFirstFailingRow(t *testing.T) {
	type row struct {
		A int64 `ch:"a"` // into UInt8 through AppendValue
		B int64 `ch:"b"`
	}
	b := testBlock(t, testColumn{"a", "UInt8", nil}, testColumn{"b", "UInt8", nil})
	plan, err := PlanAppend(reflect.TypeFor[row](), b)
	if err != nil {
		t.Fatal(err)
	}
	err = AppendRows(plan, b, []row{{1, 1}, {2, 2}, {3, 300}, {400, 4}})
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Col != 1 || fe.Row != 2 || fe.Field != "B" {
		t.Fatalf("error %v (%#v), want column 1, row 2, field B", err, fe)
	}
	for j := range 2 {
		if n := b.Column(j).Rows(); n != 2 {
			t.Errorf("column %d: %d rows, want 2", j, n)
		}
	}
	if _, err := PlanAppend(reflect.TypeFor[int](), b); err == nil {
		t.Error("PlanAppend of an int")
	}
	type missing struct{ A uint8 }
	if _, err := PlanAppend(reflect.TypeFor[missing](), b); err == nil || !strings.Contains(err.Error(), "column b") {
		t.Errorf("no field for column b: %v", err)
	}
}

// A plan whose field lies about where it is (a bug, never the caller's input) fails the slice
// append with an error instead of a panic, every column cut back; AppendChecked refuses rows that
// are not non-nil pointers to the plan's type before reading them.
func TestAppendRefusesAccessOutsideRow(t *testing.T) {
	b := testBlock(t, testColumn{"id", "UInt64", nil}, testColumn{"name", "String", nil})
	type row struct {
		ID   uint64 `ch:"id"`
		Name string `ch:"name"`
	}
	plan, err := PlanAppend(reflect.TypeFor[row](), b)
	if err != nil {
		t.Fatal(err)
	}
	if err := AppendRows(plan, b, []row{{1, "a"}}); err != nil {
		t.Fatal(err)
	}
	lie := *plan
	lie.fields = append([]fieldAppender(nil), plan.fields...)
	// The name column's appender reads a string where the plan now says the uint64 ID is: both
	// builds' accesses refuse a field of another size.
	lie.fields[1].field, lie.fields[1].size = plan.fields[0].field, plan.fields[0].size
	err = AppendRows(&lie, b, []row{{2, "b"}, {3, "c"}})
	if err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("append through a lying plan: %v, want it refused", err)
	}
	for j := range b.NumColumns() {
		if n := b.Column(j).Rows(); n != 1 {
			t.Errorf("column %d has %d rows after the refused append, want 1", j, n)
		}
	}
	var nilRow *row
	for _, v := range []reflect.Value{{}, reflect.ValueOf(row{}), reflect.ValueOf(nilRow), reflect.ValueOf(&appendRow{})} {
		if err := AppendChecked(plan, b, v); err == nil {
			t.Errorf("AppendChecked of %v: no error", v)
		}
	}
	if b.Column(0).Rows() != 1 {
		t.Errorf("a refused row was appended")
	}
}
