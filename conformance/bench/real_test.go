package bench

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/chnative/chnative/dsn"
	"github.com/chnative/chnative/internal/testenv"
)

// realSizes are the row counts of a real server's tables.
type realSizes struct{ u64, usf int }

// server is a real ClickHouse server the suite measures against. Two are measured: ClickHouse
// 18.16 ("real", CHNATIVE_DSN, the server of every real-server workload) and ClickHouse 26.7
// ("modern", CHNATIVE_MODERN_DSN, started by scripts/modern.sh), on which ch-go can run too, for
// the 10M UInt64 read (uncompressed and LZ4), the (UInt64, String, Float64) read (also with each
// codec), the 1M-row insert and the 10M-row insert with each codec. Both get the same tables
// (setup). Nothing here depends on the protocol revision the driver speaks: every client
// negotiates its own with the server.
type server struct {
	name  string // the benchmark name element: "real" or "modern"
	env   string // the environment variable holding its DSN
	label string // what it is, for messages
	// chgo says whether ch-go can query the server: not 18.16, to which ch-go sends the client
	// info of a query only from revision 54420 while 18.16 (54412) expects it.
	chgo bool

	addr, user, password string // from env (TestMain); addr empty leaves the server's arms unrun

	once sync.Once
	sz   realSizes
	err  error
}

var (
	realServer   = &server{name: "real", env: "CHNATIVE_DSN", label: "ClickHouse 18.16"}
	modernServer = &server{name: "modern", env: "CHNATIVE_MODERN_DSN", label: "ClickHouse 26.7", chgo: true}
)

// locate reads the server's DSN from its environment variable, unless off. BENCH_NO_REAL=1 turns
// off both real servers, BENCH_NO_MODERN=1 the 26.7 one alone.
func (s *server) locate(off bool) {
	v := os.Getenv(s.env)
	if v == "" || off {
		return
	}
	if cfg, err := dsn.Parse(v); err == nil && len(cfg.Addrs) > 0 {
		s.addr, s.user, s.password = cfg.Addrs[0], cfg.User, cfg.Password
	}
}

// target returns the server as a target, skipping the benchmark when its DSN is not set (failing
// in CI, which runs every arm against both servers).
func (s *server) target(b *testing.B) target {
	if s.addr == "" {
		if testenv.CI() {
			b.Fatalf("%s not set: CI runs every arm against the %s server", s.env, s.label)
		}
		b.Skipf("%s not set", s.env)
	}
	return target{name: s.name, addr: s.addr, user: s.user, password: s.password, server: true, chgo: s.chgo}
}

func realT(b *testing.B) target   { return realServer.target(b) }
func modernT(b *testing.B) target { return modernServer.target(b) }

// setup creates, once per run, database chnative_bench on the server with Memory tables u64
// (10M UInt64) and usf (1M UInt64, String, Float64) and the Null table sink for inserts. Tables
// already holding the wanted row count are kept. system.numbers is only read with a LIMIT inside
// the subquery.
func (s *server) setup(b *testing.B) realSizes {
	s.once.Do(func() {
		db := openChnative(b, s.addr, s.user, s.password, "none")
		// A fresh connection per statement: on 18.16 the query after an INSERT ... SELECT on the
		// same chnative connection fails with "Unexpected packet Data received from client".
		db.SetMaxIdleConns(0)
		ctx := context.Background()
		s.sz = realSizes{u64: rowsN(10_000_000), usf: rowsN(1_000_000)}
		ensure := func(table, create, fill string, want int) error {
			var n int
			if err := db.QueryRowContext(ctx, "SELECT count() FROM "+table).Scan(&n); err == nil && n == want {
				return nil
			}
			for _, q := range []string{"DROP TABLE IF EXISTS " + table, create, fill} {
				if _, err := db.ExecContext(ctx, q); err != nil {
					return fmt.Errorf("%s server: %s: %w", s.name, q, err)
				}
			}
			return nil
		}
		if _, s.err = db.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS chnative_bench"); s.err != nil {
			return
		}
		if s.err = ensure("chnative_bench.u64", "CREATE TABLE chnative_bench.u64 (number UInt64) ENGINE = Memory",
			fmt.Sprintf("INSERT INTO chnative_bench.u64 (number) SELECT number FROM (SELECT number FROM system.numbers LIMIT %d)", s.sz.u64), s.sz.u64); s.err != nil {
			return
		}
		if s.err = ensure("chnative_bench.usf", "CREATE TABLE chnative_bench.usf (id UInt64, name String, val Float64) ENGINE = Memory",
			fmt.Sprintf("INSERT INTO chnative_bench.usf (id, name, val) SELECT number, concat('name-', toString(number %% 1000), '-', toString(number)), number * 0.25 FROM (SELECT number FROM system.numbers LIMIT %d)", s.sz.usf), s.sz.usf); s.err != nil {
			return
		}
		_, s.err = db.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS chnative_bench.sink (id UInt64, name String, val Float64) ENGINE = Null")
	})
	if s.err != nil {
		b.Fatal(s.err)
	}
	return s.sz
}

func setupReal(b *testing.B) realSizes   { return realServer.setup(b) }
func setupModern(b *testing.B) realSizes { return modernServer.setup(b) }

// u64Read and usfRead are the real servers' read workloads of the u64 and usf tables.
func u64Read(n realSizes, codec string) readSpec {
	return readSpec{shape: "u64", query: "SELECT number FROM chnative_bench.u64", rows: n.u64, codec: codec}
}

func usfRead(n realSizes, codec string) readSpec {
	return readSpec{shape: "u64sf64", query: "SELECT id, name, val FROM chnative_bench.usf", rows: n.usf, codec: codec}
}
