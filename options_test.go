package chnative

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/dsn"
	"github.com/chnative/chnative/internal/bind"
	"github.com/chnative/chnative/internal/testenv"
	"github.com/chnative/chnative/nativeproto"
)

func settingValue(t *testing.T, ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, name string) string {
	t.Helper()
	var v string
	if err := q.QueryRowContext(ctx, "SELECT value FROM system.settings WHERE name = ?", name).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestOptionsSettingsQueryIDQuotaKey(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	if v := settingValue(t, WithSettings(WithSettings(ctx, Settings{"max_threads": "3"}), Settings{"max_block_size": "777"}), db, "max_threads"); v != "3" {
		t.Fatalf("max_threads = %s, want 3 (outer settings lost)", v)
	}
	id := newQueryID()
	var got, quota string
	qctx := WithQuotaKey(WithQueryID(ctx, id), "team-a")
	if err := db.QueryRowContext(qctx, "SELECT query_id, quota_key FROM system.processes WHERE query_id = ?", id).Scan(&got, &quota); err != nil {
		t.Fatal(err)
	}
	if got != id || quota != "team-a" {
		t.Fatalf("query_id %q quota_key %q, want %q team-a", got, quota, id)
	}
}

func TestOptionsParametersOldServer(t *testing.T) {
	db := openDB(t)
	ctx := WithParameters(context.Background(), map[string]any{"x": 42})
	var n uint64
	err := db.QueryRowContext(ctx, "SELECT {x:UInt64}").Scan(&n)
	var ue *UnsupportedError
	c, cerr := db.Conn(context.Background())
	if cerr != nil {
		t.Fatal(cerr)
	}
	defer c.Close()
	var rev uint64
	_ = c.Raw(func(dc any) error { rev = dc.(Conn).ServerInfo().Negotiated; return nil })
	if rev >= uint64(nativeproto.RevParameters) {
		if err != nil || n != 42 {
			t.Fatalf("got %d, %v", n, err)
		}
		return
	}
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "54459") {
		t.Fatalf("want an UnsupportedError naming revision 54459, got %v", err)
	}
	// The connection is still usable.
	if err := db.QueryRow("SELECT 1").Scan(&n); err != nil || n != 1 {
		t.Fatal(n, err)
	}
	// Unit check of the rendering for new servers.
	params, err := bind.RenderParameters(nil, map[string]any{"x": 42, "s": "a'b\tc"}, "SELECT {x:UInt64}, {s:String}")
	if err != nil {
		t.Fatal(err)
	}
	if params["x"] != "'42'" || params["s"] != `'a\'b\\tc'` {
		t.Fatalf("rendered %q", params)
	}
}

