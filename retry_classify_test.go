package chnative

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chnative/chnative/internal/faketest"
	"github.com/chnative/chnative/nativeproto"
)

// Which failures are retried (internal/chconn: read_retry.go, insert_failover.go, TransportError):
// fake servers that count how many times a statement reached them. A transport failure (the
// socket ended, was reset, timed out, a frame failed its checksum) is run again while
// read_retries or insert_retries allow; an answer that breaks the protocol is returned at once,
// with its connection closed: sending the query again would only get the same lie again.

// How a scripted answer ends.
const (
	endDrain = iota // keep the connection open, reading, until the client closes it
	endCut          // close it (the client reads EOF)
	endReset        // close it with a RST (the client reads "connection reset")
	endKeep         // go on serving the connection's next query
)

// faultCase is one scripted answer to the tests' query.
type faultCase struct {
	name       string
	compressed bool
	transport  bool // retried: a transport failure; else a lie, returned at once
	rowsOnly   bool // a lie only a reader of the rows sees (Exec discards the blocks)
	answer     []byte
	end        int
}

// faultHeader is the header block of the fault cases' result: one UInt64 column n.
func faultHeader(t testing.TB, compressed bool) []byte {
	c, err := faketest.EncodeColumn("n", "UInt64")
	if err != nil {
		t.Fatal(err)
	}
	return faketest.DataPacket(nil, 0, []faketest.Col{c}, compressed)
}

// faultRows is a Data block of three rows of the fault cases' result.
func faultRows(t testing.TB, compressed bool) []byte {
	c, err := faketest.EncodeColumn("n", "UInt64", uint64(1), uint64(2), uint64(3))
	if err != nil {
		t.Fatal(err)
	}
	return faketest.DataPacket(nil, 3, []faketest.Col{c}, compressed)
}

