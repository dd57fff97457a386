package chconn

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/chnative/chnative/dsn"
	"github.com/chnative/chnative/internal/faketest"
	"github.com/chnative/chnative/nativeproto"
)

// An insert's life on one connection: Append sends a block every blockRows rows, Flush sends the
// rest, Finish ends the data and waits for the server's confirmation; a connection that breaks
// before the confirmation leaves the insert unconfirmed, and Resume sends its kept blocks again,
// byte for byte, on another connection.

// insertSeen is what a fake insert server read: each Data block's rows, its n values in order,
// and each Data packet's bytes as the client sent them.
type insertSeen struct {
	rows []int
	vals []uint64
	raw  [][]byte
	err  error
}

// insertServer answers an INSERT with the header of one UInt64 column n, reads the client's
// blocks up to the empty one that ends the data, and then confirms the insert or, when
// confirm is false, hangs up. What it read goes to seen.
func insertServer(t *testing.T, hello nativeproto.ServerHello, confirm bool, seen chan<- insertSeen) func(*faketest.Session) {
	hdr, err := faketest.EmptyBlock([2]string{"n", "UInt64"})
	if err != nil {
		t.Fatal(err)
	}
	return func(s *faketest.Session) {
		tap := faketest.NewTap(s)
		got := readInsert(s, tap, hello, hdr, confirm)
		seen <- got
		if confirm && got.err == nil {
			s.Drain(faketest.DrainAfterScript)
		}
	}
}

// readInsert is insertServer's conversation: what it read, and the error that ended it.
func readInsert(s *faketest.Session, tap *faketest.Tap, hello nativeproto.ServerHello, hdr *nativeproto.Block, confirm bool) (got insertSeen) {
	if got.err = s.HandshakeHello(hello); got.err != nil {
		return got
	}
	q, err := s.ReadQuery()
	if got.err = err; err != nil {
		return got
	}
	rev := s.Revision()
	pkt, err := faketest.HeaderPacket(nil, rev, q.Compression, hdr)
	if got.err = err; err != nil {
		return got
	}
	if got.err = s.Write(pkt); got.err != nil {
		return got
	}
	for {
		raw, b, err := faketest.ReadData(tap, rev, q.Compression)
		if got.err = err; err != nil {
			return got
		}
		if b.NumColumns() == 0 {
			break
		}
		got.rows = append(got.rows, b.Rows())
		got.raw = append(got.raw, raw)
		for i := range b.Rows() {
			got.vals = append(got.vals, b.Column(0).Value(i).(uint64))
		}
	}
	if confirm { // else it hangs up: the insert's outcome is unknown to the client
		got.err = s.Write(faketest.EndQuery(nil, rev))
	}
	return got
}

