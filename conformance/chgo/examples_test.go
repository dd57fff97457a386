package chgo

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/google/uuid"
	"github.com/paulmach/orb"

	"github.com/chnative/chnative"
	"github.com/chnative/chnative/conformance/types"
	"github.com/chnative/chnative/internal/testenv"
)

// The tests here run the patterns of clickhouse-go's database/sql examples (examples/std in its
// module: exec, batch, query_row, query_rows, bind, map, geo, context, progress, compression,
// connect_settings, multi_host) through both drivers on 26.7, with the same DSN, and compare what
// each printed and whether each failed. The code is ours, written with the same calls, DSN keys,
// Go types and context options as each example; where an example uses clickhouse-go's context
// API, the chnative run uses the migration docs/clickhouse-go.md's "Context options" table
// gives (marked "migrated" below). Values the examples take from time.Now or uuid.New are fixed
// so that the two runs can be compared.

// stdExample is one example's pattern: it runs on db (opened with the driver named) against
// table, and returns what it printed.
type stdExample func(ctx context.Context, db *sql.DB, driver, table string) (string, error)

// exampleDifferences are the examples whose output differs between the drivers, with the reason;
// the test fails if a listed example prints the same on both (the difference is gone).
var exampleDifferences = map[string]string{}

// stdFixedTime stands in for the examples' time.Now().
var stdFixedTime = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)

// stdFixedUUID stands in for the examples' uuid.New().
var stdFixedUUID = uuid.MustParse("6ba7b810-9dad-11d1-80b4-00c04fd430c8")

func stdDSN(t *testing.T, extra ...[2]string) string {
	dsn, err := types.ModernDSN(testenv.ModernDSN(t), extra...)
	if err != nil {
		t.Fatal(err)
	}
	return dsn
}

// runStdExample runs ex through both drivers on dsn and compares the outputs and errors.
func runStdExample(t *testing.T, name, dsn string, ex stdExample) {
	t.Helper()
	ctx := context.Background()
	var outs [2]string
	var errs [2]error
	for k, driver := range []string{"clickhouse", "chnative"} {
		db, err := sql.Open(driver, dsn)
		if err != nil {
			t.Fatalf("%s: %v", driver, err)
		}
		table := fmt.Sprintf("chgo_ex_%s_%d", driver, seq())
		outs[k], errs[k] = ex(ctx, db, driver, table)
		db.ExecContext(ctx, "DROP TABLE IF EXISTS "+table)
		db.Close()
	}
	same := outs[0] == outs[1] && (errs[0] == nil) == (errs[1] == nil)
	why, listed := exampleDifferences[name]
	switch {
	case listed && same:
		t.Errorf("%s: listed difference (%s) is gone: both printed\n%s", name, why, outs[1])
	case listed:
		t.Logf("%s: known difference: %s", name, why)
	case !same:
		t.Errorf("%s: clickhouse-go printed (err %v)\n%s\nchnative printed (err %v)\n%s", name, errs[0], outs[0], errs[1], outs[1])
	case errs[1] != nil:
		t.Logf("%s: both fail: clickhouse-go %v; chnative %v", name, errs[0], errs[1])
	default:
		t.Logf("%s: both printed:\n%s", name, outs[1])
	}
}

// TestStdExamples runs each example pattern through both drivers.
func TestStdExamples(t *testing.T) {
	dsn := stdDSN(t)
	for _, c := range []struct {
		name string
		ex   stdExample
	}{
		{"exec", exampleExec},
		{"batch", exampleBatch},
		{"query_row", exampleQueryRow},
		{"query_rows", exampleQueryRows},
		{"bind", exampleBind},
		{"map", exampleMap},
		{"geo", exampleGeo},
		{"context", exampleContext},
	} {
		t.Run(c.name, func(t *testing.T) { runStdExample(t, c.name, dsn, c.ex) })
	}
}

// exec: CREATE TABLE IF NOT EXISTS and a literal INSERT ... VALUES through Exec.
func exampleExec(ctx context.Context, db *sql.DB, _, table string) (string, error) {
	db.Exec("DROP TABLE IF EXISTS " + table)
	if _, err := db.Exec("CREATE TABLE IF NOT EXISTS " + table + " (Col1 UInt8, Col2 String) engine=Memory"); err != nil {
		return "", err
	}
	if _, err := db.Exec("INSERT INTO " + table + " VALUES (1, 'test-1')"); err != nil {
		return "", err
	}
	var (
		c1 uint8
		c2 string
	)
	err := db.QueryRow("SELECT * FROM "+table).Scan(&c1, &c2)
	return fmt.Sprintf("%d %s", c1, c2), err
}

