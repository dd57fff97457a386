package cluster

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chnative/chnative"
	"github.com/chnative/chnative/internal/testenv"
)

// fixedRows is the size of the table the reads check.
const fixedRows = 20_000

// readStats counts the outcomes of the reads of TestReadsSurviveReplicaFaults.
type readStats struct {
	ok, errs, wrong atomic.Int64
	firstWrong      atomic.Value // string
	firstErr        atomic.Value // string
}

// failed counts a read that returned err, unless ctx (the test's end) caused it.
func (s *readStats) failed(ctx context.Context, err error) {
	if ctx.Err() == nil {
		s.errs.Add(1)
		s.firstErr.CompareAndSwap(nil, err.Error())
	}
}

func (s *readStats) bad(format string, args ...any) {
	s.wrong.Add(1)
	s.firstWrong.CompareAndSwap(nil, fmt.Sprintf(format, args...))
}

// readOnce runs one of two reads of the table fixed (ids 0..fixedRows-1, v their text) through
// its Distributed table and checks what it returned: an aggregate, or every row in order. A
// read that fails counts as an error; one that returns anything but the right answer, or rows
// that repeat or skip before its error, counts as wrong.
func readOnce(ctx context.Context, db *sql.DB, db0 string, i int, s *readStats) {
	if i%2 == 0 {
		var n, sum uint64
		err := db.QueryRowContext(ctx, "SELECT count(), sum(id) FROM "+db0+".fixed").Scan(&n, &sum)
		switch {
		case err != nil:
			s.failed(ctx, err)
		case n != fixedRows || sum != fixedRows*(fixedRows-1)/2:
			s.bad("aggregate: count %d, sum %d", n, sum)
		default:
			s.ok.Add(1)
		}
		return
	}
	rs, err := db.QueryContext(ctx, "SELECT id, v FROM "+db0+".fixed ORDER BY id")
	if err != nil {
		s.failed(ctx, err)
		return
	}
	defer rs.Close()
	var want uint64
	for rs.Next() {
		var id uint64
		var v string
		if err := rs.Scan(&id, &v); err != nil {
			if ctx.Err() == nil { // the test's end closes the rows under the scan
				s.bad("scan: %v", err)
			}
			return
		}
		if id != want || v != fmt.Sprint(id) {
			s.bad("row %d: id %d, v %q (a row repeated, skipped or wrong)", want, id, v)
			return
		}
		want++
	}
	switch err := rs.Err(); {
	case err != nil:
		s.failed(ctx, err)
	case want != fixedRows:
		s.bad("%d rows without an error, want %d", want, fixedRows)
	default:
		s.ok.Add(1)
	}
}

// TestReadsSurviveReplicaFaults reads through one *sql.DB over the four 18.16 replicas from 8
// goroutines under each of plans' fault plans: "kill" (a replica killed and restarted, another
// killed and restarted, a third stalled and resumed) and "stall" (three replicas stalled and
// resumed in turn). No read may return a wrong or repeated row; the reads that return an error
// are counted and bounded (a read whose rows had started to arrive when its connection died
// cannot be retried); no goroutine is left and every socket the driver dialed is closed.
func TestReadsSurviveReplicaFaults(t *testing.T) {
	cl := testenv.Cluster(t)
	loadFixed(t, cl)
	for _, plan := range plans("s1r1", "s2r2", "s1r2") {
		t.Run(plan.name, func(t *testing.T) { readsUnderFaults(t, cl, plan) })
	}
}

func readsUnderFaults(t *testing.T, cl *testenv.ClusterEnv, plan faultPlan) {
	base := runtime.NumGoroutine()
	db, _ := open(t, faultDSN(cl, ""), false)
	db.SetMaxOpenConns(16)
	db.SetMaxIdleConns(16)

	ctx, cancel := context.WithCancel(context.Background())
	var s readStats
	var wg sync.WaitGroup
	const readers = 8
	startReaders(ctx, &wg, readers, db, cl.Database, &s)
	before := int64(0)
	plan.run(t, cl, func(phase string) {
		n := s.ok.Load() + s.errs.Load()
		t.Logf("%-22s reads %5d (ok %d, errors %d, wrong %d in all)", phase, n-before, s.ok.Load(), s.errs.Load(), s.wrong.Load())
		before = n
	})
	cancel()
	wg.Wait()

	t.Logf("reads: %d ok, %d returned an error (first: %v), %d wrong", s.ok.Load(), s.errs.Load(), s.firstErr.Load(), s.wrong.Load())
	if w := s.wrong.Load(); w != 0 {
		t.Errorf("%d reads returned wrong or repeated rows; first: %v", w, s.firstWrong.Load())
	}
	if s.ok.Load() == 0 {
		t.Error("no read succeeded")
	}
	// Each fault can fail the reads in flight on the node it hits, at most once each.
	if e, most := s.errs.Load(), int64(readers*len(plan.steps)); e > most {
		t.Errorf("%d reads returned an error, want at most %d (%d readers x %d faults)", e, most, readers, len(plan.steps))
	}
	closeAndSettle(t, db, base)
}

