package chdb

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if err := CloseShared(); err != nil {
		println("chdb: CloseShared:", err.Error())
	}
	os.Exit(code)
}

func query(t *testing.T, e *Engine, sql, format string) []byte {
	t.Helper()
	out, err := e.Query(sql, format)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

func TestVersion(t *testing.T) {
	e := ForTest(t)
	v := strings.TrimSpace(string(query(t, e, "SELECT version()", "TabSeparated")))
	if !strings.HasPrefix(v, "26.7.") {
		t.Fatalf("SELECT version() = %q, want 26.7.x", v)
	}
	if lv := e.Version(); !strings.HasPrefix(lv, "26.7.") {
		t.Fatalf("chdb_version() = %q, want 26.7.x", lv)
	}
	t.Logf("engine %s, library %s, data dir %s", v, e.Version(), e.Dir())
}

func TestNativeUInt8(t *testing.T) {
	e := ForTest(t)
	got := query(t, e, "SELECT 1::UInt8 AS x FORMAT Native", "")
	want := []byte{
		0x01,      // UVarInt: 1 column
		0x01,      // UVarInt: 1 row
		0x01, 'x', // String: column name
		0x05, 'U', 'I', 'n', 't', '8', // String: column type
		0x01, // data: one UInt8
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("got\n%swant\n%s", hex.Dump(got), hex.Dump(want))
	}
	// The format argument is used when the query has no FORMAT clause.
	got = query(t, e, "SELECT 1::UInt8 AS x", "Native")
	if !bytes.Equal(got, want) {
		t.Fatalf("format arg: got\n%s", hex.Dump(got))
	}
}

func TestQueryError(t *testing.T) {
	e := ForTest(t)
	out, err := e.Query("SELEC 1", "TabSeparated")
	if err == nil {
		t.Fatalf("no error, output %q", out)
	}
	var ce *Error
	if !errors.As(err, &ce) {
		t.Fatalf("error %T is not *chdb.Error: %v", err, err)
	}
	if !strings.Contains(ce.Message, "Code: 62") || !strings.Contains(ce.Message, "SYNTAX_ERROR") {
		t.Fatalf("unexpected message: %s", ce.Message)
	}
	_, err = e.Query("SELECT * FROM no_such_table_xyz", "TabSeparated")
	if err == nil || !strings.Contains(err.Error(), "UNKNOWN_TABLE") {
		t.Fatalf("want UNKNOWN_TABLE, got %v", err)
	}
	// The engine stays usable after errors.
	if v := query(t, e, "SELECT 2+2", "TSV"); string(v) != "4\n" {
		t.Fatalf("after error: %q", v)
	}
}

// nativeBlock is a minimal Native-format encoder for the test.
type nativeBlock struct{ bytes.Buffer }

func (b *nativeBlock) uvarint(v uint64) { b.Write(binary.AppendUvarint(nil, v)) }
func (b *nativeBlock) str(s string)     { b.uvarint(uint64(len(s))); b.WriteString(s) }

func TestReadNativeFileAbsolutePath(t *testing.T) {
	e := ForTest(t)
	var b nativeBlock
	b.uvarint(3) // columns
	b.uvarint(3) // rows
	b.str("x")
	b.str("UInt8")
	b.Write([]byte{1, 2, 3})
	b.str("s")
	b.str("String")
	for _, s := range []string{"a", "bc", ""} {
		b.str(s)
	}
	b.str("n")
	b.str("Nullable(Int32)")
	b.Write([]byte{0, 1, 0}) // null map
	for _, v := range []int32{5, 0, -1} {
		b.Write(binary.LittleEndian.AppendUint32(nil, uint32(v)))
	}
	path := filepath.Join(t.TempDir(), "block.native")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	lit := "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(path) + "'"

	got := string(query(t, e, "SELECT * FROM file("+lit+", Native)", "TSV"))
	if want := "1\ta\t5\n2\tbc\t\\N\n3\t\t-1\n"; got != want {
		t.Fatalf("TSV: got %q want %q", got, want)
	}
	got = string(query(t, e, "DESCRIBE file("+lit+", Native)", "TSV"))
	if !strings.Contains(got, "x\tUInt8") || !strings.Contains(got, "n\tNullable(Int32)") {
		t.Fatalf("DESCRIBE: %q", got)
	}
	// Round trip: ClickHouse re-encodes the block byte-for-byte.
	if rt := query(t, e, "SELECT * FROM file("+lit+", Native)", "Native"); !bytes.Equal(rt, b.Bytes()) {
		t.Fatalf("round trip differs:\n%s\nwant\n%s", hex.Dump(rt), hex.Dump(b.Bytes()))
	}
}

// TestNativeEncodings pins what chDB's FORMAT Native emits for types whose
// encoding depends on protocol revision / settings. FORMAT Native is written
// with client revision 0: no BlockInfo, no per-column serialization-kind
// byte, and the V1 ("legacy") Dynamic/JSON serialization.
func TestNativeEncodings(t *testing.T) {
	e := ForTest(t)
	cases := []struct{ name, sql, hex string }{
		{"Dynamic/V1", "SELECT toInt64(7)::Dynamic AS d",
			"010101640744796e616d6963" +
				"0100000000000000" + // Dynamic serialization version 1 (V1)
				"01" + "01" + // V1: max_dynamic_types (= number of types), number of types
				"05496e743634" + // "Int64"
				"0000000000000000" + // Variant discriminators mode (0 = BASIC)
				"00" + // discriminator: Variant(Int64, SharedVariant) -> 0
				"0700000000000000"},
		{"Dynamic/flattened", "SELECT toInt64(7)::Dynamic AS d SETTINGS output_format_native_use_flattened_dynamic_and_json_serialization=1",
			"010101640744796e616d6963" +
				"0300000000000000" + // version 3 (FLATTENED)
				"01" + "05496e743634" + // number of types, "Int64"
				"00" + // type index (UInt8); NULL = number of types
				"0700000000000000"},
		{"Variant", "SELECT arrayJoin([1::Variant(UInt8, String), NULL]) AS v",
			"010201761656617269616e7428537472696e672c2055496e743829" + // Variant(String, UInt8)
				"0000000000000000" + // discriminators mode BASIC
				"01ff" + // discriminators: UInt8=1, NULL=255
				"01"},
		{"JSON/V1", `SELECT '{"a":1}'::JSON AS j`,
			"0101016a044a534f4e" +
				"0000000000000000" + // Object serialization version 0 (V1)
				"01" + "01" + "0161" + // max_dynamic_paths (= count), count, path "a"
				"0100000000000000" + "01" + "01" + "05496e743634" + "0000000000000000" + // Dynamic V1 prefix of "a"
				"00" + "0100000000000000" + // "a": discriminator Int64, value 1
				"0000000000000000"}, // shared data: Array offsets
		{"JSON/string", `SELECT '{"a":1}'::JSON AS j SETTINGS output_format_native_write_json_as_string=1`,
			"0101016a044a534f4e" + "0100000000000000" + "077b2261223a317d"},
		{"JSON/flattened", `SELECT '{"a":1}'::JSON AS j SETTINGS output_format_native_use_flattened_dynamic_and_json_serialization=1`,
			"0101016a044a534f4e" + "0300000000000000" + "01" + "0161" +
				"0300000000000000" + "01" + "05496e743634" + "00" + "0100000000000000"},
		{"QBit", "SELECT [1,2,3]::QBit(Float32, 3) AS q",
			"01010171105142697428466c6f617433322c203329" +
				// 32 bit planes (FixedString(1) each), MSB first, element i = bit i
				"0006010101010101010400000000000000000000000000000000000000000000"},
		{"types in binary", "SELECT 1::UInt8 AS x SETTINGS output_format_native_encode_types_in_binary_format=1",
			"010101780101"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := query(t, e, c.sql, "Native")
			want, err := hex.DecodeString(c.hex)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s\ngot\n%swant\n%s", c.sql, hex.Dump(got), hex.Dump(want))
			}
		})
	}
}

