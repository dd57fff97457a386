package nativeproto

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/wire"
)

// The captures in testdata/modern are everything ClickHouse 26.7.2 (chDB 26.7.3 run by
// scripts/modern.sh) sent after a Query packet to a raw client that advertised the revision in
// the file name, with compression off: Data, Progress, ProfileInfo, ProfileEvents and
// EndOfStream packets. The table (one part, 40 rows, every 7th row holding values, so every
// column that can be sparse is):
//
//	CREATE TABLE sparse_types (id UInt32, i8 Int8, ..., zero UInt64, head UInt64) ENGINE = MergeTree
//	ORDER BY id SETTINGS ratio_of_defaults_for_sparse_serialization = 0.5,
//	nullable_serialization_version = 'allow_sparse'
//
// (the full statements are sparseTypesDDL and sparseTypesInsert in the root package's
// sparse_server_test.go, which runs the same table against the live server). The queries:
//
//	sparse_types_R:  SELECT * FROM sparse_types SETTINGS max_threads = 1
//	sparse_head_R:   SELECT * FROM sparse_types WHERE id < 5 SETTINGS max_threads = 1
//	                 (head has no default row in that block, zero only defaults)
//	replicated_R:    SELECT id, s, ns, t, tu, arr, an, lc, m, pt, dyn, j, v, uuid, fs, u256, n, x
//	                 FROM sparse_types ARRAY JOIN [1, 2] AS x WHERE id < 8
//	                 SETTINGS max_threads = 1, enable_lazy_columns_replication = 1
//	dynamic_json_R:  Dynamic, Dynamic(max_types=1) (with a SharedVariant), JSON(t UInt32,
//	                 max_dynamic_paths=2) (typed, dynamic and shared-data paths), JSON and
//	                 Array(JSON) over numbers(6): V1 structures at 54472, V2 from 54473.
//
// Revision 54460 (no custom serialization), 54481 (no replicated) and 54472 (V1 Dynamic/JSON)
// are the references the other revisions must decode to the same values.

// capturedBlock is one Data block of a capture, its values rendered for comparison.
type capturedBlock struct {
	names, types []string
	sers         []string // Block.Serialization(i).String(), "" for the type's own encoding
	rows         [][]string
	raw          []byte // the block's bytes (after the table name)
}

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// readCapture decodes the Data blocks with rows of a capture at revision rev.
func readCapture(t testing.TB, name string, rev Revision) []capturedBlock {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "modern", name))
	if err != nil {
		t.Fatal(err)
	}
	cr := &countingReader{r: bytes.NewReader(data)}
	p := NewPacketReader(cr)
	p.SetRevision(rev)
	var out []capturedBlock
	reuse := NewBlock()
	for {
		code, err := p.ReadCode()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		start := cr.n - p.Buffered()
		switch code {
		case ServerCodeData:
			_, b, err := p.ReadBlock(reuse)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if b.Rows() == 0 {
				continue
			}
			cb := capturedBlock{raw: data[start+1 : cr.n-p.Buffered()]}
			for i := range b.NumColumns() {
				cb.names = append(cb.names, b.Name(i))
				cb.types = append(cb.types, b.Type(i))
				s := ""
				if ser := b.Serialization(i); ser != nil {
					s = ser.String()
				}
				cb.sers = append(cb.sers, s)
			}
			for r := range b.Rows() {
				var row []string
				for i := range b.NumColumns() {
					row = append(row, render(b.Column(i).Value(r)))
				}
				cb.rows = append(cb.rows, row)
			}
			out = append(out, cb)
		case ServerCodeProfileEvents, ServerCodeLog:
			if _, _, err := p.ReadLogBlock(nil); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		case ServerCodeEndOfStream:
			return out
		case ServerCodeException:
			e, _ := p.ReadException()
			t.Fatalf("%s: exception %v", name, e)
		default:
			if err := p.SkipPacket(code); err != nil {
				t.Fatalf("%s: packet %d: %v", name, code, err)
			}
		}
	}
}

