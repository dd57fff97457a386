package chnative

import (
	"context"
	"crypto/tls"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/chnative/chnative/dsn"
	"github.com/chnative/chnative/internal/testenv"
)

// Real-server tests of clickhouse-go's DSN keys: each is a driver key with clickhouse-go's
// meaning, or refused at sql.Open with an error naming it; none reaches the server as a setting
// (where 18.16 refuses it before sending, "setting ... cannot be sent", and 26.7 answers
// UNKNOWN_SETTING, on every query).

// withParams appends query keys to a DSN.
func withParams(base string, params ...string) string {
	for _, p := range params {
		if strings.Contains(base, "?") {
			base += "&" + p
		} else {
			base += "?" + p
		}
	}
	return base
}

// logDB opens a *sql.DB through OpenDB with a debug Logger writing into the returned buffer.
func logDB(t *testing.T, dsnStr string) (*sql.DB, *syncBuffer) {
	t.Helper()
	cfg, err := dsn.Parse(dsnStr)
	if err != nil {
		t.Fatal(err)
	}
	buf := &syncBuffer{}
	cfg.Logger = slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	db, err := OpenDB(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, buf
}

func TestClickHouseGoDSNKeys(t *testing.T) {
	db := openDB(t,
		"block_buffer_size=10", "client_info_product=chnative-test/1.0", "conn_max_lifetime=1h",
		"max_compression_buffer=1048576", "compress=lz4", "compress_level=3", "dial_timeout=5s",
		"read_timeout=1m", "connection_open_strategy=in_order", "debug=false", "skip_verify=false",
		"secure=false", "max_execution_time=60", "max_block_size=777", "alt_hosts="+deadAddr(t))
	if err := db.Ping(); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	for name, want := range map[string]string{"max_block_size": "777", "max_execution_time": "60"} {
		var v string
		if err := db.QueryRow("SELECT value FROM system.settings WHERE name = ?", name).Scan(&v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if v != want {
			t.Errorf("setting %s = %q, want %q (the DSN's server setting)", name, v, want)
		}
	}
	var n int
	if err := db.QueryRow("SELECT count() FROM numbers(2000)").Scan(&n); err != nil || n != 2000 {
		t.Fatalf("a query with every clickhouse-go key in the DSN: %d, %v", n, err)
	}
}

// TestHostsKeysAddServers: hosts go before the URL's host, alt_hosts after it; the URL's host is
// dead here, so a query works only if the other key's host was added.
func TestHostsKeysAddServers(t *testing.T) {
	cfg, err := dsn.Parse(testenv.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	live := cfg.Addrs[0]
	cfg.Addrs = []string{deadAddr(t)}
	cfg.Settings = nil
	base := cfg.FormatDSN()
	for _, key := range []string{"hosts", "alt_hosts"} {
		t.Run(key, func(t *testing.T) {
			db, logs := logDB(t, withParams(base, key+"="+live))
			var n int
			if err := db.QueryRow("SELECT 7").Scan(&n); err != nil || n != 7 {
				t.Fatalf("query: %d, %v\n%s", n, err, logs)
			}
			if key == "alt_hosts" && !strings.Contains(logs.String(), "connect failed") {
				t.Errorf("alt_hosts comes after the dead URL host, but no failover was logged:\n%s", logs)
			}
		})
	}
}

// TestPingRefusesBadDSNSetting: a setting the server refuses fails every query, so it fails Ping.
// 18.16 (revision 54412) takes settings in a binary form the driver writes only for settings it
// knows: an unknown one fails before anything is sent. 26.7 answers UNKNOWN_SETTING (115).
func TestPingRefusesBadDSNSetting(t *testing.T) {
	kind := testenv.Server(t)
	db := openDB(t, "chnative_no_such_setting=1")
	err := db.Ping()
	if err == nil {
		t.Fatal("Ping passed with a setting the server refuses")
	}
	if !strings.Contains(err.Error(), "every query would") || !strings.Contains(err.Error(), "chnative_no_such_setting") {
		t.Errorf("Ping error does not name the setting: %v", err)
	}
	var ex *Exception
	switch kind {
	case testenv.Modern:
		if !errors.As(err, &ex) || ex.Code != 115 {
			t.Errorf("26.7: want the server's UNKNOWN_SETTING (115), got %v", err)
		}
	case testenv.Legacy:
		if errors.As(err, &ex) || !strings.Contains(err.Error(), "cannot be sent") {
			t.Errorf("18.16: want the driver's refusal to encode the setting, got %v", err)
		}
	}
	// A value the server refuses for a known setting fails Ping the same way.
	bad := openDB(t, "max_threads=many")
	if err := bad.Ping(); err == nil || !strings.Contains(err.Error(), "max_threads") {
		t.Errorf("Ping with max_threads=many: %v", err)
	}
	// Good settings pass, and are checked once per connection (then Ping is a Ping packet).
	good, logs := logDB(t, withParams(testenv.DSN(t), "max_threads=2"))
	good.SetMaxOpenConns(1)
	for range 3 {
		if err := good.Ping(); err != nil {
			t.Fatalf("Ping with max_threads=2: %v", err)
		}
	}
	if n := strings.Count(logs.String(), "chnative: query sent"); n != 1 {
		t.Errorf("3 Pings on one connection sent %d queries, want 1 (the settings check)\n%s", n, logs)
	}
}

// TestPoolKeys: max_open_conns and max_idle_conns are applied by OpenDB/OpenDSN (database/sql
// takes pool limits only from the *sql.DB) and refused by sql.Open with the way to set them;
// conn_max_lifetime is enforced by the driver, so sql.Open honours it too.
func TestPoolKeys(t *testing.T) {
	base := testenv.DSN(t)
	for _, k := range []struct{ param, setter string }{
		{"max_open_conns=3", "SetMaxOpenConns(3)"},
		{"max_idle_conns=2", "SetMaxIdleConns(2)"},
	} {
		_, err := sql.Open("chnative", withParams(base, k.param))
		if err == nil || !strings.Contains(err.Error(), strings.SplitN(k.param, "=", 2)[0]) ||
			!strings.Contains(err.Error(), k.setter) || !strings.Contains(err.Error(), "OpenDSN") {
			t.Errorf("sql.Open with %s: %v, want an error naming the key, db.%s and OpenDSN", k.param, err, k.setter)
		}
	}
	db, err := OpenDSN(withParams(base, "max_open_conns=3", "max_idle_conns=2", "conn_max_lifetime=1m"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := db.Stats().MaxOpenConnections; got != 3 {
		t.Errorf("OpenDSN: MaxOpenConnections = %d, want 3", got)
	}
	var n int
	if err := db.QueryRow("SELECT 1").Scan(&n); err != nil {
		t.Fatal(err)
	}
	// sql.OpenDB of a Connector whose Config has a pool limit nothing applies: the first
	// connection says so.
	cfg, err := dsn.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxOpenConns = 4
	dc, err := NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	odb := sql.OpenDB(dc)
	defer odb.Close()
	if err := odb.Ping(); err == nil || !strings.Contains(err.Error(), "max_open_conns") {
		t.Errorf("sql.OpenDB with MaxOpenConns set: Ping = %v, want an error naming max_open_conns", err)
	}
}

// TestConnMaxLifetimeEnforcedByDriver: with sql.OpenDB (no db.SetConnMaxLifetime), a connection
// older than conn_max_lifetime is not reused.
func TestConnMaxLifetimeEnforcedByDriver(t *testing.T) {
	cfg, err := dsn.Parse(withParams(testenv.DSN(t), "conn_max_lifetime=300ms"))
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	dc, err := NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(dc)
	defer db.Close()
	query := func() {
		var n int
		if err := db.QueryRow("SELECT 1").Scan(&n); err != nil {
			t.Fatal(err)
		}
	}
	query()
	query() // reuses the connection
	if n := strings.Count(logs.String(), "chnative: connected"); n != 1 {
		t.Fatalf("%d connects for two queries within the lifetime, want 1\n%s", n, logs)
	}
	time.Sleep(400 * time.Millisecond) // past the lifetime (a wait for the state, not a speed check)
	query()
	if n := strings.Count(logs.String(), "chnative: connected"); n != 2 {
		t.Fatalf("%d connects after the lifetime passed, want 2\n%s", n, logs)
	}
	if !strings.Contains(logs.String(), "conn_max_lifetime") {
		t.Errorf("the log does not say why the connection was dropped:\n%s", logs)
	}
}

// TestClientInfoProduct: client_info_product goes before the driver's name in the client name,
// as clickhouse-go puts it ("app/1.2 lib/0.3 clickhouse-go/2.x (...)").
func TestClientInfoProduct(t *testing.T) {
	db := openDB(t, "client_info_product=myapp/1.2,mylib/0.3")
	id := newQueryID()
	var name string
	ctx := WithQueryID(context.Background(), id)
	if err := db.QueryRowContext(ctx, "SELECT client_name FROM system.processes WHERE query_id = ?", id).Scan(&name); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(name, "myapp/1.2 mylib/0.3 chnative/") {
		t.Errorf("client_name = %q, want it to start with %q", name, "myapp/1.2 mylib/0.3 chnative/")
	}
}

// TestTLSServerName: tls_server_name is the name the certificate is checked against, whatever
// address is dialed (the test servers' certificates name 127.0.0.1 and localhost).
func TestTLSServerName(t *testing.T) {
	port, pool := secureEnv(t)
	base := "clickhouse://default@127.0.0.1:" + port + "/default?secure=true&dial_timeout=10s"
	ok := tlsDB(t, base+"&tls_server_name=localhost", &tls.Config{RootCAs: pool})
	var n int
	if err := ok.QueryRow("SELECT 5").Scan(&n); err != nil || n != 5 {
		t.Fatalf("tls_server_name=localhost: %d, %v", n, err)
	}
	wrong := tlsDB(t, base+"&tls_server_name=wrong.invalid", &tls.Config{RootCAs: pool})
	err := wrong.Ping()
	if err == nil || !strings.Contains(err.Error(), "wrong.invalid") {
		t.Fatalf("tls_server_name=wrong.invalid: Ping = %v, want a certificate error naming wrong.invalid", err)
	}
}

// blocksOf counts the non-empty blocks of a result read with QueryBlocks.
func blocksOf(t *testing.T, db *sql.DB, query string) int {
	t.Helper()
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n := 0
	err = c.Raw(func(dc any) error {
		bs, err := dc.(Conn).QueryBlocks(context.Background(), query)
		if err != nil {
			return err
		}
		defer bs.Close()
		for bs.Next() {
			if bs.Block().Rows() > 0 {
				n++
			}
		}
		return bs.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestMaxBlockSizeIsServerSetting: max_block_size in a DSN is the server setting (the server cuts
// results into blocks of that many rows) and does not cut inserts; insert_block_rows does.
func TestMaxBlockSizeIsServerSetting(t *testing.T) {
	db, logs := logDB(t, withParams(testenv.DSN(t), "max_block_size=5"))
	if n := blocksOf(t, db, "SELECT number FROM system.numbers LIMIT 20"); n != 4 {
		t.Errorf("20 rows with max_block_size=5 came in %d blocks, want 4", n)
	}
	insert := func(db *sql.DB, table string) {
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		stmt, err := tx.Prepare("INSERT INTO " + table + " (n)")
		if err != nil {
			t.Fatal(err)
		}
		for i := range 10 {
			if _, err := stmt.Exec(i); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	table := createTable(t, db, "chnative_mbs", "n UInt64")
	insert(db, table)
	if !strings.Contains(logs.String(), "sent_blocks=1 sent_rows=10") {
		t.Errorf("10 rows inserted with max_block_size=5 were not sent as one block:\n%s", logs)
	}
	rowsDB, rowsLogs := logDB(t, withParams(testenv.DSN(t), "insert_block_rows=4"))
	insert(rowsDB, table)
	if !strings.Contains(rowsLogs.String(), "sent_blocks=3 sent_rows=10") {
		t.Errorf("10 rows inserted with insert_block_rows=4 were not sent as 3 blocks:\n%s", rowsLogs)
	}
	var total int
	if err := db.QueryRow("SELECT count() FROM " + table).Scan(&total); err != nil || total != 20 {
		t.Fatalf("count = %d, %v, want 20", total, err)
	}
}

// TestMigrationDSNDefaults: a DSN of clickhouse-go's documentation, unchanged, opens and queries.
func TestMigrationDSNDefaults(t *testing.T) {
	cfg, err := dsn.Parse(testenv.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	// clickhouse-go's README: "clickhouse://username:password@host1:9000,host2:9000/database?
	// dial_timeout=200ms&max_execution_time=60" (the second host is the dead one here).
	s := fmt.Sprintf("clickhouse://%s@%s,%s/%s?dial_timeout=200ms&max_execution_time=60",
		cfg.User, cfg.Addrs[0], deadAddr(t), cfg.Database)
	db, err := sql.Open("chnative", s)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRow("SELECT 3").Scan(&n); err != nil || n != 3 {
		t.Fatal(n, err)
	}
}

// TestCompressLZ4HC: clickhouse-go's compress=lz4hc (with and without compress_level) sends
// LZ4 frames from the high-compression encoder, which both servers read.
func TestCompressLZ4HC(t *testing.T) {
	for _, params := range [][]string{{"compress=lz4hc"}, {"compress=lz4hc", "compress_level=12"}} {
		db := openDB(t, params...)
		table := createTable(t, db, "chnative_lz4hc", "n UInt64, s String")
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		stmt, err := tx.Prepare("INSERT INTO " + table + " (n, s)")
		if err != nil {
			t.Fatal(err)
		}
		for i := range 5000 {
			if _, err := stmt.Exec(i, strings.Repeat("lz4hc ", i%20)); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatalf("%v: %v", params, err)
		}
		var n, sum, l uint64
		if err := db.QueryRow("SELECT count(), sum(n), sum(length(s)) FROM "+table).Scan(&n, &sum, &l); err != nil {
			t.Fatal(err)
		}
		if n != 5000 || sum != 5000*4999/2 || l != 6*(5000/20)*(19*20/2) {
			t.Errorf("%v: count %d sum %d length %d", params, n, sum, l)
		}
	}
}
