package chnative

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/netip"
	"net/url"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/testenv"
	"github.com/chnative/chnative/nativeproto"
)

// Real-server tests of the column serializations a 26.7 server sends to clients that advertise
// revisions above 54460: sparse columns (54465; Nullable ones from 54483), replicated columns
// (54482) and the V2 Dynamic/JSON structures (54473). Every result is read at the revision under
// test and at a reference revision the server answers in the types' own encodings, through
// QueryBlocks (where Block.Serialization shows what arrived), database/sql rows (Scan into any,
// and into typed values: on Go 1.27 that is ScanColumn), and compared with the server's own text
// (HTTP).

// sparseTypesDDL is a MergeTree table with one column of each type that can be sparse, and a few
// that cannot; every 7th row of sparseTypesInsert holds values, so the part stores every column
// that can be sparse as sparse. nativeproto/testdata/modern holds captures of this table.
const sparseTypesDDL = `CREATE TABLE {table} (
  id UInt32,
  i8 Int8, i16 Int16, i32 Int32, i64 Int64, u8 UInt8, u16 UInt16, u32 UInt32, u64 UInt64,
  i128 Int128, u128 UInt128, i256 Int256, u256 UInt256,
  f32 Float32, f64 Float64, bf BFloat16, b Bool,
  s String, fs FixedString(5),
  d Date, d32 Date32, dt DateTime, dtz DateTime('Asia/Tokyo'), dt64 DateTime64(3), dt64z DateTime64(6, 'America/New_York'),
  dec32 Decimal(9, 2), dec64 Decimal(18, 4), dec128 Decimal(38, 10), dec256 Decimal(76, 20),
  uuid UUID, ip4 IPv4, ip6 IPv6, e8 Enum8('a' = 0, 'b' = 1, 'c' = -5), e16 Enum16('x' = 0, 'y' = 1000),
  tm Time, tm64 Time64(3), iv IntervalDay,
  n Nullable(Int32), ns Nullable(String), nfs Nullable(FixedString(2)), nd Nullable(Date),
  ndec Nullable(Decimal(18, 3)), nu Nullable(UUID), ne Nullable(Enum8('p' = 1, 'q' = 2)),
  t Tuple(a LowCardinality(String), b Nullable(Int64), c Tuple(d Float32, e String)),
  tu Tuple(UInt8, String),
  arr Array(Int32), an Array(Nullable(String)), lc LowCardinality(String), lcn LowCardinality(Nullable(String)),
  m Map(String, UInt64), pt Point,
  sagg SimpleAggregateFunction(sum, UInt64), saggn SimpleAggregateFunction(anyLast, Nullable(String)),
  v Variant(UInt32, String), dyn Dynamic, j JSON, zero UInt64, head UInt64
) ENGINE = MergeTree ORDER BY id
SETTINGS ratio_of_defaults_for_sparse_serialization = 0.5, nullable_serialization_version = 'allow_sparse'`