// render formats a decoded value deeply (through pointers, slices and maps) for comparison.
func render(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case time.Time:
		return x.Format(time.RFC3339Nano) + " " + x.Location().String()
	case *big.Int:
		return x.String()
	}
	rv := reflect.ValueOf(v)
	if s, ok := v.(fmt.Stringer); ok && rv.Kind() == reflect.Struct {
		return fmt.Sprintf("%T(%s)", v, s.String())
	}
	switch rv.Kind() {
	case reflect.Pointer:
		if rv.IsNil() {
			return "NULL"
		}
		return render(rv.Elem().Interface())
	case reflect.Slice, reflect.Array:
		if rv.Type().Elem().Kind() == reflect.Uint8 && rv.Kind() == reflect.Slice {
			return fmt.Sprintf("%q", rv.Bytes())
		}
		parts := make([]string, rv.Len())
		for i := range parts {
			parts[i] = render(rv.Index(i).Interface())
		}
		return "[" + strings.Join(parts, " ") + "]"
	case reflect.Map:
		var parts []string
		for _, k := range rv.MapKeys() {
			parts = append(parts, render(k.Interface())+":"+render(rv.MapIndex(k).Interface()))
		}
		sort.Strings(parts)
		return "{" + strings.Join(parts, " ") + "}"
	case reflect.Struct:
		parts := make([]string, rv.NumField())
		for i := range parts {
			if rv.Type().Field(i).IsExported() {
				parts[i] = render(rv.Field(i).Interface())
			}
		}
		return rv.Type().Name() + "{" + strings.Join(parts, " ") + "}"
	}
	return fmt.Sprintf("%T(%v)", v, v)
}

// sameBlocks fails unless got holds the names, types and values of want.
func sameBlocks(t *testing.T, what string, got, want []capturedBlock) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d blocks, want %d", what, len(got), len(want))
	}
	for k := range want {
		g, w := got[k], want[k]
		if !slices.Equal(g.names, w.names) || !slices.Equal(g.types, w.types) {
			t.Fatalf("%s: block %d: columns %v %v, want %v %v", what, k, g.names, g.types, w.names, w.types)
		}
		if len(g.rows) != len(w.rows) {
			t.Fatalf("%s: block %d: %d rows, want %d", what, k, len(g.rows), len(w.rows))
		}
		for r := range w.rows {
			for i := range w.names {
				if g.rows[r][i] != w.rows[r][i] {
					t.Errorf("%s: block %d row %d column %s (%s): %s, want %s", what, k, r, w.names[i], g.sers[i], g.rows[r][i], w.rows[r][i])
				}
			}
		}
	}
}

// serOf returns the serialization of column name in block b.
func serOf(t *testing.T, b capturedBlock, name string) string {
	t.Helper()
	i := slices.Index(b.names, name)
	if i < 0 {
		t.Fatalf("no column %s", name)
	}
	return b.sers[i]
}

// valueOf returns the rendered value of column name in row r of b.
func valueOf(t *testing.T, b capturedBlock, r int, name string) string {
	t.Helper()
	i := slices.Index(b.names, name)
	if i < 0 {
		t.Fatalf("no column %s", name)
	}
	return b.rows[r][i]
}

// sparseColumns26 are the columns of sparse_types the 26.7 server sends sparse (as
// system.parts_columns reports them: every scalar, Nullable of scalars, SimpleAggregateFunction;
// Tuple and Point have sparse elements; Array, Map, LowCardinality, Variant, Dynamic and JSON are
// never sparse).
var sparseColumns26 = []string{"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "i128", "u128", "i256", "u256",
	"f32", "f64", "bf", "b", "s", "fs", "d", "d32", "dt", "dtz", "dt64", "dt64z", "dec32", "dec64", "dec128", "dec256",
	"uuid", "ip4", "ip6", "e8", "e16", "tm", "tm64", "iv", "n", "ns", "nfs", "nd", "ndec", "nu", "ne", "sagg", "saggn", "zero", "head"}

