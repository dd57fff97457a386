package chnative

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/faketest"
	"github.com/chnative/chnative/nativeproto"
)

// Insert retries (internal/chconn: insert_failover.go, insert_retry.go), against fake servers that
// take inserts: one hangs up after some blocks, or answers the end of the data with an exception,
// and another records the bytes of every block it gets. The cluster tests kill real replicas.

// insertHost is a fake server taking inserts into a table whose header it answers with. cut and
// end script each connection, numbered from 0 in the order they arrive.
type insertHost struct {
	srv    *faketest.Server
	hello  *nativeproto.ServerHello // nil: faketest's (ClickHouse 18.16, revision 54412)
	header *nativeproto.Block       // the table's columns, no rows
	cut    func(conn int) int       // hang up after this many blocks of an insert; < 0 (or nil): never
	end    func(conn int) []byte    // the answer to the end of the data; nil: EndOfStream
	open   func(conn int) []byte    // the answer to the INSERT instead of the header; empty: hang up

	mu      sync.Mutex
	queries []*nativeproto.Query
	packets [][]byte // each Data packet with rows received, as the client sent it
	blocks  []*nativeproto.Block
	conns   int
}

// idsHeader is the header of the tests' table: id UInt64, s (String).
func idsHeader(t testing.TB, sType string) *nativeproto.Block {
	b, err := faketest.EmptyBlock([2]string{"id", "UInt64"}, [2]string{"s", sType})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newInsertHost(t *testing.T, h *insertHost) *insertHost {
	t.Helper()
	if h.header == nil {
		h.header = idsHeader(t, "String")
	}
	srv, err := faketest.NewServer(h.serve)
	if err != nil {
		t.Fatal(err)
	}
	h.srv = srv
	t.Cleanup(func() { srv.Close() })
	return h
}

func (h *insertHost) addr() string { return h.srv.Addr() }

func (h *insertHost) serve(s *faketest.Session) {
	tap := faketest.NewTap(s)
	rev, err := h.handshake(s)
	if err != nil {
		return
	}
	h.mu.Lock()
	n := h.conns
	h.conns++
	h.mu.Unlock()
	cut := -1
	if h.cut != nil {
		cut = h.cut(n)
	}
	for {
		q, err := h.readQuery(s, tap, rev)
		if err != nil {
			return
		}
		h.mu.Lock()
		h.queries = append(h.queries, q)
		h.mu.Unlock()
		if h.open != nil {
			if answer := h.open(n); answer != nil {
				if len(answer) == 0 {
					return // hang up
				}
				if h.hello == nil {
					answer = faketest.Pong(answer)
				}
				if s.Write(answer) != nil {
					return // hang up
				}
				continue
			}
		}
		answer, err := faketest.HeaderPacket(nil, rev, q.Compression, h.header)
		if err != nil {
			return
		}
		if h.hello == nil {
			answer = faketest.Pong(answer) // the Ping after the query
		}
		if s.Write(answer) != nil {
			return
		}
		for got := 0; ; {
			raw, b, err := faketest.ReadData(tap, rev, q.Compression)
			if err != nil {
				return
			}
			if b.NumColumns() == 0 {
				break
			}
			h.mu.Lock()
			h.packets = append(h.packets, raw)
			h.blocks = append(h.blocks, b)
			h.mu.Unlock()
			if got++; got == cut {
				return // hang up: a replica dying mid-insert
			}
		}
		end := faketest.EndOfStream(nil)
		if h.end != nil {
			end = h.end(n)
		}
		if s.Write(end) != nil {
			return
		}
	}
}

// handshake answers the client's Hello (and reads the addendum of a modern revision).
func (h *insertHost) handshake(s *faketest.Session) (nativeproto.Revision, error) {
	if h.hello == nil {
		return s.Revision(), s.Handshake()
	}
	code, err := s.R.UVarInt()
	if err != nil || nativeproto.ClientCode(code) != nativeproto.ClientCodeHello {
		return 0, fmt.Errorf("no Hello: %d, %v", code, err)
	}
	if err := s.Hello.Decode(s.R); err != nil {
		return 0, err
	}
	var w columns.Writer
	if err := h.hello.Encode(&w, s.Hello.Revision); err != nil {
		return 0, err
	}
	if err := s.Write(w.Buf); err != nil {
		return 0, err
	}
	rev := nativeproto.Negotiate(s.Hello.Revision, h.hello.Revision)
	var a nativeproto.Addendum
	return rev, a.Decode(s.R, rev)
}

// readQuery reads a Query and what ends its external tables: a Ping at 54412, else an empty block.
func (h *insertHost) readQuery(s *faketest.Session, tap *faketest.Tap, rev nativeproto.Revision) (*nativeproto.Query, error) {
	if h.hello == nil {
		return s.ReadQuery()
	}
	code, err := s.R.UVarInt()
	if err != nil || nativeproto.ClientCode(code) != nativeproto.ClientCodeQuery {
		return nil, fmt.Errorf("no Query: %d, %v", code, err)
	}
	q := new(nativeproto.Query)
	if err := q.Decode(s.R, rev); err != nil {
		return nil, err
	}
	if _, b, err := faketest.ReadData(tap, rev, q.Compression); err != nil || b.Rows() != 0 {
		return nil, fmt.Errorf("after the query: %v", err)
	}
	return q, nil
}

func (h *insertHost) got() (queries []*nativeproto.Query, packets [][]byte, blocks []*nativeproto.Block) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]*nativeproto.Query(nil), h.queries...), append([][]byte(nil), h.packets...), append([]*nativeproto.Block(nil), h.blocks...)
}

