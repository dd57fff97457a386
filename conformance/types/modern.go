package types

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/chnative/chnative"
	"github.com/chnative/chnative/columns"
)

// ModernSettings are the session settings of the modern (26.7) server round trip, given both to
// the driver (as DSN settings) and to the HTTP queries: the experimental types, Nested kept as
// one column (flatten_nested = 0), and the canonical text of Settings.
var ModernSettings = [][2]string{
	{"allow_experimental_variant_type", "1"},
	{"allow_experimental_dynamic_type", "1"},
	{"allow_experimental_json_type", "1"},
	{"allow_experimental_qbit_type", "1"},
	{"enable_time_time64_type", "1"},
	{"allow_suspicious_low_cardinality_types", "1"},
	{"allow_suspicious_variant_types", "1"},
	{"allow_suspicious_fixed_string_types", "1"},
	{"flatten_nested", "0"},
	{"output_format_decimal_trailing_zeros", "1"},
	{"session_timezone", "UTC"},
}

// ModernSpread: each case value is followed by ModernSpread-1 rows of the type's default.
const ModernSpread = 4

// ModernTableSettings make the round trip's MergeTree tables store every column that can be sparse
// as sparse (ratio 0: any share of default values is enough), Nullable ones included: so a client
// at a revision that takes sparse columns gets them on SELECT.
const ModernTableSettings = "ratio_of_defaults_for_sparse_serialization = 0, nullable_serialization_version = 'allow_sparse'"

// Modern is one run of the modern server round trip: a driver pool (at one protocol revision)
// and the server's HTTP interface, which gives the reference text without any driver.
type Modern struct {
	Label    string  // the TYPES.md column heading, e.g. "26.7 @54460"
	DB       *sql.DB // the driver, with ModernSettings in its DSN
	HTTPURL  string  // CHNATIVE_MODERN_HTTP_URL
	Revision uint64  // the revision the driver negotiated
}

// ModernDSN adds ModernSettings (and extra query keys, such as a revision cap) to dsn.
func ModernDSN(dsn string, extra ...[2]string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", err
	}
	q := u.Query()
	for _, kv := range append(append([][2]string{}, ModernSettings...), extra...) {
		q.Set(kv[0], kv[1])
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// OpenModern opens the driver on dsn (see ModernDSN) and reads the negotiated revision.
func OpenModern(label, dsn, httpURL string) (*Modern, error) {
	db, err := sql.Open("chnative", dsn)
	if err != nil {
		return nil, err
	}
	m := &Modern{Label: label, DB: db, HTTPURL: httpURL}
	conn, err := db.Conn(context.Background())
	if err != nil {
		db.Close()
		return nil, err
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		c, ok := dc.(chnative.Conn)
		if !ok {
			return fmt.Errorf("driver connection %T is not a chnative.Conn", dc)
		}
		m.Revision = c.ServerInfo().Negotiated
		return nil
	})
	if err != nil {
		db.Close()
		return nil, err
	}
	return m, nil
}

// HTTP runs sql on the server's HTTP interface with ModernSettings and returns the body.
func (m *Modern) HTTP(sql string) ([]byte, error) {
	u, err := url.Parse(m.HTTPURL)
	if err != nil {
		return nil, err
	}
	q := u.Query()
	for _, kv := range ModernSettings {
		q.Set(kv[0], kv[1])
	}
	u.RawQuery = q.Encode()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), strings.NewReader(sql))
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(body)))
	}
	return body, nil
}

// ModernResult is what one modern run found for one case.
type ModernResult struct {
	Check Check
	Kind  string // serialization_kind of v in the parts the server wrote (system.parts_columns)
	// Wire lists the custom serializations (Block.Serialization) in which the server sent v to
	// QueryBlocks, "" when every block came in the type's own encoding.
	Wire string
}

