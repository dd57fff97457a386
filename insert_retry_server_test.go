package chnative

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/chnative/chnative/internal/faketest"
)

// TestDeduplicationTokenServer runs WithDeduplicationToken against the test server: refused
// before anything is sent on servers older than 22.2 (18.16), and honoured on newer ones (run
// the suite with CHNATIVE_DSN at 26.7): the same rows inserted twice with the same token, in the
// same blocks, are in the table once.
func TestDeduplicationTokenServer(t *testing.T) {
	db := openDB(t, "insert_block_rows=10")
	ctx := context.Background()
	si := serverInfo(t, db)
	tctx := WithDeduplicationToken(ctx, "chnative-token-1")
	if si.Major < 22 || si.Major == 22 && si.Minor < 2 {
		table := createTable(t, db, "dedup_token", "id UInt64")
		err := InsertRows(tctx, db, "INSERT INTO "+table+" (id)", [][]any{{uint64(1)}, {uint64(2)}})
		var ue *UnsupportedError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), si.Version()) || !strings.Contains(err.Error(), "22.2") {
			t.Fatalf("insert with a token on %s: %v, want an *UnsupportedError naming the version", si.Version(), err)
		}
		if _, err := db.ExecContext(tctx, "INSERT INTO "+table+" (id) VALUES (?)", uint64(3)); !errors.As(err, &ue) {
			t.Fatalf("Exec insert with a token on %s: %v", si.Version(), err)
		}
		if n := count(t, db, table); n != 0 {
			t.Fatalf("%d rows after the refused inserts", n)
		}
		// The connection took no harm: inserts without a token go on.
		if err := InsertRows(ctx, db, "INSERT INTO "+table+" (id)", [][]any{{uint64(1)}}); err != nil {
			t.Fatal(err)
		}
		return
	}
	name := tableName("dedup_token")
	mustExec(t, db, "CREATE TABLE "+name+" (id UInt64) ENGINE = MergeTree ORDER BY id SETTINGS non_replicated_deduplication_window = 100")
	t.Cleanup(func() { _, _ = db.Exec("DROP TABLE IF EXISTS " + name) })
	rows := make([][]any, 25)
	for i := range rows {
		rows[i] = []any{uint64(i)}
	}
	for range 2 {
		if err := InsertRows(tctx, db, "INSERT INTO "+name+" (id)", rows); err != nil {
			t.Fatal(err)
		}
	}
	if n := count(t, db, name); n != 25 {
		t.Fatalf("%d rows after inserting the same 25 rows twice with one token, want 25", n)
	}
	// Another token inserts the same rows again.
	if err := InsertRows(WithDeduplicationToken(ctx, "chnative-token-2"), db, "INSERT INTO "+name+" (id)", rows); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, name); n != 50 {
		t.Fatalf("%d rows after a second token, want 50", n)
	}
}

// TestInsertRetryServerCut cuts the connection of a batched insert to the test server between
// blocks: the insert is resumed on a new connection, which the server takes (the same query, the
// kept blocks again, compressed or not, then the rest). The table is a Memory table, which
// deduplicates nothing: the blocks the cut attempt had given the server may be there twice (a
// Replicated table drops them; the cluster tests check that), every later block is there once.
func TestInsertRetryServerCut(t *testing.T) {
	direct := openDB(t)
	for _, comp := range []string{"none", "lz4"} {
		t.Run(comp, func(t *testing.T) {
			table := createTable(t, direct, "insert_retry_cut", "id UInt64, s String")
			p := newProxy(t)
			db := openAt(t, []string{p.Addr()}, "insert_block_rows=1000", "insert_retries=2", "compress="+comp)
			db.SetMaxOpenConns(1)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			err = c.Raw(func(dc any) error {
				b, err := dc.(Conn).PrepareBatch(ctx, "INSERT INTO "+table+" (id, s)")
				if err != nil {
					return err
				}
				for i := range 3_000 {
					if i == 1_000 { // the first block is out
						p.CutAfter(faketest.Up, 0)
					}
					if err := b.Append(uint64(i), "some text to make the block longer"); err != nil {
						return err
					}
				}
				return b.SendContext(ctx)
			})
			if err != nil {
				t.Fatalf("the cut insert was not resumed: %v", err)
			}
			if p.Accepts() != 2 {
				t.Errorf("%d connections through the proxy, want 2 (the cut one and the retry)", p.Accepts())
			}
			var total, distinct, later uint64
			if err := direct.QueryRowContext(ctx, "SELECT count(), uniqExact(id), countIf(id >= 1000) FROM "+table).Scan(&total, &distinct, &later); err != nil {
				t.Fatal(err)
			}
			if distinct != 3_000 || later != 2_000 || (total != 3_000 && total != 4_000) {
				t.Fatalf("%d rows, %d ids, %d of the blocks after the cut; want 3000 ids, the later 2000 rows once", total, distinct, later)
			}
			t.Logf("%d rows: the first block %s", total, map[bool]string{true: "twice (Memory does not deduplicate)", false: "once"}[total == 4_000])
		})
	}
}
