package chnative

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/chnative/chnative/internal/bind"

	"github.com/chnative/chnative/internal/testenv"
)

func TestPingAndVersion(t *testing.T) {
	db := openDB(t)
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
	var v string
	if err := db.QueryRow("SELECT version()").Scan(&v); err != nil {
		t.Fatal(err)
	}
	if want := testenv.Server(t).String() + "."; !strings.HasPrefix(v, want) {
		t.Fatalf("version() = %q, want %s* (the server's Hello)", v, want)
	}
}

func TestDDL(t *testing.T) {
	db := openDB(t)
	name := tableName("ddl")
	mustExec(t, db, "CREATE TABLE "+name+" (a UInt8) ENGINE = MergeTree ORDER BY a")
	mustExec(t, db, "ALTER TABLE "+name+" ADD COLUMN b String")
	var n int
	if err := db.QueryRow("SELECT count() FROM system.columns WHERE table = ?", name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Fatalf("%d columns after ALTER, want 2", n)
	}
	mustExec(t, db, "DROP TABLE "+name)
	if err := db.QueryRow("SELECT count() FROM system.tables WHERE name = ?", name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatal("table still exists after DROP")
	}
}

func TestExceptionsKeepConnectionUsable(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// whileExecuting: the exception is raised while the query runs, not while it is parsed or
	// planned. 18.16 sends it in place of the result's header block, so QueryContext fails;
	// 26.7 sends the header block first, so QueryContext returns the rows and the exception ends
	// them (rows.Next is false, rows.Err is the *Exception). clickhouse-go sees the same order.
	server := testenv.Server(t)
	cases := []struct {
		query          string
		code           int32
		whileExecuting bool
	}{
		{"SELEC 1", 62, false},
		{"SELECT * FROM no_such_table_chnative", 60, false},
		{"SELECT throwIf(1)", 395, true},
	}
	for _, tc := range cases {
		_, err := c.ExecContext(ctx, tc.query)
		var ex *Exception
		if !errors.As(err, &ex) {
			t.Fatalf("%s: error %v (%T), want *Exception", tc.query, err, err)
		}
		if ex.Code != tc.code && !(tc.code == 395 && ex.Code > 0) {
			t.Fatalf("%s: code %d, want %d (%v)", tc.query, ex.Code, tc.code, ex)
		}
		if !errors.Is(err, &Exception{Code: ex.Code}) {
			t.Fatalf("errors.Is by code failed for %v", err)
		}
		// The same connection answers the next query.
		var one int
		if err := c.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
			t.Fatalf("after %s: SELECT 1 = %d, %v", tc.query, one, err)
		}
		// Through Query too.
		rows, err := c.QueryContext(ctx, tc.query)
		if tc.whileExecuting && server == testenv.Modern {
			if err != nil {
				t.Fatalf("%s on %v: Query failed (%v), want the rows, ended by the exception", tc.query, server, err)
			}
			if rows.Next() {
				t.Fatalf("%s on %v: a row", tc.query, server)
			}
			err = rows.Err()
			rows.Close()
			if err == nil {
				t.Fatalf("%s on %v: rows ended without the exception", tc.query, server)
			}
		} else if err == nil {
			rows.Close()
			t.Fatalf("%s on %v: Query succeeded", tc.query, server)
		}
		if !errors.As(err, &ex) || ex.Code != tc.code && !(tc.code == 395 && ex.Code > 0) {
			t.Fatalf("%s on %v: Query error %v (%T), want *Exception %d", tc.query, server, err, err, tc.code)
		}
		if err := c.QueryRowContext(ctx, "SELECT 2").Scan(&one); err != nil || one != 2 {
			t.Fatalf("after Query %s: SELECT 2 = %d, %v", tc.query, one, err)
		}
	}
}