// RunModern round-trips the case's values through MergeTree tables on the modern server:
//
//  1. the server fills table src from the case's SQL values (INSERT ... SELECT over HTTP), each
//     followed by ModernSpread-1 rows of the type's default value (a second INSERT, so a second
//     part);
//  2. the driver reads src through database/sql Rows and through QueryBlocks, part by part as
//     stored (see readSQL: at a revision that takes them, sparse columns arrive sparse): each
//     column's type name must be the server's toTypeName(v), and each value, in canonical form,
//     the line the server prints for src in FORMAT TabSeparated over HTTP;
//  3. the values read through Rows are written to table a with a prepared insert in a
//     transaction (Prepare + Exec per row + Commit), those read through QueryBlocks to table b
//     with PrepareBatch;
//  4. the server's TabSeparated text of a and of b must equal that of src.
//
// Map values are Go maps, so their entries come back in another order: the text of tables whose
// type holds a Map is compared with every map sorted by key (mapSort), on all three tables.
func RunModern(m *Modern, k Case, table string) ModernResult {
	if k.NoModern != "" {
		return ModernResult{Check: na(k.NoModern)}
	}
	if m == nil {
		return ModernResult{Check: notRun("no 26.7 server (CHNATIVE_MODERN_DSN not set)")}
	}
	src, ta, tb := table+"_src", table+"_a", table+"_b"
	defer m.dropTables(src, ta, tb)
	var res ModernResult
	res.Check = m.roundTrip(k, src, ta, tb, &res)
	return res
}

func (m *Modern) dropTables(names ...string) {
	for _, n := range names {
		m.HTTP("DROP TABLE IF EXISTS " + n)
	}
}

func (m *Modern) roundTrip(k Case, src, ta, tb string, res *ModernResult) Check {
	for _, t := range []string{src, ta, tb} {
		if _, err := m.HTTP("DROP TABLE IF EXISTS " + t); err != nil {
			return failErr("drop", err)
		}
		ddl := fmt.Sprintf("CREATE TABLE %s (i UInt32, v %s) ENGINE = MergeTree ORDER BY i SETTINGS %s", t, k.Type, ModernTableSettings)
		if _, err := m.HTTP(ddl); err != nil {
			return failErr("create table", err)
		}
	}
	// Value j is row ModernSpread*j; the rows between hold the type's default, inserted apart (a
	// second part), so that sparse columns have gaps to skip.
	parts := make([]string, len(k.Values))
	labels := make([]string, 0, ModernSpread*len(k.Values))
	for i, v := range k.Values {
		parts[i] = fmt.Sprintf("SELECT %d AS i, CAST(%s AS %s) AS v", ModernSpread*i, v, k.Type)
		labels = append(labels, v)
		for range ModernSpread - 1 {
			labels = append(labels, "default")
		}
	}
	if _, err := m.HTTP(fmt.Sprintf("INSERT INTO %s SELECT i, v FROM (%s)", src, strings.Join(parts, " UNION ALL "))); err != nil {
		return failErr("server insert", err)
	}
	if _, err := m.HTTP(fmt.Sprintf("INSERT INTO %s (i) SELECT number FROM numbers(%d) WHERE number %% %d != 0",
		src, len(labels), ModernSpread)); err != nil {
		return failErr("server insert of defaults", err)
	}
	kinds, err := m.HTTP(fmt.Sprintf("SELECT DISTINCT serialization_kind FROM system.parts_columns WHERE database = currentDatabase() AND table = '%s' AND column = 'v' AND active ORDER BY 1 FORMAT TSVRaw", src))
	if err != nil {
		return failErr("parts_columns", err)
	}
	res.Kind = strings.Join(lines(kinds), ",")
	// print_pretty_type_names = 0: the one-line spelling, as in Native headers (the default, 1,
	// breaks named tuples over lines).
	tn, err := m.HTTP(fmt.Sprintf("SELECT toTypeName(v) FROM %s LIMIT 1 FORMAT TSVRaw SETTINGS print_pretty_type_names = 0", src))
	if err != nil {
		return failErr("toTypeName", err)
	}
	typeName := strings.TrimSuffix(string(tn), "\n")
	want, err := m.text(src, k.Type)
	if err != nil {
		return failErr("server text of src", err)
	}
	if len(want) != len(labels) {
		return fail("the server printed %d rows of src for %d", len(want), len(labels))
	}
	plain, err := m.plainText(src)
	if err != nil {
		return failErr("server text of src", err)
	}

	// Each path runs to its end, so that a failure of one does not hide the others.
	var failed []string
	note := func(c Check) bool {
		if c.State == Fail {
			failed = append(failed, c.Detail)
		}
		return c.ok()
	}
	written := func(t, how string) {
		got, err := m.text(t, k.Type)
		if err != nil {
			note(failErr("server text of the "+how+" table", err))
			return
		}
		note(compareRows(how+" table", got, want, labels))
	}
	// Through Rows, then the prepared insert into a.
	// A value that reads back wrong is still written: the tables' text shows what became of it.
	if vals, c := m.readRows(src, typeName, plain, labels); note(c) || vals != nil {
		if note(m.writePrepared(ta, vals, labels)) {
			written(ta, "prepared insert")
		}
	}
	// Through QueryBlocks, then PrepareBatch into b.
	if vals, c := m.readBlocks(src, typeName, plain, labels, &res.Wire); note(c) || vals != nil {
		if note(m.writeBatch(tb, vals, labels)) {
			written(tb, "PrepareBatch")
		}
	}
	if len(failed) > 0 {
		return fail("%s", strings.Join(failed, "; "))
	}
	return pass()
}