func TestSparseCaptures(t *testing.T) {
	for _, q := range []string{"sparse_types", "sparse_head"} {
		ref := readCapture(t, q+"_54460.raw", 54460)
		for _, b := range ref {
			for i, s := range b.sers {
				if s != "" {
					t.Fatalf("%s at 54460: column %s arrived %s", q, b.names[i], s)
				}
			}
		}
		for _, rev := range []Revision{54465, 54483} {
			got := readCapture(t, fmt.Sprintf("%s_%d.raw", q, rev), rev)
			sameBlocks(t, fmt.Sprintf("%s at %d", q, rev), got, ref)
			b := got[0]
			for _, name := range sparseColumns26 {
				want := "Sparse"
				// Below 54483 the server converts Nullable columns to full ones (not the
				// Nullable elements of a Tuple).
				if rev < RevNullableSparseSerialization && (strings.HasPrefix(b.types[slices.Index(b.names, name)], "Nullable(") || name == "saggn") {
					want = ""
				}
				if got := serOf(t, b, name); got != want {
					t.Errorf("%s at %d: column %s arrived %q, want %q", q, rev, name, got, want)
				}
			}
			for name, want := range map[string]string{
				"t": "Default(Default, Sparse, Default(Sparse, Sparse))", "tu": "Default(Sparse, Sparse)",
				"pt": "Default(Sparse, Sparse)", "id": "", "arr": "", "an": "", "lc": "", "lcn": "", "m": "", "v": "", "dyn": "", "j": "",
			} {
				if got := serOf(t, b, name); got != want {
					t.Errorf("%s at %d: column %s arrived %q, want %q", q, rev, name, got, want)
				}
			}
		}
	}
	// Spot checks of the decoded values, independent of the reference capture.
	b := readCapture(t, "sparse_types_54483.raw", 54483)[0]
	for _, c := range []struct {
		row        int
		name, want string
	}{
		{3, "i8", "int8(-3)"}, {2, "i8", "int8(0)"}, {10, "i64", "int64(-50000000000)"},
		{3, "u128", "340282366920938463463374607431768211455"}, {3, "i128", "-170141183460469231731687303715884105728"},
		{3, "s", `string(str3)`}, {4, "s", `string()`}, {3, "fs", `string(fs3` + "\x00\x00" + `)`},
		{3, "n", "int32(3)"}, {4, "n", "NULL"}, {3, "ns", "string(n3)"}, {10, "ns", "string()"}, {11, "ns", "NULL"},
		{3, "e8", "string(c)"}, {4, "e8", "string(a)"}, {10, "e8", "string(b)"},
		{3, "t", "[string() int64(-3) [float32(1.5) string()]]"}, {6, "t", "[string(lc) NULL [float32(0) string()]]"}, {4, "t", "[string() NULL [float32(0) string(e)]]"},
		{3, "pt", "Point{float64(3.5) float64(-1.5)}"}, {3, "saggn", "string(a)"}, {5, "saggn", "NULL"},
		{3, "ip6", "netip.Addr(2001:db8::3)"}, {3, "uuid", "string(01234567-89ab-cdef-0123-000000000003)"},
		{3, "dt64z", "2024-01-01T22:04:08.678901-05:00 America/New_York"}, {0, "head", "uint64(1)"}, {39, "zero", "uint64(0)"},
	} {
		if got := valueOf(t, b, c.row, c.name); got != c.want {
			t.Errorf("row %d %s: %s, want %s", c.row, c.name, got, c.want)
		}
	}
	if len(b.rows) != 40 {
		t.Fatalf("%d rows", len(b.rows))
	}
}

func TestReplicatedCaptures(t *testing.T) {
	ref := readCapture(t, "replicated_54481.raw", 54481)
	got := readCapture(t, "replicated_54483.raw", 54483)
	sameBlocks(t, "replicated at 54483", got, ref)
	want := map[string]string{
		"id": "", "s": "Sparse/Replicated", "ns": "Sparse/Replicated", "t": "Replicated(Default, Sparse, Default(Sparse, Sparse))",
		"tu": "Replicated(Sparse, Sparse)", "arr": "Replicated", "an": "Replicated", "lc": "", "m": "Replicated",
		"pt": "Replicated(Sparse, Sparse)", "dyn": "Replicated", "j": "Replicated", "v": "Replicated",
		"uuid": "Sparse/Replicated", "fs": "Sparse/Replicated", "u256": "Sparse/Replicated", "n": "Sparse/Replicated", "x": "",
	}
	for name, w := range want {
		if g := serOf(t, got[0], name); g != w {
			t.Errorf("column %s arrived %q, want %q", name, g, w)
		}
	}
	// Below 54482 the server converts replicated columns to full ones, leaving sparse ones.
	if g := serOf(t, ref[0], "s"); g != "Sparse" {
		t.Errorf("at 54481 column s arrived %q, want Sparse", g)
	}
	if g := valueOf(t, got[0], 7, "s"); g != "string(str3)" {
		t.Errorf("row 7 s: %s", g)
	}
}