func TestCancelRunningQuery(t *testing.T) {
	db := openDB(t)
	id := "chnative-cancel-" + tableName("q")
	ctx, cancel := context.WithCancel(WithQueryID(context.Background(), id))
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	var n uint64
	err := db.QueryRowContext(ctx, "SELECT count() FROM (SELECT number FROM system.numbers LIMIT 10000000000)").Scan(&n)
	elapsed := time.Since(start)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if elapsed > time.Second {
		t.Fatalf("cancel took %v, want < 1s", elapsed)
	}
	var one int
	if err := db.QueryRow("SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("next query: %d, %v", one, err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		var running int
		if err := db.QueryRow("SELECT count() FROM system.processes WHERE query_id = ?", id).Scan(&running); err != nil {
			t.Fatal(err)
		}
		if running == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("query %s still in system.processes 5s after cancel", id)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestContextDeadline(t *testing.T) {
	db := openDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := db.ExecContext(ctx, "SELECT count() FROM (SELECT number FROM system.numbers LIMIT 10000000000)")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want DeadlineExceeded", err)
	}
	if time.Since(start) > time.Second {
		t.Fatalf("took %v", time.Since(start))
	}
}

func TestRollbackPreparedInsert(t *testing.T) {
	db := openDB(t)
	table := createTable(t, db, "rollback", "a UInt64, b String")
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := tx.Prepare("INSERT INTO " + table)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		if _, err := st.Exec(uint64(i), "x"); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, table); n != 0 {
		t.Fatalf("%d rows after rollback", n)
	}
	// The same connection is usable: insert and commit on it.
	tx, err = c.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err = tx.Prepare("INSERT INTO " + table + " (a, b) VALUES (?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Exec(uint64(7), "seven"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var b string
	if err := c.QueryRowContext(ctx, "SELECT b FROM "+table+" WHERE a = 7").Scan(&b); err != nil || b != "seven" {
		t.Fatalf("b = %q, %v", b, err)
	}
}

func TestBadValueFailsOnlyItsExec(t *testing.T) {
	db := openDB(t)
	table := createTable(t, db, "badvalue", "a UInt8, b String")
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	st, err := tx.Prepare("INSERT INTO " + table)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Exec(1, "one"); err != nil {
		t.Fatal(err)
	}
	_, err = st.Exec(300, "too big") // 300 does not fit UInt8
	var ce *ColumnError
	if !errors.As(err, &ce) || ce.Column != "a" {
		t.Fatalf("err = %v, want a *ColumnError for column a", err)
	}
	if _, err := st.Exec(2, "two"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, table); n != 2 {
		t.Fatalf("%d rows, want 2", n)
	}
}

func TestExecInsertWithArgs(t *testing.T) {
	db := openDB(t)
	table := createTable(t, db, "execins", "a UInt32, b String, c Nullable(Float64)")
	// Placeholders: bound client-side.
	mustExec(t, db, "INSERT INTO "+table+" (a, b, c) VALUES (?, ?, ?)", 1, "it's", nil)
	// No placeholders: one row through the native insert.
	mustExec(t, db, "INSERT INTO "+table, 2, "two", 2.5)
	// A prepared insert outside a transaction inserts one row per Exec.
	st, err := db.Prepare("INSERT INTO " + table)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Exec(3, "three", 3.5); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query("SELECT a, b, c FROM " + table + " ORDER BY a")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var a uint32
		var b string
		var c *float64
		if err := rows.Scan(&a, &b, &c); err != nil {
			t.Fatal(err)
		}
		s := b
		if c != nil {
			s += "/" + strconvF(*c)
		}
		got = append(got, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{"it's", "two/2.5", "three/3.5"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func strconvF(f float64) string { return strings.TrimRight(strings.TrimRight(sqlFloat(f), "0"), ".") }

func sqlFloat(f float64) string {
	return strings.TrimSpace(func() string { s, _ := bind.Literal(f); return s }())
}

func TestPrepareSelect(t *testing.T) {
	db := openDB(t)
	st, err := db.Prepare("SELECT number * ? FROM system.numbers LIMIT 3")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, mul := range []int{2, 3} {
		rows, err := st.Query(mul)
		if err != nil {
			t.Fatal(err)
		}
		var sum uint64
		for rows.Next() {
			var v uint64
			if err := rows.Scan(&v); err != nil {
				t.Fatal(err)
			}
			sum += v
		}
		rows.Close()
		if sum != uint64(3*mul) {
			t.Fatalf("sum = %d, want %d", sum, 3*mul)
		}
	}
}

func TestColumnTypes(t *testing.T) {
	db := openDB(t)
	rows, err := db.Query("SELECT toUInt8(1) AS a, toNullable('x') AS b, toDecimal64(1.5, 4) AS c, toFixedString('ab', 2) AS d")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		t.Fatal(err)
	}
	if cts[0].DatabaseTypeName() != "UInt8" || cts[1].DatabaseTypeName() != "Nullable(String)" {
		t.Fatalf("types %s %s", cts[0].DatabaseTypeName(), cts[1].DatabaseTypeName())
	}
	if n, ok := cts[1].Nullable(); !ok || !n {
		t.Fatal("b not nullable")
	}
	if p, s, ok := cts[2].DecimalSize(); !ok || p != 18 || s != 4 {
		t.Fatalf("decimal size %d %d %v", p, s, ok)
	}
	if l, ok := cts[3].Length(); !ok || l != 2 {
		t.Fatalf("length %d %v", l, ok)
	}
	if cts[0].ScanType().Kind().String() != "uint8" {
		t.Fatalf("scan type %v", cts[0].ScanType())
	}
	for rows.Next() {
		var a int64
		var b sql.NullString
		var c string
		var d []byte
		if err := rows.Scan(&a, &b, &c, &d); err != nil {
			t.Fatal(err)
		}
		// A Decimal scans into a string as clickhouse-go's: exact, without trailing zeros.
		if a != 1 || b.String != "x" || c != "1.5" || string(d) != "ab" {
			t.Fatalf("row %v %v %v %q", a, b, c, d)
		}
	}
}
