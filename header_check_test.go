package chnative

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/chnative/chnative/internal/faketest"
	"github.com/chnative/chnative/nativeproto"
)

// Every block of a result (data, totals, extremes) must have the header's columns: the same
// count, names and type strings. A fake server answers with blocks that lie about that, and each
// tier (Rows and Scan, Blocks, Select) must end in a *ProtocolError that names the column and
// both types, with the connection closed (the next query dials again).

// hcHeaderCol encodes one column for the header tests, failing the test on a bad value.
func hcHeaderCol(t testing.TB, name, typ string, vals ...any) faketest.Col {
	t.Helper()
	c, err := faketest.EncodeColumn(name, typ, vals...)
	if err != nil {
		t.Fatalf("%s %s: %v", name, typ, err)
	}
	return c
}

// hcWithCode returns a Data packet from faketest.DataPacket as a packet of code (Totals, Extremes):
// the same layout after the code byte.
func hcWithCode(p []byte, code nativeproto.ServerCode) []byte {
	p = append([]byte(nil), p...)
	p[0] = byte(code)
	return p
}

// hcLoopServer answers okQuery with goodResponse and every other query with script, query after
// query on each connection, until the client hangs up.
func hcLoopServer(t testing.TB, script []byte) *faketest.Server {
	return hcLoopServerCompressed(t, false, script)
}