func TestDynamicJSONV2Captures(t *testing.T) {
	ref := readCapture(t, "dynamic_json_54472.raw", 54472)
	for _, rev := range []Revision{54473, 54483} {
		got := readCapture(t, fmt.Sprintf("dynamic_json_%d.raw", rev), rev)
		sameBlocks(t, fmt.Sprintf("dynamic_json at %d", rev), got, ref)
		// The capture really holds V2 structures: version 2 right after the Dynamic column's
		// type and has_custom byte, and after the JSON column's.
		for _, c := range []struct{ typ, ver string }{
			{"\x07Dynamic\x00", "\x02\x00\x00\x00\x00\x00\x00\x00"},
			{"\x23JSON(max_dynamic_paths=2, t UInt32)\x00", "\x02\x00\x00\x00\x00\x00\x00\x00"},
		} {
			if !bytes.Contains(got[0].raw, []byte(c.typ+c.ver)) {
				t.Errorf("at %d: no V2 structure after %q", rev, c.typ)
			}
		}
	}
	if !bytes.Contains(ref[0].raw, []byte("\x07Dynamic\x00\x01\x00\x00\x00\x00\x00\x00\x00")) {
		t.Error("at 54472: no V1 Dynamic structure")
	}
	b := ref[0]
	for _, c := range []struct {
		row        int
		name, want string
	}{
		{2, "d", "DynamicValue{string(Array(UInt64)) [uint64(2) uint64(1)]}"}, {3, "d", "NULL"},
		{2, "d1", "DynamicValue{string(Date) 2024-01-03T00:00:00Z UTC}"},
		{1, "j", `string({"a":1,"b":{"c":"x1"},"k1":[1,2.5],"t":10})`}, {5, "aj", `[string({"x":5})]`},
	} {
		if got := valueOf(t, b, c.row, c.name); got != c.want {
			t.Errorf("row %d %s: %s, want %s", c.row, c.name, got, c.want)
		}
	}
}

