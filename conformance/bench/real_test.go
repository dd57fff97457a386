package bench

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// realSizes are the row counts of the real server's tables.
type realSizes struct{ u64, usf int }

var (
	realOnce sync.Once
	realSz   realSizes
	realErr  error
)

// setupReal creates, once per run, database chnative_bench on the real server with Memory tables
// u64 (10M UInt64) and usf (1M UInt64, String, Float64) and the Null table sink for inserts.
// Tables already holding the wanted row count are kept. system.numbers is only read with a LIMIT
// inside the subquery.
func setupReal(b *testing.B) realSizes {
	realOnce.Do(func() {
		db := openChnative(b, realAddr, realUser, realPassword, "none")
		// A fresh connection per statement: on 18.16 the query after an INSERT ... SELECT on the
		// same chnative connection fails with "Unexpected packet Data received from client".
		db.SetMaxIdleConns(0)
		ctx := context.Background()
		realSz = realSizes{u64: rowsN(10_000_000), usf: rowsN(1_000_000)}
		ensure := func(table, create, fill string, want int) error {
			var n int
			if err := db.QueryRowContext(ctx, "SELECT count() FROM "+table).Scan(&n); err == nil && n == want {
				return nil
			}
			for _, q := range []string{"DROP TABLE IF EXISTS " + table, create, fill} {
				if _, err := db.ExecContext(ctx, q); err != nil {
					return fmt.Errorf("%s: %w", q, err)
				}
			}
			return nil
		}
		if _, realErr = db.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS chnative_bench"); realErr != nil {
			return
		}
		if realErr = ensure("chnative_bench.u64", "CREATE TABLE chnative_bench.u64 (number UInt64) ENGINE = Memory",
			fmt.Sprintf("INSERT INTO chnative_bench.u64 (number) SELECT number FROM (SELECT number FROM system.numbers LIMIT %d)", realSz.u64), realSz.u64); realErr != nil {
			return
		}
		if realErr = ensure("chnative_bench.usf", "CREATE TABLE chnative_bench.usf (id UInt64, name String, val Float64) ENGINE = Memory",
			fmt.Sprintf("INSERT INTO chnative_bench.usf (id, name, val) SELECT number, concat('name-', toString(number %% 1000), '-', toString(number)), number * 0.25 FROM (SELECT number FROM system.numbers LIMIT %d)", realSz.usf), realSz.usf); realErr != nil {
			return
		}
		_, realErr = db.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS chnative_bench.sink (id UInt64, name String, val Float64) ENGINE = Null")
	})
	if realErr != nil {
		b.Fatal(realErr)
	}
	return realSz
}