func TestOptionsProgressProfileInfo(t *testing.T) {
	for _, comp := range []string{"compress=none", "compress=lz4"} {
		t.Run(comp, func(t *testing.T) {
			db := openDB(t, comp)
			var last Progress
			var calls int
			var info []ProfileInfo
			ctx := WithProgress(context.Background(), func(p Progress) { last = p; calls++ })
			ctx = WithProfileInfo(ctx, func(p ProfileInfo) { info = append(info, p) })
			rows, err := db.QueryContext(ctx, "SELECT number FROM (SELECT number FROM system.numbers LIMIT 300000) LIMIT 100")
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for rows.Next() {
				n++
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			rows.Close()
			if n != 100 {
				t.Fatalf("%d rows", n)
			}
			if calls == 0 || last.ReadRows == 0 || last.ReadBytes == 0 {
				t.Fatalf("progress: %d calls, last %+v", calls, last)
			}
			if len(info) != 1 || info[0].Rows != 100 || !info[0].AppliedLimit {
				t.Fatalf("profile info %+v", info)
			}
		})
	}
}

// Server logs (send_logs_level) reach a TCP client of both servers, at levels that differ:
//
//   - 18.16 logs executeQuery's "Read N rows, ..." line at information, so WithLogs' default
//     level (information) brings it for a plain SELECT. It makes no line below its own logger's
//     level (information in scripts/clickhouse.sh's config), so send_logs_level=trace adds none.
//   - 26.7 logs the "Read N rows" line at debug (LOG_DEBUG in its executeQuery.cpp), so at
//     information a plain SELECT brings no line at all; its information-level lines do come at
//     that level (an INSERT ... SELECT logs "INSERT SELECT deduplication is disabled because
//     SELECT is not stable" from InterpreterInsertQuery), and send_logs_level=debug or trace
//     brings the debug and trace lines, whatever the engine's own logger level.
//
// How this was found (26.7.2 from scripts/modern.sh, the pinned chDB build): WithLogs on the
// SELECT below at send_logs_level information, debug and trace, with and without
// send_logs_source_regexp=.* and log_queries=1, on CREATE, INSERT ... SELECT, OPTIMIZE and DROP,
// and on a server whose config had <logger><level>information</level> and a log file; only
// send_logs_level mattered (the same lines came with and without the <logger> section, so
// scripts/modern.sh configures none).
func TestOptionsLogs(t *testing.T) {
	server := testenv.Server(t)
	db := openDB(t, "compress=lz4")
	// collect runs query with WithLogs (and settings) and returns the lines, each checked to carry
	// the query's id, the host, a time within the hour, a priority and a source.
	collect := func(query string, settings Settings) []Log {
		t.Helper()
		id := newQueryID()
		var logs []Log
		ctx := WithLogs(WithQueryID(context.Background(), id), func(l Log) { logs = append(logs, l) })
		if settings != nil {
			ctx = WithSettings(ctx, settings)
		}
		if _, err := db.ExecContext(ctx, query); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		for _, l := range logs {
			if l.QueryID != id || l.Host == "" || l.Priority == 0 || l.Source == "" {
				t.Fatalf("%s: log %+v", query, l)
			}
			if d := time.Since(l.Time); d > time.Hour || d < -time.Hour {
				t.Fatalf("%s: log time %v", query, l.Time)
			}
		}
		return logs
	}
	find := func(logs []Log, source, text string) *Log {
		for i := range logs {
			if logs[i].Source == source && strings.Contains(logs[i].Text, text) {
				return &logs[i]
			}
		}
		return nil
	}
	const query = "SELECT count() FROM (SELECT number FROM system.numbers LIMIT 1000)"
	logs := collect(query, nil)
	switch server {
	case testenv.Legacy:
		l := find(logs, "executeQuery", "Read 1000 rows")
		if l == nil {
			t.Fatalf("%v: no 'Read 1000 rows' line at information in %+v", server, logs)
		}
		if l.Priority != 6 || l.Level() != slog.LevelInfo {
			t.Fatalf("%v: 'Read 1000 rows' at priority %d (%v), want 6 (information)", server, l.Priority, l.Level())
		}
	case testenv.Modern:
		for _, l := range logs {
			if l.Priority > 6 {
				t.Fatalf("%v: a line below information at send_logs_level information: %+v", server, l)
			}
		}
		if l := find(logs, "executeQuery", "Read 1000 rows"); l != nil {
			t.Fatalf("%v: 'Read 1000 rows' at information (%+v), want it at debug only", server, l)
		}
		logs = collect(query, Settings{"send_logs_level": "debug"})
		l := find(logs, "executeQuery", "Read 1000 rows")
		if l == nil {
			t.Fatalf("%v: no 'Read 1000 rows' line at debug in %+v", server, logs)
		}
		if l.Priority != 7 || l.Level() != slog.LevelDebug {
			t.Fatalf("%v: 'Read 1000 rows' at priority %d (%v), want 7 (debug)", server, l.Priority, l.Level())
		}
		table := createTable(t, db, "logs_ins", "n UInt64")
		logs = collect("INSERT INTO "+table+" SELECT number FROM numbers(10)", nil)
		l = find(logs, "InterpreterInsertQuery", "deduplication is disabled")
		if l == nil || l.Priority != 6 || l.Level() != slog.LevelInfo {
			t.Fatalf("%v: no information-level line from InterpreterInsertQuery for INSERT ... SELECT in %+v", server, logs)
		}
	}

	// More detail with send_logs_level, into a slog.Logger.
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ctx := WithSettings(WithServerLogger(context.Background(), logger), Settings{"send_logs_level": "trace"})
	var n uint64
	if err := db.QueryRowContext(ctx, "SELECT 1").Scan(&n); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "query_id=") || !strings.Contains(out, "source=executeQuery") || !strings.Contains(out, "host=") {
		t.Fatalf("%v: slog output: %s", server, out)
	}
	switch server {
	case testenv.Legacy: // information only (see above): trace adds no lines
		if !strings.Contains(out, "level=INFO") || strings.Contains(out, "level=DEBUG") {
			t.Fatalf("%v: slog output, want information lines only: %s", server, out)
		}
	case testenv.Modern: // debug ("SELECT 1 (stage: Complete)") and trace lines, at slog's debug level
		if !strings.Contains(out, "level=DEBUG") || !strings.Contains(out, "(stage: Complete)") {
			t.Fatalf("%v: slog output, want executeQuery's debug lines: %s", server, out)
		}
	}
}

