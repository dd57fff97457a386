package chnative

import (
	"context"
	"database/sql"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/chnative/chnative/internal/testenv"
)

// The debug log (debug=true, dsn.Config.Logger): what the driver does per query, against the
// real servers.

// logField returns the value of key in the first line of logs containing msg ("" if none).
func logField(logs, msg, key string) string {
	for _, line := range strings.Split(logs, "\n") {
		if !strings.Contains(line, msg) {
			continue
		}
		m := regexp.MustCompile(`\b` + key + `=("(?:[^"\\]|\\.)*"|\S+)`).FindStringSubmatch(line)
		if m == nil {
			return ""
		}
		if v, err := strconv.Unquote(m[1]); err == nil {
			return v
		}
		return m[1]
	}
	return ""
}

func TestDebugLogQueries(t *testing.T) {
	db, logs := logDB(t, testenv.AuthDSN(t))
	id := newQueryID()
	ctx := WithQueryID(context.Background(), id)
	rows, err := db.QueryContext(ctx, "SELECT number, toString(number) FROM system.numbers LIMIT 100000")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		n++
	}
	if err := rows.Err(); err != nil || n != 100000 {
		t.Fatal(n, err)
	}
	rows.Close()
	out := logs.String()
	if got := logField(out, "chnative: query sent", "query_id"); got != id {
		t.Errorf("query sent: query_id %q, want %q\n%s", got, id, out)
	}
	if !strings.Contains(logField(out, "chnative: query sent", "query"), "system.numbers LIMIT 100000") {
		t.Errorf("query sent: no query text\n%s", out)
	}
	done := "chnative: query done"
	if got := logField(out, done, "query_id"); got != id {
		t.Fatalf("query done: query_id %q, want %q\n%s", got, id, out)
	}
	if got := logField(out, done, "rows"); got != "100000" {
		t.Errorf("query done: rows %s, want 100000\n%s", got, out)
	}
	if b, _ := strconv.Atoi(logField(out, done, "blocks")); b < 2 {
		t.Errorf("query done: blocks %d, want the result's blocks\n%s", b, out)
	}
	if b, _ := strconv.Atoi(logField(out, done, "bytes_read")); b < 100000*8 {
		t.Errorf("query done: bytes_read %d, want at least the 800000 bytes of the numbers\n%s", b, out)
	}
	for _, k := range []string{"elapsed", "first_block", "addr"} {
		if logField(out, done, k) == "" {
			t.Errorf("query done: no %s\n%s", k, out)
		}
	}

	// A query the server refuses.
	var x int
	if err := db.QueryRow("SELECT throwIf(1) + 0").Scan(&x); err == nil {
		t.Fatal("throwIf(1) succeeded")
	}
	if logField(logs.String(), "chnative: query failed", "error") == "" {
		t.Errorf("no query failed line with the error\n%s", logs)
	}

	// A cancelled query: the cancel, and the drain off the caller's path.
	cctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	_, err = db.ExecContext(cctx, "SELECT sleepEachRow(0.05) FROM numbers(40) SETTINGS max_block_size = 1")
	cancel()
	if err == nil {
		t.Fatal("the slow query was not cancelled")
	}
	if err := db.Ping(); err != nil { // waits for the drain on this connection, or takes another
		t.Fatal(err)
	}
	out = logs.String()
	if logField(out, "chnative: query cancelled (context ended)", "cause") != "context deadline exceeded" {
		t.Errorf("no query cancelled line with its cause\n%s", out)
	}
	if logField(out, "chnative: cancelled query drained", "drain") == "" {
		t.Errorf("no drain line\n%s", out)
	}
	if strings.Contains(out, testenv.AuthPassword) {
		t.Fatalf("the password is in the debug log:\n%s", out)
	}
}

// TestDebugLogInsert: an insert's line counts the blocks and rows it sent.
func TestDebugLogInsert(t *testing.T) {
	db, logs := logDB(t, withParams(testenv.DSN(t), "insert_block_rows=2"))
	table := createTable(t, db, "chnative_dbglog", "n UInt8")
	if _, err := db.Exec("INSERT INTO "+table+" VALUES (?), (?), (?), (?), (?)", 1, 2, 3, 4, 5); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "sent_blocks=3 sent_rows=5") {
		t.Errorf("no insert line with sent_blocks=3 sent_rows=5\n%s", logs)
	}
}

// TestDebugTrueLogsToStderr: debug=true without a Logger writes the debug log to standard error
// (what the Connector finds in os.Stderr when sql.Open creates it).
func TestDebugTrueLogsToStderr(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = w
	db, err := sql.Open("chnative", withParams(testenv.DSN(t), "debug=true"))
	os.Stderr = saved
	if err != nil {
		t.Fatal(err)
	}
	// The result is read to its end, so the query ends with the server's EndOfStream ("query
	// done"); QueryRow would close the rows after the first one, and on a loaded machine that
	// Close can come before EndOfStream and cancel the query instead.
	var n int
	rows, err := db.Query("SELECT 11")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
	}
	if err := rows.Err(); err != nil || n != 11 {
		t.Fatal(n, err)
	}
	rows.Close()
	db.Close()
	w.Close()
	out, _ := io.ReadAll(r)
	for _, want := range []string{"level=DEBUG", "chnative: connected", "chnative: query sent", "chnative: query done", "chnative: closing connection"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("debug=true wrote no %q to stderr:\n%s", want, out)
		}
	}
	// Without debug=true and a Logger, nothing is logged.
	r2, w2, _ := os.Pipe()
	os.Stderr = w2
	quiet, err := sql.Open("chnative", testenv.DSN(t))
	os.Stderr = saved
	if err != nil {
		t.Fatal(err)
	}
	if err := quiet.QueryRow("SELECT 12").Scan(&n); err != nil {
		t.Fatal(err)
	}
	quiet.Close()
	w2.Close()
	if out, _ := io.ReadAll(r2); len(out) != 0 {
		t.Errorf("without debug=true the driver wrote to stderr:\n%s", out)
	}
}

// An Inserter with no Logger of its own logs to the DSN's debug log: each block it sends.
func TestDebugLogInserter(t *testing.T) {
	db, logs := logDB(t, testenv.DSN(t))
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS debuglog_ins (n UInt64) ENGINE = Null"); err != nil {
		t.Fatal(err)
	}
	ins, err := NewInserter(db, "INSERT INTO debuglog_ins (n)", InserterConfig{MaxRows: 10})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 25 {
		if err := ins.Append(ctx, uint64(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := ins.Close(ctx); err != nil {
		t.Fatal(err)
	}
	out := logs.String()
	rows := 0
	for _, m := range regexp.MustCompile(`msg="inserter block sent" .*\brows=(\d+)`).FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[1])
		rows += n
	}
	if rows != 25 { // in blocks of at most 10, one open block per lane
		t.Errorf("the debug log has blocks of %d rows sent, want 25\n%s", rows, out)
	}
}
