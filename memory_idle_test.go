package chnative

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/chnative/chnative/internal/testenv"
)

// idleBound is what one idle connection may keep by default, whatever it did before (issue 36).
const idleBound = 8 << 20

// A pooled connection that read big blocks (through Rows, QueryBlocks, Select) or sent them (a
// prepared-statement insert, Batch.Append) keeps at most idleBound of heap while it sits idle in
// the pool.
func TestIdleConnectionKeepsBoundedMemory(t *testing.T) {
	wide := "SELECT concat('" + strings.Repeat("m", 1020) + "', toString(number)) AS s FROM numbers(150000)"
	v := strings.Repeat("i", 1024)
	setup := openDB(t)
	table := createTable(t, setup, "memB_idle", "s String")
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		work func(t *testing.T, db *sql.DB)
	}{
		{"Rows", func(t *testing.T, db *sql.DB) {
			rows, err := db.Query(wide)
			if err != nil {
				t.Fatal(err)
			}
			var s sql.RawBytes
			for rows.Next() {
				if err := rows.Scan(&s); err != nil {
					t.Fatal(err)
				}
			}
			if err := rows.Close(); err != nil {
				t.Fatal(err)
			}
		}},
		{"QueryBlocks", func(t *testing.T, db *sql.DB) {
			err := rawConn(t, db, func(c Conn) error {
				bl, err := c.QueryBlocks(ctx, wide)
				if err != nil {
					return err
				}
				for bl.Next() {
				}
				return bl.Close()
			})
			if err != nil {
				t.Fatal(err)
			}
		}},
		{"prepared insert", func(t *testing.T, db *sql.DB) {
			tx, err := db.Begin()
			if err != nil {
				t.Fatal(err)
			}
			st, err := tx.Prepare("INSERT INTO " + table + " (s) VALUES (?)")
			if err != nil {
				t.Fatal(err)
			}
			for range 60_000 {
				if _, err := st.Exec(v); err != nil {
					t.Fatal(err)
				}
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
		}},
		{"Batch.Append", func(t *testing.T, db *sql.DB) {
			err := withBatch(t, db, ctx, "INSERT INTO "+table, func(b *Batch) error {
				for range 60_000 {
					if err := b.Append(v); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}},
	} {
		for _, comp := range []string{"none", "lz4"} {
			t.Run(tc.name+"/"+comp, func(t *testing.T) {
				before := testenv.HeapInUse()
				db := openDB(t, "compress="+comp)
				db.SetMaxIdleConns(1)
				db.SetMaxOpenConns(1)
				tc.work(t, db)
				if n := testenv.HeapInUse() - before; n > idleBound {
					t.Errorf("an idle connection keeps %d bytes of heap, want <= %d", n, idleBound)
				}
				if err := db.Ping(); err != nil { // the connection is alive and reused
					t.Fatal(err)
				}
			})
		}
	}
}

func rawConn(t *testing.T, db *sql.DB, f func(Conn) error) error {
	t.Helper()
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.Raw(func(dc any) error { return f(dc.(Conn)) })
}