// cutFirst hangs up the first connection after n blocks.
func cutFirst(n int) func(int) int {
	return func(conn int) int {
		if conn == 0 {
			return n
		}
		return -1
	}
}

// insertMode runs one insert of rows (id i, s "row-i") through one of the native insert paths.
type insertMode struct {
	name string
	run  func(ctx context.Context, db *sql.DB, rows int) error
}

func rowText(i int) string { return fmt.Sprintf("row-%d", i) }

var insertModes = []insertMode{
	{"batch", func(ctx context.Context, db *sql.DB, rows int) error {
		c, err := db.Conn(ctx)
		if err != nil {
			return err
		}
		defer c.Close()
		return c.Raw(func(dc any) error {
			b, err := dc.(Conn).PrepareBatch(ctx, "INSERT INTO t (id, s)")
			if err != nil {
				return err
			}
			for i := range rows {
				if err := b.Append(uint64(i), rowText(i)); err != nil {
					return err
				}
			}
			return b.SendContext(ctx)
		})
	}},
	{"tx", func(ctx context.Context, db *sql.DB, rows int) error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		st, err := tx.PrepareContext(ctx, "INSERT INTO t (id, s)")
		if err != nil {
			return err
		}
		for i := range rows {
			if _, err := st.ExecContext(ctx, uint64(i), rowText(i)); err != nil {
				return err
			}
		}
		return tx.Commit()
	}},
	{"exec", func(ctx context.Context, db *sql.DB, rows int) error {
		args := make([]any, 0, 2*rows)
		for i := range rows {
			args = append(args, uint64(i), rowText(i))
		}
		_, err := db.ExecContext(ctx, "INSERT INTO t (id, s) VALUES "+strings.TrimSuffix(strings.Repeat("(?, ?), ", rows), ", "), args...)
		return err
	}},
}

// checkRows checks that blocks hold the rows 0..n-1 in order, per rows in each block.
func checkRows(t *testing.T, blocks []*nativeproto.Block, n, per int) {
	t.Helper()
	next := 0
	for bi, b := range blocks {
		if b.Rows() != min(per, n-next) {
			t.Fatalf("block %d has %d rows, want %d", bi, b.Rows(), min(per, n-next))
		}
		ids, ss := b.Column(0).(*columns.Fixed[uint64]), b.Column(1).(*columns.String)
		for r := range b.Rows() {
			if ids.Values()[r] != uint64(next) || ss.String(r) != rowText(next) {
				t.Fatalf("block %d row %d: %d %q, want row %d", bi, r, ids.Values()[r], ss.String(r), next)
			}
			next++
		}
	}
	if next != n {
		t.Fatalf("%d rows received, want %d", next, n)
	}
}

