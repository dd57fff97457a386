package chnative

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/bind"
	"github.com/chnative/chnative/internal/testenv"
)

// Values going in as code written for clickhouse-go passes them (issue 15): the zero time.Time,
// and values converted by the interfaces they implement, on each path a row takes: Exec of an
// INSERT ... VALUES (?, ...), a statement prepared in a transaction (clickhouse-go's std batch),
// Batch.Append, AppendStructs, server-side {name:Type} parameters and ? literals.

// insertPath inserts one row into table (all its columns, in order) one way.
type insertPath struct {
	name   string
	insert func(db *sql.DB, table string, row []any) error
}

var insertPaths = []insertPath{
	{"Exec", func(db *sql.DB, table string, row []any) error {
		_, err := db.Exec("INSERT INTO "+table+" VALUES ("+strings.TrimSuffix(strings.Repeat("?, ", len(row)), ", ")+")", row...)
		return err
	}},
	{"prepared", func(db *sql.DB, table string, row []any) error {
		tx, err := db.Begin()
		if err != nil {
			return err
		}
		st, err := tx.Prepare("INSERT INTO " + table)
		if err == nil {
			_, err = st.Exec(row...)
		}
		if err != nil {
			tx.Rollback()
			return err
		}
		return tx.Commit()
	}},
	{"Batch.Append", func(db *sql.DB, table string, row []any) error {
		return sendBatch(db, table, func(b *Batch) error { return b.Append(row...) })
	}},
}

// sendBatch runs fn on a Batch for "INSERT INTO table" and sends it (aborts it if fn fails).
func sendBatch(db *sql.DB, table string, fn func(b *Batch) error) error {
	c, err := db.Conn(context.Background())
	if err != nil {
		return err
	}
	defer c.Close()
	return c.Raw(func(dc any) error {
		b, err := dc.(Conn).PrepareBatch(context.Background(), "INSERT INTO "+table)
		if err != nil {
			return err
		}
		if err := fn(b); err != nil {
			b.Abort()
			return err
		}
		return b.Send()
	})
}

func modernOrLegacy(t *testing.T) []struct{ name, dsn string } {
	return []struct{ name, dsn string }{{"26.7", testenv.ModernDSN(t)}, {testenv.Server(t).String(), testenv.DSN(t)}}
}

// TestValuesInZeroTime: time.Time{} into Date, Date32, DateTime and DateTime64 is stored as the
// epoch (0), as clickhouse-go stores it, by every insert path; as a parameter or a ? literal it
// is the epoch too. Other times out of a column's range are refused with the column named
// (clickhouse-go wraps them modulo the type's width: 2300-01-01 into DateTime is stored as
// 2027-10-18).
func TestValuesInZeroTime(t *testing.T) {
	for _, srv := range modernOrLegacy(t) {
		t.Run(srv.name, func(t *testing.T) {
			db := openParamsServer(t, srv.dsn)
			modern := srv.name == "26.7"
			cols := "n UInt8, d Date, dt DateTime, dtz DateTime('Asia/Tokyo'), dtn Nullable(DateTime), ad Array(Date)"
			check := "toUInt16(d) = 0 AND toUInt32(dt) = 0 AND toUInt32(dtz) = 0 AND toUInt32(assumeNotNull(dtn)) = 0 AND isNotNull(dtn) AND ad = [toDate(0), toDate('2000-01-01')]"
			if modern {
				cols += ", d32 Date32, dt64 DateTime64(3), dt64n Nullable(DateTime64(9, 'UTC'))"
				check += " AND toInt32(d32) = 0 AND toUnixTimestamp64Milli(dt64) = 0 AND toUnixTimestamp64Nano(assumeNotNull(dt64n)) = 0"
			}
			table := createTable(t, db, "chnative_zero_time", cols)
			var z time.Time
			row := func(n int) []any {
				r := []any{uint8(n), z, z, z, &z, []time.Time{{}, time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)}}
				if modern {
					r = append(r, z, z, z)
				}
				return r
			}
			for i, p := range insertPaths {
				if err := p.insert(db, table, row(i)); err != nil {
					t.Errorf("%s: %v", p.name, err)
				}
			}
			var n, good int
			if err := db.QueryRow("SELECT count(), countIf("+check+") FROM "+table).Scan(&n, &good); err != nil {
				t.Fatal(err)
			}
			if n != len(insertPaths) || good != n {
				t.Errorf("%d rows (want %d), %d of them hold the epoch", n, len(insertPaths), good)
			}
			var d, dt time.Time
			if err := db.QueryRow("SELECT d, dt FROM "+table+" LIMIT 1").Scan(&d, &dt); err != nil || d.Unix() != 0 || dt.Unix() != 0 {
				t.Errorf("scanned back: %v, %v, %v", d, dt, err)
			}

			// Parameters (26.7: query parameters; 18.16: CAST literals) and ? literals.
			types := []string{"Date", "DateTime", "DateTime('Asia/Tokyo')", "Nullable(DateTime)"}
			if modern {
				types = append(types, "Date32", "DateTime64(3)", "DateTime64(9, 'UTC')")
			}
			for _, typ := range types {
				var s int64
				q := "SELECT toInt64(toUnixTimestamp(toDateTime({p:" + typ + "}, 'UTC')))"
				if err := db.QueryRow(q, sql.Named("p", z)).Scan(&s); err != nil || s != 0 {
					t.Errorf("{p:%s} with time.Time{}: %d, %v; want 0", typ, s, err)
				}
			}
			var s int64
			if err := db.QueryRow("SELECT toInt64(toUnixTimestamp(?))", z).Scan(&s); err != nil || s != 0 {
				t.Errorf("? with time.Time{}: %d, %v; want 0", s, err)
			}
			if err := db.QueryRow("SELECT toInt64(toUnixTimestamp(?))", &z).Scan(&s); err != nil || s != 0 {
				t.Errorf("? with *time.Time{}: %d, %v; want 0", s, err)
			}

			// Out of range: refused, naming the column; nothing inserted.
			far := time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)
			bad := row(9)
			bad[2] = far
			for _, p := range insertPaths {
				err := p.insert(db, table, bad)
				var ce *ColumnError
				var tm *columns.TypeMismatchError
				if !errors.As(err, &ce) || ce.Column != "dt" || !errors.As(err, &tm) || !strings.Contains(err.Error(), "out of range") {
					t.Errorf("%s of 2300-01-01 into DateTime: %v, want a ColumnError for dt, out of range", p.name, err)
				}
			}
			if got := count(t, db, table); got != int64(len(insertPaths)) {
				t.Errorf("%d rows after the refused inserts, want %d", got, len(insertPaths))
			}
		})
	}
}