// text is the server's TabSeparated text of column v of table t, maps sorted (see RunModern).
func (m *Modern) text(t, typ string) ([]string, error) {
	expr := "v"
	if n, err := columns.ParseType(typ); err == nil {
		expr = sortMaps("v", n, 0)
	}
	out, err := m.HTTP(fmt.Sprintf("SELECT %s FROM %s ORDER BY i FORMAT TabSeparated", expr, t))
	if err != nil {
		return nil, err
	}
	return lines(out), nil
}

// plainText is the server's TabSeparated text of column v of t, as stored.
func (m *Modern) plainText(t string) ([]string, error) {
	out, err := m.HTTP(fmt.Sprintf("SELECT v FROM %s ORDER BY i FORMAT TabSeparated", t))
	if err != nil {
		return nil, err
	}
	return lines(out), nil
}

// sortMaps returns an expression of expr (of type n) with every map in it sorted by key, or expr
// itself when n holds no map.
func sortMaps(expr string, n *columns.TypeNode, depth int) string {
	if !hasMap(n) {
		return expr
	}
	x := fmt.Sprintf("x%d", depth)
	switch n.Name {
	case "Map":
		kx := fmt.Sprintf("k%d", depth)
		inner := sortMaps(x, typeArg(n, 1), depth+1)
		if inner == x {
			return "mapSort(" + expr + ")"
		}
		return fmt.Sprintf("mapSort(mapApply((%s, %s) -> (%s, %s), %s))", kx, x, kx, inner, expr)
	case "Array":
		return fmt.Sprintf("arrayMap(%s -> %s, %s)", x, sortMaps(x, typeArg(n, 0), depth+1), expr)
	case "Tuple":
		elems := make([]string, len(n.Args))
		for i, a := range n.Args {
			elems[i] = sortMaps(fmt.Sprintf("tupleElement(%s, %d)", expr, i+1), a.Type, depth+1)
		}
		return "tuple(" + strings.Join(elems, ", ") + ")"
	}
	return expr
}

func hasMap(n *columns.TypeNode) bool {
	if n == nil {
		return false
	}
	if n.Name == "Map" {
		return true
	}
	for _, a := range n.Args {
		if a.Type != nil && hasMap(a.Type) {
			return true
		}
	}
	return false
}

func compareRows(what string, got, want, values []string) Check {
	if len(got) != len(want) {
		return fail("%s: %d rows, want %d", what, len(got), len(want))
	}
	var diff []string
	for i := range got {
		if got[i] != want[i] {
			diff = append(diff, fmt.Sprintf("row %d (%s): %s, server %s", i, values[i], clip(got[i]), clip(want[i])))
		}
	}
	if len(diff) > 0 {
		return fail("%s: %d of %d values differ: %s", what, len(diff), len(got), strings.Join(diff, "; "))
	}
	return pass()
}

// readSQL reads src in storage order, one part after the other (no ORDER BY, one thread), so
// that each part's column keeps the serialization it was stored in (a sort would materialize
// sparse columns); the rows are put in i order by the reader.
const readSQL = "SELECT i, v FROM %s SETTINGS max_threads = 1"

// inOrder sorts the values read by their row number i and checks that i runs 0, 1, ... n-1.
func inOrder(is []uint32, vals []any) ([]any, error) {
	out := make([]any, len(vals))
	seen := make([]bool, len(vals))
	for k, i := range is {
		if int(i) >= len(out) || seen[i] {
			return nil, fmt.Errorf("row number %d repeated or out of range (%d rows)", i, len(vals))
		}
		out[i], seen[i] = vals[k], true
	}
	return out, nil
}