func TestInsertRetryResumesOnAnotherHost(t *testing.T) {
	const rows, per, cutAt = 60, 10, 2
	for _, mode := range insertModes {
		for _, comp := range []string{"none", "lz4"} {
			t.Run(mode.name+"/"+comp, func(t *testing.T) {
				a := newInsertHost(t, &insertHost{cut: cutFirst(cutAt)})
				b := newInsertHost(t, &insertHost{})
				db := openAt(t, []string{a.addr(), b.addr()}, "read_timeout=5s", "insert_retries=2", "compress="+comp, fmt.Sprint("insert_block_rows=", per))
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				if err := mode.run(ctx, db, rows); err != nil {
					t.Fatalf("the insert failed instead of being resumed on the second host: %v", err)
				}
				_, aPackets, _ := a.got()
				bQueries, bPackets, bBlocks := b.got()
				if len(aPackets) != cutAt {
					t.Fatalf("the first host got %d blocks, want %d", len(aPackets), cutAt)
				}
				if len(bQueries) != 1 || !strings.HasPrefix(bQueries[0].Body, "INSERT INTO t (id, s)") {
					t.Fatalf("the second host's queries: %v", bQueries)
				}
				// The second host got every block once, in order: first the blocks the first
				// host had, byte for byte (so a Replicated table deduplicates them), then the rest.
				if len(bPackets) != rows/per {
					t.Fatalf("the second host got %d blocks, want %d", len(bPackets), rows/per)
				}
				for i := range aPackets {
					if !bytes.Equal(aPackets[i], bPackets[i]) {
						t.Fatalf("block %d sent again differs from the first host's:\n%x\n%x", i, aPackets[i], bPackets[i])
					}
				}
				checkRows(t, bBlocks, rows, per)
			})
		}
	}
}

func TestInsertRetryNotPossible(t *testing.T) {
	for _, tc := range []struct {
		name, param, reason string
	}{
		{"buffer passed", "insert_retry_buffer=100", "insert_retry_buffer"},
		{"no buffer", "insert_retry_buffer=0", "insert_retry_buffer"},
		{"retries off", "insert_retries=0", "insert_retries=0"},
	} {
		for _, mode := range insertModes {
			t.Run(tc.name+"/"+mode.name, func(t *testing.T) {
				a := newInsertHost(t, &insertHost{cut: cutFirst(2)})
				b := newInsertHost(t, &insertHost{})
				params := []string{"read_timeout=5s", "insert_block_rows=10", tc.param}
				if !strings.HasPrefix(tc.param, "insert_retries=") {
					params = append(params, "insert_retries=2")
				}
				db := openAt(t, []string{a.addr(), b.addr()}, params...)
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				err := mode.run(ctx, db, 60)
				var ue *InsertUnconfirmedError
				if !errors.As(err, &ue) {
					t.Fatalf("error %v, want an *InsertUnconfirmedError", err)
				}
				var pe *ProtocolError
				if !errors.As(err, &pe) {
					t.Errorf("the error does not wrap the broken connection's *ProtocolError: %v", err)
				}
				if ue.Sent < 20 || ue.Retries != 0 || !strings.Contains(ue.Reason, tc.reason) ||
					!strings.Contains(err.Error(), "may or may not have committed") {
					t.Errorf("error %+v: %v", *ue, err)
				}
				if n := b.srv.Accepts(); n != 0 {
					t.Errorf("retried on the second host (%d connections)", n)
				}
			})
		}
	}
}