const sparseTypesInsert = `INSERT INTO {table} SELECT
  number,
  if(number % 7 = 3, -number, 0), if(number % 7 = 3, -300 * number, 0), if(number % 7 = 3, -70000 * number, 0), if(number % 7 = 3, -5000000000 * number, 0),
  if(number % 7 = 3, number, 0), if(number % 7 = 3, 60000, 0), if(number % 7 = 3, 4000000000, 0), if(number % 7 = 3, 18000000000000000000, 0),
  if(number % 7 = 3, toInt128('-170141183460469231731687303715884105728'), 0), if(number % 7 = 3, toUInt128('340282366920938463463374607431768211455'), 0),
  if(number % 7 = 3, toInt256(-number) * toInt256('1000000000000000000000000000000'), 0), if(number % 7 = 3, toUInt256(number) * toUInt256('1000000000000000000000000000000'), 0),
  if(number % 7 = 3, number + 0.5, 0), if(number % 7 = 3, -number - 0.25, 0), if(number % 7 = 3, toBFloat16(number * 2), 0), number % 7 = 3,
  if(number % 7 = 3, 'str' || toString(number), ''), if(number % 7 = 3, 'fs' || toString(number), ''),
  if(number % 7 = 3, toDate('2024-02-29') + number, toDate(0)), if(number % 7 = 3, toDate32('1925-06-01') + number, toDate32(0)),
  if(number % 7 = 3, toDateTime('2024-01-02 03:04:05', 'UTC') + number, toDateTime(0, 'UTC')),
  if(number % 7 = 3, toDateTime('2024-01-02 03:04:05', 'UTC') + number, toDateTime(0, 'UTC')),
  if(number % 7 = 3, toDateTime64('2024-01-02 03:04:05.678', 3, 'UTC') + number, toDateTime64(0, 3, 'UTC')),
  if(number % 7 = 3, toDateTime64('2024-01-02 03:04:05.678901', 6, 'UTC') + number, toDateTime64(0, 6, 'UTC')),
  if(number % 7 = 3, toDecimal32(number, 2) / 4, 0), if(number % 7 = 3, toDecimal64(-number, 4) / 8, 0),
  if(number % 7 = 3, toDecimal128(number, 10) / 3, 0), if(number % 7 = 3, toDecimal256(-number, 20) / 7, 0),
  if(number % 7 = 3, toUUID('01234567-89ab-cdef-0123-' || leftPad(toString(number), 12, '0')), toUUID('00000000-0000-0000-0000-000000000000')),
  if(number % 7 = 3, toIPv4('10.0.0.' || toString(number)), toIPv4('0.0.0.0')), if(number % 7 = 3, toIPv6('2001:db8::' || toString(number)), toIPv6('::')),
  if(number % 7 = 3, if(number % 2 = 0, 'b', 'c'), 'a'), if(number % 7 = 3, 'y', 'x'),
  if(number % 7 = 3, number * 3600 + 5, 0), if(number % 7 = 3, number * 3600 + 5.125, 0), if(number % 7 = 3, number, 0),
  if(number % 7 = 3, number, NULL), if(number % 7 = 3, if(number % 2 = 0, '', 'n' || toString(number)), NULL), if(number % 7 = 3, 'ab', NULL),
  if(number % 7 = 3, toDate('2000-01-01') + number, NULL), if(number % 7 = 3, toDecimal64(number, 3) / 2, NULL),
  if(number % 7 = 3, toUUID('ffffffff-0000-0000-0000-' || leftPad(toString(number), 12, '0')), NULL), if(number % 7 = 3, 'q', NULL),
  (if(number % 5 = 1, 'lc', ''), if(number % 7 = 3, -number, NULL), (if(number % 7 = 3, number / 2, 0), if(number % 7 = 4, 'e', ''))),
  (if(number % 7 = 3, number, 0), if(number % 7 = 3, 's', '')),
  if(number % 7 = 3, [1, 2, number], []), if(number % 7 = 3, ['a', NULL], []), if(number % 7 = 3, 'l', ''), if(number % 7 = 3, 'l', NULL),
  if(number % 7 = 3, map('k', number), map()), if(number % 7 = 3, (number + 0.5, -1.5), (0, 0)),
  if(number % 7 = 3, number, 0), if(number % 7 = 3, 'a', NULL),
  if(number % 7 = 3, number::UInt32, NULL), if(number % 7 = 3, number::Int64, NULL), if(number % 7 = 3, '{"a":' || toString(number) || '}', '{}'),
  0, if(number < 5, number + 1, 0)
FROM numbers(40)`

// onTable puts table into a statement for {table}.
func onTable(stmt, table string) string { return strings.ReplaceAll(stmt, "{table}", table) }

// sparseTypesSparse are the columns 26.7 stores sparse in that table (measured: system.parts_columns),
// and sparseTypesTuples those whose elements it stores sparse.
var (
	sparseTypesSparse = []string{"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "i128", "u128", "i256", "u256",
		"f32", "f64", "bf", "b", "s", "fs", "d", "d32", "dt", "dtz", "dt64", "dt64z", "dec32", "dec64", "dec128", "dec256",
		"uuid", "ip4", "ip6", "e8", "e16", "tm", "tm64", "iv", "n", "ns", "nfs", "nd", "ndec", "nu", "ne", "sagg", "saggn", "zero", "head"}
	sparseTypesTuples = map[string]string{
		"t":  "Default(Default, Sparse, Default(Sparse, Sparse))",
		"tu": "Default(Sparse, Sparse)",
		"pt": "Default(Sparse, Sparse)",
	}
)