// Types implementing the interfaces clickhouse-go's columns take, two with pointer receivers.

// binPtr is an encoding.BinaryMarshaler with a pointer receiver.
type binPtr struct{ a, b byte }

func (p *binPtr) MarshalBinary() ([]byte, error) { return []byte{p.a, p.b, '!'}, nil }

// uuidLike has google/uuid.UUID's methods: MarshalBinary (16 bytes), Value and String (the
// 36-character text).
type uuidLike [16]byte

func (u uuidLike) MarshalBinary() ([]byte, error) { return u[:], nil }
func (u uuidLike) Value() (driver.Value, error)   { return u.String(), nil }
func (u uuidLike) String() string {
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// strPtr is a fmt.Stringer with a pointer receiver.
type strPtr struct{ s string }

func (p *strPtr) String() string { return p.s }

// textOnly is only an encoding.TextMarshaler.
type textOnly struct{ s string }

func (t textOnly) MarshalText() ([]byte, error) { return []byte(t.s), nil }

// shade is an iota enum with names, as stringer-generated and protobuf enum types are: its
// numbers (0, 1, 2) are not the server enum's (1, 2, 3).
type shade int8

func (s shade) String() string { return [...]string{"red", "green", "blue"}[s] }

// valuerStringer is a driver.Valuer and a fmt.Stringer: Value wins, as in clickhouse-go.
type valuerStringer struct{}

func (valuerStringer) Value() (driver.Value, error) { return "by Value", nil }
func (valuerStringer) String() string               { return "by String" }

var testUUID = uuidLike{0x61, 0xf0, 0xc4, 0x04, 0x5c, 0xb3, 0x11, 0xe7, 0x90, 0x7b, 0xa6, 0x00, 0x6a, 0xd3, 0xdb, 0xa0}

// ifaceRow is one row of TestValuesInInterfaces' table, for AppendStructs: binPtr and strPtr as
// values, whose methods only their pointers have.
type ifaceRow struct {
	FS  binPtr         `ch:"fs"`
	F16 uuidLike       `ch:"f16"`
	NF  *uuidLike      `ch:"nf"`
	S   strPtr         `ch:"s"`
	V   valuerStringer `ch:"v"`
	U   strPtr         `ch:"u"`
	E   shade          `ch:"e"`
	D   textOnly       `ch:"d"`
	DT  strPtr         `ch:"dt"`
}

// TestValuesInInterfaces: values are taken by encoding.BinaryMarshaler (FixedString, before
// driver.Valuer), fmt.Stringer and encoding.TextMarshaler (String, FixedString, UUID, Enum, Date,
// DateTime), pointer receivers included, by every insert path, and as parameters and ? literals.
func TestValuesInInterfaces(t *testing.T) {
	for _, srv := range modernOrLegacy(t) {
		t.Run(srv.name, func(t *testing.T) {
			db := openParamsServer(t, srv.dsn)
			table := createTable(t, db, "chnative_ifaces", "fs FixedString(3), f16 FixedString(16), nf Nullable(FixedString(16)), "+
				"s String, v String, u UUID, e Enum8('red' = 1, 'green' = 2, 'blue' = 3), d Date, dt DateTime('UTC')")
			u := testUUID
			row := []any{&binPtr{'a', 'b'}, u, &u, &strPtr{"hello"}, valuerStringer{}, &strPtr{u.String()}, shade(1),
				textOnly{"2024-02-29"}, &strPtr{"2024-02-29 10:11:12"}}
			for _, p := range insertPaths {
				if err := p.insert(db, table, row); err != nil {
					t.Errorf("%s: %v", p.name, err)
				}
			}
			err := sendBatch(db, table, func(b *Batch) error {
				return AppendStructs(b, []ifaceRow{{FS: binPtr{'a', 'b'}, F16: u, NF: &u, S: strPtr{"hello"}, U: strPtr{u.String()},
					E: 1, D: textOnly{"2024-02-29"}, DT: strPtr{"2024-02-29 10:11:12"}}})
			})
			if err != nil {
				t.Errorf("AppendStructs: %v", err)
			}
			want := "fs = 'ab!' AND hex(f16) = '61F0C4045CB311E7907BA6006AD3DBA0' AND hex(assumeNotNull(nf)) = hex(f16) AND s = 'hello' " +
				"AND v = 'by Value' AND toString(u) = '61f0c404-5cb3-11e7-907b-a6006ad3dba0' AND e = 'green' " +
				"AND d = toDate('2024-02-29') AND dt = toDateTime('2024-02-29 10:11:12', 'UTC')"
			var n, good int
			if err := db.QueryRow("SELECT count(), countIf("+want+") FROM "+table).Scan(&n, &good); err != nil {
				t.Fatal(err)
			}
			if n != len(insertPaths)+1 || good != n {
				t.Errorf("%d rows (want %d), %d of them as expected", n, len(insertPaths)+1, good)
			}

			// Parameters and ? literals take the String() of a fmt.Stringer (a pointer receiver's too).
			for _, tc := range []struct {
				q    string
				arg  any
				want string
			}{
				{"SELECT {p:String}", sql.Named("p", &strPtr{"a\tb"}), "a\tb"},
				{"SELECT toString({p:UUID})", sql.Named("p", &strPtr{u.String()}), u.String()},
				{"SELECT toString({p:Enum8('red' = 1, 'green' = 2)})", sql.Named("p", shade(1)), "green"},
				{"SELECT toString({p:Date})", sql.Named("p", textOnly{"2024-02-29"}), "2024-02-29"},
				{"SELECT ?", &strPtr{"it's"}, "it's"},
				{"SELECT ?", textOnly{"text"}, "text"},
				{"SELECT ?", netip.MustParseAddr("10.1.2.3"), "10.1.2.3"},
				{"SELECT toString(CAST(? AS Enum8('red' = 1, 'green' = 2)))", shade(1), "green"}, // by its name, as in clickhouse-go: not 1, 'red'
			} {
				var s string
				if err := db.QueryRow(tc.q, tc.arg).Scan(&s); err != nil || s != tc.want {
					t.Errorf("%s with %T: %q, %v; want %q", tc.q, tc.arg, s, err, tc.want)
				}
			}
		})
	}
}

// TestValuesInNamedStringParameters runs the query of clickhouse-go's documented example of query
// parameters (examples/std/query_parameters.go) with sql.Named, the database/sql spelling of
// clickhouse.Named: strings holding a newline, tabs and backslashes arrive byte for byte, an
// Array(String) parameter given as its text is parsed by the server, Identifier parameters name a
// column, a database and a table. 26.7 gets query parameters; 18.16 CAST literals.
func TestValuesInNamedStringParameters(t *testing.T) {
	for _, srv := range modernOrLegacy(t) {
		t.Run(srv.name, func(t *testing.T) {
			db := openParamsServer(t, srv.dsn)
			row := db.QueryRow(`SELECT
			{column:Identifier},
			{str:String},
			{array:Array(String)},
			{control:String},
			{tab:String},
			{backslash:String},
			{quote:String}
		FROM {database:Identifier}.{table:Identifier}
		LIMIT 1 OFFSET 100`,
				sql.Named("str", "hello"),
				sql.Named("array", "['a', 'b', 'c']"),
				sql.Named("column", "number"),
				sql.Named("database", "system"),
				sql.Named("table", "numbers"),
				sql.Named("control", "line 1\nline 2\tend"),
				sql.Named("tab", "column 1\tcolumn 2"),
				sql.Named("backslash", `C:\Users\bob`),
				sql.Named("quote", `it's \'q\' \\n`),
			)
			var (
				column                              uint64
				str, control, tab, backslash, quote string
				array                               []string
			)
			if err := row.Scan(&column, &str, &array, &control, &tab, &backslash, &quote); err != nil {
				t.Fatal(err)
			}
			if column != 100 || str != "hello" || strings.Join(array, ",") != "a,b,c" || control != "line 1\nline 2\tend" ||
				tab != "column 1\tcolumn 2" || backslash != `C:\Users\bob` || quote != `it's \'q\' \\n` {
				t.Errorf("got column=%d str=%q array=%q control=%q tab=%q backslash=%q quote=%q",
					column, str, array, control, tab, backslash, quote)
			}
		})
	}
}

// TestValuesInStringParameterBytes pins the bytes sent for a String parameter: the value's
// TabSeparated escape (\n, \t, \\), quoted as a Field dump (' and \ escaped once more), which the
// server unquotes and then unescapes, as clickhouse-go sends it.
func TestValuesInStringParameterBytes(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"line 1\nline 2\tend", `'line 1\\nline 2\\tend'`},
		{`C:\Users\bob`, `'C:\\\\Users\\\\bob'`},
		{"it's", `'it\'s'`},
		{"a\rb\x00c", `'a\\rb\\0c'`},
	} {
		got, err := bind.ParameterValue(tc.in, "String")
		if err != nil || got != tc.want {
			t.Errorf("bind.ParameterValue(%q) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
}

// TestValuesInParameterText runs clickhouse-go's documented WithParameters example
// (examples/clickhouse_api/query_parameters.go), whose values are the server's Escaped text, with
// each value wrapped in ParameterText: it arrives as clickhouse-go sends it (\n in the text is a
// newline). A plain string given to WithParameters is the string itself, so the same text
// arrives with its backslashes (what clickhouse-go's code sees as doubled backslashes when it
// passes its Escaped text unwrapped). 26.7; 18.16 has no query parameters, where a
// ParameterText given with sql.Named is unescaped into a CAST literal.
func TestValuesInParameterText(t *testing.T) {
	const query = `SELECT {column:Identifier}, {str:String}, {array:Array(String)}, {escaped_raw:String},
		{escaped_interpreted:String}, {literal_backslash:String}
		FROM {database:Identifier}.{table:Identifier} LIMIT 1 OFFSET 100`
	texts := map[string]string{
		"str":                 "hello",
		"array":               "['a', 'b', 'c']",
		"column":              "number",
		"database":            "system",
		"table":               "numbers",
		"escaped_raw":         `line 1\nline 2\tend`,
		"escaped_interpreted": "line 1\\nline 2\\tend",
		"literal_backslash":   `line 1\\nline 2`,
	}
	wrapped, plain := map[string]any{}, map[string]any{}
	for k, v := range texts {
		wrapped[k], plain[k] = ParameterText(v), v
	}
	db := openParamsServer(t, testenv.ModernDSN(t))
	var (
		column                   uint64
		str, raw, interp, litBsl string
		array                    []string
	)
	err := db.QueryRowContext(WithParameters(context.Background(), wrapped), query).Scan(&column, &str, &array, &raw, &interp, &litBsl)
	if err != nil || column != 100 || str != "hello" || strings.Join(array, ",") != "a,b,c" ||
		raw != "line 1\nline 2\tend" || interp != "line 1\nline 2\tend" || litBsl != `line 1\nline 2` {
		t.Errorf("ParameterText: column=%d str=%q array=%q raw=%q interpreted=%q literal_backslash=%q, %v",
			column, str, array, raw, interp, litBsl, err)
	}
	// (A string for an Array, Map or Tuple parameter is its text either way.)
	err = db.QueryRowContext(WithParameters(context.Background(), plain), query).Scan(&column, &str, &array, &raw, &interp, &litBsl)
	if err != nil || raw != `line 1\nline 2\tend` || litBsl != `line 1\\nline 2` || strings.Join(array, ",") != "a,b,c" {
		t.Errorf("plain strings: raw=%q literal_backslash=%q array=%q, %v; want the strings themselves", raw, litBsl, array, err)
	}

	for _, srv := range modernOrLegacy(t) {
		db := openParamsServer(t, srv.dsn)
		var s string
		var n sql.NullString
		err := db.QueryRow("SELECT {p:String}, {q:Nullable(String)}", sql.Named("p", ParameterText(`a\tb\\c\'d`)),
			sql.Named("q", ParameterText(`\N`))).Scan(&s, &n)
		if err != nil || s != `a`+"\t"+`b\c'd` || n.Valid {
			t.Errorf("%s: sql.Named ParameterText: %q, %v, %v", srv.name, s, n, err)
		}
	}
}