const stdBatchTable = ` (
	Col1 UInt8, Col2 String, Col3 FixedString(3), Col4 UUID, Col5 Map(String, UInt8),
	Col6 Array(String), Col7 Tuple(String, UInt8, Array(Map(String, String))), Col8 DateTime
) Engine = Memory`

// stdBatchInsert is the insert of batch.go and query_row(s).go: Begin, Prepare("INSERT INTO t"),
// one Exec per row with Go values (a tuple as []any), Commit.
func stdBatchInsert(db *sql.DB, table string, n int) error {
	if _, err := db.Exec("CREATE TABLE IF NOT EXISTS " + table + stdBatchTable); err != nil {
		return err
	}
	scope, err := db.Begin()
	if err != nil {
		return err
	}
	batch, err := scope.Prepare("INSERT INTO " + table)
	if err != nil {
		return err
	}
	for i := range n {
		s := strconv.Itoa(i)
		if _, err := batch.Exec(
			uint8(i), "ClickHouse", fmt.Sprintf("%03d", uint8(i)), stdFixedUUID,
			map[string]uint8{"key": uint8(i)},
			[]string{s, strconv.Itoa(i + 1), strconv.Itoa(i + 2)},
			[]any{s, uint8(i), []map[string]string{{"key": s}, {"key": strconv.Itoa(i + 1)}}},
			stdFixedTime.Add(time.Duration(i)*time.Second),
		); err != nil {
			return err
		}
	}
	return scope.Commit()
}

// batch: the insert, then what the table holds.
func exampleBatch(ctx context.Context, db *sql.DB, _, table string) (string, error) {
	if err := stdBatchInsert(db, table, 1000); err != nil {
		return "", err
	}
	var (
		n   uint64
		sum uint64
		s   string
	)
	err := db.QueryRow("SELECT count(), sum(Col1), toString(groupArray(tuple(*))[1000]) FROM "+table).Scan(&n, &sum, &s)
	return fmt.Sprintf("%d %d %s", n, sum, s), err
}

// query_row: QueryRow and Scan into uint8, string (String, FixedString, UUID), a map, a slice,
// any (the tuple) and time.Time.
func exampleQueryRow(ctx context.Context, db *sql.DB, _, table string) (string, error) {
	if err := stdBatchInsert(db, table, 1000); err != nil {
		return "", err
	}
	var (
		col1             uint8
		col2, col3, col4 string
		col5             map[string]uint8
		col6             []string
		col7             any
		col8             time.Time
	)
	err := db.QueryRow("SELECT * FROM "+table+" ORDER BY Col8 LIMIT 1").Scan(&col1, &col2, &col3, &col4, &col5, &col6, &col7, &col8)
	return fmt.Sprintf("%d %s %s %s %v %v %#v %v", col1, col2, col3, col4, col5, col6, col7, col8), err
}

// query_rows: Query, Next, Scan, Err.
func exampleQueryRows(ctx context.Context, db *sql.DB, _, table string) (string, error) {
	if err := stdBatchInsert(db, table, 10); err != nil {
		return "", err
	}
	rows, err := db.Query("SELECT * FROM " + table + " ORDER BY Col8")
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var out strings.Builder
	for rows.Next() {
		var (
			col1             uint8
			col2, col3, col4 string
			col5             map[string]uint8
			col6             []string
			col7             []any
			col8             time.Time
		)
		if err := rows.Scan(&col1, &col2, &col3, &col4, &col5, &col6, &col7, &col8); err != nil {
			return out.String(), err
		}
		fmt.Fprintf(&out, "%d %s %s %s %v %v %#v %v\n", col1, col2, col3, col4, col5, col6, col7, col8.Unix())
	}
	return out.String(), rows.Err()
}