// TestBlockCustomSerialization decodes hand-built blocks with custom serializations and checks
// the errors of malformed ones.
func TestBlockCustomSerialization(t *testing.T) {
	// A sparse UInt8 (rows 1 and 2 of 3 hold 5 and 6) and a String in its own encoding.
	raw := unhex(t, `01 00 02 ffffffff 00 02 03 01 "x" 05 "UInt8" 01 01 01 00 80 80 80 80 80 80 80 80 40 05 06 01 "s" 06 "String" 00 00 01 61 00`)
	b, err := ReadBlock(wire.NewBytesReader(raw), 54483, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(b.Column(0).Value(0), b.Column(0).Value(1), b.Column(0).Value(2)); got != "0 5 6" {
		t.Fatalf("sparse column: %s", got)
	}
	if s := b.Serialization(0); s == nil || s.String() != "Sparse" {
		t.Fatalf("Serialization(0) = %v", s)
	}
	if s := b.Serialization(1); s != nil {
		t.Fatalf("Serialization(1) = %v", s)
	}
	// Decoding again into the block reuses the Serialization and its scratch memory.
	s0 := b.Serialization(0)
	if _, err := ReadBlock(wire.NewBytesReader(raw), 54483, true, b); err != nil || b.Serialization(0) != s0 {
		t.Fatalf("reuse: %v", err)
	}
	// It allocates no more than decoding the same values in their own encoding (ReadBlock's
	// name buffer is its one allocation).
	allocs := func(raw []byte) float64 {
		b, _ := ReadBlock(wire.NewBytesReader(raw), 54483, true, nil)
		r := wire.NewBytesReader(nil)
		return testing.AllocsPerRun(20, func() {
			r.ResetBytes(raw)
			if _, err := ReadBlock(r, 54483, true, b); err != nil {
				t.Fatal(err)
			}
		})
	}
	full := unhex(t, `01 00 02 ffffffff 00 02 03 01 "x" 05 "UInt8" 00 00 05 06 01 "s" 06 "String" 00 00 01 61 00`)
	if n, base := allocs(raw), allocs(full); n > base {
		t.Errorf("%v allocations per reused sparse decode, %v in the own encoding", n, base)
	}
	// A block where the same column comes in its own encoding: Serialization is nil again.
	plain := unhex(t, `01 00 02 ffffffff 00 01 02 01 "x" 05 "UInt8" 00 07 08`)
	if _, err := ReadBlock(wire.NewBytesReader(plain), 54483, true, b); err != nil || b.Serialization(0) != nil || b.Column(0).Value(1) != uint8(8) {
		t.Fatalf("plain after sparse: %v %v", err, b.Serialization(0))
	}
	// A header block (no rows) carries the kinds but no data.
	hdr := unhex(t, `01 00 02 ffffffff 00 01 00 01 "t" 14 "Tuple(UInt8, String)" 01 00 01 01`)
	if b, err := ReadBlock(wire.NewBytesReader(hdr), 54483, true, nil); err != nil || b.NumColumns() != 1 || b.Rows() != 0 {
		t.Fatalf("header: %v", err)
	}
	// has_custom = 0 with all-default kinds after it is not how servers write it, but the stacks
	// they write for an all-default tuple (has_custom = 1, then zeros) decode as the own encoding.
	allDef := unhex(t, `01 00 02 ffffffff 00 01 01 01 "t" 14 "Tuple(UInt8, String)" 01 00 00 00 07 01 61`)
	if b, err := ReadBlock(wire.NewBytesReader(allDef), 54483, true, nil); err != nil || b.Serialization(0) != nil || render(b.Column(0).Value(0)) != "[uint8(7) string(a)]" {
		t.Fatalf("all-default tuple: %v", err)
	}

	var pe *ProtocolError
	var de *columns.DecodeError
	for _, c := range []struct {
		name, raw string
		want      string
	}{
		{"has_custom 2", `01 00 02 ffffffff 00 01 01 01 "x" 05 "UInt8" 02 05`, "has_custom_serialization byte 2"},
		{"detached", `01 00 02 ffffffff 00 01 01 01 "x" 05 "UInt8" 01 02 05`, "Detached"},
		{"no kinds", `01 00 02 ffffffff 00 01 01 01 "x" 05 "UInt8" 01`, "unexpected EOF"},
		{"offsets past the rows", `01 00 02 ffffffff 00 01 02 01 "x" 05 "UInt8" 01 01 05 80 80 80 80 80 80 80 40 05`, "pass the block's 2 rows"},
		{"data cut", `01 00 02 ffffffff 00 01 02 01 "x" 05 "UInt8" 01 01 00 81 80 80 80 80 80 80 80 40`, "unexpected EOF"},
	} {
		_, err := ReadBlock(wire.NewBytesReader(unhex(t, c.raw)), 54483, true, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &pe) && !errors.As(err, &de) {
			t.Errorf("%s: %T %v, want an error containing %q", c.name, err, err, c.want)
		}
	}
}

// FuzzReadBlockCustom decodes one protocol block at revision 54483 from arbitrary bytes (seeded
// with the blocks of the 26.7 captures): it must never panic, and what decodes re-encodes in the
// columns' own encodings to a block that decodes to the same values.
func FuzzReadBlockCustom(f *testing.F) {
	for _, name := range []string{"sparse_head_54483.raw", "replicated_54483.raw", "dynamic_json_54483.raw"} {
		for _, b := range readCapture(f, name, 54483) {
			f.Add(b.raw)
		}
	}
	f.Add(unhex(f, `01 00 02 ffffffff 00 02 03 01 "x" 05 "UInt8" 01 01 01 00 80 80 80 80 80 80 80 80 40 05 06 01 "s" 06 "String" 04 03 01 00 01 01 02 01 61 01 62`))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := ReadBlock(wire.NewBytesReader(data), 54483, true, nil)
		if err != nil {
			return
		}
		var w wire.Writer
		if err := WriteBlock(&w, 54483, true, b); err != nil {
			t.Fatalf("re-encoding a decoded block: %v", err)
		}
		d, err := ReadBlock(wire.NewBytesReader(w.Buf), 54483, true, nil)
		if err != nil {
			t.Fatalf("decoding a re-encoded block: %v", err)
		}
		for i := range b.NumColumns() {
			for r := range b.Rows() {
				if x, y := render(b.Column(i).Value(r)), render(d.Column(i).Value(r)); x != y {
					t.Fatalf("column %s row %d: %s became %s", b.Name(i), r, x, y)
				}
			}
		}
	})
}
