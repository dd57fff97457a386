package structmap

import (
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/nativeproto"
)

// testColumn is a column of type typ holding vals (AppendValue each).
type testColumn struct {
	name, typ string
	vals      []any
}

func testBlock(t testing.TB, cols ...testColumn) *nativeproto.Block {
	t.Helper()
	b := nativeproto.NewBlock()
	for _, c := range cols {
		col, err := columns.New(c.typ)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range c.vals {
			if err := col.AppendValue(v); err != nil {
				t.Fatalf("%s: %v", c.typ, err)
			}
		}
		b.Add(c.name, col)
	}
	return b
}

type myU64 uint64

type myUUID [16]byte

type fastRow struct {
	N    myU64           `ch:"n"`
	F    float32         `db:"f"`
	S    string          // by name
	B    []byte          `ch:"b"`
	FS   string          `ch:"fs"`
	E8   string          `ch:"e8"`
	E16  string          `ch:"e16"`
	LC   string          `ch:"lc"`
	D    time.Time       `ch:"d"`
	DT   time.Time       `ch:"dt"`
	U    myUUID          `ch:"u"`
	D9   columns.Decimal `ch:"d9"`
	D18  columns.Decimal `ch:"d18"`
	NI   *int64          `ch:"ni"`
	AS   []string        `ch:"as"`
	AN   [][]*uint8      `ch:"an"`
	Any  any             `ch:"any"`
	Skip int             `ch:"-"`
}

func fastBlock(t testing.TB) *nativeproto.Block {
	seven := int64(7)
	u := [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	day := time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)
	one := uint8(1)
	return testBlock(t,
		testColumn{"n", "UInt64", []any{uint64(1), uint64(2), uint64(1 << 63)}},
		testColumn{"f", "Float32", []any{float32(0.5), float32(-1), float32(3)}},
		testColumn{"s", "String", []any{"", "héllo", "x"}},
		testColumn{"b", "String", []any{"ab", "", "c"}},
		testColumn{"fs", "FixedString(2)", []any{"ab", "cd", "ef"}},
		testColumn{"e8", "Enum8('a' = 1, 'b' = -2)", []any{"a", "b", "a"}},
		testColumn{"e16", "Enum16('x' = 1000, 'y' = -1)", []any{"y", "x", "x"}},
		testColumn{"lc", "LowCardinality(String)", []any{"p", "q", "p"}},
		testColumn{"d", "Date", []any{day, day.AddDate(0, 0, 1), time.Unix(0, 0)}},
		testColumn{"dt", "DateTime('Asia/Tokyo')", []any{time.Unix(1, 0), time.Unix(1_700_000_000, 0), time.Unix(0, 0)}},
		testColumn{"u", "UUID", []any{u, [16]byte{}, u}},
		testColumn{"d9", "Decimal(9, 2)", []any{"1.25", "-3.5", "0"}},
		testColumn{"d18", "Decimal(18, 4)", []any{"-12345678.9", "0", "1"}},
		testColumn{"ni", "Nullable(Int64)", []any{&seven, nil, int64(-1)}},
		testColumn{"as", "Array(String)", []any{[]string{"a", "b"}, []string{}, []string{"c"}}},
		testColumn{"an", "Array(Array(Nullable(UInt8)))", []any{[][]*uint8{{&one, nil}}, [][]*uint8{}, [][]*uint8{{}, {&one}}}},
		testColumn{"any", "Int32", []any{int32(5), int32(6), int32(7)}},
	)
}