// modernDB opens the 26.7 server advertising revision rev.
func modernDB(t testing.TB, rev nativeproto.Revision) *sql.DB {
	t.Helper()
	dsn := testenv.ModernDSN(t)
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	db, err := sql.Open("chnative", dsn+sep+"protocol_revision="+strconv.FormatUint(uint64(rev), 10))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// result is a query result rendered for comparison.
type result struct {
	names, types []string
	sers         [][]string // per block, per column: Block.Serialization(i).String(), "" for none
	rows         [][]string
}

// queryBlocks reads a result through QueryBlocks.
func queryBlocks(t *testing.T, db *sql.DB, query string) result {
	t.Helper()
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var res result
	err = c.Raw(func(dc any) error {
		bs, err := dc.(Conn).QueryBlocks(ctx, query)
		if err != nil {
			return err
		}
		defer bs.Close()
		for bs.Next() {
			b := bs.Block()
			if res.names == nil {
				for i := range b.NumColumns() {
					res.names = append(res.names, b.Name(i))
					res.types = append(res.types, b.Type(i))
				}
			}
			var sers []string
			for i := range b.NumColumns() {
				s := ""
				if ser := b.Serialization(i); ser != nil {
					s = ser.String()
				}
				sers = append(sers, s)
			}
			res.sers = append(res.sers, sers)
			for r := range b.Rows() {
				row := make([]string, b.NumColumns())
				for i := range row {
					row[i] = renderValue(b.Column(i).Value(r))
				}
				res.rows = append(res.rows, row)
			}
		}
		return bs.Err()
	})
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return res
}

// queryRows reads a result through database/sql, scanning every column into an any.
func queryRows(t *testing.T, db *sql.DB, query string) [][]string {
	t.Helper()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = renderValue(v)
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// renderValue formats a value deeply (through pointers, slices and maps) for comparison.
func renderValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case time.Time:
		return x.Format(time.RFC3339Nano) + " " + x.Location().String()
	case *big.Int:
		return x.String()
	case []byte:
		return fmt.Sprintf("bytes(%q)", x)
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
		return renderValue(rv.Elem().Interface())
	case reflect.Slice, reflect.Array:
		parts := make([]string, rv.Len())
		for i := range parts {
			parts[i] = renderValue(rv.Index(i).Interface())
		}
		return "[" + strings.Join(parts, " ") + "]"
	case reflect.Map:
		var parts []string
		for _, k := range rv.MapKeys() {
			parts = append(parts, renderValue(k.Interface())+":"+renderValue(rv.MapIndex(k).Interface()))
		}
		sort.Strings(parts)
		return "{" + strings.Join(parts, " ") + "}"
	case reflect.Struct:
		parts := make([]string, rv.NumField())
		for i := range parts {
			if rv.Type().Field(i).IsExported() {
				parts[i] = renderValue(rv.Field(i).Interface())
			}
		}
		return rv.Type().Name() + "{" + strings.Join(parts, " ") + "}"
	}
	return fmt.Sprintf("%T(%v)", v, v)
}

// sameRows fails unless got and want hold the same rendered values.
func sameRows(t *testing.T, what string, names []string, got, want [][]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d", what, len(got), len(want))
	}
	bad := 0
	for r := range want {
		for i := range want[r] {
			if got[r][i] != want[r][i] {
				if bad++; bad <= 20 {
					t.Errorf("%s: row %d column %s: %s, want %s", what, r, names[i], got[r][i], want[r][i])
				}
			}
		}
	}
}

// httpTSV runs query on the 26.7 server's HTTP interface and returns its TSV rows.
func httpTSV(t *testing.T, query string) [][]string {
	t.Helper()
	u := testenv.ModernHTTPURL(t) + "?output_format_decimal_trailing_zeros=1&query=" + url.QueryEscape(query+" FORMAT TSV")
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("HTTP %s: %d %v %s", query, resp.StatusCode, err, body)
	}
	var out [][]string
	for _, line := range strings.Split(strings.TrimSuffix(string(body), "\n"), "\n") {
		out = append(out, strings.Split(line, "\t"))
	}
	return out
}

