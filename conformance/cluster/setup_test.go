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

// loadFixed makes the table fixed (ids 0..fixedRows-1 and their text) on every replica, through
// its Distributed table, and waits until every replica has it.
func loadFixed(t *testing.T, cl *testenv.ClusterEnv) {
	t.Helper()
	replicatedTable(t, cl, "fixed", "id UInt64, v String")
	ctx := chnative.WithSettings(context.Background(), chnative.Settings{"insert_distributed_sync": "1"})
	if _, err := nodeDB(t, cl, cl.Nodes()[0].Name).ExecContext(ctx, fmt.Sprintf(
		"INSERT INTO %s.fixed SELECT number, toString(number) FROM numbers(%d)", cl.Database, fixedRows)); err != nil {
		t.Fatal(err)
	}
	syncReplicas(t, cl, "fixed")
}

// faultDSN is the DSN of the fault tests, over the four 18.16 replicas, with extra ("&k=v...")
// appended. A stalled replica answers nothing: read_timeout ends the wait of a connection to it,
// and the servers' own connections to it (a Distributed query) give up after receive_timeout.
func faultDSN(cl *testenv.ClusterEnv, extra string) string {
	return cl.DSN("connection_open_strategy=round_robin&dial_timeout=2s&read_timeout=3s" +
		"&receive_timeout=3&send_timeout=3&connect_timeout_with_failover_ms=500" + extra)
}

// startReaders starts n goroutines on wg that run readOnce on db until ctx ends.
func startReaders(ctx context.Context, wg *sync.WaitGroup, n int, db *sql.DB, database string, s *readStats) {
	for g := range n {
		wg.Go(func() {
			for i := g; ctx.Err() == nil; i++ {
				qctx, qcancel := context.WithTimeout(ctx, 20*time.Second)
				readOnce(qctx, db, database, i, s)
				qcancel()
			}
		})
	}
}

// runFaults kills and restarts kill[0], then kill[1], then stalls and resumes stall, with
// pauses between; report is called after each pause with its name.
func runFaults(t *testing.T, cl *testenv.ClusterEnv, kill [2]string, stall string, report func(phase string)) {
	t.Helper()
	pause := func(name string, d time.Duration) {
		time.Sleep(d)
		report(name)
	}
	pause("healthy", 2*time.Second)
	for _, n := range kill {
		cl.Kill(t, n)
		pause(n+" killed", 3*time.Second)
		cl.Restart(t, n)
		pause(n+" restarted", 2*time.Second)
	}
	cl.Stall(t, stall)
	pause(stall+" stalled", 5*time.Second)
	cl.Resume(t, stall)
	pause(stall+" resumed", 3*time.Second)
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
