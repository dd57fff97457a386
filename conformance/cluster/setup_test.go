package cluster

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chnative/chnative"
	"github.com/chnative/chnative/dsn"
	"github.com/chnative/chnative/internal/testenv"
)

// open returns a *sql.DB over dsnStr, closed when t ends, and the debug log it writes (nil
// unless logged).
func open(t *testing.T, dsnStr string, logged bool) (*sql.DB, *logBuffer) {
	t.Helper()
	cfg, err := dsn.Parse(dsnStr)
	if err != nil {
		t.Fatal(err)
	}
	var lb *logBuffer
	if logged {
		lb = new(logBuffer)
		cfg.Logger = slog.New(slog.NewTextHandler(lb, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	db, err := chnative.OpenDB(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, lb
}

// logBuffer is a debug log's destination, safe for concurrent writes.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// count returns the log lines that contain every one of subs.
func (l *logBuffer) count(subs ...string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for line := range strings.SplitSeq(l.b.String(), "\n") {
		all := line != ""
		for _, s := range subs {
			all = all && strings.Contains(line, s)
		}
		if all {
			n++
		}
	}
	return n
}

// nodeDB returns a *sql.DB on one node only.
func nodeDB(t *testing.T, cl *testenv.ClusterEnv, node string) *sql.DB {
	t.Helper()
	db, _ := open(t, cl.DSN("", cl.Node(node)), false)
	return db
}

// exec runs statements on db, failing t on an error.
func exec(t *testing.T, db *sql.DB, stmts ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, s := range stmts {
		if _, err := db.ExecContext(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// replicatedTable creates, on every 18.16 replica, name_local (ReplicatedMergeTree, by shard) of
// cols ordered by id and name over it (Distributed by intHash64(id)), dropped when t ends.
func replicatedTable(t *testing.T, cl *testenv.ClusterEnv, name, cols string) {
	t.Helper()
	db := nodeDB(t, cl, cl.Nodes()[0].Name)
	q := func(s string) string { return fmt.Sprintf(s, cl.Database, name, cl.Name) }
	drop := []string{q("DROP TABLE IF EXISTS %s.%s ON CLUSTER %s"), q("DROP TABLE IF EXISTS %s.%s_local ON CLUSTER %s")}
	exec(t, db, drop...)
	exec(t, db,
		q("CREATE TABLE %s.%s_local ON CLUSTER %s ")+"("+cols+") ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/"+
			name+"_"+fmt.Sprint(time.Now().UnixNano())+"', '{replica}') ORDER BY id",
		q("CREATE TABLE %s.%s ON CLUSTER %s ")+"AS "+cl.Database+"."+name+"_local ENGINE = Distributed("+cl.Name+", "+
			cl.Database+", "+name+"_local, intHash64(id))")
	t.Cleanup(func() {
		db := nodeDB(t, cl, cl.Nodes()[0].Name)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		for _, s := range drop {
			_, _ = db.ExecContext(ctx, s)
		}
	})
}

// syncReplicas waits until every replica of name_local has fetched what its shard has.
func syncReplicas(t *testing.T, cl *testenv.ClusterEnv, name string) {
	t.Helper()
	for _, n := range cl.Nodes() {
		exec(t, nodeDB(t, cl, n.Name), fmt.Sprintf("SYSTEM SYNC REPLICA %s.%s_local", cl.Database, name))
	}
}

// settleGoroutines waits (bounded) for the goroutines to come back to base.
func settleGoroutines(t *testing.T, base int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("goroutines: %d, want <= %d; stacks:\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(50 * time.Millisecond)
	}
}