// TestDeadReplicaBackoff kills the first host of an in_order DSN: the next connections go to
// the second without dialing the dead one again while it backs off, and it is used again once
// it answers.
func TestDeadReplicaBackoff(t *testing.T) {
	cl := testenv.Cluster(t)
	victim := cl.Nodes()[0]
	db, log := open(t, cl.DSN("connection_open_strategy=in_order&dial_timeout=2s&host_backoff=30s"), true)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl.Kill(t, victim.Name)
	restarted := false
	defer func() {
		if !restarted {
			cl.Restart(t, victim.Name)
		}
	}()
	addrOf := func(c *sql.Conn) string {
		var addr string
		if err := c.Raw(func(dc any) error {
			addr = dc.(interface{ ServerInfo() chnative.ServerInfo }).ServerInfo().Addr
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return addr
	}
	var held []*sql.Conn
	for range 10 {
		c, err := db.Conn(ctx) // each held: a new connection every time
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
		if a := addrOf(c); a == victim.Addr {
			t.Fatalf("a connection to the killed %s", victim.Name)
		}
	}
	if n := log.count("chnative: connect failed", "addr="+victim.Addr); n != 1 {
		t.Errorf("the dead host was dialed %d times for 10 connections, want 1 (then it backs off)", n)
	}
	for _, c := range held {
		c.Close()
	}
	cl.Restart(t, victim.Name)
	restarted = true
	time.Sleep(1200 * time.Millisecond) // its first back-off is 1 s
	db.SetMaxIdleConns(0)               // no pooled connection: the next one is dialed
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if a := addrOf(c); a != victim.Addr {
		t.Errorf("after it answered again, an in_order connection went to %s, want %s (%s)", a, victim.Addr, victim.Name)
	}
}

// TestOnClusterDDL runs ON CLUSTER statements: the per-host result table comes through Rows,
// and a failure on one host is an error that names it.
func TestOnClusterDDL(t *testing.T) {
	cl := testenv.Cluster(t)
	db, _ := open(t, cl.DSN("", cl.Node("s1r1")), false)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	table := cl.Database + ".ddl_probe"
	drop := fmt.Sprintf("DROP TABLE IF EXISTS %s ON CLUSTER %s", table, cl.Name)
	exec(t, db, drop)
	t.Cleanup(func() { _, _ = db.ExecContext(context.Background(), drop) })

	rs, err := db.QueryContext(ctx, fmt.Sprintf("CREATE TABLE %s ON CLUSTER %s (x UInt8) ENGINE = Memory", table, cl.Name))
	if err != nil {
		t.Fatal(err)
	}
	cols, _ := rs.Columns()
	t.Logf("ON CLUSTER result columns: %v", cols)
	hosts := map[string]bool{}
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := map[string]any{}
		for i, c := range cols {
			row[c] = vals[i]
		}
		if fmt.Sprint(row["status"]) != "0" {
			t.Errorf("host %v: status %v, error %v", row["host"], row["status"], row["error"])
		}
		hosts[fmt.Sprintf("%v:%v", row["host"], row["port"])] = true
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	rs.Close()
	for _, n := range cl.Nodes() {
		if !hosts[n.Addr] {
			t.Errorf("no result row for %s (%s); rows for %v", n.Name, n.Addr, hosts)
		}
	}

	// Drop it on s2r1 only: the next ON CLUSTER DROP (without IF EXISTS) fails there alone.
	exec(t, nodeDB(t, cl, "s2r1"), "DROP TABLE "+table)
	for _, how := range []string{"Exec", "Query"} {
		stmt := fmt.Sprintf("DROP TABLE %s ON CLUSTER %s", table, cl.Name)
		if how == "Query" {
			// On every host again, then dropped on s2r1 alone once more.
			exec(t, db, fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s ON CLUSTER %s (x UInt8) ENGINE = Memory", table, cl.Name))
			exec(t, nodeDB(t, cl, "s2r1"), "DROP TABLE "+table)
		}
		var err error
		if how == "Exec" {
			_, err = db.ExecContext(ctx, stmt)
		} else {
			var rs *sql.Rows
			if rs, err = db.QueryContext(ctx, stmt); err == nil {
				for rs.Next() {
				}
				err = rs.Err()
				rs.Close()
			}
		}
		var ex *chnative.Exception
		if !errors.As(err, &ex) {
			t.Fatalf("%s: %v, want a *chnative.Exception", how, err)
		}
		if s2r1 := cl.Node("s2r1"); !containsAddr(ex.Error(), s2r1) {
			t.Errorf("%s: the error does not name the failing host %s: %v", how, s2r1, ex)
		}
	}
}

func containsAddr(msg, addr string) bool { return strings.Contains(msg, addr) }