// bind: a nested Begin, then $1, @name (sql.Named) and ? placeholders with an int and a
// time.Time, scanned into a struct's fields.
func exampleBind(ctx context.Context, db *sql.DB, _, table string) (string, error) {
	if _, err := db.Exec("CREATE TABLE " + table + " (Col1 UInt8, Col2 String, Col3 DateTime) ENGINE = Memory"); err != nil {
		return "", err
	}
	outer, err := db.Begin()
	if err != nil {
		return "", err
	}
	{
		scope, err := db.Begin()
		if err != nil {
			return "", err
		}
		batch, err := scope.Prepare("INSERT INTO " + table)
		if err != nil {
			return "", err
		}
		for i := range 10 {
			if _, err := batch.Exec(uint8(i), "ClickHouse Inc.", stdFixedTime.Add(time.Duration(i)*time.Hour)); err != nil {
				return "", err
			}
		}
		if err := scope.Commit(); err != nil {
			return "", err
		}
	}
	if err := outer.Commit(); err != nil {
		return "", err
	}
	var result struct {
		Col1 uint8
		Col2 string
		Col3 time.Time
	}
	var out strings.Builder
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{"SELECT * FROM " + table + " WHERE Col1 = $1 AND Col3 = $2", []any{2, stdFixedTime.Add(2 * time.Hour)}},
		{"SELECT * FROM " + table + " WHERE Col1 = @Col1 AND Col3 = @Col2", []any{sql.Named("Col1", 4), sql.Named("Col2", stdFixedTime.Add(4*time.Hour))}},
		{"SELECT * FROM " + table + " WHERE Col1 = ? AND Col3 = ?", []any{6, stdFixedTime.Add(6 * time.Hour)}},
	} {
		if err := db.QueryRow(q.sql, q.args...).Scan(&result.Col1, &result.Col2, &result.Col3); err != nil {
			return out.String(), err
		}
		fmt.Fprintf(&out, "%d %s %v\n", result.Col1, result.Col2, result.Col3.Unix())
	}
	return out.String(), nil
}

// map: maps in, read back into any, typed maps and a slice of maps (LowCardinality keys and
// values too).
func exampleMap(ctx context.Context, db *sql.DB, _, table string) (string, error) {
	if _, err := db.Exec("CREATE TABLE " + table + ` (Col1 Map(String, UInt64), Col2 Map(String, UInt64),
		Col3 Map(String, UInt64), Col4 Array(Map(String, String)),
		Col5 Map(LowCardinality(String), LowCardinality(String))) Engine Memory`); err != nil {
		return "", err
	}
	scope, err := db.Begin()
	if err != nil {
		return "", err
	}
	batch, err := scope.Prepare("INSERT INTO " + table)
	if err != nil {
		return "", err
	}
	if _, err := batch.Exec(
		map[string]uint64{"a1": 1, "a2": 2}, map[string]uint64{"b1": 10, "b2": 20}, map[string]uint64{},
		[]map[string]string{{"A": "B"}, {"C": "D"}}, map[string]string{"e1": "100", "e2": "200"},
	); err != nil {
		return "", err
	}
	if err := scope.Commit(); err != nil {
		return "", err
	}
	var (
		col1       any
		col2, col3 map[string]uint64
		col4       []map[string]string
		col5       map[string]string
	)
	err = db.QueryRow("SELECT * FROM "+table).Scan(&col1, &col2, &col3, &col4, &col5)
	return fmt.Sprintf("%#v %v %v %v %v", col1, col2, col3, col4, col5), err
}

// geo: orb values in, orb values out.
func exampleGeo(ctx context.Context, db *sql.DB, _, table string) (string, error) {
	if _, err := db.ExecContext(ctx, "CREATE TABLE "+table+` (point Point, ring Ring, lineString LineString,
		polygon Polygon, mPolygon MultiPolygon, mLineString MultiLineString) Engine Memory`); err != nil {
		return "", err
	}
	scope, err := db.Begin()
	if err != nil {
		return "", err
	}
	batch, err := scope.Prepare("INSERT INTO " + table)
	if err != nil {
		return "", err
	}
	poly := orb.Polygon{{{1, 2}, {12, 2}}, {{11, 2}, {1, 12}}}
	if _, err := batch.Exec(
		orb.Point{11, 22}, orb.Ring{{1, 2}, {1, 2}}, orb.LineString{{1, 2}, {3, 4}, {5, 6}}, poly,
		orb.MultiPolygon{poly, poly}, orb.MultiLineString{{{1, 2}, {3, 4}}, {{5, 6}}},
	); err != nil {
		return "", err
	}
	if err := scope.Commit(); err != nil {
		return "", err
	}
	var (
		point       orb.Point
		ring        orb.Ring
		lineString  orb.LineString
		polygon     orb.Polygon
		mPolygon    orb.MultiPolygon
		mLineString orb.MultiLineString
	)
	err = db.QueryRowContext(ctx, "SELECT * FROM "+table).Scan(&point, &ring, &lineString, &polygon, &mPolygon, &mLineString)
	return fmt.Sprintf("%v %v %v %v %v %v", point, ring, lineString, polygon, mPolygon, mLineString), err
}