func TestInsertRetryExceptionAtEnd(t *testing.T) {
	exception := func(code int32) func(int) []byte {
		return func(int) []byte { return faketest.Exception(nil, code, fmt.Sprintf("DB::Exception: code %d", code), 1) }
	}
	t.Run("data exception", func(t *testing.T) {
		a := newInsertHost(t, &insertHost{end: exception(53)})
		b := newInsertHost(t, &insertHost{})
		db := openAt(t, []string{a.addr(), b.addr()}, "read_timeout=5s", "insert_retries=2", "insert_block_rows=10")
		for _, mode := range insertModes {
			err := mode.run(context.Background(), db, 30)
			var ex *Exception
			var ue *InsertUnconfirmedError
			if !errors.As(err, &ex) || ex.Code != 53 || errors.As(err, &ue) {
				t.Fatalf("%s: error %v, want the server's exception 53 as it is", mode.name, err)
			}
		}
		if n := b.srv.Accepts(); n != 0 {
			t.Errorf("an insert the server refused for its data was retried (%d connections)", n)
		}
	})
	t.Run("319 retried", func(t *testing.T) {
		for _, mode := range insertModes {
			t.Run(mode.name, func(t *testing.T) {
				a := newInsertHost(t, &insertHost{end: exception(319)})
				b := newInsertHost(t, &insertHost{})
				db := openAt(t, []string{a.addr(), b.addr()}, "read_timeout=5s", "insert_retries=2", "insert_block_rows=10")
				if err := mode.run(context.Background(), db, 30); err != nil {
					t.Fatalf("an insert answered UNKNOWN_STATUS_OF_INSERT was not resumed: %v", err)
				}
				_, aPackets, _ := a.got()
				_, bPackets, bBlocks := b.got()
				if len(aPackets) != 3 || len(bPackets) != 3 {
					t.Fatalf("%d and %d blocks, want 3 on each host", len(aPackets), len(bPackets))
				}
				for i := range aPackets {
					if !bytes.Equal(aPackets[i], bPackets[i]) {
						t.Fatalf("block %d sent again differs", i)
					}
				}
				checkRows(t, bBlocks, 30, 10)
			})
		}
	})
	t.Run("319 everywhere", func(t *testing.T) {
		a := newInsertHost(t, &insertHost{end: exception(319)})
		b := newInsertHost(t, &insertHost{end: exception(319)})
		db := openAt(t, []string{a.addr(), b.addr()}, "read_timeout=5s", "insert_block_rows=10", "insert_retries=2")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // an unbounded retry fails, not hangs
		defer cancel()
		err := insertModes[0].run(ctx, db, 30)
		var ue *InsertUnconfirmedError
		var ex *Exception
		if !errors.As(err, &ue) || !errors.As(err, &ex) || ex.Code != 319 || ue.Retries != 2 || ue.Sent != 30 {
			t.Fatalf("error %v, want an *InsertUnconfirmedError after 2 retries wrapping the exception 319", err)
		}
		if got := a.srv.Accepts() + b.srv.Accepts(); got != 3 {
			t.Errorf("%d connections, want 3 (the insert and 2 retries)", got)
		}
	})
}