// TestGoRuntimeSignals checks that loading chDB left the Go runtime's signal
// handling intact: a nil dereference is still a recoverable Go panic.
func TestGoRuntimeSignals(t *testing.T) {
	ForTest(t)
	defer func() {
		if recover() == nil {
			t.Fatal("expected panic")
		}
	}()
	var p *int
	_ = *p
}

// TestReopen runs in a child process (the shared engine is open here): Open,
// Close, Open again with a fresh data dir works; a second concurrent Open is
// refused.
func TestReopen(t *testing.T) {
	if os.Getenv("CHNATIVE_CHDB_CHILD") == "" {
		ForTest(t) // skip/fail consistently
		cmd := exec.Command(os.Args[0], "-test.run=^TestReopen$", "-test.v")
		cmd.Env = append(os.Environ(), "CHNATIVE_CHDB_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("--- PASS: TestReopen")) {
			t.Fatalf("child: %v\n%s", err, out)
		}
		return
	}
	for i := 0; i < 2; i++ {
		e, err := Open("")
		if err != nil {
			t.Fatal(i, err)
		}
		if _, err := Open(""); err == nil {
			t.Fatal("second concurrent Open succeeded")
		}
		// A fresh data dir each time: CREATE without IF NOT EXISTS succeeds.
		query(t, e, "CREATE TABLE t (x UInt8) ENGINE = MergeTree ORDER BY x; INSERT INTO t VALUES (1), (2)", "")
		if got := string(query(t, e, "SELECT sum(x) FROM t", "TSV")); got != "3\n" {
			t.Fatalf("sum = %q", got)
		}
		dir := e.Dir()
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Fatalf("data dir %s not removed: %v", dir, err)
		}
		if _, err := e.Query("SELECT 1", "TSV"); err == nil {
			t.Fatal("query on closed engine succeeded")
		}
	}
}