func extBlock(t *testing.T, n int) *nativeproto.Block {
	t.Helper()
	b := nativeproto.NewBlock()
	x, s := columns.NewFixed[uint64](""), columns.NewString()
	for i := 1; i <= n; i++ {
		x.Append(uint64(i))
		s.Append(fmt.Sprintf("v%d", i))
	}
	b.Add("x", x)
	b.Add("s", s)
	return b
}

func TestOptionsExternalTables(t *testing.T) {
	for _, comp := range []string{"compress=none", "compress=lz4"} {
		t.Run(comp, func(t *testing.T) {
			db := openDB(t, comp)
			db.SetMaxOpenConns(1)
			ctx := WithExternalTable(context.Background(), "ext", extBlock(t, 10))
			ctx = WithExternalTable(ctx, "ext2", extBlock(t, 3))
			var sum, cnt uint64
			var maxS string
			if err := db.QueryRowContext(ctx, "SELECT sum(x), count(), max(s) FROM ext WHERE x NOT IN (SELECT x FROM ext2)").Scan(&sum, &cnt, &maxS); err != nil {
				t.Fatal(err)
			}
			if sum != 55-6 || cnt != 7 || maxS != "v9" {
				t.Fatalf("sum %d count %d max %s", sum, cnt, maxS)
			}
			// Through the Batch extension, and with a failing query: the connection recovers.
			_, err := db.QueryContext(ctx, "SELECT nosuchcolumn FROM ext")
			if err == nil {
				t.Fatal("want an error")
			}
			_, err = db.QueryContext(ctx, "SELEC broken")
			if err == nil {
				t.Fatal("want an error")
			}
			for range 3 {
				if err := db.QueryRowContext(ctx, "SELECT count() FROM ext").Scan(&cnt); err != nil || cnt != 10 {
					t.Fatal(cnt, err)
				}
			}
		})
	}
}