func TestInsertRetryOpen(t *testing.T) {
	// The first host fails the INSERT before its header: it hangs up, or its table is read-only
	// (242). No data was sent: the insert is opened on the second host. An exception about the
	// table itself (60) is returned as it is.
	for _, tc := range []struct {
		name   string
		answer []byte
		retry  bool
	}{
		{"hang up", []byte{}, true},
		{"242", faketest.Exception(nil, 242, "DB::Exception: Table is in readonly mode", 1), true},
		{"60", faketest.Exception(nil, 60, "DB::Exception: Table default.t doesn't exist", 1), false},
	} {
		for _, mode := range insertModes {
			t.Run(tc.name+"/"+mode.name, func(t *testing.T) {
				a := newInsertHost(t, &insertHost{open: func(int) []byte { return tc.answer }})
				b := newInsertHost(t, &insertHost{})
				db := openAt(t, []string{a.addr(), b.addr()}, "read_timeout=5s", "insert_retries=2", "insert_block_rows=10")
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				err := mode.run(ctx, db, 25)
				if !tc.retry {
					var ex *Exception
					if !errors.As(err, &ex) || ex.Code != 60 || b.srv.Accepts() != 0 {
						t.Fatalf("error %v, %d connections to the second host; want the exception 60 and none", err, b.srv.Accepts())
					}
					return
				}
				if err != nil {
					t.Fatalf("the insert was not opened again on the second host: %v", err)
				}
				_, bPackets, bBlocks := b.got()
				if len(bPackets) != 3 {
					t.Fatalf("the second host got %d blocks, want 3", len(bPackets))
				}
				checkRows(t, bBlocks, 25, 10)
			})
		}
	}
	t.Run("bounded", func(t *testing.T) {
		hangUp := func(int) []byte { return []byte{} }
		a := newInsertHost(t, &insertHost{open: hangUp})
		b := newInsertHost(t, &insertHost{open: hangUp})
		db := openAt(t, []string{a.addr(), b.addr()}, "read_timeout=5s", "insert_retries=1")
		err := insertModes[0].run(context.Background(), db, 5)
		var pe *ProtocolError
		if !errors.As(err, &pe) {
			t.Fatalf("error %v, want the broken connection's *ProtocolError", err)
		}
		if got := a.srv.Accepts() + b.srv.Accepts(); got != 2 {
			t.Fatalf("%d connections, want 2 (the insert and 1 retry)", got)
		}
	})
}

func TestInsertRetryHeaderMismatch(t *testing.T) {
	a := newInsertHost(t, &insertHost{cut: cutFirst(2)})
	b := newInsertHost(t, &insertHost{header: idsHeader(t, "LowCardinality(String)")})
	db := openAt(t, []string{a.addr(), b.addr()}, "read_timeout=5s", "insert_retries=2", "insert_block_rows=10")
	err := insertModes[0].run(context.Background(), db, 60)
	var ue *InsertUnconfirmedError
	if !errors.As(err, &ue) || !strings.Contains(ue.Reason, "s LowCardinality(String), was s String") {
		t.Fatalf("error %v, want an *InsertUnconfirmedError naming the column that differs", err)
	}
	if qs, packets, _ := b.got(); len(qs) != 1 || len(packets) != 0 {
		t.Fatalf("the second host got %d queries and %d blocks, want the INSERT and no block", len(qs), len(packets))
	}
}

// modernHello is a 26.7 server's Hello, for the deduplication token.
var modernHello = nativeproto.ServerHello{Name: "ClickHouse", Major: 26, Minor: 7, Patch: 1,
	Revision: nativeproto.LatestRevision, Timezone: "UTC", DisplayName: "fake",
	ChunkedSend: nativeproto.ChunkedOff, ChunkedRecv: nativeproto.ChunkedOff}

