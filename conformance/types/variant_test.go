package types

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/conformance/chdb"
)

// vdjBlock encodes one column as a FORMAT Native block (revision 0: no has_custom byte).
func vdjBlock(name string, c columns.Column) []byte {
	var w columns.Writer
	w.UVarInt(1)
	w.UVarInt(uint64(c.Rows()))
	w.String(name)
	w.String(c.Type())
	if c.Rows() > 0 {
		c.WritePrefix(&w)
		c.Write(&w)
	}
	return w.Buf
}

// vdjRead decodes a one-column FORMAT Native block.
func vdjRead(t *testing.T, data []byte) columns.Column {
	t.Helper()
	r := columns.NewBytesReader(data)
	if n, err := r.UVarInt(); err != nil || n != 1 {
		t.Fatalf("columns %d %v", n, err)
	}
	rows, _ := r.UVarInt()
	if _, err := r.String("name", 1<<10); err != nil {
		t.Fatal(err)
	}
	typ, err := r.String("type", 1<<16)
	if err != nil {
		t.Fatal(err)
	}
	c, err := columns.New(typ)
	if err != nil {
		t.Fatal(err)
	}
	if rows > 0 {
		if err := c.ReadPrefix(r); err != nil {
			t.Fatalf("%s prefix: %v", typ, err)
		}
		if err := c.Read(r, int(rows)); err != nil {
			t.Fatalf("%s data: %v", typ, err)
		}
	}
	if r.Buffered() != 0 {
		t.Fatalf("%s: %d bytes left", typ, r.Buffered())
	}
	return c
}

// vdjNormalize makes JSON text comparable (key order, spacing, 64-bit integers quoted or not).
func vdjNormalize(v any) any {
	switch x := v.(type) {
	case string:
		var m any
		if json.Unmarshal([]byte(x), &m) == nil {
			if _, ok := m.(map[string]any); ok {
				b, _ := json.Marshal(vdjUnquote(m))
				return string(b)
			}
		}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = vdjNormalize(e)
		}
		return out
	case []string:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = vdjNormalize(e)
		}
		return out
	}
	return v
}

func vdjUnquote(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = vdjUnquote(e)
		}
	case []any:
		for i, e := range x {
			x[i] = vdjUnquote(e)
		}
	case string:
		var f float64
		if _, err := fmt.Sscan(x, &f); err == nil && fmt.Sprint(int64(f)) == x {
			return f
		}
	}
	return v
}

// TestVariantDynamicJSONChDB encodes Variant, Dynamic and JSON columns, has chDB read them back
// with file(..., Native) and write them as Native (Dynamic V1 with SharedVariant, JSON V1, and with
// the FLATTENED and STRING settings), and decodes that: the values must survive the trip.
func TestVariantDynamicJSONChDB(t *testing.T) {
	e := chdb.ForTest(t)
	dir := t.TempDir()
	settings := []string{
		"",
		" SETTINGS output_format_native_use_flattened_dynamic_and_json_serialization=1",
		" SETTINGS output_format_native_write_json_as_string=1",
	}
	for i, tc := range []struct {
		typ  string
		vals []any
		tsv  string // chDB's TabSeparated of "SELECT c" (empty: not checked)
	}{
		{"Variant(UInt64, String, Array(Int64))", []any{"x", uint64(5), nil, []int64{1, -2}},
			"x\n5\n\\N\n[1,-2]\n"},
		{"Dynamic", []any{1, "s", nil, 2.5, []string{"a"}, columns.DynamicValue{Type: "UInt8", Value: 3}, map[string]int64{"k": 1}},
			"1\ns\n\\N\n2.5\n['a']\n3\n{'k':1}\n"},
		{"Dynamic(max_types=1)", []any{int64(1), "s", nil, 2.5, int64(3)}, "1\ns\n\\N\n2.5\n3\n"},
		{"Array(Variant(String, UInt8))", []any{[]any{"a", uint8(1), nil}, nil}, "['a',1,NULL]\n[]\n"},
		{"Tuple(a Dynamic, b Array(JSON))", []any{[]any{1, []string{`{"a":1}`}}, []any{"s", nil}}, ""},
		{"Map(String, Dynamic)", []any{map[string]any{"x": 1, "y": "z"}, map[string]any{}}, "{'x':1,'y':'z'}\n{}\n"},
		{"JSON", []any{`{"a":{"b":1,"c":"x"},"arr":[1,2]}`, `{}`, `{"s":"it's \t"}`}, ""},
		{"JSON(a.b UInt32, max_dynamic_paths=1)", []any{`{"a":{"b":1,"c":"x"},"arr":[1,2]}`, `{"a":{"b":0},"d":[{"e":1}],"f":1.5}`}, ""},
	} {
		c, err := columns.New(tc.typ)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range tc.vals {
			if err := c.AppendValue(v); err != nil {
				t.Fatalf("%s: AppendValue(%v): %v", tc.typ, v, err)
			}
		}
		want := make([]any, c.Rows())
		for j := range want {
			want[j] = vdjNormalize(c.Value(j))
		}
		path := filepath.Join(dir, fmt.Sprintf("vdj%d.native", i))
		if err := os.WriteFile(path, vdjBlock("c", c), 0o644); err != nil {
			t.Fatal(err)
		}
		from := fmt.Sprintf("FROM file('%s', Native, 'c %s')", path, strings.ReplaceAll(tc.typ, "'", "\\'"))
		if tc.tsv != "" {
			got, err := e.Query("SELECT c "+from, "TabSeparated")
			if err != nil {
				t.Fatalf("%s: chDB reading our bytes: %v", tc.typ, err)
			}
			if string(got) != tc.tsv {
				t.Errorf("%s: chDB read\n%s\nwant\n%s", tc.typ, got, tc.tsv)
			}
		}
		for _, s := range settings {
			out, err := e.Query("SELECT c "+from+s, "Native")
			if err != nil {
				t.Fatalf("%s: chDB reading our bytes: %v", tc.typ, err)
			}
			back := vdjRead(t, out)
			if back.Rows() != len(want) {
				t.Fatalf("%s%s: %d rows back", tc.typ, s, back.Rows())
			}
			for j := range want {
				if got := vdjNormalize(back.Value(j)); !reflect.DeepEqual(got, want[j]) {
					t.Errorf("%s%s: row %d: got %#v, want %#v", tc.typ, s, j, got, want[j])
				}
			}
		}
	}
}