func faultCases(t testing.TB) []faultCase {
	cat := func(parts ...[]byte) []byte {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	hdr, hdrZ := faultHeader(t, false), faultHeader(t, true)
	rows, rowsZ := faultRows(t, false), faultRows(t, true)
	col := func(name, typ string, data []byte) []faketest.Col {
		return []faketest.Col{{Name: name, Type: typ, Data: data}}
	}
	badSum := append([]byte(nil), rowsZ...)
	badSum[2] ^= 0xff // the frame's first checksum byte, after the code and the empty table name
	dataFrame := func(method byte, payload []byte) []byte {
		return append([]byte{byte(nativeproto.ServerCodeData), 0}, faketest.Frame(method, payload, 0, false)...) // table ""
	}
	return []faultCase{
		// Lies: well-formed bytes (valid checksums) that break the protocol.
		{name: "unknownPacket", answer: cat(hdr, faketest.UVarInt(nil, 99))},
		{name: "unknownPacketFirst", answer: faketest.UVarInt(nil, 99)},
		{name: "exceptionNested10000", answer: faketest.Exception(nil, 1, "nested", 10_000)},
		{name: "string2^40", answer: faketest.DataPacket(nil, 1, col("n", "String", faketest.UVarInt(nil, 1<<40)), false)},
		{name: "rows2^40", answer: cat(hdr, faketest.DataPacket(nil, 1<<40, col("n", "UInt64", nil), false))},
		{name: "unknownType", answer: cat(hdr, faketest.DataPacket(nil, 1, col("n", "NoSuchType", []byte{1}), false))},
		{name: "columnsUnlikeHeader", rowsOnly: true, answer: cat(hdr, faketest.DataPacket(nil, 1, append(col("n", "UInt64", make([]byte, 8)), col("m", "UInt8", []byte{1})...), false))},
		{name: "frameUnknownMethod", compressed: true, answer: cat(hdrZ, dataFrame(0x99, []byte{1, 2, 3, 4}))},
		{name: "frameLZ4Corrupt", compressed: true, answer: cat(hdrZ, dataFrame(0x82, []byte{0xff, 0xff, 0xff, 0xff}))},
		// Transport failures.
		{name: "cutAfterHeader", transport: true, answer: hdr, end: endCut},
		{name: "cutMidBlock", transport: true, answer: cat(hdr, rows[:len(rows)-5]), end: endCut},
		{name: "cutFirstPacket", transport: true, answer: hdr[:len(hdr)-3], end: endCut},
		{name: "resetAfterHeader", transport: true, answer: hdr, end: endReset},
		{name: "timeoutAfterHeader", transport: true, answer: hdr},
		{name: "badChecksum", compressed: true, transport: true, answer: cat(hdrZ, badSum)},
		{name: "cutMidFrame", compressed: true, transport: true, answer: cat(hdrZ, rowsZ[:len(rowsZ)-7]), end: endCut},
	}
}

// countingServer answers okQuery with a good response and counts every other query, answered
// with tc's script.
type countingServer struct {
	*faketest.Server
	mu      sync.Mutex
	queries int
}

func (s *countingServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queries
}

func newCountingServer(t testing.TB, tc faultCase) *countingServer {
	t.Helper()
	cs := &countingServer{}
	good := goodResponse(t, tc.compressed)
	srv, err := faketest.NewServer(func(s *faketest.Session) {
		if s.Handshake() != nil {
			return
		}
	serve:
		for {
			q, err := s.ReadQuery()
			if err != nil {
				return
			}
			if q.Body == okQuery {
				if s.Write(good) != nil {
					return
				}
				continue
			}
			cs.mu.Lock()
			cs.queries++
			cs.mu.Unlock()
			if s.Write(tc.answer) != nil {
				return
			}
			switch tc.end {
			case endKeep:
				continue serve
			case endDrain:
				s.Drain(10 * time.Second)
			case endReset:
				if tcp, ok := s.Conn.(*net.TCPConn); ok {
					_ = tcp.SetLinger(0)
				}
			}
			return
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	cs.Server = srv
	return cs
}

// faultTiers run the query through each read path.
var faultTiers = []struct {
	name   string
	retry  bool // a read that read_retries runs again (Exec is never run again once sent)
	logged bool // with a debug Logger, whose byte counter sits in the read path
	run    func(ctx context.Context, db *sql.DB, query string) error
}{
	{"rows", true, false, readAllErr},
	{"rowsLogged", true, true, readAllErr},
	{"blocks", true, false, func(ctx context.Context, db *sql.DB, query string) error {
		c, err := db.Conn(ctx)
		if err != nil {
			return err
		}
		defer c.Close()
		return c.Raw(func(dc any) error {
			bs, err := dc.(Conn).QueryBlocks(ctx, query)
			if err != nil {
				return err
			}
			defer bs.Close()
			for bs.Next() {
			}
			return bs.Err()
		})
	}},
	{"select", true, false, func(ctx context.Context, db *sql.DB, query string) error {
		c, err := db.Conn(ctx)
		if err != nil {
			return err
		}
		defer c.Close()
		return c.Raw(func(dc any) error {
			_, err := Select[struct {
				N uint64 `ch:"n"`
			}](ctx, dc.(Conn), query)
			return err
		})
	}},
	{"exec", false, false, func(ctx context.Context, db *sql.DB, query string) error {
		_, err := db.ExecContext(ctx, query)
		return err
	}},
}

func readAllErr(ctx context.Context, db *sql.DB, query string) error {
	_, err := readAll(ctx, db, query)
	return err
}

// TestRetryOnlyTransportFailures: with read_retries=2, a transport failure reaches the server
// three times, a lie once; either way the error is a *ProtocolError, a *TransportError only
// for the transport failure, and the broken connection never serves another query.
func TestRetryOnlyTransportFailures(t *testing.T) {
	for _, tc := range faultCases(t) {
		for _, tier := range faultTiers {
			if tc.rowsOnly && !tier.retry {
				continue
			}
			t.Run(tc.name+"/"+tier.name, func(t *testing.T) {
				srv := newCountingServer(t, tc)
				params := []string{"read_timeout=300ms", "host_backoff=0", "read_retries=2"}
				if tc.compressed {
					params = append(params, "compress=lz4")
				}
				var db *sql.DB
				if tier.logged {
					db, _ = logDB(t, dsnFor([]string{srv.Addr()}, params...))
				} else {
					db = openAt(t, []string{srv.Addr()}, params...)
				}
				db.SetMaxOpenConns(1)
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				// A pooled connection first: the failing query runs on it.
				if _, err := readAll(ctx, db, okQuery); err != nil {
					t.Fatalf("the good query: %v", err)
				}
				start := time.Now()
				err := tier.run(ctx, db, "SELECT n FROM t")
				took := time.Since(start)
				var pe *ProtocolError
				if err == nil || !errors.As(err, &pe) {
					t.Fatalf("error %v (%T), want a *ProtocolError", err, err)
				}
				var te *TransportError
				if errors.As(err, &te) != tc.transport {
					t.Errorf("errors.As(*TransportError) = %v for %v, want %v", !tc.transport, err, tc.transport)
				}
				want := 1
				if tc.transport && tier.retry {
					want = 3
				}
				if got := srv.count(); got != want {
					t.Errorf("the query reached the server %d times, want %d (error: %v)", got, want, err)
				}
				if !tc.transport && took > 2*time.Second {
					t.Errorf("the lie took %v to return", took)
				}
				// The connection the failure broke is gone: the next query dials a new one and
				// gets a clean answer.
				accepts := srv.Accepts()
				n, err := readAll(ctx, db, okQuery)
				if err != nil || n != 3 {
					t.Fatalf("the good query after the failure: %d rows, %v", n, err)
				}
				if srv.Accepts() == accepts {
					t.Errorf("the next query ran on the connection that failed (no new connection)")
				}
			})
		}
	}
}

// TestExceptionKeepsConnection: a server exception, at the start or after rows, leaves the
// stream in step: the connection stays in the pool, nothing is retried; an exception followed
// by bytes the client did not ask for is not in step, and its connection is dropped before the
// next query (ResetSession).
func TestExceptionKeepsConnection(t *testing.T) {
	hdr, rows := faultHeader(t, false), faultRows(t, false)
	ex := faketest.Pong(faketest.Exception(nil, 60, "DB::Exception: Table t doesn't exist", 2))
	for _, tc := range []struct {
		name   string
		answer []byte
		reuse  bool
	}{
		{"first", ex, true},
		{"afterRows", append(append(append([]byte(nil), hdr...), rows...), ex...), true},
		{"thenJunk", append(append([]byte(nil), ex...), 0xde, 0xad, 0xbe, 0xef), false},
	} {
		for _, tier := range faultTiers {
			t.Run(tc.name+"/"+tier.name, func(t *testing.T) {
				srv := newCountingServer(t, faultCase{answer: tc.answer, end: endKeep})
				db := openAt(t, []string{srv.Addr()}, "read_timeout=2s", "host_backoff=0", "read_retries=2")
				db.SetMaxOpenConns(1)
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				if _, err := readAll(ctx, db, okQuery); err != nil {
					t.Fatalf("the good query: %v", err)
				}
				err := tier.run(ctx, db, "SELECT n FROM t")
				var ex *Exception
				if !errors.As(err, &ex) || ex.Code != 60 {
					t.Fatalf("error %v, want the server's exception 60", err)
				}
				if got := srv.count(); got != 1 {
					t.Errorf("the query reached the server %d times, want 1", got)
				}
				time.Sleep(50 * time.Millisecond) // the junk arrives
				accepts := srv.Accepts()
				n, err := readAll(ctx, db, okQuery)
				if err != nil || n != 3 {
					t.Fatalf("the good query after the exception: %d rows, %v", n, err)
				}
				if reused := srv.Accepts() == accepts; reused != tc.reuse {
					t.Errorf("connection reused: %v, want %v", reused, tc.reuse)
				}
			})
		}
	}
}

// TestInsertRetryOnlyTransportFailures: with insert_retries=2, an insert whose end the server
// answers with a lie is not resumed (one INSERT reaches the servers) and says its rows may have
// been committed; one whose opening is answered with a lie is not opened again; one whose
// connection is cut is resumed or opened again.
func TestInsertRetryOnlyTransportFailures(t *testing.T) {
	lie := faketest.UVarInt(nil, 99) // an unknown packet
	for _, mode := range insertModes {
		t.Run("lieAtEnd/"+mode.name, func(t *testing.T) {
			a := newInsertHost(t, &insertHost{end: func(int) []byte { return lie }})
			b := newInsertHost(t, &insertHost{})
			db := openAt(t, []string{a.addr(), b.addr()}, "read_timeout=2s", "insert_retries=2", "insert_block_rows=10")
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			err := mode.run(ctx, db, 30)
			var pe *ProtocolError
			var te *TransportError
			if !errors.As(err, &pe) || errors.As(err, &te) {
				t.Fatalf("error %v, want a *ProtocolError that is no *TransportError", err)
			}
			var ue *InsertUnconfirmedError
			if !errors.As(err, &ue) || ue.Sent != 30 || ue.Retries != 0 {
				t.Errorf("error %#v, want an *InsertUnconfirmedError: 30 rows sent, no retry", err)
			}
			aq, _, _ := a.got()
			bq, _, _ := b.got()
			if len(aq)+len(bq) != 1 {
				t.Errorf("the INSERT reached the servers %d times, want 1", len(aq)+len(bq))
			}
		})
		t.Run("lieAtOpen/"+mode.name, func(t *testing.T) {
			a := newInsertHost(t, &insertHost{open: func(int) []byte { return lie }})
			b := newInsertHost(t, &insertHost{})
			db := openAt(t, []string{a.addr(), b.addr()}, "read_timeout=2s", "insert_retries=2", "insert_block_rows=10")
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			err := mode.run(ctx, db, 30)
			var pe *ProtocolError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v, want a *ProtocolError", err)
			}
			aq, _, _ := a.got()
			bq, _, _ := b.got()
			if len(aq)+len(bq) != 1 {
				t.Errorf("the INSERT reached the servers %d times, want 1", len(aq)+len(bq))
			}
		})
		t.Run("cutAtOpen/"+mode.name, func(t *testing.T) {
			// Every host hangs up on the INSERT: opened 1 + insert_retries times.
			a := newInsertHost(t, &insertHost{open: func(int) []byte { return []byte{} }})
			db := openAt(t, []string{a.addr()}, "read_timeout=2s", "insert_retries=2", "host_backoff=0", "insert_block_rows=10")
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			err := mode.run(ctx, db, 30)
			var te *TransportError
			if !errors.As(err, &te) {
				t.Errorf("error %v, want a *TransportError", err)
			}
			if aq, _, _ := a.got(); len(aq) != 3 {
				t.Errorf("the INSERT reached the server %d times, want 3", len(aq))
			}
		})
		t.Run("cutMidInsert/"+mode.name, func(t *testing.T) {
			a := newInsertHost(t, &insertHost{cut: cutFirst(1)})
			b := newInsertHost(t, &insertHost{})
			db := openAt(t, []string{a.addr(), b.addr()}, "read_timeout=2s", "insert_retries=2", "insert_block_rows=10")
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if err := mode.run(ctx, db, 30); err != nil {
				t.Fatalf("the insert was not resumed: %v", err)
			}
			aq, _, _ := a.got()
			bq, _, _ := b.got()
			if len(aq) != 1 || len(bq) != 1 {
				t.Errorf("INSERTs: %d and %d, want 1 on each host", len(aq), len(bq))
			}
		})
	}
}

// TestExceptionThenJunkPinned: on a connection database/sql does not reset between statements
// (a sql.Conn, a Tx), an exception followed by bytes nobody asked for leaves the stream out of
// step: the next statement must not be sent into it (its answer would be read from the junk),
// but refused with driver.ErrBadConn, nothing sent, and the connection closed. Junk that comes
// with the exception is in the reader's buffer; junk that comes later is still in the socket.
func TestExceptionThenJunkPinned(t *testing.T) {
	ex := faketest.Pong(faketest.Exception(nil, 60, "DB::Exception: Table t doesn't exist", 1))
	junk := []byte{0xde, 0xad, 0xbe, 0xef}
	for _, tc := range []struct {
		name  string
		later bool
	}{{"withException", false}, {"afterException", true}} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var queries []string
			srv, err := faketest.NewServer(func(s *faketest.Session) {
				if s.Handshake() != nil {
					return
				}
				for {
					q, err := s.ReadQuery()
					if err != nil {
						return
					}
					mu.Lock()
					queries = append(queries, q.Body)
					mu.Unlock()
					if q.Body == okQuery {
						if s.Write(goodResponse(t, false)) != nil {
							return
						}
						continue
					}
					if !tc.later {
						_ = s.Write(append(append([]byte(nil), ex...), junk...))
						continue
					}
					_ = s.Write(ex)
					time.Sleep(30 * time.Millisecond)
					_ = s.Write(junk)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { srv.Close() })
			db := openAt(t, []string{srv.Addr()}, "read_timeout=2s")
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			var ex *Exception
			if _, err := c.ExecContext(ctx, "SELECT n FROM t"); !errors.As(err, &ex) {
				t.Fatalf("first statement: %v, want the server's exception", err)
			}
			time.Sleep(100 * time.Millisecond) // the late junk has arrived
			rows, err := c.QueryContext(ctx, okQuery)
			if err == nil {
				rows.Close()
			}
			if !errors.Is(err, driver.ErrBadConn) {
				t.Errorf("the next statement on the pinned connection: %v, want driver.ErrBadConn", err)
			}
			mu.Lock()
			got := len(queries)
			mu.Unlock()
			if got != 1 {
				t.Errorf("%d statements reached the server, want 1: the next one was sent into the unread junk", got)
			}
		})
	}
}

// TestInsertResumeStopsAtALie: an insert cut on its first host is resumed on the next; when
// that host answers the INSERT with a lie, the insert stops there (an *InsertUnconfirmedError
// around the *ProtocolError) instead of moving on to a third host.
func TestInsertResumeStopsAtALie(t *testing.T) {
	lie := faketest.UVarInt(nil, 99)
	for _, mode := range insertModes {
		t.Run(mode.name, func(t *testing.T) {
			a := newInsertHost(t, &insertHost{cut: cutFirst(1)})
			b := newInsertHost(t, &insertHost{open: func(int) []byte { return lie }})
			c := newInsertHost(t, &insertHost{})
			db := openAt(t, []string{a.addr(), b.addr(), c.addr()}, "read_timeout=2s", "insert_retries=2", "insert_block_rows=10")
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			err := mode.run(ctx, db, 30)
			var ue *InsertUnconfirmedError
			var pe *ProtocolError
			if !errors.As(err, &ue) || !strings.Contains(ue.Reason, "unexpected server packet") {
				t.Fatalf("error %v, want an *InsertUnconfirmedError naming the lie", err)
			}
			if !errors.As(err, &pe) {
				t.Errorf("error %v does not wrap a *ProtocolError", err)
			}
			aq, _, _ := a.got()
			bq, _, _ := b.got()
			cq, _, _ := c.got()
			if len(aq) != 1 || len(bq) != 1 || len(cq) != 0 {
				t.Errorf("INSERTs: %d, %d, %d; want 1 on the cut host, 1 on the lying one, none on the third", len(aq), len(bq), len(cq))
			}
		})
	}
}