// context: a setting per query read back with getSetting into a bool; a cancelled query and a
// Ping past its deadline fail; a query id per query; a query cancelled while its rows stream.
func exampleContext(ctx context.Context, db *sql.DB, driver, _ string) (string, error) {
	var out strings.Builder
	// migrated: clickhouse.Context(ctx, clickhouse.WithSettings(clickhouse.Settings{...}))
	// becomes chnative.WithSettings(ctx, chnative.Settings{...}).
	sctx := clickhouse.Context(context.Background(), clickhouse.WithSettings(clickhouse.Settings{"async_insert": "1"}))
	if driver == "chnative" {
		sctx = chnative.WithSettings(context.Background(), chnative.Settings{"async_insert": "1"})
	}
	var setting bool
	err := db.QueryRowContext(sctx, "SELECT getSetting('async_insert')").Scan(&setting)
	fmt.Fprintf(&out, "setting %v %v\n", setting, err)

	cctx, cancel := context.WithCancel(context.Background())
	go cancel()
	err = db.QueryRowContext(cctx, "SELECT sleep(3)").Scan()
	fmt.Fprintf(&out, "cancelled query fails: %v\n", err != nil)

	dctx, dcancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer dcancel()
	err = db.PingContext(dctx)
	fmt.Fprintf(&out, "ping past deadline fails: %v, is DeadlineExceeded: %v\n", err != nil, errors.Is(err, context.DeadlineExceeded))

	// migrated: clickhouse.WithQueryID(id) becomes chnative.WithQueryID(ctx, id).
	id := uuid.NewString()
	qctx := clickhouse.Context(context.Background(), clickhouse.WithQueryID(id))
	if driver == "chnative" {
		qctx = chnative.WithQueryID(context.Background(), id)
	}
	var one uint8
	var gotID string
	err = db.QueryRowContext(qctx, "SELECT 1, queryID()").Scan(&one, &gotID)
	fmt.Fprintf(&out, "one %d, query id sent: %v, err %v\n", one, gotID == id, err)

	// max_block_size 1 makes each row its own block; cancel after the row numbered 3.
	rctx, rcancel := context.WithCancel(context.Background())
	defer rcancel()
	// migrated, as above.
	rctx2 := clickhouse.Context(rctx, clickhouse.WithSettings(clickhouse.Settings{"max_block_size": "1"}))
	if driver == "chnative" {
		rctx2 = chnative.WithSettings(rctx, chnative.Settings{"max_block_size": "1"})
	}
	rows, err := db.QueryContext(rctx2, "SELECT sleepEachRow(0.05), number FROM numbers(100)")
	if err != nil {
		return out.String(), err
	}
	defer rows.Close()
	var col1, col2 uint8
	for rows.Next() {
		if err := rows.Scan(&col1, &col2); err != nil {
			fmt.Fprintf(&out, "scan error after cancel: %v\n", col2 > 3)
			break
		}
		if col2 <= 3 {
			fmt.Fprintf(&out, "row %d\n", col2)
		}
		if col2 == 3 {
			rcancel()
		}
	}
	fmt.Fprintf(&out, "rows stopped before the end: %v, Err is Canceled: %v\n", col2 < 99, errors.Is(rows.Err(), context.Canceled))
	return out.String(), nil
}

