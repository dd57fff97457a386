// Package memory measures the heap a connection keeps while it sits idle in its pool after big
// reads and inserts, for chnative, clickhouse-go and ch-go in one run, against the server named
// by CHNATIVE_DSN (skipped without it). Each figure is the heap in use after two GCs with the
// connections held idle, minus the heap in use before they were opened, per connection.
//
//	CHNATIVE_DSN=clickhouse://default@host:9000/default go test -run TestIdleMemory -v ./memory
//
// TestIdleMemory asserts chnative's bound (IdleBound per connection) and prints a table of all
// three clients; TestPeakHeap prints the peak heap of 1M-row reads and inserts per tier.
// MEMORY_ONLY=chnative skips the other two clients; MEMORY_EXTRA adds DSN keys to chnative's
// (MEMORY_EXTRA=block_keep_bytes=0, say).
package memory

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ClickHouse/ch-go"
	"github.com/ClickHouse/ch-go/proto"
	"github.com/ClickHouse/clickhouse-go/v2"

	"github.com/chnative/chnative"
	"github.com/chnative/chnative/dsn"
)

// IdleBound is what one idle chnative connection may keep by default, whatever it did before.
const IdleBound = 8 << 20

// The workloads of issue 36.
const (
	wideRows   = 300_000   // rows of 1 KB strings read
	insertRows = 200_000   // rows of 1 KB strings inserted in one prepared batch
	pairRows   = 1_000_000 // (UInt64, String) rows read by each of pairConns connections
	pairConns  = 16
	pairQuery  = "SELECT number, toString(number) FROM numbers(1000000)"
)

type server struct {
	dsn            string
	addr           string
	user, password string
}

func locate(t *testing.T) server {
	s := os.Getenv("CHNATIVE_DSN")
	if s == "" {
		t.Skip("CHNATIVE_DSN not set")
	}
	cfg, err := dsn.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return server{dsn: s, addr: cfg.Addrs[0], user: cfg.User, password: cfg.Password}
}

// othersSpeak reports whether clickhouse-go and ch-go are measured too: not with
// MEMORY_ONLY=chnative, nor against a server older than 21 (ClickHouse 18.16), whose protocol they
// do not speak (they fail with an unknown setting).
func othersSpeak(t *testing.T, s server) bool {
	if os.Getenv("MEMORY_ONLY") == "chnative" {
		return false
	}
	db := openDB(t, "chnative", s.dsn, 1)
	defer db.Close()
	var major int
	if err := db.QueryRow("SELECT toUInt32(splitByChar('.', version())[1])").Scan(&major); err != nil {
		t.Fatal(err)
	}
	if major < 21 {
		t.Logf("server %d.x: clickhouse-go and ch-go not measured (they do not speak its protocol)", major)
		return false
	}
	return true
}

// heapInUse returns the heap in use after two GCs.
func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

var profN int

// kept runs work, which leaves conns connections idle (and returns a func closing them), and
// returns the heap they keep per connection.
func kept(t *testing.T, conns int, work func() (closeAll func())) int64 {
	t.Helper()
	before := heapInUse()
	closeAll := work()
	// What chnative's statements grew past block_keep_bytes waits up to dsn.SpareIdle for the
	// next big statement of any connection, then goes: the process's, not the connection's.
	time.Sleep(dsn.SpareIdle + 500*time.Millisecond)
	after := heapInUse()
	if f := os.Getenv("MEMORY_PROFILE"); f != "" {
		w, _ := os.Create(fmt.Sprintf("%s.%d", f, profN))
		profN++
		_ = pprof.WriteHeapProfile(w)
		w.Close()
	}
	closeAll()
	return (after - before) / int64(conns)
}

// wideQuery reads wideRows rows of 1 KB strings (a literal: ClickHouse 18.16 has no repeat()).
var wideQuery = "SELECT concat('" + strings.Repeat("x", 1020) + "', toString(number % 10000)) AS s FROM numbers(300000)"

// ---- chnative and clickhouse-go through database/sql ----

func openDB(t *testing.T, driver, dsnStr string, conns int) *sql.DB {
	db, err := sql.Open(driver, dsnStr)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	return db
}

func chgoDB(s server, compress bool, conns int) *sql.DB {
	o := &clickhouse.Options{Addr: []string{s.addr}, Auth: clickhouse.Auth{Database: "default", Username: s.user, Password: s.password},
		DialTimeout: 10 * time.Second, ReadTimeout: 5 * time.Minute, MaxOpenConns: conns, MaxIdleConns: conns}
	if compress {
		o.Compression = &clickhouse.Compression{Method: clickhouse.CompressionLZ4}
	}
	db := clickhouse.OpenDB(o)
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	return db
}