// tsvEscape escapes s as the TSV format does.
func tsvEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			b.WriteString(`\\`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case 0:
			b.WriteString(`\0`)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// serverText formats row r of a scalar column as the server's TSV does, or reports false for a
// type this test does not format.
func serverText(col columns.Column, r int) (string, bool) {
	if n, ok := col.(*columns.Nullable); ok {
		if n.IsNull(r) {
			return `\N`, true
		}
		return serverText(n.Inner(), r)
	}
	if s, ok := col.(*columns.SimpleAggregateFunction); ok {
		return serverText(s.Inner(), r)
	}
	switch c := col.(type) {
	case *columns.Date, *columns.Date32:
		return col.Value(r).(time.Time).Format("2006-01-02"), true
	case *columns.DateTime:
		return c.Value(r).(time.Time).Format("2006-01-02 15:04:05"), true
	case *columns.DateTime64:
		layout := "2006-01-02 15:04:05"
		if p := c.Precision(); p > 0 {
			layout += "." + strings.Repeat("0", p)
		}
		return c.Value(r).(time.Time).Format(layout), true
	case *columns.FixedString:
		return tsvEscape(string(c.Bytes(r))), true
	case *columns.Time, *columns.Time64, *columns.QBit, *columns.Tuple, *columns.Array, *columns.Map,
		*columns.LowCardinality, *columns.Variant, *columns.Dynamic, *columns.JSON, *columns.Geo:
		return "", false
	}
	switch v := col.Value(r).(type) {
	case string:
		return tsvEscape(v), true
	case bool:
		return strconv.FormatBool(v), true
	case float32:
		return strconv.FormatFloat(float64(v), 'g', -1, 32), true
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64), true
	case netip.Addr:
		return v.String(), true
	case *big.Int:
		return v.String(), true
	case columns.Decimal:
		return v.String(), true
	case int8, int16, int32, int64, uint8, uint16, uint32, uint64:
		return fmt.Sprint(v), true
	}
	return "", false
}