func (m *Modern) readRows(src, typeName string, want, values []string) ([]any, Check) {
	rows, err := m.DB.Query(fmt.Sprintf(readSQL, src))
	if err != nil {
		return nil, failErr("Rows: select", err)
	}
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		return nil, failErr("Rows: column types", err)
	}
	if got := cts[1].DatabaseTypeName(); got != typeName {
		return nil, fail("Rows: DatabaseTypeName %s, server toTypeName %s", got, typeName)
	}
	var is []uint32
	var vals []any
	for rows.Next() {
		var i uint32
		var v any
		if err := rows.Scan(&i, &v); err != nil {
			return nil, failErr("Rows: scan", err)
		}
		is, vals = append(is, i), append(vals, v)
	}
	if err := rows.Err(); err != nil {
		return nil, failErr("Rows", err)
	}
	if vals, err = inOrder(is, vals); err != nil {
		return nil, failErr("Rows", err)
	}
	return vals, compareRows("Rows", canonicalAll(typeName, vals), want, values)
}

func (m *Modern) readBlocks(src, typeName string, want, values []string, wire *string) ([]any, Check) {
	var is []uint32
	var vals []any
	var sers []string
	err := m.raw(func(c chnative.Conn) error {
		bl, err := c.QueryBlocks(context.Background(), fmt.Sprintf(readSQL, src))
		if err != nil {
			return err
		}
		defer bl.Close()
		for bl.Next() {
			b := bl.Block()
			if b.Type(1) != typeName {
				return fmt.Errorf("block column type %s, server toTypeName %s", b.Type(1), typeName)
			}
			if ser := b.Serialization(1); ser != nil && !ser.IsDefault() && !slices.Contains(sers, ser.String()) {
				sers = append(sers, ser.String())
			}
			ic, ok := b.Column(0).(*columns.Fixed[uint32])
			if !ok {
				return fmt.Errorf("column i is %T", b.Column(0))
			}
			col := b.Column(1)
			for r := range b.Rows() {
				is, vals = append(is, ic.Values()[r]), append(vals, col.Value(r))
			}
		}
		if err := bl.Err(); err != nil {
			return err
		}
		return bl.Close()
	})
	if err == nil {
		vals, err = inOrder(is, vals)
	}
	if err != nil {
		return nil, failErr("QueryBlocks", err)
	}
	*wire = strings.Join(sers, ",")
	return vals, compareRows("QueryBlocks", canonicalAll(typeName, vals), want, values)
}

func canonicalAll(typ string, vals []any) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = canonicalOrError(typ, v)
	}
	return out
}

func (m *Modern) writePrepared(t string, vals []any, values []string) Check {
	tx, err := m.DB.Begin()
	if err != nil {
		return failErr("prepared insert: begin", err)
	}
	st, err := tx.Prepare(fmt.Sprintf("INSERT INTO %s (i, v) VALUES (?, ?)", t))
	if err != nil {
		tx.Rollback()
		return failErr("prepared insert: prepare", err)
	}
	for i, v := range vals {
		if _, err := st.Exec(uint32(i), v); err != nil {
			st.Close()
			tx.Rollback()
			return fail("prepared insert: row %d (%s, Go %T): %v", i, values[i], v, err)
		}
	}
	if err := st.Close(); err != nil {
		tx.Rollback()
		return failErr("prepared insert: close", err)
	}
	if err := tx.Commit(); err != nil {
		return failErr("prepared insert: commit", err)
	}
	return pass()
}

func (m *Modern) writeBatch(t string, vals []any, values []string) Check {
	var c Check = pass()
	err := m.raw(func(cn chnative.Conn) error {
		b, err := cn.PrepareBatch(context.Background(), fmt.Sprintf("INSERT INTO %s (i, v)", t))
		if err != nil {
			return err
		}
		for i, v := range vals {
			if err := b.Append(uint32(i), v); err != nil {
				b.Abort()
				c = fail("PrepareBatch: row %d (%s, Go %T): %v", i, values[i], v, err)
				return nil
			}
		}
		return b.Send()
	})
	if err != nil {
		return failErr("PrepareBatch", err)
	}
	return c
}

func (m *Modern) raw(f func(chnative.Conn) error) error {
	conn, err := m.DB.Conn(context.Background())
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		c, ok := dc.(chnative.Conn)
		if !ok {
			return fmt.Errorf("driver connection %T is not a chnative.Conn", dc)
		}
		return f(c)
	})
}

func canonicalOrError(typ string, v any) string {
	s, err := Canonical(typ, v)
	if err != nil {
		return "canonical: " + err.Error()
	}
	return s
}