func withCompress(d string, c string) string {
	sep := "?"
	if strings.Contains(d, "?") {
		sep = "&"
	}
	return d + sep + "compress=" + c
}

// readRows reads query through database/sql to its end.
func readRows(t *testing.T, db *sql.DB, query string, want int) {
	rows, err := db.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	dest := make([]any, len(cols))
	for i := range dest {
		dest[i] = new(sql.RawBytes)
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n != want {
		t.Fatalf("read %d rows, want %d", n, want)
	}
}

// readParallel reads query on conns connections at once.
func readParallel(t *testing.T, db *sql.DB, query string, want, conns int) {
	var wg sync.WaitGroup
	errs := make(chan error, conns)
	for range conns {
		wg.Go(func() {
			rows, err := db.Query(query)
			if err != nil {
				errs <- err
				return
			}
			defer rows.Close()
			var a uint64
			var b sql.RawBytes
			n := 0
			for rows.Next() {
				if err := rows.Scan(&a, &b); err != nil {
					errs <- err
					return
				}
				n++
			}
			if err := rows.Err(); err != nil {
				errs <- err
			} else if n != want {
				errs <- fmt.Errorf("read %d rows, want %d", n, want)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// insertPrepared inserts n rows of 1 KB strings through one prepared statement in a transaction
// (clickhouse-go's batch idiom).
func insertPrepared(t *testing.T, db *sql.DB, table string, n int) {
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	st, err := tx.Prepare("INSERT INTO " + table + " (s) VALUES (?)")
	if err != nil {
		t.Fatal(err)
	}
	v := strings.Repeat("x", 1024)
	for range n {
		if _, err := st.Exec(v); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	_ = st.Close()
}

// ---- the workloads per client ----

type row struct {
	name                 string
	rows, blocks, insert int64
	batch, pairs         int64
	chnativeOnly         bool // blocks and batch are chnative's own APIs
}

func mib(n int64) string { return fmt.Sprintf("%.2f", float64(n)/(1<<20)) }

func (r row) cells() []string {
	c := []string{r.name, mib(r.rows), mib(r.blocks), mib(r.insert), mib(r.batch), mib(r.pairs)}
	if r.chnativeOnly {
		c[2], c[4] = "-", "-"
	}
	return c
}

func measureChnative(t *testing.T, s server, table, extra string) row {
	r := row{name: "chnative"}
	base := s.dsn
	if extra != "" {
		sep := "?"
		if strings.Contains(base, "?") {
			sep = "&"
		}
		base += sep + extra
	}
	d := withCompress(base, "none")
	r.rows = kept(t, 1, func() func() {
		db := openDB(t, "chnative", d, 1)
		readRows(t, db, wideQuery, wideRows)
		return func() { db.Close() }
	})
	r.blocks = kept(t, 1, func() func() {
		db := openDB(t, "chnative", d, 1)
		err := rawConn(db, func(c chnative.Conn) error {
			bl, err := c.QueryBlocks(context.Background(), wideQuery)
			if err != nil {
				return err
			}
			n := 0
			for bl.Next() {
				n += bl.Block().Rows()
			}
			if n != wideRows {
				return fmt.Errorf("read %d rows", n)
			}
			return bl.Close()
		})
		if err != nil {
			t.Fatal(err)
		}
		return func() { db.Close() }
	})
	r.insert = kept(t, 1, func() func() {
		db := openDB(t, "chnative", d, 1)
		insertPrepared(t, db, table, insertRows)
		return func() { db.Close() }
	})
	r.batch = kept(t, 1, func() func() {
		db := openDB(t, "chnative", d, 1)
		err := rawConn(db, func(c chnative.Conn) error {
			b, err := c.PrepareBatch(context.Background(), "INSERT INTO "+table)
			if err != nil {
				return err
			}
			v := strings.Repeat("x", 1024)
			for range insertRows {
				if err := b.Append(v); err != nil {
					return err
				}
			}
			return b.Send()
		})
		if err != nil {
			t.Fatal(err)
		}
		return func() { db.Close() }
	})
	r.pairs = kept(t, pairConns, func() func() {
		db := openDB(t, "chnative", withCompress(base, "lz4"), pairConns)
		readParallel(t, db, pairQuery, pairRows, pairConns)
		return func() { db.Close() }
	})
	return r
}

func rawConn(db *sql.DB, f func(chnative.Conn) error) error {
	c, err := db.Conn(context.Background())
	if err != nil {
		return err
	}
	defer c.Close()
	return c.Raw(func(dc any) error { return f(dc.(chnative.Conn)) })
}

func measureClickhouseGo(t *testing.T, s server, table string) row {
	r := row{name: "clickhouse-go", chnativeOnly: true}
	r.rows = kept(t, 1, func() func() {
		db := chgoDB(s, false, 1)
		readRows(t, db, wideQuery, wideRows)
		return func() { db.Close() }
	})
	r.insert = kept(t, 1, func() func() {
		db := chgoDB(s, false, 1)
		insertPrepared(t, db, table, insertRows)
		return func() { db.Close() }
	})
	r.pairs = kept(t, pairConns, func() func() {
		db := chgoDB(s, true, pairConns)
		readParallel(t, db, pairQuery, pairRows, pairConns)
		return func() { db.Close() }
	})
	return r
}

func dialChgo(t *testing.T, s server, comp ch.Compression) *ch.Client {
	c, err := ch.Dial(context.Background(), ch.Options{Address: s.addr, User: s.user, Password: s.password,
		Compression: comp, ReadTimeout: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func measureChGo(t *testing.T, s server, table string) row {
	r := row{name: "ch-go", chnativeOnly: true}
	ctx := context.Background()
	r.rows = kept(t, 1, func() func() {
		c := dialChgo(t, s, ch.CompressionDisabled)
		var col proto.ColStr
		n := 0
		if err := c.Do(ctx, ch.Query{Body: wideQuery, Result: proto.Results{{Name: "s", Data: &col}},
			OnResult: func(context.Context, proto.Block) error { n += col.Rows(); return nil }}); err != nil {
			t.Fatal(err)
		}
		if n != wideRows {
			t.Fatalf("ch-go read %d rows", n)
		}
		return func() { c.Close() }
	})
	r.insert = kept(t, 1, func() func() {
		c := dialChgo(t, s, ch.CompressionDisabled)
		var col proto.ColStr
		v := strings.Repeat("x", 1024)
		for range insertRows {
			col.Append(v)
		}
		if err := c.Do(ctx, ch.Query{Body: "INSERT INTO " + table + " VALUES", Input: proto.Input{{Name: "s", Data: &col}}}); err != nil {
			t.Fatal(err)
		}
		return func() { c.Close() }
	})
	r.pairs = kept(t, pairConns, func() func() {
		cs := make([]*ch.Client, pairConns)
		var wg sync.WaitGroup
		for i := range cs {
			cs[i] = dialChgo(t, s, ch.CompressionLZ4)
			wg.Go(func() {
				var a proto.ColUInt64
				var b proto.ColStr
				n := 0
				err := cs[i].Do(ctx, ch.Query{Body: pairQuery, Result: proto.Results{{Name: "number", Data: &a}, {Name: "toString(number)", Data: &b}},
					OnResult: func(context.Context, proto.Block) error { n += a.Rows(); return nil }})
				if err != nil || n != pairRows {
					t.Errorf("ch-go pairs: %d rows, %v", n, err)
				}
			})
		}
		wg.Wait()
		return func() {
			for _, c := range cs {
				c.Close()
			}
		}
	})
	return r
}

// TestIdleMemory measures the heap kept per idle connection after issue 36's workloads and
// asserts chnative's default bound.
func TestIdleMemory(t *testing.T) {
	s := locate(t)
	db := openDB(t, "chnative", s.dsn, 1)
	table := "memB_idle"
	for _, q := range []string{"DROP TABLE IF EXISTS " + table, "CREATE TABLE " + table + " (s String) ENGINE = Null"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	var rows []row
	c := measureChnative(t, s, table, os.Getenv("MEMORY_EXTRA"))
	rows = append(rows, c)
	if othersSpeak(t, s) {
		rows = append(rows, measureClickhouseGo(t, s, table), measureChGo(t, s, table))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "heap kept per idle connection (MiB, after two GCs), server %s\n", s.addr)
	fmt.Fprintf(&b, "| client | 300K x 1 KB read (Rows) | same via QueryBlocks | 200K x 1 KB prepared insert | same via Batch.Append | 16 conns x 1M (UInt64, String) LZ4 read |\n|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s |\n", strings.Join(r.cells(), " | "))
	}
	t.Log("\n" + b.String())
	for _, v := range []struct {
		what string
		n    int64
	}{{"Rows read", c.rows}, {"QueryBlocks read", c.blocks}, {"prepared insert", c.insert}, {"Batch insert", c.batch}, {"16 LZ4 reads", c.pairs}} {
		if v.n > IdleBound {
			t.Errorf("chnative keeps %s MiB per idle connection after the %s, want <= %s", mib(v.n), v.what, mib(IdleBound))
		}
	}
}
