package cluster

import (
	"context"
	"database/sql"
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

// batchRows is the rows of one insert: ids batch*1000 .. batch*1000+batchRows-1.
const batchRows = 500

// insertStats counts the outcomes of the inserts of TestInsertsExactlyOnceUnderFaults.
type insertStats struct {
	mu     sync.Mutex
	done   map[uint64]bool // batch id: true when its insert was reported done, false on an error
	errs   atomic.Int64
	dones  atomic.Int64
	sample atomic.Value // string: the first error
}

func (s *insertStats) record(batch uint64, err error, ctx context.Context) {
	s.mu.Lock()
	s.done[batch] = err == nil
	s.mu.Unlock()
	if err == nil {
		s.dones.Add(1)
		return
	}
	if ctx.Err() == nil {
		s.errs.Add(1)
		s.sample.CompareAndSwap(nil, err.Error())
	}
}

// insertBatch inserts batch's rows through the Distributed table, synchronously, in one of the
// two ways a caller batches rows: a database/sql transaction of prepared inserts, or the Batch
// extension's PrepareBatch and Send.
func insertBatch(ctx context.Context, db *sql.DB, table string, batch uint64) error {
	ctx = chnative.WithSettings(ctx, chnative.Settings{"insert_distributed_sync": "1"})
	query := "INSERT INTO " + table + " (id, batch, v) VALUES (?, ?, ?)"
	if batch%2 == 0 {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		st, err := tx.PrepareContext(ctx, query)
		if err != nil {
			_ = tx.Rollback()
			return err
		}
		for k := range uint64(batchRows) {
			id := batch*1000 + k
			if _, err := st.ExecContext(ctx, id, batch, fmt.Sprint(id)); err != nil {
				_ = tx.Rollback()
				return err
			}
		}
		return tx.Commit()
	}
	c, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	return c.Raw(func(dc any) error {
		b, err := dc.(chnative.Conn).PrepareBatch(ctx, "INSERT INTO "+table+" (id, batch, v)")
		if err != nil {
			return err
		}
		for k := range uint64(batchRows) {
			id := batch*1000 + k
			if err := b.Append(id, batch, fmt.Sprint(id)); err != nil {
				b.Abort()
				return err
			}
		}
		return b.SendContext(ctx)
	})
}

// TestInsertsExactlyOnceUnderFaults runs 16 goroutines through one *sql.DB over the four 18.16
// replicas: 8 read (as TestReadsSurviveReplicaFaults) and 8 insert batches of 500 rows through a
// Distributed table (insert_distributed_sync=1, sharded by intHash64(id)) over ReplicatedMergeTree
// tables, under each of plans' fault plans: "kill" (a replica killed and restarted, another
// killed and restarted, a third stalled and resumed) and "stall" (three replicas stalled and
// resumed in turn). Then, after replication settles: every batch whose insert was reported done
// is in the table exactly once (rows, sum and distinct ids per batch, on every replica of each
// shard), no batch is there twice, no goroutine is left and every socket the driver dialed is
// closed, and the calls that returned an error are counted and bounded.
func TestInsertsExactlyOnceUnderFaults(t *testing.T) {
	cl := testenv.Cluster(t)
	loadFixed(t, cl)
	for _, plan := range plans("s1r1", "s2r1", "s1r2") {
		t.Run(plan.name, func(t *testing.T) { insertsUnderFaults(t, cl, plan, "ins_"+plan.name) })
	}
}

func insertsUnderFaults(t *testing.T, cl *testenv.ClusterEnv, plan faultPlan, table string) {
	replicatedTable(t, cl, table, "id UInt64, batch UInt64, v String")
	base := runtime.NumGoroutine()
	// insert_retries=2: the tables are Replicated, so a resumed insert's repeated blocks are dropped.
	db, _ := open(t, faultDSN(cl, "&insert_retries=2"), false)
	db.SetMaxOpenConns(24)
	db.SetMaxIdleConns(24)

	ctx, cancel := context.WithCancel(context.Background())
	var rs readStats
	is := insertStats{done: map[uint64]bool{}}
	var next atomic.Uint64
	var wg sync.WaitGroup
	const readers, inserters = 8, 8
	startReaders(ctx, &wg, readers, db, cl.Database, &rs)
	for range inserters {
		wg.Go(func() {
			for ctx.Err() == nil {
				batch := next.Add(1)
				ictx, icancel := context.WithTimeout(ctx, 30*time.Second)
				is.record(batch, insertBatch(ictx, db, cl.Database+"."+table, batch), ictx)
				icancel()
			}
		})
	}
	plan.run(t, cl, func(phase string) {
		t.Logf("%-16s inserts done %5d, insert errors %3d; reads ok %5d, read errors %3d, wrong %d",
			phase, is.dones.Load(), is.errs.Load(), rs.ok.Load(), rs.errs.Load(), rs.wrong.Load())
	})
	cancel()
	wg.Wait()
	closeAndSettle(t, db, base)

	// Replication settles; then every replica of each shard holds the same batches. SYSTEM SYNC
	// REPLICA waits for what a replica's queue holds when it is asked, and 18.16 may not have
	// pulled its peer's last parts into the queue yet: the replicas are compared again, synced
	// anew, until they agree or 30 s pass.
	type agg struct{ rows, sum, ids uint64 }
	var perShard [2]map[uint64]agg
	for deadline := time.Now().Add(30 * time.Second); ; {
		syncReplicas(t, cl, table)
		var diffs []string
		perShard = [2]map[uint64]agg{}
		for i, n := range cl.Nodes() {
			got := map[uint64]agg{}
			rows, err := nodeDB(t, cl, n.Name).Query(fmt.Sprintf(
				"SELECT batch, count(), sum(id), uniqExact(id) FROM %s.%s_local GROUP BY batch", cl.Database, table))
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var b uint64
				var a agg
				if err := rows.Scan(&b, &a.rows, &a.sum, &a.ids); err != nil {
					t.Fatal(err)
				}
				got[b] = a
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			rows.Close()
			shard := i / 2 // s1r1 s1r2 s2r1 s2r2
			if perShard[shard] == nil {
				perShard[shard] = got
				continue
			}
			for b, a := range perShard[shard] {
				if got[b] != a && len(diffs) < 5 {
					diffs = append(diffs, fmt.Sprintf("shard %d batch %d: %+v on its first replica, %+v on %s", shard+1, b, a, got[b], n.Name))
				}
			}
			for b, a := range got {
				if _, ok := perShard[shard][b]; !ok && len(diffs) < 5 {
					diffs = append(diffs, fmt.Sprintf("shard %d batch %d: only on %s (%+v)", shard+1, b, n.Name, a))
				}
			}
		}
		if len(diffs) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("the replicas differ after 30 s of syncing: %s", strings.Join(diffs, "; "))
			break
		}
		t.Logf("the replicas differ, syncing again: %s", strings.Join(diffs, "; "))
		time.Sleep(time.Second)
	}
	var doubled, lost, partialFailed int
	for batch, done := range is.done {
		var a agg
		for _, m := range perShard {
			x := m[batch]
			a.rows, a.sum, a.ids = a.rows+x.rows, a.sum+x.sum, a.ids+x.ids
		}
		wantSum := batchRows*batch*1000 + batchRows*(batchRows-1)/2
		switch {
		case a.rows > a.ids:
			doubled++
			t.Errorf("batch %d (reported done: %v): %d rows, %d distinct ids: rows doubled", batch, done, a.rows, a.ids)
		case done && (a.rows != batchRows || a.sum != wantSum):
			lost++
			t.Errorf("batch %d reported done: %d rows, sum %d; want %d rows, sum %d", batch, a.rows, a.sum, batchRows, wantSum)
		case !done && a.rows != 0 && a.rows != batchRows:
			partialFailed++
		}
	}
	t.Logf("inserts: %d done, %d returned an error (first: %v); %d failed batches partly in the table; reads: %d ok, %d errors, %d wrong",
		is.dones.Load(), is.errs.Load(), is.sample.Load(), partialFailed, rs.ok.Load(), rs.errs.Load(), rs.wrong.Load())
	if is.dones.Load() == 0 {
		t.Error("no insert succeeded")
	}
	if w := rs.wrong.Load(); w != 0 {
		t.Errorf("%d reads returned wrong or repeated rows; first: %v", w, rs.firstWrong.Load())
	}
	if e, most := is.errs.Load()+rs.errs.Load(), int64((readers+inserters)*len(plan.steps)); e > most {
		t.Errorf("%d calls returned an error, want at most %d (%d goroutines x %d faults)", e, most, readers+inserters, len(plan.steps))
	}
	t.Logf("rows lost %d, batches doubled %d", lost, doubled)
}