// TestSparseServer reads a MergeTree part whose columns are sparse, at revisions that receive
// them sparse (54465: not the Nullable columns; 54483 and 54488: those too) and at 54460, which
// receives them full.
func TestSparseServer(t *testing.T) {
	ref := modernDB(t, 54460)
	table := tableName("sparse_types")
	mustExec(t, ref, onTable(sparseTypesDDL, table))
	t.Cleanup(func() { _, _ = ref.Exec("DROP TABLE IF EXISTS " + table) })
	mustExec(t, ref, onTable(sparseTypesInsert, table))

	// The part really stores them sparse.
	kinds := map[string]string{}
	subs := map[string][]string{}
	rows, err := ref.Query("SELECT column, serialization_kind, subcolumns.serializations FROM system.parts_columns WHERE database = currentDatabase() AND table = ? AND active", table)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var col, kind string
		var sub []string
		if err := rows.Scan(&col, &kind, &sub); err != nil {
			t.Fatal(err)
		}
		kinds[col], subs[col] = kind, sub
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for _, c := range sparseTypesSparse {
		if kinds[c] != "Sparse" {
			t.Errorf("system.parts_columns: %s is %q, want Sparse", c, kinds[c])
		}
	}
	for c := range sparseTypesTuples {
		if !slices.Contains(subs[c], "Sparse") {
			t.Errorf("system.parts_columns: %s subcolumns %v, want some Sparse", c, subs[c])
		}
	}

	query := "SELECT * FROM " + table + " SETTINGS max_threads = 1"
	want := queryBlocks(t, ref, query)
	if len(want.rows) != 40 {
		t.Fatalf("%d rows at 54460", len(want.rows))
	}
	for _, sers := range want.sers {
		for i, s := range sers {
			if s != "" {
				t.Fatalf("at 54460 column %s arrived %s", want.names[i], s)
			}
		}
	}
	wantRows := queryRows(t, ref, query)
	wantTyped := scanTyped(t, ref, table)

	for _, rev := range []nativeproto.Revision{54465, 54483, 54488} {
		db := modernDB(t, rev)
		what := fmt.Sprintf("revision %d", rev)
		got := queryBlocks(t, db, query)
		if !slices.Equal(got.names, want.names) || !slices.Equal(got.types, want.types) {
			t.Fatalf("%s: columns %v %v", what, got.names, got.types)
		}
		sameRows(t, what+" QueryBlocks", got.names, got.rows, want.rows)
		for _, sers := range got.sers {
			for i, name := range got.names {
				w := ""
				if slices.Contains(sparseTypesSparse, name) {
					w = "Sparse"
					// Below 54483 the server sends Nullable columns full (not a Tuple's
					// Nullable elements: t's b element stays sparse).
					if rev < nativeproto.RevNullableSparseSerialization && (strings.HasPrefix(got.types[i], "Nullable(") || name == "saggn") {
						w = ""
					}
				} else if s, ok := sparseTypesTuples[name]; ok {
					w = s
				}
				if sers[i] != w {
					t.Errorf("%s: column %s arrived %q, want %q", what, name, sers[i], w)
				}
			}
		}
		sameRows(t, what+" database/sql", got.names, queryRows(t, db, query), wantRows)
		sameRows(t, what+" typed scan", typedNames, scanTyped(t, db, table), wantTyped)
	}

	// The decoded values as the server's own text.
	text := httpTSV(t, query)
	db := modernDB(t, 54488)
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	compared := 0
	err = c.Raw(func(dc any) error {
		bs, err := dc.(Conn).QueryBlocks(ctx, query)
		if err != nil {
			return err
		}
		defer bs.Close()
		row := 0
		for bs.Next() {
			b := bs.Block()
			for r := range b.Rows() {
				for i := range b.NumColumns() {
					s, ok := serverText(b.Column(i), r)
					if !ok {
						continue
					}
					compared++
					if s != text[row][i] {
						t.Errorf("row %d column %s (%s): %q, the server's text is %q", row, b.Name(i), b.Type(i), s, text[row][i])
					}
				}
				row++
			}
		}
		return bs.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if compared < 40*40 {
		t.Fatalf("only %d values compared with the server's text", compared)
	}
}

// typedNames are the columns scanTyped reads.
var typedNames = []string{"id", "i8", "i64", "u64", "f32", "f64", "b", "s", "fs", "d", "dt", "dt64z", "uuid", "e8", "n", "ns", "nd", "nu", "sagg", "saggn", "head"}

// scanTyped reads some columns of the sparse table into typed destinations (on Go 1.27,
// database/sql passes them to ScanColumn).
func scanTyped(t *testing.T, db *sql.DB, table string) [][]string {
	t.Helper()
	rows, err := db.Query("SELECT " + strings.Join(typedNames, ", ") + " FROM " + table + " SETTINGS max_threads = 1")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out [][]string
	for rows.Next() {
		var (
			id, u64, sagg, head uint64
			i8, i64             int64
			f32                 float32
			f64                 float64
			b                   bool
			s, e8, uuid         string
			fs                  []byte
			d, dt, dt64z        time.Time
			n                   sql.NullInt64
			ns, nu, saggn       sql.NullString
			nd                  sql.NullTime
		)
		if err := rows.Scan(&id, &i8, &i64, &u64, &f32, &f64, &b, &s, &fs, &d, &dt, &dt64z, &uuid, &e8, &n, &ns, &nd, &nu, &sagg, &saggn, &head); err != nil {
			t.Fatal(err)
		}
		out = append(out, []string{renderValue(id), renderValue(i8), renderValue(i64), renderValue(u64), renderValue(f32), renderValue(f64),
			renderValue(b), renderValue(s), renderValue(fs), renderValue(d), renderValue(dt), renderValue(dt64z), renderValue(uuid), renderValue(e8),
			renderValue(n), renderValue(ns), renderValue(nd), renderValue(nu), renderValue(sagg), renderValue(saggn), renderValue(head)})
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestReplicatedServer reads results of ARRAY JOIN and JOIN, whose columns 26.7 keeps replicated,
// at 54488 (sent replicated) and 54481 (sent full).
func TestReplicatedServer(t *testing.T) {
	ref := modernDB(t, 54481)
	db := modernDB(t, 54488)
	sparse := tableName("repl_sparse")
	mustExec(t, ref, onTable(sparseTypesDDL, sparse))
	t.Cleanup(func() { _, _ = ref.Exec("DROP TABLE IF EXISTS " + sparse) })
	mustExec(t, ref, onTable(sparseTypesInsert, sparse))
	left, right := tableName("repl_left"), tableName("repl_right")
	mustExec(t, ref, "CREATE TABLE "+left+" (k UInt32, s String, a Array(UInt32), n Nullable(String), lc LowCardinality(String)) ENGINE = MergeTree ORDER BY k")
	mustExec(t, ref, "CREATE TABLE "+right+" (k UInt32, v String, m Map(String, UInt64), t Tuple(UInt8, String), d Dynamic) ENGINE = MergeTree ORDER BY k")
	t.Cleanup(func() {
		_, _ = ref.Exec("DROP TABLE IF EXISTS " + left)
		_, _ = ref.Exec("DROP TABLE IF EXISTS " + right)
	})
	mustExec(t, ref, "INSERT INTO "+left+" SELECT number % 3, 'left' || toString(number), [number], if(number % 2 = 0, NULL, toString(number)), toString(number % 2) FROM numbers(6)")
	mustExec(t, ref, "INSERT INTO "+right+" SELECT number % 3, 'right' || toString(number), map('k', number), (number, toString(number)), if(number % 2 = 0, number::Dynamic, toString(number)::Dynamic) FROM numbers(9)")

	for _, q := range []struct {
		query string
		repl  []string // columns that must arrive replicated at 54488
	}{
		{"SELECT id, s, ns, t, tu, arr, an, lc, m, pt, dyn, j, v, uuid, fs, u256, n, x FROM " + sparse +
			" ARRAY JOIN [1, 2] AS x WHERE id < 8 SETTINGS max_threads = 1, enable_lazy_columns_replication = 1",
			[]string{"s", "ns", "t", "tu", "arr", "an", "m", "pt", "dyn", "j", "v", "uuid", "fs", "u256", "n"}},
		{"SELECT l.k, l.s, l.a, l.n, l.lc, r.v, r.m, r.t, r.d FROM " + left + " AS l JOIN " + right +
			" AS r ON l.k = r.k ORDER BY l.k, l.s, r.v SETTINGS max_threads = 1, enable_lazy_columns_replication = 1",
			nil},
	} {
		want := queryBlocks(t, ref, q.query)
		got := queryBlocks(t, db, q.query)
		if len(want.rows) == 0 || !slices.Equal(got.names, want.names) {
			t.Fatalf("%s: %d rows, columns %v / %v", q.query, len(want.rows), got.names, want.names)
		}
		sameRows(t, "54488 QueryBlocks", got.names, got.rows, want.rows)
		sameRows(t, "54488 database/sql", got.names, queryRows(t, db, q.query), queryRows(t, ref, q.query))
		replicated := 0
		for b, sers := range got.sers {
			for i, s := range sers {
				if strings.Contains(s, "Replicated") {
					replicated++
				}
				if strings.Contains(want.sers[min(b, len(want.sers)-1)][i], "Replicated") {
					t.Errorf("at 54481 column %s arrived %s", want.names[i], want.sers[b][i])
				}
			}
			for _, name := range q.repl {
				if s := sers[slices.Index(got.names, name)]; !strings.Contains(s, "Replicated") {
					t.Errorf("at 54488 column %s arrived %q, want it replicated", name, s)
				}
			}
		}
		t.Logf("%d replicated columns in %d blocks: %s", replicated, len(got.sers), q.query[:40])
	}
}

// TestDynamicJSONServer reads Dynamic and JSON columns at 54488 (V2 structures) and 54472 (V1),
// and compares the JSON with the server's own.
func TestDynamicJSONServer(t *testing.T) {
	query := `SELECT number AS id,
  multiIf(number % 4 = 0, number::Dynamic, number % 4 = 1, ('s' || toString(number))::Dynamic, number % 4 = 2, [number, 1]::Dynamic, NULL) AS d,
  multiIf(number % 3 = 0, number::Dynamic(max_types=1), number % 3 = 1, toString(number)::Dynamic(max_types=1), toDate('2024-01-01') + number) AS d1,
  ('{"a":' || toString(number) || ', "b":{"c":"x' || toString(number) || '"}, "k' || toString(number % 3) || '": [1, 2.5], "t": ' || toString(number * 10) || '}')::JSON(t UInt32, max_dynamic_paths=2) AS j,
  ('{"p":' || toString(number) || '}')::JSON AS j2,
  [('{"x":' || toString(number) || '}')::JSON] AS aj
FROM numbers(6) SETTINGS max_threads = 1`
	ref := modernDB(t, 54472)
	want := queryBlocks(t, ref, query)
	if len(want.rows) != 6 {
		t.Fatalf("%d rows", len(want.rows))
	}
	for _, rev := range []nativeproto.Revision{54473, 54488} {
		db := modernDB(t, rev)
		got := queryBlocks(t, db, query)
		sameRows(t, fmt.Sprintf("%d QueryBlocks", rev), got.names, got.rows, want.rows)
		sameRows(t, fmt.Sprintf("%d database/sql", rev), got.names, queryRows(t, db, query), queryRows(t, ref, query))
	}
	// The JSON texts are the server's (compared as parsed JSON: key order and number spelling
	// may differ).
	db := modernDB(t, 54488)
	text := httpTSV(t, "SELECT toJSONString(j), toJSONString(j2) FROM ("+query+") SETTINGS output_format_json_quote_64bit_integers = 0")
	rows, err := db.Query("SELECT j, j2 FROM (" + query + ")")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	r := 0
	for ; rows.Next(); r++ {
		var j, j2 string
		if err := rows.Scan(&j, &j2); err != nil {
			t.Fatal(err)
		}
		for k, got := range []string{j, j2} {
			if !sameJSON(t, got, text[r][k]) {
				t.Errorf("row %d: JSON %s, the server's is %s", r, got, text[r][k])
			}
		}
	}
	if err := rows.Err(); err != nil || r != 6 {
		t.Fatalf("%d rows: %v", r, err)
	}
}

// sameJSON reports whether two JSON texts hold the same value (numbers compared by value).
func sameJSON(t *testing.T, a, b string) bool {
	t.Helper()
	parse := func(s string) any {
		d := json.NewDecoder(bytes.NewReader([]byte(s)))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatalf("JSON %s: %v", s, err)
		}
		return normJSON(v)
	}
	return reflect.DeepEqual(parse(a), parse(b))
}

// normJSON replaces numbers by their float64 values.
func normJSON(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = normJSON(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = normJSON(x[k])
		}
	}
	return v
}

// TestSparseServerParts reads a table whose parts store the same columns sparse, then full, then
// sparse again: the blocks of one result alternate serializations, and the decoder's reused
// state must follow.
func TestSparseServerParts(t *testing.T) {
	ref := modernDB(t, 54460)
	db := modernDB(t, 54488)
	table := tableName("sparse_parts")
	mustExec(t, ref, "CREATE TABLE "+table+" (id UInt32, v UInt64, s String, n Nullable(Int32), t Tuple(a UInt8, b String)) ENGINE = MergeTree ORDER BY id"+
		" SETTINGS ratio_of_defaults_for_sparse_serialization = 0.5, nullable_serialization_version = 'allow_sparse'")
	t.Cleanup(func() { _, _ = ref.Exec("DROP TABLE IF EXISTS " + table) })
	for part, dense := range []bool{false, true, false} {
		cond := "number % 9 = 4"
		if dense {
			cond = "1"
		}
		mustExec(t, ref, fmt.Sprintf("INSERT INTO %s SELECT %d + number, if(%s, number + 1, 0), if(%s, 'v' || toString(number), ''), if(%s, number, NULL), (if(%s, 1, 0), if(%s, 'b', '')) FROM numbers(100)",
			table, part*100, cond, cond, cond, cond, cond))
	}
	query := "SELECT * FROM " + table + " SETTINGS max_threads = 1, max_block_size = 50"
	sorted := func(rows [][]string) [][]string {
		sort.Slice(rows, func(i, j int) bool {
			a, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(rows[i][0], "uint32("), ")"))
			b, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(rows[j][0], "uint32("), ")"))
			return a < b
		})
		return rows
	}
	want := queryBlocks(t, ref, query)
	got := queryBlocks(t, db, query)
	if len(want.rows) != 300 {
		t.Fatalf("%d rows", len(want.rows))
	}
	sameRows(t, "54488 QueryBlocks", got.names, sorted(got.rows), sorted(want.rows))
	sameRows(t, "54488 database/sql", got.names, sorted(queryRows(t, db, query)), sorted(queryRows(t, ref, query)))
	kinds := map[string]int{}
	for _, sers := range got.sers {
		kinds[sers[1]]++
	}
	if kinds["Sparse"] == 0 || kinds[""] == 0 {
		t.Fatalf("column v arrived %v over %d blocks: want both sparse and full blocks", kinds, len(got.sers))
	}
}
