package chnative

import (
	"context"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/chnative/chnative/dsn"
	"github.com/chnative/chnative/internal/testenv"
)

// privateServer is a ClickHouse server of this test's own, of the same kind as the one
// CHNATIVE_DSN names (testenv.Server): 18.16 started by scripts/clickhouse.sh, or 26.7 started by
// scripts/modern.sh, in a state dir under t.TempDir() (so restarting it cannot disturb the shared
// test servers that other tests and packages use at the same time).
type privateServer struct {
	t      testing.TB
	script string // scripts/clickhouse.sh or scripts/modern.sh
	env    []string
	state  string
	dsn    string
}

// startPrivateServer starts a private server, stopped when the test ends. It needs what the
// shared server needs, so it fails in CI and skips elsewhere when there is no test server.
func startPrivateServer(t testing.TB) *privateServer {
	t.Helper()
	s := &privateServer{t: t, state: filepath.Join(t.TempDir(), "ch")}
	switch testenv.Server(t) {
	case testenv.Legacy:
		s.script = "scripts/clickhouse.sh"
		s.env = []string{"CHNATIVE_STATE_DIR=" + s.state, "CHNATIVE_TLS=0"}
	case testenv.Modern:
		s.script = "scripts/modern.sh"
		s.env = []string{"CHNATIVE_MODERN_STATE_DIR=" + s.state}
	default:
		return nil // Server failed or skipped t
	}
	s.dsn = strings.TrimSpace(s.run("start"))
	t.Cleanup(func() { s.run("stop") })
	if _, err := dsn.Parse(s.dsn); err != nil {
		t.Fatalf("%s start printed %q: %v", s.script, s.dsn, err)
	}
	return s
}

// run runs the server's script with cmd for this server and returns its stdout.
func (s *privateServer) run(cmd string) string {
	s.t.Helper()
	c := exec.Command("bash", s.script, cmd)
	c.Env = append(os.Environ(), s.env...)
	var stderr strings.Builder
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		s.t.Fatalf("%s %s: %v\n%s", s.script, cmd, err, stderr.String())
	}
	return string(out)
}

// pid is the server process's id, from the script's state dir.
func (s *privateServer) pid() string {
	s.t.Helper()
	b, err := os.ReadFile(filepath.Join(s.state, "pid"))
	if err != nil {
		s.t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// TestFaultServerRestart restarts a real ClickHouse server process (SIGTERM, then a new process
// on the same ports with the same data; on 26.7 the launcher's supervisor process, which stops
// the engine cleanly) while the pool holds idle connections to the old one:
// the next queries succeed (database/sql gets ErrBadConn from ResetSession's probe of the dead
// sockets before anything is written and dials again), a prepared-batch insert after the restart
// lands exactly once, and the data from before the restart is still there.
func TestFaultServerRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a private ClickHouse server")
	}
	srv := startPrivateServer(t)
	base := runtime.NumGoroutine()
	db := openDSN(t, srv.dsn)
	db.SetMaxIdleConns(4)
	db.SetMaxOpenConns(4)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	mustExec(t, db, "CREATE TABLE restart_t (n UInt64, s String) ENGINE = MergeTree ORDER BY n")
	insertRestartRows(ctx, t, db, 0, 100)
	fillPool(t, db, 4)
	if st := db.Stats(); st.Idle != 4 {
		t.Fatalf("%d idle connections before the restart, want 4", st.Idle)
	}

	t0 := time.Now()
	before := srv.pid()
	if got := strings.TrimSpace(srv.run("restart")); got != srv.dsn {
		t.Fatalf("restart printed DSN %q, want the same %q (same port)", got, srv.dsn)
	}
	if after := srv.pid(); after == before {
		t.Fatalf("server pid %s did not change: no restart happened", after)
	}

	t.Logf("restart took %v", time.Since(t0))
	for i := 0; i < 8; i++ {
		selectOne(t, db)
	}
	insertRestartRows(ctx, t, db, 100, 200)
	var n, sum uint64
	if err := db.QueryRowContext(ctx, "SELECT count(), sum(n) FROM restart_t").Scan(&n, &sum); err != nil {
		t.Fatal(err)
	}
	if n != 200 || sum != 199*200/2 {
		t.Fatalf("after the restart the table has %d rows (sum %d), want 200 (sum %d): rows lost or sent twice",
			n, sum, 199*200/2)
	}
	db.Close()
	settleGoroutines(t, base)
}

// openDSN opens a *sql.DB on dsn, closed when the test ends.
func openDSN(t testing.TB, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("chnative", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// insertRestartRows inserts n in [from, to) with a transactional prepared batch.
func insertRestartRows(ctx context.Context, t testing.TB, db *sql.DB, from, to uint64) {
	t.Helper()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := tx.PrepareContext(ctx, "INSERT INTO restart_t (n, s) VALUES (?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	for n := from; n < to; n++ {
		if _, err := st.ExecContext(ctx, n, "row"); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}
