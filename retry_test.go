package chnative

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/chnative/chnative/internal/faketest"
)

// Read retries and host back-off (internal/chconn: read_retry.go, hosts.go) through
// database/sql, against fake servers: a connection cut at an exact point of an answer, or a host
// that accepts and hangs up, is what a real server does not do on cue. The cluster tests
// (conformance) kill real replicas.

// answerServer answers every query with answer(query number on this server, counted from 0),
// then hangs up when cut is true.
func answerServer(t *testing.T, answer func(n int) (b []byte, cut bool)) *faketest.Server {
	t.Helper()
	srv, err := faketest.NewServer(faketest.Numbered(false, answer))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// headerOnly is the start of goodResponse: its header block and progress, no rows.
func headerOnly(t *testing.T) []byte {
	full := goodResponse(t, false)
	// The header block is goodResponse's first packet: encoded again, alone.
	mk := func(name, typ string) faketest.Col {
		c, err := faketest.EncodeColumn(name, typ)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	b := faketest.DataPacket(nil, 0, []faketest.Col{mk("n", "UInt64"), mk("s", "String"), mk("a", "Array(UInt8)"),
		mk("ns", "Nullable(String)"), mk("lc", "LowCardinality(String)")}, false)
	if len(b) >= len(full) {
		t.Fatal("header longer than the answer")
	}
	return b
}

func countRows(ctx context.Context, db *sql.DB, query string) (int, error) {
	rs, err := db.QueryContext(ctx, query)
	if err != nil {
		return 0, err
	}
	defer rs.Close()
	n := 0
	for rs.Next() {
		n++
	}
	return n, rs.Err()
}

func TestReadRetryBeforeFirstRow(t *testing.T) {
	hdr, full := headerOnly(t), goodResponse(t, false)
	// a breaks after the header (a replica dying mid-query); b answers.
	a := answerServer(t, func(int) ([]byte, bool) { return hdr, true })
	b := answerServer(t, func(int) ([]byte, bool) { return full, false })
	db := openAt(t, []string{a.Addr(), b.Addr()}, "read_timeout=5s")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	n, err := countRows(ctx, db, "SELECT n, s, a, ns, lc FROM t")
	if err != nil || n != 3 {
		t.Fatalf("read: %d rows, %v; want 3 rows after a retry on the second host", n, err)
	}
	if a.Accepts() != 1 || b.Accepts() != 1 {
		t.Errorf("accepts: a %d, b %d; want 1 and 1", a.Accepts(), b.Accepts())
	}
	// The connection now talks to b.
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var addr string
	if err := c.Raw(func(dc any) error { addr = dc.(interface{ ServerInfo() ServerInfo }).ServerInfo().Addr; return nil }); err != nil {
		t.Fatal(err)
	}
	if addr != b.Addr() {
		t.Errorf("ServerInfo().Addr = %q, want %q", addr, b.Addr())
	}
	// a backs off: a new connection goes to b without dialing a.
	c2, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if a.Accepts() != 1 {
		t.Errorf("a backing off was dialed again: %d accepts", a.Accepts())
	}
}

func TestReadRetryNotAfterRows(t *testing.T) {
	// Two blocks of rows, then the connection breaks: the first rows reached the caller, so the
	// caller gets the error, never the rows again.
	full := goodResponse(t, false)
	hdr := headerOnly(t)
	body := full[len(hdr):]
	// header, progress, 3 rows; then a second copy of the 3 rows is cut short.
	rowsPart := body[:len(body)-2] // drop EndOfStream and Pong
	answer := append(append(append([]byte{}, hdr...), rowsPart...), rowsPart[:len(rowsPart)/2]...)
	a := answerServer(t, func(int) ([]byte, bool) { return answer, true })
	b := answerServer(t, func(int) ([]byte, bool) { return full, false })
	db := openAt(t, []string{a.Addr(), b.Addr()}, "read_timeout=5s")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	n, err := countRows(ctx, db, "SELECT n, s, a, ns, lc FROM t")
	if err == nil {
		t.Fatalf("read %d rows without error from a broken answer", n)
	}
	if n != 3 {
		t.Errorf("%d rows before the error, want 3", n)
	}
	if b.Accepts() != 0 {
		t.Errorf("the read was retried after rows reached the caller (b accepted %d)", b.Accepts())
	}
}
