package cluster

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chnative/chnative"
	"github.com/chnative/chnative/internal/testenv"
	"github.com/chnative/chnative/nativeproto"
)

// TestInserterExactlyOnceUnderFaults runs one chnative.Inserter fed by 16 goroutines over the
// four 18.16 replicas, into a Distributed table (insert_distributed_sync=1, sharded by
// intHash64(id)) over ReplicatedMergeTree tables, under each fault plan (replicas killed and
// restarted, stalled and resumed; see plans). 18.16 has no deduplication token: a block resent
// after a broken connection or a replica's failure carries the same rows, and each shard's
// Replicated table drops the part it already had by its hash. After Close and replication:
// every row Append accepted is in the table exactly once, per goroutine by count, sum and
// distinct ids; no block failed; no goroutine or socket is left.
func TestInserterExactlyOnceUnderFaults(t *testing.T) {
	cl := testenv.Cluster(t)
	for _, plan := range plans("s1r1", "s2r1", "s1r2") {
		t.Run(plan.name, func(t *testing.T) { inserterUnderFaults(t, cl, plan, "ins38_"+plan.name) })
	}
}

func inserterUnderFaults(t *testing.T, cl *testenv.ClusterEnv, plan faultPlan, table string) {
	replicatedTable(t, cl, table, "id UInt64, g UInt64, i UInt64")
	base := runtime.NumGoroutine()
	db, _ := open(t, faultDSN(cl, ""), false)
	ctx := context.Background()
	var failed atomic.Int64
	ins, err := chnative.NewInserter(db, "INSERT INTO "+cl.Database+"."+table+" (id, g, i)", chnative.InserterConfig{
		MaxRows: 5000, MaxDelay: 200 * time.Millisecond, Senders: 2, Retries: 100,
		Settings: chnative.Settings{"insert_distributed_sync": "1"},
		OnError: func(b *nativeproto.Block, err error) {
			failed.Add(int64(b.Rows()))
			t.Errorf("block of %d rows failed: %v", b.Rows(), err)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	const G = 16
	var count, sum [G]uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := range G {
		wg.Go(func() {
			for i := uint64(1); ; i++ {
				if i%20 == 0 { // about 32,000 rows a second in all: the cluster shares its cores
					select {
					case <-stop:
						return
					case <-time.After(10 * time.Millisecond):
					}
				}
				if err := ins.Append(ctx, uint64(g)<<32|i, uint64(g), i); err != nil {
					t.Errorf("goroutine %d row %d: %v", g, i, err)
					return
				}
				count[g]++
				sum[g] += i
			}
		})
	}
	plan.run(t, cl, func(phase string) {
		st := ins.Stats()
		t.Logf("%-16s appended %7d, sent %7d, resent blocks %3d, failed rows %d", phase, st.AppendedRows, st.SentRows, st.Retried, st.FailedRows)
	})
	close(stop)
	wg.Wait()
	cctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	if err := ins.Close(cctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	st := ins.Stats()
	t.Logf("stats %+v", st)
	if st.FailedRows != 0 || failed.Load() != 0 || st.SentRows != st.AppendedRows {
		t.Fatalf("rows not confirmed: stats %+v", st)
	}
	closeAndSettle(t, db, base)

	syncReplicas(t, cl, table)
	type agg struct{ rows, sum, ids uint64 }
	var got [G]agg
	for _, node := range []string{"s1r1", "s2r1"} { // one replica of each shard
		rows, err := nodeDB(t, cl, node).Query(fmt.Sprintf(
			"SELECT g, count(), sum(i), uniqExact(id) FROM %s.%s_local GROUP BY g", cl.Database, table))
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var g uint64
			var a agg
			if err := rows.Scan(&g, &a.rows, &a.sum, &a.ids); err != nil {
				t.Fatal(err)
			}
			if g >= G {
				t.Fatalf("goroutine %d in the table", g)
			}
			got[g].rows, got[g].sum, got[g].ids = got[g].rows+a.rows, got[g].sum+a.sum, got[g].ids+a.ids
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	for g := range G {
		if a := got[g]; a.rows != count[g] || a.sum != sum[g] || a.ids != a.rows {
			t.Errorf("goroutine %d: %d rows (%d distinct), sum %d in the table; appended %d rows, sum %d", g, a.rows, a.ids, a.sum, count[g], sum[g])
		}
	}
	if st.Retried == 0 {
		t.Errorf("no block was resent: the faults missed the inserts")
	}
}