// hcLoopServerCompressed is hcLoopServer for a client that asked for compression when
// compressed is set.
func hcLoopServerCompressed(t testing.TB, compressed bool, script []byte) *faketest.Server {
	t.Helper()
	good := goodResponse(t, compressed)
	s, err := faketest.NewServer(func(s *faketest.Session) {
		if s.Handshake() != nil {
			return
		}
		for {
			q, err := s.ReadQuery()
			if err != nil {
				return
			}
			out := script
			if q.Body == okQuery {
				out = good
			}
			if s.Write(out) != nil {
				return
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// hcHeaderScript is header (no rows), then each block as a Data packet, then totals and extremes
// when not nil, then the end of the result; uncompressed (hcCompressed says otherwise).
func hcHeaderScript(header []faketest.Col, blocks [][]faketest.Col, rows []uint64, totals, extremes []faketest.Col) []byte {
	return hcScript(false, header, blocks, rows, totals, extremes)
}

// hcScript is hcHeaderScript with each block compressed (one LZ4 frame) when compressed is set.
func hcScript(compressed bool, header []faketest.Col, blocks [][]faketest.Col, rows []uint64, totals, extremes []faketest.Col) []byte {
	var b []byte
	if header != nil {
		b = faketest.DataPacket(b, 0, header, compressed)
	}
	for i, blk := range blocks {
		b = faketest.DataPacket(b, rows[i], blk, compressed)
	}
	if totals != nil {
		b = append(b, hcWithCode(faketest.DataPacket(nil, 1, totals, compressed), nativeproto.ServerCodeTotals)...)
	}
	if extremes != nil {
		b = append(b, hcWithCode(faketest.DataPacket(nil, 2, extremes, compressed), nativeproto.ServerCodeExtremes)...)
	}
	b = faketest.EndOfStream(b)
	return faketest.Pong(b)
}

type hcHeaderCase struct {
	name   string
	script []byte
	want   []string // in the error's text: the column, and the types or counts
}

func hcHeaderCases(t testing.TB, compressed bool) []hcHeaderCase {
	mk := func(name, typ string, vals ...any) faketest.Col { return hcHeaderCol(t, name, typ, vals...) }
	ns := func(vals ...any) faketest.Col { return mk("s", "String", vals...) }
	nn := func(vals ...any) faketest.Col { return mk("n", "UInt64", vals...) }
	hdr := []faketest.Col{nn(), ns()}
	data := [][]faketest.Col{{nn(uint64(1), uint64(2), uint64(3)), ns("a", "b", "c")}}
	three := []uint64{3}
	totalsOK := []faketest.Col{nn(uint64(6)), ns("")}
	var cases []hcHeaderCase
	add := func(name string, script []byte, want ...string) {
		cases = append(cases, hcHeaderCase{name, script, want})
	}
	// Finding 1: Totals and Extremes with fewer columns than the header.
	add("totalsFewerColumns", hcScript(compressed, hdr, data, three, []faketest.Col{nn(uint64(6))}, nil), "totals", "1 columns", "2")
	add("extremesFewerColumns", hcScript(compressed, hdr, data, three, totalsOK, []faketest.Col{nn(uint64(1), uint64(3))}), "extremes", "1 columns", "2")
	add("totalsMoreColumns", hcScript(compressed, hdr, data, three, append(append([]faketest.Col(nil), totalsOK...), mk("x", "UInt8", uint8(1))), nil), "totals", "3 columns")
	// Item 3: the header block had no rows and no data block came (an empty result WITH TOTALS).
	add("totalsFewerColumnsNoData", hcScript(compressed, hdr, nil, nil, []faketest.Col{nn(uint64(6))}, nil), "totals", "1 columns")
	add("extremesMoreColumnsNoData", hcScript(compressed, hdr, nil, nil, totalsOK, []faketest.Col{nn(uint64(1), uint64(3)), ns("a", "c"), ns("a", "c")}), "extremes", "3 columns", "2")
	// No header at all: totals before any data block.
	add("totalsWithoutHeader", hcScript(compressed, nil, nil, nil, []faketest.Col{nn(uint64(6))}, nil), "totals", "before")
	// Finding 2: a column's type changes between data blocks of one result.
	i8 := func(vs ...int8) faketest.Col {
		a := make([]any, len(vs))
		for i, v := range vs {
			a[i] = v
		}
		return mk("i", "Int8", a...)
	}
	i64 := mk("i", "Int64", int64(0x41414141), int64(0x41414141), int64(0x41414141))
	add("dataInt8ThenInt64", hcScript(compressed, []faketest.Col{i8()}, [][]faketest.Col{{i8(1, 2, 3)}, {i64}}, []uint64{3, 3}, nil, nil), "data", "i", "Int64", "Int8")
	add("dataNullableInt8ThenInt64", hcScript(compressed, []faketest.Col{mk("p", "Nullable(Int8)")},
		[][]faketest.Col{{mk("p", "Nullable(Int8)", int8(1), nil, int8(3))}, {mk("p", "Nullable(Int64)", int64(0x41414141), nil, int64(0x41414141))}},
		[]uint64{3, 3}, nil, nil), "Nullable(Int64)", "Nullable(Int8)")
	add("dataArrayInt8ThenInt64", hcScript(compressed, []faketest.Col{mk("ar", "Array(Int8)")},
		[][]faketest.Col{{mk("ar", "Array(Int8)", []int8{1}, []int8{}, []int8{2, 3})}, {mk("ar", "Array(Int64)", []int64{1, 2, 3, 4}, []int64{5}, []int64{6, 7, 8, 9, 10, 11, 12, 13})}},
		[]uint64{3, 3}, nil, nil), "Array(Int64)", "Array(Int8)")
	add("dataNameChanged", hcScript(compressed, hdr, [][]faketest.Col{{nn(uint64(1)), mk("z", "String", "a")}}, []uint64{1}, nil, nil), "data", `"z"`, `"s"`)
	add("dataFewerColumns", hcScript(compressed, hdr, [][]faketest.Col{{nn(uint64(1))}}, []uint64{1}, nil, nil), "data", "1 columns", "2")
	// The read-ahead decodes (and boxes) the next block while the caller reads a long one.
	long8, long64 := make([]any, 2000), make([]any, 2000)
	for i := range long8 {
		long8[i], long64[i] = int8(i), int64(0x4141414141414141)
	}
	add("dataTypeChangedReadAhead", hcScript(compressed, []faketest.Col{i8()},
		[][]faketest.Col{{mk("i", "Int8", long8...)}, {mk("i", "Int64", long64...)}}, []uint64{2000, 2000}, nil, nil), "i", "Int64", "Int8")
	return cases
}

// hcCheckHeaderErr checks that err is a *ProtocolError naming what the case wants.
func hcCheckHeaderErr(t testing.TB, err error, want []string) {
	t.Helper()
	if err == nil {
		t.Fatal("the lying result was read without an error")
	}
	t.Log(err)
	var pe *ProtocolError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T), want a *ProtocolError", err, err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not name %q", err, w)
		}
	}
}

// hcReadSets reads every row of every result set (the data, then Totals, then Extremes) through
// Rows.Scan into *any, and returns the first error.
func hcReadSets(ctx context.Context, db *sql.DB, query string) error {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	for {
		dest := make([]any, len(cols))
		for i := range dest {
			dest[i] = new(any)
		}
		for rows.Next() {
			if err := rows.Scan(dest...); err != nil {
				return err
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if !rows.NextResultSet() {
			return rows.Err()
		}
	}
}

// hcReadBlocks reads every block through QueryBlocks, then its Totals and Extremes.
func hcReadBlocks(ctx context.Context, db *sql.DB, query string) error {
	c, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	return c.Raw(func(dc any) error {
		blocks, err := dc.(Conn).QueryBlocks(ctx, query)
		if err != nil {
			return err
		}
		defer blocks.Close()
		for blocks.Next() {
			b := blocks.Block()
			for i := range b.NumColumns() {
				_ = b.Column(i).Value(b.Rows() - 1)
			}
		}
		if err := blocks.Err(); err != nil {
			return err
		}
		for _, b := range []*nativeproto.Block{blocks.Totals(), blocks.Extremes()} {
			if b != nil && b.NumColumns() != len(blocks.Columns()) {
				return errors.New("a totals or extremes block with other columns than the header was handed out")
			}
		}
		return nil
	})
}

// hcHeaderRow is the struct the Select tier reads the lying results into. Q is first and I after
// it in memory: a copy of I wider than its field lands on the next element's Q.
type hcHeaderRow struct {
	I  int8   `ch:"i"`
	Q  int8   `ch:"q"`
	N  uint64 `ch:"n"`
	S  string `ch:"s"`
	P  *int8  `ch:"p"`
	Ar []int8 `ch:"ar"`
}

// hcReadSelect reads the result with Select into hcHeaderRow, whose fields take the cases' columns;
// a column the struct lacks is renamed so that every case's columns have a field.
func hcReadSelect(ctx context.Context, db *sql.DB, query string) error {
	c, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	return c.Raw(func(dc any) error {
		_, err := Select[hcHeaderRow](ctx, dc.(Conn), query)
		return err
	})
}

func TestHeaderChecked(t *testing.T) {
	tiers := []struct {
		name string
		read func(context.Context, *sql.DB, string) error
	}{{"rows", hcReadSets}, {"blocks", hcReadBlocks}, {"select", hcReadSelect}}
	for _, compressed := range []bool{false, true} {
		for _, tc := range hcHeaderCases(t, compressed) {
			for _, tier := range tiers {
				name := tc.name + "/" + tier.name
				if compressed {
					name += "/lz4"
				}
				t.Run(name, func(t *testing.T) {
					testHeaderCase(t, compressed, tc, tier.read)
				})
			}
		}
	}
}

// testHeaderCase reads the lying answer of tc with read and checks the error and that the
// connection was not reused.
func testHeaderCase(t *testing.T, compressed bool, tc hcHeaderCase, read func(context.Context, *sql.DB, string) error) {
	params := []string{"read_retries=0"}
	if compressed {
		params = append(params, "compress=lz4")
	}
	srv := hcLoopServerCompressed(t, compressed, tc.script)
	db := openAt(t, []string{srv.Addr()}, params...)
	db.SetMaxOpenConns(1)
	if n, err := readAll(context.Background(), db, okQuery); err != nil || n != 3 {
		t.Fatalf("good response: %d rows, %v", n, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	err := read(ctx, db, "SELECT lie")
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("error after %v", d)
	}
	hcCheckHeaderErr(t, err, tc.want)
	before := srv.Accepts()
	if n, err := readAll(context.Background(), db, okQuery); err != nil || n != 3 {
		t.Fatalf("after the lie: %d rows, %v", n, err)
	}
	if got := srv.Accepts(); got != before+1 {
		t.Errorf("%d new connections for the next query, want 1: the lying one was reused", got-before)
	}
}

// The struct tier: the plan made from the first block must never copy a later block of another
// type (finding 2: an Int8 field written as Int64 clobbered the next field).
func TestHeaderCheckedSelect(t *testing.T) {
	mk := func(name, typ string, vals ...any) faketest.Col { return hcHeaderCol(t, name, typ, vals...) }
	q8 := func(n int) faketest.Col {
		a := make([]any, n)
		for i := range a {
			a[i] = int8(7)
		}
		return mk("q", "Int8", a...)
	}
	cases := []hcHeaderCase{
		{"Int8ThenInt64", hcHeaderScript([]faketest.Col{mk("q", "Int8"), mk("i", "Int8")},
			[][]faketest.Col{{q8(2), mk("i", "Int8", int8(1), int8(2))}, {q8(2), mk("i", "Int64", int64(0x4141414141414141), int64(0x4141414141414141))}},
			[]uint64{2, 2}, nil, nil), []string{"i", "Int64", "Int8"}},
		{"NullableInt8ThenInt64", hcHeaderScript([]faketest.Col{mk("p", "Nullable(Int8)")},
			[][]faketest.Col{{mk("p", "Nullable(Int8)", int8(1), nil)}, {mk("p", "Nullable(Int64)", int64(0x41414141), int64(0x41414141))}},
			[]uint64{2, 2}, nil, nil), []string{"p", "Nullable(Int64)", "Nullable(Int8)"}},
		{"ArrayInt8ThenInt64", hcHeaderScript([]faketest.Col{mk("ar", "Array(Int8)")},
			[][]faketest.Col{{mk("ar", "Array(Int8)", []int8{1}, []int8{2})}, {mk("ar", "Array(Int64)", []int64{1, 2, 3, 4, 5, 6, 7, 8}, []int64{9})}},
			[]uint64{2, 2}, nil, nil), []string{"ar", "Array(Int64)", "Array(Int8)"}},
		{"StringThenUInt64", hcHeaderScript([]faketest.Col{mk("s", "String")},
			[][]faketest.Col{{mk("s", "String", "a", "b")}, {mk("s", "UInt64", uint64(1<<40), uint64(1<<41))}},
			[]uint64{2, 2}, nil, nil), []string{"s", "UInt64", "String"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := hcLoopServer(t, tc.script)
			db := openAt(t, []string{srv.Addr()}, "read_retries=0")
			db.SetMaxOpenConns(1)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err := hcReadSelect(ctx, db, "SELECT lie")
			hcCheckHeaderErr(t, err, tc.want)
			before := srv.Accepts()
			if n, err := readAll(context.Background(), db, okQuery); err != nil || n != 3 {
				t.Fatalf("after the lie: %d rows, %v", n, err)
			}
			if got := srv.Accepts(); got != before+1 {
				t.Errorf("%d new connections for the next query, want 1: the lying one was reused", got-before)
			}
		})
	}
}

// Totals and Extremes with the header's number of columns but names and types of their own (as
// ClickHouse 18.16 sends them for a UNION ALL: the names and types of the SELECT they came from)
// are read as they are, by their own columns, and the connection stays.
func TestTotalsExtremesOwnNamesAndTypes(t *testing.T) {
	mk := func(name, typ string, vals ...any) faketest.Col { return hcHeaderCol(t, name, typ, vals...) }
	hdr := []faketest.Col{mk("n", "UInt64"), mk("s", "String")}
	data := [][]faketest.Col{{mk("n", "UInt64", uint64(1), uint64(2), uint64(3)), mk("s", "String", "a", "b", "c")}}
	totals := []faketest.Col{mk("x", "UInt8", uint8(6)), mk("t", "FixedString(1)", "z")}
	extremes := []faketest.Col{mk("n", "Int64", int64(1), int64(3)), mk("s", "Nullable(String)", "a", nil)}
	for _, withData := range []bool{true, false} {
		d, rows := data, []uint64{3}
		if !withData {
			d, rows = nil, nil
		}
		srv := hcLoopServer(t, hcHeaderScript(hdr, d, rows, totals, extremes))
		db := openAt(t, []string{srv.Addr()}, "read_retries=0")
		db.SetMaxOpenConns(1)
		r, err := db.Query("SELECT union")
		if err != nil {
			t.Fatal(err)
		}
		var sets [][]any
		for {
			var got []any
			for r.Next() {
				var a, b any
				if err := r.Scan(&a, &b); err != nil {
					t.Fatal(err)
				}
				got = append(got, a, b)
			}
			sets = append(sets, got)
			if !r.NextResultSet() {
				break
			}
		}
		if err := r.Err(); err != nil {
			t.Fatalf("withData=%v: %v", withData, err)
		}
		r.Close()
		if len(sets) != 3 || len(sets[1]) != 2 || sets[1][0] != uint8(6) || sets[1][1] != "z" ||
			len(sets[2]) != 4 || sets[2][0] != int64(1) || sets[2][1] != "a" || sets[2][3] != nil {
			t.Errorf("withData=%v: sets %#v", withData, sets)
		}
		if err := hcReadBlocks(context.Background(), db, "SELECT union"); err != nil {
			t.Errorf("withData=%v: blocks: %v", withData, err)
		}
		if srv.Accepts() != 1 {
			t.Errorf("withData=%v: %d connections, want 1", withData, srv.Accepts())
		}
	}
}

// Totals and Extremes that match the header are read as before, also when the result has no
// data block: the check refuses only lies.
func TestHeaderCheckAcceptsMatchingTotals(t *testing.T) {
	mk := func(name, typ string, vals ...any) faketest.Col { return hcHeaderCol(t, name, typ, vals...) }
	hdr := []faketest.Col{mk("n", "UInt64"), mk("s", "LowCardinality(Nullable(String))")}
	totals := []faketest.Col{mk("n", "UInt64", uint64(6)), mk("s", "LowCardinality(Nullable(String))", nil)}
	extremes := []faketest.Col{mk("n", "UInt64", uint64(1), uint64(3)), mk("s", "LowCardinality(Nullable(String))", "a", "c")}
	for _, withData := range []bool{true, false} {
		var data [][]faketest.Col
		var rows []uint64
		if withData {
			data = [][]faketest.Col{{mk("n", "UInt64", uint64(1), uint64(2), uint64(3)), mk("s", "LowCardinality(Nullable(String))", "a", nil, "c")}}
			rows = []uint64{3}
		}
		srv := hcLoopServer(t, hcHeaderScript(hdr, data, rows, totals, extremes))
		db := openAt(t, []string{srv.Addr()}, "read_retries=0")
		db.SetMaxOpenConns(1)
		r, err := db.Query("SELECT ok")
		if err != nil {
			t.Fatal(err)
		}
		var sets [][]any
		for {
			var got []any
			for r.Next() {
				var n uint64
				var s sql.NullString
				if err := r.Scan(&n, &s); err != nil {
					t.Fatal(err)
				}
				got = append(got, n, s.String)
			}
			sets = append(sets, got)
			if !r.NextResultSet() {
				break
			}
		}
		if err := r.Err(); err != nil {
			t.Fatalf("withData=%v: %v", withData, err)
		}
		r.Close()
		if len(sets) != 3 || len(sets[1]) != 2 || sets[1][0] != uint64(6) || len(sets[2]) != 4 || sets[2][3] != "c" {
			t.Errorf("withData=%v: sets %v", withData, sets)
		}
		if err := hcReadBlocks(context.Background(), db, "SELECT ok"); err != nil {
			t.Errorf("withData=%v: blocks: %v", withData, err)
		}
		if srv.Accepts() != 1 {
			t.Errorf("withData=%v: %d connections, want 1", withData, srv.Accepts())
		}
	}
}

// The real servers' Totals and Extremes blocks have the header's columns, for the column kinds
// whose blocks could plausibly differ (LowCardinality, Nullable, Array, Map, Tuple, DateTime with
// a zone): the check refuses none of them, in Rows and in Blocks.
func TestHeaderCheckServerTotalsExtremes(t *testing.T) {
	db := openDB(t)
	ctx := WithSettings(context.Background(), Settings{"extremes": "1"})
	q := `SELECT toLowCardinality(toString(number % 3)) AS lc, toNullable(number % 2) AS nn,
		[number % 3] AS arr, toDateTime(number, 'Asia/Tokyo') AS dt, (number % 3, 'x') AS tup,
		count() AS c, max(toString(number)) AS s
		FROM (SELECT number FROM system.numbers LIMIT 100) GROUP BY lc, nn, arr, dt, tup WITH TOTALS ORDER BY dt LIMIT 5`
	if err := hcReadSets(ctx, db, q); err != nil {
		t.Fatalf("rows: %v", err)
	}
	if err := hcReadBlocks(ctx, db, q); err != nil {
		t.Fatalf("blocks: %v", err)
	}
	// An empty result WITH TOTALS: the header has no rows, no data block follows.
	empty := `SELECT toLowCardinality(toString(number % 3)) AS lc, count() AS c FROM (SELECT number FROM system.numbers LIMIT 10)
		WHERE number > 100 GROUP BY lc WITH TOTALS`
	if err := hcReadSets(ctx, db, empty); err != nil {
		t.Fatalf("empty rows: %v", err)
	}
	if err := hcReadBlocks(ctx, db, empty); err != nil {
		t.Fatalf("empty blocks: %v", err)
	}
	// UNION ALL: 18.16 sends Totals and Extremes with the names and types of the SELECT they came
	// from (UInt8 and x where the header says UInt64 and a), 26.7 with the header's.
	for _, q := range []string{
		"SELECT 1 AS a, 'x' AS b UNION ALL SELECT 300 AS c, 'yy' AS d",
		"SELECT 'a' AS s UNION ALL SELECT toNullable('b') AS t",
		"SELECT toUInt64(1) AS a, toUInt64(2) AS c UNION ALL SELECT toUInt8(number) AS x, count() AS y FROM (SELECT number FROM system.numbers LIMIT 3) GROUP BY x WITH TOTALS",
		"SELECT 1 AS a, count() AS c GROUP BY a WITH TOTALS UNION ALL SELECT 300 AS a, count() AS c GROUP BY a WITH TOTALS",
	} {
		if err := hcReadSets(ctx, db, q); err != nil {
			t.Errorf("rows: %s: %v", q, err)
		}
		if err := hcReadBlocks(ctx, db, q); err != nil {
			t.Errorf("blocks: %s: %v", q, err)
		}
	}
}