// The fast paths store what the reflect path (database/sql's conversions) stores.
func TestCopyBlockFastPathsMatchReflect(t *testing.T) {
	b := fastBlock(t)
	typ := reflect.TypeFor[fastRow]()
	plan, err := PlanRead(typ, b)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]fastRow, b.Rows())
	if err := CopyBlock(plan, b, got); err != nil {
		t.Fatal(err)
	}
	slow := ReadPlan{fields: append([]fieldCopier(nil), plan.fields...)}
	for i := range slow.fields {
		fc := &slow.fields[i]
		fast := fastCopier(b.Column(fc.col), fc.field.Type) != nil
		switch name := b.Name(fc.col); name {
		case "any": // no fast path: into an interface
			if fast {
				t.Errorf("column %s into %v: a fast path", name, fc.field.Type)
			}
		case "b", "u": // the reflect path stores no string in []byte nor in [16]byte
			continue
		default:
			if !fast {
				t.Errorf("column %s (%s) into %v: no fast path", name, b.Type(fc.col), fc.field.Type)
			}
		}
		fc.copy = reflectCopier(fc.field.Type)
	}
	want := make([]fastRow, b.Rows())
	if err := CopyBlock(slow, b, want); err != nil {
		t.Fatal(err)
	}
	for i := range got {
		g, w := reflect.ValueOf(got[i]), reflect.ValueOf(want[i])
		for j := range g.NumField() {
			gf, wf := g.Field(j).Interface(), w.Field(j).Interface()
			if gd, ok := gf.(columns.Decimal); ok {
				wd := wf.(columns.Decimal)
				if gd.Scale != wd.Scale || gd.Unscaled.Cmp(wd.Unscaled) != 0 {
					t.Errorf("row %d %s: fast %v, reflect %v", i, typ.Field(j).Name, gd, wd)
				}
				continue
			}
			if gt, ok := gf.(time.Time); ok {
				if wt := wf.(time.Time); !gt.Equal(wt) || gt.Location().String() != wt.Location().String() {
					t.Errorf("row %d %s: fast %v, reflect %v", i, typ.Field(j).Name, gt, wt)
				}
				continue
			}
			if !reflect.DeepEqual(gf, wf) {
				t.Errorf("row %d %s: fast %#v, reflect %#v", i, typ.Field(j).Name, gf, wf)
			}
		}
	}
	if got[0].N != 1 || got[2].N != 1<<63 || got[1].S != "héllo" || string(got[0].B) != "ab" ||
		got[1].E8 != "b" || got[0].E16 != "y" || got[2].LC != "p" || *got[0].NI != 7 || got[1].NI != nil ||
		got[0].D9.Unscaled.Cmp(big.NewInt(125)) != 0 || got[2].U != (myUUID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}) ||
		!reflect.DeepEqual(got[0].AS, []string{"a", "b"}) || got[1].AS == nil || len(got[1].AS) != 0 ||
		got[0].Any != int32(5) {
		t.Errorf("got %+v", got)
	}
	// Each []byte and each []T is its own: appending to one does not write into the next.
	got[0].B = append(got[0].B, 'z')
	got[0].AS = append(got[0].AS, "z")
	if string(got[2].B) != "c" || got[2].AS[0] != "c" {
		t.Errorf("appending to row 0 changed row 2: %q %q", got[2].B, got[2].AS)
	}
}

// A plan made from the first block serves the later ones.
func TestCopyBlockLaterBlocks(t *testing.T) {
	type row struct {
		N  uint32
		NS *string `ch:"ns"`
	}
	x := "x"
	b1 := testBlock(t, testColumn{"n", "UInt32", []any{uint32(1)}}, testColumn{"ns", "Nullable(String)", []any{nil}})
	b2 := testBlock(t, testColumn{"n", "UInt32", []any{uint32(2), uint32(3)}}, testColumn{"ns", "Nullable(String)", []any{&x, nil}})
	plan, err := PlanRead(reflect.TypeFor[row](), b1)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []*nativeproto.Block{b1, b2} {
		dst := make([]row, b.Rows())
		if err := CopyBlock(plan, b, dst); err != nil {
			t.Fatal(err)
		}
		if b == b2 && (dst[0].N != 2 || *dst[0].NS != "x" || dst[1].N != 3 || dst[1].NS != nil) {
			t.Errorf("second block: %+v", dst)
		}
	}
}

type scanned struct{ got any }

func (s *scanned) Scan(v any) error { s.got = v; return nil }