func TestOptionsBlockSize(t *testing.T) {
	db := openDB(t)
	ctx := WithBlockSize(context.Background(), 10)
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	table := createTable(t, db, "blocksize", "n UInt64")
	err = c.Raw(func(dc any) error {
		cc := dc.(Conn)
		bs, err := cc.QueryBlocks(ctx, "SELECT number FROM (SELECT number FROM system.numbers LIMIT 95)")
		if err != nil {
			return err
		}
		blocks, rows := 0, 0
		for bs.Next() {
			if bs.Block().Rows() > 10 {
				return fmt.Errorf("block of %d rows", bs.Block().Rows())
			}
			blocks++
			rows += bs.Block().Rows()
		}
		if err := bs.Err(); err != nil {
			return err
		}
		if rows != 95 || blocks < 10 {
			return fmt.Errorf("%d rows in %d blocks", rows, blocks)
		}
		b, err := cc.PrepareBatch(WithBlockSize(ctx, 3), "INSERT INTO "+table)
		if err != nil {
			return err
		}
		for i := range 7 {
			if err := b.Append(uint64(i)); err != nil {
				return err
			}
		}
		if b.Sent() != 6 || b.Rows() != 1 {
			return fmt.Errorf("sent %d buffered %d, want 6 and 1", b.Sent(), b.Rows())
		}
		return b.Send()
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, table); n != 7 {
		t.Fatalf("%d rows", n)
	}
}

func TestTotalsExtremes(t *testing.T) {
	db := openDB(t)
	ctx := WithSettings(context.Background(), Settings{"extremes": "1"})
	rows, err := db.QueryContext(ctx, "SELECT number % 3 AS k, count() AS c FROM (SELECT number FROM system.numbers LIMIT 10) GROUP BY k WITH TOTALS ORDER BY k")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	read := func() [][2]uint64 {
		var out [][2]uint64
		for rows.Next() {
			var k, c uint64
			if err := rows.Scan(&k, &c); err != nil {
				t.Fatal(err)
			}
			out = append(out, [2]uint64{k, c})
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := fmt.Sprint(read()); got != "[[0 4] [1 3] [2 3]]" {
		t.Fatalf("rows %s", got)
	}
	if !rows.NextResultSet() {
		t.Fatal("no totals")
	}
	if got := fmt.Sprint(read()); got != "[[0 10]]" {
		t.Fatalf("totals %s", got)
	}
	if !rows.NextResultSet() {
		t.Fatal("no extremes")
	}
	if got := fmt.Sprint(read()); got != "[[0 3] [2 4]]" {
		t.Fatalf("extremes %s", got)
	}
	if rows.NextResultSet() {
		t.Fatal("a fourth result set")
	}

	// NextResultSet before reading the rows skips them.
	rows2, err := db.QueryContext(ctx, "SELECT number % 2 AS k, count() FROM (SELECT number FROM system.numbers LIMIT 10) GROUP BY k WITH TOTALS")
	if err != nil {
		t.Fatal(err)
	}
	if !rows2.NextResultSet() || !rows2.Next() {
		t.Fatal("no totals", rows2.Err())
	}
	var k, c uint64
	if err := rows2.Scan(&k, &c); err != nil || c != 10 {
		t.Fatal(k, c, err)
	}
	rows2.Close()

	// The Batch extension.
	sc, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	err = sc.Raw(func(dc any) error {
		bs, err := dc.(Conn).QueryBlocks(ctx, "SELECT number % 3 AS k, count() AS c FROM (SELECT number FROM system.numbers LIMIT 10) GROUP BY k WITH TOTALS")
		if err != nil {
			return err
		}
		defer bs.Close()
		for bs.Next() {
		}
		if err := bs.Err(); err != nil {
			return err
		}
		tot, ext := bs.Totals(), bs.Extremes()
		if tot == nil || tot.Rows() != 1 || tot.Column(1).Value(0) != uint64(10) {
			return fmt.Errorf("totals %v", tot)
		}
		if ext == nil || ext.Rows() != 2 {
			return fmt.Errorf("extremes %v", ext)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDeadlineSendsNoSetting: a context's deadline is kept by the driver (socket deadline, then
// Cancel), not sent as max_execution_time, which a readonly=1 user may not change (see
// TestReadOnlyUserDeadline); the caller's and the DSN's max_execution_time still go out.
func TestDeadlineSendsNoSetting(t *testing.T) {
	db := openDB(t)
	profile := settingValue(t, context.Background(), db, "max_execution_time")
	ctx, cancel := context.WithTimeout(context.Background(), 2500*time.Millisecond)
	defer cancel()
	if v := settingValue(t, ctx, db, "max_execution_time"); v != profile {
		t.Fatalf("max_execution_time = %s under a 2.5 s deadline, want the profile's %s: the deadline was sent as a setting", v, profile)
	}
	if v := settingValue(t, WithSettings(ctx, Settings{"max_execution_time": "100"}), db, "max_execution_time"); v != "100" {
		t.Fatalf("caller's setting: %s", v)
	}
	db2 := openDB(t, "max_execution_time=50")
	if v := settingValue(t, ctx, db2, "max_execution_time"); v != "50" {
		t.Fatalf("DSN setting: %s", v)
	}
}

func TestSessionOnSQLConn(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	mustExec(t, c, "SET max_threads = 1")
	if v := settingValue(t, ctx, c, "max_threads"); v != "1" {
		t.Fatalf("max_threads after SET: %s", v)
	}
	mustExec(t, c, "CREATE TEMPORARY TABLE tmp_session (x UInt8, s String)")
	mustExec(t, c, "INSERT INTO tmp_session VALUES (?, ?), (?, ?)", 1, "a", 2, "b")
	var n uint64
	if err := c.QueryRowContext(ctx, "SELECT sum(x) FROM tmp_session").Scan(&n); err != nil || n != 3 {
		t.Fatal(n, err)
	}
	// A transaction pins one connection too.
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	mustExec(t, tx, "CREATE TEMPORARY TABLE tmp_tx (x UInt8)")
	if err := tx.QueryRowContext(ctx, "SELECT count() FROM tmp_tx").Scan(&n); err != nil || n != 0 {
		t.Fatal(n, err)
	}
}

func TestServerInfoAndLocation(t *testing.T) {
	db := openDB(t)
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var version, tz string
	if err := c.QueryRowContext(context.Background(), "SELECT version(), timezone()").Scan(&version, &tz); err != nil {
		t.Fatal(err)
	}
	err = c.Raw(func(dc any) error {
		cc := dc.(Conn)
		si := cc.ServerInfo()
		if !strings.HasPrefix(version, si.Version()) || si.Revision == 0 || si.Negotiated == 0 || si.Name == "" {
			return fmt.Errorf("server info %+v, version() %s", si, version)
		}
		if si.Timezone != tz || cc.Location().String() != tz {
			return fmt.Errorf("time zone %q / %v, timezone() %q", si.Timezone, cc.Location(), tz)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// deadAddr returns an address nothing listens on.
func deadAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestFailoverAndLogger(t *testing.T) {
	base := testenv.AuthDSN(t)
	u := strings.SplitN(strings.TrimPrefix(base, "clickhouse://"), "@", 2)
	hostAndRest := strings.SplitN(u[1], "/", 2)
	dead := deadAddr(t)
	for _, strategy := range []string{"in_order", "round_robin", "random"} {
		t.Run(strategy, func(t *testing.T) {
			dsnStr := fmt.Sprintf("clickhouse://%s@%s,%s/%s", u[0], dead, hostAndRest[0], hostAndRest[1])
			if strings.Contains(dsnStr, "?") {
				dsnStr += "&connection_open_strategy=" + strategy
			} else {
				dsnStr += "?connection_open_strategy=" + strategy
			}
			cfg, err := dsn.Parse(dsnStr)
			if err != nil {
				t.Fatal(err)
			}
			var buf syncBuffer
			cfg.Logger = slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
			ctr, err := NewConnector(cfg)
			if err != nil {
				t.Fatal(err)
			}
			db := sql.OpenDB(ctr)
			defer db.Close()
			db.SetMaxIdleConns(0) // every query dials
			for range 4 {
				var n int
				if err := db.QueryRow("SELECT 1").Scan(&n); err != nil || n != 1 {
					t.Fatal(n, err)
				}
			}
			db.Close()
			out := buf.String()
			if !strings.Contains(out, "chnative: connected") || !strings.Contains(out, "chnative: closing connection") {
				t.Fatalf("log: %s", out)
			}
			if strategy == "in_order" && !strings.Contains(out, "connect failed") {
				t.Fatalf("no failover logged: %s", out)
			}
			if strings.Contains(out, testenv.AuthPassword) {
				t.Fatalf("the password is in the log: %s", out)
			}
		})
	}
}

func TestRegisterAlias(t *testing.T) {
	Register("chnative_alias_test")
	db, err := sql.Open("chnative_alias_test", testenv.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT 41 + 1").Scan(&n); err != nil || n != 42 {
		t.Fatal(n, err)
	}
}