// TestStdExampleProgress is progress.go: send_logs_level=trace in the DSN, and progress, profile
// info and log callbacks on one query over a million rows; the rows the progress callbacks
// report must add up to the same total.
func TestStdExampleProgress(t *testing.T) {
	dsn := stdDSN(t, [2]string{"send_logs_level", "trace"})
	runStdExample(t, "progress", dsn, func(ctx context.Context, db *sql.DB, driver, _ string) (string, error) {
		var totalRows uint64
		var profiles, logs int
		// migrated: clickhouse.WithProgress(func(*clickhouse.Progress)) adding p.Rows (each
		// packet's increment) becomes chnative.WithProgress(ctx, func(chnative.Progress)) taking
		// p.ReadRows (chnative hands over the totals so far); WithProfileInfo and WithLogs become
		// chnative.WithProfileInfo and chnative.WithLogs.
		qctx := clickhouse.Context(ctx,
			clickhouse.WithProgress(func(p *clickhouse.Progress) { totalRows += p.Rows }),
			clickhouse.WithProfileInfo(func(*clickhouse.ProfileInfo) { profiles++ }),
			clickhouse.WithLogs(func(*clickhouse.Log) { logs++ }))
		if driver == "chnative" {
			qctx = chnative.WithProgress(ctx, func(p chnative.Progress) { totalRows = p.ReadRows })
			qctx = chnative.WithProfileInfo(qctx, func(chnative.ProfileInfo) { profiles++ })
			qctx = chnative.WithLogs(qctx, func(chnative.Log) { logs++ })
		}
		rows, err := db.QueryContext(qctx, "SELECT number from numbers(1000000) LIMIT 1000000")
		if err != nil {
			return "", err
		}
		n := 0
		for rows.Next() {
			n++
		}
		err = rows.Err()
		rows.Close()
		return fmt.Sprintf("rows %d, progress total %d, profile info seen %v, logs seen %v", n, totalRows, profiles > 0, logs > 0), err
	})
}

// TestStdExampleCompression is compression.go on the native protocol: compress=lz4 (and
// compress=zstd, lz4hc with compress_level) in the DSN, a batch of 1000 rows, and what the table
// then holds.
func TestStdExampleCompression(t *testing.T) {
	for _, c := range [][][2]string{
		{{"compress", "lz4"}},
		{{"compress", "zstd"}},
		{{"compress", "lz4hc"}, {"compress_level", "5"}},
	} {
		dsn := stdDSN(t, c...)
		runStdExample(t, "compression "+fmt.Sprint(c), dsn, func(ctx context.Context, db *sql.DB, _, table string) (string, error) {
			if _, err := db.Exec("CREATE TABLE " + table + " (Col1 Array(String), Col2 UInt64) Engine Memory"); err != nil {
				return "", err
			}
			scope, err := db.Begin()
			if err != nil {
				return "", err
			}
			batch, err := scope.Prepare("INSERT INTO " + table)
			if err != nil {
				return "", err
			}
			for i := range 1000 {
				if _, err := batch.Exec([]string{strconv.Itoa(i), strconv.Itoa(i + 1)}, uint64(i)); err != nil {
					return "", err
				}
			}
			if err := scope.Commit(); err != nil {
				return "", err
			}
			var n, sum uint64
			var last []string
			err = db.QueryRow("SELECT count(), sum(Col2), groupArray(Col1)[1000] FROM "+table).Scan(&n, &sum, &last)
			return fmt.Sprintf("%d %d %v", n, sum, last), err
		})
	}
}

// TestStdExampleConnectSettings is connect_settings.go and multi_host.go's DSN form: two hosts
// nobody listens on before the server, dial_timeout, connection_open_strategy=round_robin,
// compress=lz4 (connect_settings.go also sets debug=true, left out here to keep the test log
// readable); Ping must succeed on both drivers, and so must a query.
func TestStdExampleConnectSettings(t *testing.T) {
	u, err := url.Parse(stdDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	for _, c := range [][][2]string{
		{{"dial_timeout", "10s"}, {"connection_open_strategy", "round_robin"}, {"compress", "lz4"}},
		{{"connection_open_strategy", "round_robin"}},
	} {
		v := *u
		qq := url.Values{}
		for k, vs := range q {
			qq[k] = vs
		}
		for _, kv := range c {
			qq.Set(kv[0], kv[1])
		}
		v.Host = "127.0.0.1:1,127.0.0.1:2," + u.Host
		v.RawQuery = qq.Encode()
		runStdExample(t, "connect "+fmt.Sprint(c), v.String(), func(ctx context.Context, db *sql.DB, _, _ string) (string, error) {
			if err := db.Ping(); err != nil {
				return "", err
			}
			var s string
			err := db.QueryRow("SELECT version()").Scan(&s)
			return s, err
		})
	}
}