func TestCopyBlockErrors(t *testing.T) {
	b := testBlock(t, testColumn{"big", "UInt16", []any{uint16(1), uint16(300)}})
	type small struct {
		Big int8 `ch:"big"`
	}
	plan, err := PlanRead(reflect.TypeFor[small](), b)
	if err != nil {
		t.Fatal(err)
	}
	err = CopyBlock(plan, b, make([]small, 2))
	if err == nil || !strings.Contains(err.Error(), "column big into field Big: row 1") {
		t.Errorf("300 into int8: %v", err)
	}
	if _, err := PlanRead(reflect.TypeFor[small](), testBlock(t, testColumn{"nope", "UInt8", nil})); err == nil ||
		!strings.Contains(err.Error(), "no field of") {
		t.Errorf("column without a field: %v", err)
	}
	type twice struct {
		A uint8 `ch:"x"`
		B uint8 `db:"X"`
	}
	if _, err := PlanRead(reflect.TypeFor[twice](), b); err == nil || !strings.Contains(err.Error(), "both name column") {
		t.Errorf("two fields for one column: %v", err)
	}
	// A Scan-er gets the value through Scan, not a fast path.
	type withScanner struct {
		Big scanned `ch:"big"`
	}
	plan, err = PlanRead(reflect.TypeFor[withScanner](), b)
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]withScanner, 2)
	if err := CopyBlock(plan, b, dst); err != nil || dst[1].Big.got != uint16(300) {
		t.Errorf("Scan-er: %v %+v", err, dst)
	}
	var fe *FieldError
	_ = errors.As(err, &fe)
}

// columnFields promoted from an embedded struct land at their offset in the outer struct; those
// promoted through an embedded pointer are not mapped.
func TestFieldsPromoted(t *testing.T) {
	type Inner struct {
		Name string `ch:"name"`
		Val  uint32 `ch:"val"`
	}
	type Other struct{ Hidden uint8 }
	type row struct {
		ID uint64 `ch:"id"`
		Inner
		*Other
	}
	b := testBlock(t,
		testColumn{"id", "UInt64", []any{uint64(7), uint64(8)}},
		testColumn{"name", "String", []any{"a", "b"}},
		testColumn{"val", "UInt32", []any{uint32(1), uint32(2)}},
	)
	plan, err := PlanRead(reflect.TypeFor[row](), b)
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]row, 2)
	if err := CopyBlock(plan, b, dst); err != nil {
		t.Fatal(err)
	}
	if dst[0].ID != 7 || dst[0].Name != "a" || dst[1].ID != 8 || dst[1].Val != 2 || dst[0].Other != nil {
		t.Errorf("got %+v", dst)
	}
	if _, err := PlanRead(reflect.TypeFor[row](), testBlock(t, testColumn{"hidden", "UInt8", nil})); err == nil {
		t.Error("a field promoted through an embedded pointer was mapped")
	}
}

// decimalRows is 1000 rows of a Decimal(9, 2) and a Decimal(18, 4) column, and the struct they
// copy into.
type decimalRow struct {
	D9  columns.Decimal `ch:"d9"`
	D18 columns.Decimal `ch:"d18"`
}

func decimalBlock(t testing.TB) *nativeproto.Block {
	vals9, vals18 := make([]any, 1000), make([]any, 1000)
	for i := range vals9 {
		vals9[i] = fmt.Sprintf("%d.25", i-500)
		vals18[i] = fmt.Sprintf("-%d.5", i)
	}
	return testBlock(t, testColumn{"d9", "Decimal(9, 2)", vals9}, testColumn{"d18", "Decimal(18, 4)", vals18})
}

// Decimal32 and Decimal64 columns copy into columns.Decimal fields through their fast path, with
// the values' scale (the allocations it makes are counted in read_allocs_unsafe_test.go).
func TestCopyBlockDecimal(t *testing.T) {
	b := decimalBlock(t)
	plan, err := PlanRead(reflect.TypeFor[decimalRow](), b)
	if err != nil {
		t.Fatal(err)
	}
	for _, fc := range plan.fields {
		if fastCopier(b.Column(fc.col), fc.field.Type) == nil {
			t.Errorf("column %s: no fast path into columns.Decimal", b.Name(fc.col))
		}
	}
	dst := make([]decimalRow, b.Rows())
	if err := CopyBlock(plan, b, dst); err != nil {
		t.Fatal(err)
	}
	if got := dst[0].D9.String() + " " + dst[500].D9.String() + " " + dst[999].D18.String(); got != "-500.25 0.25 -999.5000" {
		t.Errorf("decimals %s", got)
	}
}