func TestInsertDeduplicationToken(t *testing.T) {
	ctx := WithDeduplicationToken(context.Background(), "batch-42")
	t.Run("sent", func(t *testing.T) {
		a := newInsertHost(t, &insertHost{hello: &modernHello, cut: cutFirst(1)})
		b := newInsertHost(t, &insertHost{hello: &modernHello})
		db := openAt(t, []string{a.addr(), b.addr()}, "read_timeout=5s", "insert_retries=2", "insert_block_rows=10")
		for _, mode := range insertModes {
			if err := mode.run(ctx, db, 20); err != nil {
				t.Fatalf("%s: %v", mode.name, err)
			}
		}
		aq, _, _ := a.got()
		bq, _, _ := b.got()
		queries := append(aq, bq...)
		if len(queries) < 4 {
			t.Fatalf("%d queries", len(queries))
		}
		for _, q := range queries {
			token := ""
			for _, s := range q.Settings {
				if s.Key == "insert_deduplication_token" {
					token = s.Value
				}
			}
			if token != "batch-42" {
				t.Fatalf("query %q: insert_deduplication_token %q, want batch-42 (settings %v)", q.Body, token, q.Settings)
			}
		}
		// The retried insert (the first one, cut on a) sent the token again on b.
		if len(aq) != 1 || len(bq) < 2 {
			t.Fatalf("queries: %d on the first host, %d on the second", len(aq), len(bq))
		}
	})
	t.Run("unconfirmed error names it", func(t *testing.T) {
		a := newInsertHost(t, &insertHost{hello: &modernHello, cut: cutFirst(1)})
		db := openAt(t, []string{a.addr()}, "read_timeout=5s", "insert_block_rows=10", "insert_retries=0")
		err := insertModes[0].run(ctx, db, 20)
		var ue *InsertUnconfirmedError
		if !errors.As(err, &ue) || ue.Token != "batch-42" || !strings.Contains(err.Error(), `"batch-42"`) {
			t.Fatalf("error %v, want an *InsertUnconfirmedError with the token", err)
		}
	})
	t.Run("refused by an old server", func(t *testing.T) {
		old := newInsertHost(t, &insertHost{}) // faketest's Hello: ClickHouse 18.16.1
		db := openAt(t, []string{old.addr()}, "read_timeout=5s")
		for _, mode := range insertModes {
			err := mode.run(ctx, db, 3)
			var ue *UnsupportedError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), "18.16.1") || !strings.Contains(err.Error(), "22.2") {
				t.Fatalf("%s: error %v, want an *UnsupportedError naming the server's version", mode.name, err)
			}
		}
		if qs, _, _ := old.got(); len(qs) != 0 {
			t.Fatalf("the old server got %d queries, want none", len(qs))
		}
		// Without the token the same inserts go through.
		for _, mode := range insertModes {
			if err := mode.run(context.Background(), db, 3); err != nil {
				t.Fatalf("%s without a token: %v", mode.name, err)
			}
		}
	})
}

// A block that an Append sends and that fails is resumed under the context PrepareBatch got (the
// caller's), not a background one: once that context has ended the Batch is not resumed, and
// the Append says why; while it lives, the Append goes on on the second host.
func TestBatchRetryUnderPrepareContext(t *testing.T) {
	const per, rows = 10, 100
	for _, ended := range []bool{false, true} {
		t.Run(fmt.Sprint("ended=", ended), func(t *testing.T) {
			a := newInsertHost(t, &insertHost{cut: cutFirst(1)})
			b := newInsertHost(t, &insertHost{})
			db := openAt(t, []string{a.addr(), b.addr()}, "read_timeout=5s", "insert_retries=2", fmt.Sprint("insert_block_rows=", per))
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			c, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			err = c.Raw(func(dc any) error {
				pctx, pcancel := context.WithCancel(ctx)
				defer pcancel()
				bt, err := dc.(Conn).PrepareBatch(pctx, "INSERT INTO t (id, s)")
				if err != nil {
					return err
				}
				if ended {
					pcancel()
				}
				// The first block reaches a, which hangs up; a later block's write fails (the
				// pauses let the hang-up arrive).
				for i := range rows {
					if i > 0 && i%per == 0 {
						time.Sleep(50 * time.Millisecond)
					}
					if err := bt.Append(uint64(i), rowText(i)); err != nil {
						bt.Abort()
						return err
					}
				}
				return bt.SendContext(ctx)
			})
			var ue *InsertUnconfirmedError
			switch {
			case !ended && err != nil:
				t.Fatalf("the Batch was not resumed under its live context: %v", err)
			case !ended:
				if _, _, blocks := b.got(); len(blocks) != rows/per {
					t.Fatalf("the second host got %d blocks, want %d", len(blocks), rows/per)
				}
			case !errors.As(err, &ue) || ue.Reason != "the context ended":
				t.Fatalf("the Batch's context had ended: got %v, want an *InsertUnconfirmedError for the context's end", err)
			}
		})
	}
}