// dialInsertServer starts an insertServer and dials it with the DSN's query string query.
func dialInsertServer(t *testing.T, hello nativeproto.ServerHello, confirm bool, query string) (*Conn, chan insertSeen) {
	t.Helper()
	seen := make(chan insertSeen, 1)
	srv, err := faketest.NewServer(insertServer(t, hello, confirm, seen))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	cfg, err := dsn.Parse("clickhouse://default@" + srv.Addr() + "/default" + query)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Dial(context.Background(), cfg, srv.Addr(), Dialer{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c, seen
}

// appendRows appends n rows of n values from, from+1, ...
func appendRows(t *testing.T, ins *Insert, from, n int) {
	t.Helper()
	for i := range n {
		if err := ins.Append(context.Background(), []any{uint64(from + i)}); err != nil {
			t.Fatal(err)
		}
	}
}

func checkSeen(t *testing.T, got insertSeen, rows []int, n int) {
	t.Helper()
	if got.err != nil {
		t.Fatalf("the server: %v", got.err)
	}
	if len(got.rows) != len(rows) {
		t.Fatalf("the server got blocks of %v rows, want %v", got.rows, rows)
	}
	for i := range rows {
		if got.rows[i] != rows[i] {
			t.Fatalf("the server got blocks of %v rows, want %v", got.rows, rows)
		}
	}
	if len(got.vals) != n {
		t.Fatalf("the server got %d values, want %d", len(got.vals), n)
	}
	for i, v := range got.vals {
		if v != uint64(i) {
			t.Fatalf("value %d is %d", i, v)
		}
	}
}

func TestInsertFlushFinish(t *testing.T) {
	for _, hello := range []nativeproto.ServerHello{faketest.LegacyHello(), faketest.ModernHello()} {
		t.Run(strconv.Itoa(int(hello.Revision)), func(t *testing.T) {
			c, seen := dialInsertServer(t, hello, true, "")
			ins, err := c.OpenInsert(context.Background(), "INSERT INTO t (n) VALUES", &Options{BlockSize: 100}, true)
			if err != nil {
				t.Fatal(err)
			}
			if ins.blockRows() != 100 || ins.Block().NumColumns() != 1 || ins.Block().Name(0) != "n" {
				t.Fatalf("block rows %d, header %d columns", ins.blockRows(), ins.Block().NumColumns())
			}
			appendRows(t, ins, 0, 250) // two blocks sent by Append
			if ins.Sent() != 200 || ins.Block().Rows() != 50 {
				t.Fatalf("after 250 rows: %d sent, %d buffered; want 200, 50", ins.Sent(), ins.Block().Rows())
			}
			if err := ins.flush(); err != nil {
				t.Fatal(err)
			}
			if ins.Sent() != 250 || ins.Block().Rows() != 0 {
				t.Fatalf("after Flush: %d sent, %d buffered", ins.Sent(), ins.Block().Rows())
			}
			appendRows(t, ins, 250, 30)
			if err := ins.finish(context.Background()); err != nil {
				t.Fatal(err)
			}
			if !ins.Done() || ins.Sent() != 280 || ins.Unconfirmed() != nil || c.bad {
				t.Fatalf("after Finish: done %v, sent %d, unconfirmed %v, bad %v", ins.Done(), ins.Sent(), ins.Unconfirmed(), c.bad)
			}
			checkSeen(t, <-seen, []int{100, 100, 50, 30}, 280)
			if _, err := c.Begin(false); err != nil {
				t.Fatalf("Begin after the insert: %v", err)
			}
		})
	}
}

// The server hangs up after the end of the data, before confirming: Finish fails as a transport
// failure and the insert is unconfirmed and resumable; Resume on another connection sends the
// same Data packets again, byte for byte, and Finish there is confirmed.
func TestInsertUnconfirmedResume(t *testing.T) {
	hello := faketest.ModernHello()
	c1, seen1 := dialInsertServer(t, hello, false, "?insert_retries=1")
	ins, err := c1.OpenInsert(context.Background(), "INSERT INTO t (n) VALUES", &Options{BlockSize: 100}, true)
	if err != nil {
		t.Fatal(err)
	}
	appendRows(t, ins, 0, 230)
	err = ins.finish(context.Background())
	if err == nil {
		t.Fatal("Finish succeeded without the server's confirmation")
	}
	if !IsTransport(err) || !errors.Is(ins.Unconfirmed(), err) && ins.Unconfirmed() != err {
		t.Fatalf("Finish: %v (transport %v), unconfirmed %v", err, IsTransport(err), ins.Unconfirmed())
	}
	if !ins.Resumable() || ins.KeptBytes() == 0 || !c1.bad {
		t.Fatalf("resumable %v, %d bytes kept, first connection bad %v", ins.Resumable(), ins.KeptBytes(), c1.bad)
	}
	first := <-seen1
	checkSeen(t, insertSeen{rows: first.rows, vals: first.vals}, []int{100, 100, 30}, 230)

	c2, seen2 := dialInsertServer(t, hello, true, "?insert_retries=1")
	if err := ins.Resume(context.Background(), c2, nil); err != nil {
		t.Fatal(err)
	}
	if ins.Done() || ins.Tries() != 1 || ins.Unconfirmed() != nil {
		t.Fatalf("after Resume: done %v, tries %d, unconfirmed %v", ins.Done(), ins.Tries(), ins.Unconfirmed())
	}
	if err := ins.finish(context.Background()); err != nil {
		t.Fatalf("Finish on the second connection: %v", err)
	}
	second := <-seen2
	checkSeen(t, second, []int{100, 100, 30}, 230)
	for i := range first.raw {
		if !bytes.Equal(first.raw[i], second.raw[i]) {
			t.Fatalf("Data packet %d differs on the second connection", i)
		}
	}
	if c2.bad || ins.KeptBytes() != 0 {
		t.Fatalf("after the confirmed Finish: bad %v, %d bytes still kept", c2.bad, ins.KeptBytes())
	}
}

// An insert into the test server: blocks sent by Append and Flush, confirmed by Finish, and all
// there when read back on the same connection.
func TestInsertFlushFinishRealServer(t *testing.T) {
	c := dialTest(t)
	ctx := context.Background()
	const table = "j37_chconn_insert_flow"
	nsTable(t, c, table)
	ins, err := c.OpenInsert(ctx, "INSERT INTO "+table+" (n, s) VALUES", &Options{BlockSize: 1000}, true)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2500 {
		if err := ins.Append(context.Background(), []any{uint64(i), "s"}); err != nil {
			t.Fatal(err)
		}
	}
	if ins.Sent() != 2000 {
		t.Fatalf("%d rows sent before Finish, want 2000", ins.Sent())
	}
	if err := ins.finish(ctx); err != nil {
		t.Fatal(err)
	}
	row := readBackRow(t, c, "SELECT count(), sum(n) FROM "+table)
	if n, sum := row[0], row[1]; n != uint64(2500) || sum != uint64(2500*2499/2) {
		t.Fatalf("read back %v rows, sum %v", n, sum)
	}
}

// nsTable creates table (n UInt64, s String) on the test server for the test, dropped after it.
func nsTable(t *testing.T, c *Conn, table string) {
	t.Helper()
	ctx := context.Background()
	for _, q := range []string{"DROP TABLE IF EXISTS " + table, "CREATE TABLE " + table + " (n UInt64, s String) ENGINE = Memory"} {
		if err := c.Exec(ctx, q, q, nil); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _ = c.Exec(ctx, "DROP TABLE "+table, "DROP TABLE "+table, nil) })
}

// readBackRow runs query on c (after an insert ended on it) and returns its first row's values,
// reading the result to its end.
func readBackRow(t *testing.T, c *Conn, query string) []any {
	t.Helper()
	if _, err := c.Begin(false); err != nil {
		t.Fatal(err)
	}
	r, err := c.Query(context.Background(), query, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	row := make([]any, b.NumColumns())
	for i := range row {
		row[i] = b.Column(i).Value(0)
	}
	if err := readToEnd(r); err != nil {
		t.Fatal(err)
	}
	return row
}
