package chnative

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/chnative/chnative/internal/testenv"
)

// TestFailedLoginsLeaveServerUp makes many failed logins in a row (a wrong password, an unknown
// user, and bytes that are not a Hello at all) and then shows that the server still answers,
// and as the same process: a connection opened before them still works, and a row written to a
// Memory table before them is still there (a restarted server would have neither).
//
// On 18.16 that is simply what a server does. On 26.7 it holds because scripts/modern/launcher.c
// replaces clickhouse-local's terminating error handler, into which the engine's TCP handler
// rethrows handshake errors: without that, the first failed login would kill the server under
// every other test running against it (the launcher would then restart it, which this test
// would see as the lost connection and the lost row).
func TestFailedLoginsLeaveServerUp(t *testing.T) {
	server := testenv.Server(t)
	db := openDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	table := createTable(t, db, "login_alive", "n UInt64")
	mustExec(t, db, "INSERT INTO "+table+" VALUES (7)")
	pinned, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer pinned.Close()
	var n int
	if err := pinned.QueryRowContext(ctx, "SELECT 1").Scan(&n); err != nil || n != 1 {
		t.Fatalf("SELECT 1 before the failed logins: %d, %v", n, err)
	}

	addr := serverAddr(t)
	// The codes differ: 18.16 names the cause (193 WRONG_PASSWORD, 192 UNKNOWN_USER), 26.7 answers
	// both with 516 AUTHENTICATION_FAILED, so that a client cannot tell which users exist.
	wrongPassword, unknownUser := int32(193), int32(192)
	if server == testenv.Modern {
		wrongPassword, unknownUser = 516, 516
	}
	logins := []struct {
		name string
		dsn  string
		code int32
	}{
		{"wrongPassword", "clickhouse://" + testenv.AuthUser + ":not_" + testenv.AuthPassword + "@" + addr + "/default?dial_timeout=5s", wrongPassword},
		{"unknownUser", "clickhouse://no_such_user_chnative:x@" + addr + "/default?dial_timeout=5s", unknownUser},
	}
	const rounds = 25
	for i := range rounds {
		for _, l := range logins {
			bad, err := sql.Open("chnative", l.dsn)
			if err != nil {
				t.Fatal(err)
			}
			err = bad.PingContext(ctx)
			bad.Close()
			var ex *Exception
			if !errors.As(err, &ex) || ex.Code != l.code {
				t.Fatalf("%v, round %d, %s: %v (%T), want the server's exception %d", server, i, l.name, err, err, l.code)
			}
		}
		garbageHello(t, addr)
	}

	if err := pinned.QueryRowContext(ctx, "SELECT 2").Scan(&n); err != nil || n != 2 {
		t.Fatalf("%v: the connection opened before %d failed logins: SELECT 2 = %d, %v", server, 3*rounds, n, err)
	}
	var rows, sum uint64
	if err := db.QueryRowContext(ctx, "SELECT count(), sum(n) FROM "+table).Scan(&rows, &sum); err != nil || rows != 1 || sum != 7 {
		t.Fatalf("%v: the Memory table written before the failed logins has %d rows (sum %d), %v; want its row", server, rows, sum, err)
	}
	// And a right login still succeeds.
	good, err := sql.Open("chnative", testenv.AuthDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer good.Close()
	if err := good.QueryRowContext(ctx, "SELECT 3").Scan(&n); err != nil || n != 3 {
		t.Fatalf("%v: login as %s after the failed ones: SELECT 3 = %d, %v", server, testenv.AuthUser, n, err)
	}
}

// garbageHello sends bytes that are no client Hello (packet code 127) and waits for the server
// to close the connection.
func garbageHello(t *testing.T, addr string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.SetDeadline(time.Now().Add(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write([]byte{0x7f, 0xff, 0xff, 0xff, 0x0f, 'n', 'o', 't', ' ', 'a', ' ', 'h', 'e', 'l', 'l', 'o'}); err != nil {
		t.Fatal(err)
	}
	// The server may answer with an exception before it closes; either way the connection ends.
	if _, err := io.Copy(io.Discard, c); err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("the server kept a connection open 30s after bytes that are no Hello")
		}
	}
}
