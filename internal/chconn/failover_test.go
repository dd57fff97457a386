package chconn

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chnative/chnative/dsn"
	"github.com/chnative/chnative/internal/faketest"
)

// Failover, the read retry and the insert reopen and resume, driven through chconn alone (the
// root's fault, retry and insert-retry tests drive them through database/sql).

// scriptHost is a fake server that answers the n-th query it gets (counted over its
// connections, from 0) with answer(n), then hangs up when cut; hangup makes it hang up right
// after the TCP accept instead, before any handshake.
func scriptHost(t *testing.T, hangup bool, answer func(n int) (b []byte, cut bool)) *faketest.Server {
	t.Helper()
	srv, err := faketest.NewServer(faketest.Numbered(hangup, answer))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// hostsFor returns a host set over addrs with the DSN options opts.
func hostsFor(t *testing.T, addrs []string, opts string) *Hosts {
	t.Helper()
	cfg, err := dsn.Parse("clickhouse://default@" + strings.Join(addrs, ",") + "/default?read_timeout=5s&" + opts)
	if err != nil {
		t.Fatal(err)
	}
	return &Hosts{Config: cfg}
}

// oneRow is a result of one UInt64 column n: its header, a block of rows 1, 2, 3, the end.
func oneRow(t *testing.T) (header, full []byte) {
	t.Helper()
	hdr, err := faketest.EncodeColumn("n", "UInt64")
	if err != nil {
		t.Fatal(err)
	}
	body, err := faketest.EncodeColumn("n", "UInt64", uint64(1), uint64(2), uint64(3))
	if err != nil {
		t.Fatal(err)
	}
	header = faketest.DataPacket(nil, 0, []faketest.Col{hdr}, false)
	full = faketest.DataPacket(append([]byte(nil), header...), 3, []faketest.Col{body}, false)
	return header, faketest.Pong(faketest.EndOfStream(full))
}

func TestHostsDialFailsOverAndBacksOff(t *testing.T) {
	_, full := oneRow(t)
	dead := scriptHost(t, true, nil)
	live := scriptHost(t, false, func(int) ([]byte, bool) { return full, false })
	h := hostsFor(t, []string{dead.Addr(), live.Addr()}, "host_backoff=30s")
	ctx := context.Background()
	for i := range 4 {
		c, err := h.Dial(ctx, Dialer{}, "")
		if err != nil {
			t.Fatalf("dial %d: %v", i, err)
		}
		if c.Addr() != live.Addr() || c.hosts != h {
			t.Fatalf("dial %d went to %s (host set %p), want %s (%p)", i, c.Addr(), c.hosts, live.Addr(), h)
		}
		_ = c.Close()
	}
	if got := dead.Accepts(); got != 1 {
		t.Errorf("the dead host was dialed %d times for 4 connections, want 1 (it backs off)", got)
	}
	// Every host backing off: they are all tried, soonest back first, not refused.
	h.failed(live.Addr())
	c, err := h.Dial(ctx, Dialer{}, "")
	if err != nil {
		t.Fatalf("every host backing off: %v", err)
	}
	_ = c.Close()
	// avoid goes last.
	h2 := hostsFor(t, []string{live.Addr(), dead.Addr()}, "host_backoff=0")
	before := dead.Accepts()
	if _, err := h2.Dial(ctx, Dialer{}, live.Addr()); err != nil {
		t.Fatal(err)
	}
	if dead.Accepts() != before+1 {
		t.Errorf("avoid: the other host was not tried first")
	}
}

func TestHostsDialStopsAtAnException(t *testing.T) {
	refuse := faketest.Exception(nil, 516, "DB::Exception: default: Authentication failed", 1)
	var mu sync.Mutex
	srv, err := faketest.NewServer(func(s *faketest.Session) {
		if _, err := s.R.UVarInt(); err != nil {
			return
		}
		if s.Hello.Decode(s.R) != nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		_ = s.Write(refuse)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	_, full := oneRow(t)
	other := scriptHost(t, false, func(int) ([]byte, bool) { return full, false })
	h := hostsFor(t, []string{srv.Addr(), other.Addr()}, "")
	_, err = h.Dial(context.Background(), Dialer{}, "")
	var ex *Exception
	if !errors.As(err, &ex) || ex.Code != 516 {
		t.Fatalf("a refused login: %v, want the server's *Exception", err)
	}
	if other.Accepts() != 0 {
		t.Errorf("after the server's exception another host was dialed: it would answer the same")
	}
}

// readRerun reads res to its end (Next runs it again while no row was read, as Read's retry
// allows); it returns the rows and the connection the result ended on (c.Current()).
func readRerun(t *testing.T, c *Conn, res *Result) (int, *Conn, error) {
	t.Helper()
	rows := 0
	for {
		b, _, err := res.Next()
		if err == io.EOF {
			return rows, c.Current(), nil
		}
		if err != nil {
			return rows, c.Current(), err
		}
		rows += b.Rows()
	}
}

func TestReadRerunsOnAnotherHost(t *testing.T) {
	hdr, full := oneRow(t)
	a := scriptHost(t, false, func(int) ([]byte, bool) { return hdr, true }) // dies after the header
	b := scriptHost(t, false, func(int) ([]byte, bool) { return full, false })
	h := hostsFor(t, []string{a.Addr(), b.Addr()}, "")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rec := &recorder{}
	c, err := h.Dial(ctx, Dialer{Observer: rec}, "")
	if err != nil || c.Addr() != a.Addr() {
		t.Fatalf("dial: %v, %v", c, err)
	}
	var res Result
	err = c.Read(context.WithValue(ctx, retryKey{}, "the read's"), "SELECT n FROM t", nil, &res)
	c = c.Current()
	if err != nil {
		t.Fatal(err)
	}
	n, c, err := readRerun(t, c, &res)
	if err != nil || n != 3 {
		t.Fatalf("read: %d rows, %v; want 3 after a rerun on the second host", n, err)
	}
	if c.Addr() != b.Addr() || res.c != c {
		t.Fatalf("the result ended on %s, want %s", c.Addr(), b.Addr())
	}
	rec.mu.Lock()
	if len(rec.retries) != 1 || rec.retries[0].Op != "read" || rec.retries[0].Addr != a.Addr() || rec.retryTo[0] != "the read's" {
		t.Errorf("observed retries %+v with contexts %v, want one read retry from %s in the read's context", rec.retries, rec.retryTo, a.Addr())
	}
	rec.mu.Unlock()
	// a backs off: the next connection goes to b without dialing a.
	c2, err := h.Dial(ctx, Dialer{}, "")
	if err != nil || c2.Addr() != b.Addr() || a.Accepts() != 1 {
		t.Fatalf("after the retry: %v to %s, a dialed %d times", err, c2.Addr(), a.Accepts())
	}
	_ = c2.Close()
	_ = c.Close()
}

func TestReadRerunRefusals(t *testing.T) {
	hdr, full := oneRow(t)
	for _, tc := range []struct {
		name, opts, query string
		dialed            bool // through the host set
	}{
		{"read_retries=0", "read_retries=0", "SELECT n FROM t", true},
		{"not a read", "", "OPTIMIZE TABLE t", true},
		{"no host set", "", "SELECT n FROM t", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := scriptHost(t, false, func(int) ([]byte, bool) { return hdr, true })
			b := scriptHost(t, false, func(int) ([]byte, bool) { return full, false })
			h := hostsFor(t, []string{a.Addr(), b.Addr()}, tc.opts)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			var c *Conn
			var err error
			if tc.dialed {
				c, err = h.Dial(ctx, Dialer{}, "")
			} else {
				c, err = Dial(ctx, h.Config, a.Addr(), Dialer{})
			}
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			var res Result
			if err = c.Read(ctx, tc.query, nil, &res); err != nil {
				t.Fatal(err)
			}
			_, c, err = readRerun(t, c, &res)
			if err == nil || !IsTransport(err) || c.Addr() != a.Addr() || b.Accepts() != 0 {
				t.Fatalf("got %v on %s (second host dialed %d times); want the transport failure, no retry", err, c.Addr(), b.Accepts())
			}
		})
	}
}

// TestReadRerunBound: a read whose every host breaks after the header is tried read_retries + 1
// times in all, then fails with the transport failure; and a server's exception is never rerun.
func TestReadRerunBound(t *testing.T) {
	hdr, full := oneRow(t)
	a := scriptHost(t, false, func(int) ([]byte, bool) { return hdr, true })
	b := scriptHost(t, false, func(int) ([]byte, bool) { return hdr, true })
	for _, tc := range []struct {
		retries string
		want    int64
	}{{"read_retries=0", 1}, {"read_retries=1", 2}, {"read_retries=5", 6}} {
		before := a.Accepts() + b.Accepts()
		// host_backoff=0: both hosts stay in the rotation, so every attempt dials.
		h := hostsFor(t, []string{a.Addr(), b.Addr()}, "host_backoff=0&"+tc.retries)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		c, err := h.Dial(ctx, Dialer{}, "")
		if err != nil {
			t.Fatal(err)
		}
		var res Result
		if err = c.Read(ctx, "SELECT n FROM t", nil, &res); err == nil {
			_, c, err = readRerun(t, c, &res)
		}
		cancel()
		if !IsTransport(err) {
			t.Errorf("%s: %v, want the transport failure", tc.retries, err)
		}
		if got := a.Accepts() + b.Accepts() - before; got != tc.want {
			t.Errorf("%s: %d connections, want %d", tc.retries, got, tc.want)
		}
		c.Current().Close()
	}

	ex := scriptHost(t, false, func(int) ([]byte, bool) {
		return faketest.Exception(nil, 60, "DB::Exception: Table t doesn't exist", 1), true
	})
	other := scriptHost(t, false, func(int) ([]byte, bool) { return full, false })
	h := hostsFor(t, []string{ex.Addr(), other.Addr()}, "")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := h.Dial(ctx, Dialer{}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var res Result
	var e *Exception
	if err := c.Read(ctx, "SELECT n FROM t", nil, &res); !errors.As(err, &e) || other.Accepts() != 0 {
		t.Fatalf("got %v (second host dialed %d times), want the exception, no retry", err, other.Accepts())
	}
}

// insertScript is a fake server taking one insert of a table (s String) per connection: open
// answers the INSERT (nil: the header), then cut hangs up after that many data blocks (< 0:
// never), else the end of the data is confirmed. blocks counts the data blocks it got.
type insertScript struct {
	srv    *faketest.Server
	open   []byte
	cut    int
	mu     sync.Mutex
	blocks int
}

func newInsertScript(t *testing.T, s *insertScript) *insertScript {
	t.Helper()
	hdr, err := faketest.EmptyBlock([2]string{"s", "String"})
	if err != nil {
		t.Fatal(err)
	}
	header, err := faketest.HeaderPacket(nil, faketest.Revision, false, hdr)
	if err != nil {
		t.Fatal(err)
	}
	s.srv, err = faketest.NewServer(func(ss *faketest.Session) {
		tap := faketest.NewTap(ss)
		if ss.Handshake() != nil {
			return
		}
		q, err := ss.ReadQuery()
		if err != nil {
			return
		}
		if s.open != nil {
			_ = ss.Write(faketest.Pong(append([]byte(nil), s.open...)))
			ss.Drain(time.Second)
			return
		}
		if ss.Write(faketest.Pong(append([]byte(nil), header...))) != nil {
			return
		}
		for got := 0; ; {
			_, b, err := faketest.ReadData(tap, ss.Revision(), q.Compression)
			if err != nil {
				return
			}
			if b.NumColumns() == 0 {
				break
			}
			s.mu.Lock()
			s.blocks++
			s.mu.Unlock()
			if got++; got == s.cut {
				return
			}
		}
		_ = ss.Write(faketest.EndOfStream(nil))
		ss.Drain(time.Second)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.srv.Close() })
	return s
}

func (s *insertScript) got() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.blocks
}

func TestStartInsertReopensOnAnotherHost(t *testing.T) {
	readOnly := faketest.Exception(nil, 242, "DB::Exception: Table is in readonly mode", 1)
	a := newInsertScript(t, &insertScript{open: readOnly, cut: -1})
	b := newInsertScript(t, &insertScript{cut: -1})
	for _, retries := range []int{0, 1} {
		h := hostsFor(t, []string{a.srv.Addr(), b.srv.Addr()}, "host_backoff=0&insert_retries="+string(rune('0'+retries)))
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		c, err := h.Dial(ctx, Dialer{}, "")
		if err != nil {
			t.Fatal(err)
		}
		ins, err := c.StartInsert(ctx, "INSERT INTO t (s)", nil, false)
		c = c.Current()
		var ex *Exception
		switch {
		case retries == 0 && (!errors.As(err, &ex) || ex.Code != 242 || c.Addr() != a.srv.Addr()):
			t.Fatalf("insert_retries=0: %v on %s, want the exception 242 on the first host", err, c.Addr())
		case retries == 1 && (err != nil || c.Addr() != b.srv.Addr() || ins.c != c):
			t.Fatalf("insert_retries=1: %v on %s, want the insert open on the second host", err, c.Addr())
		case retries == 1:
			if err := ins.Append(context.Background(), []any{"x"}); err != nil {
				t.Fatal(err)
			}
			if err := ins.Send(ctx); err != nil {
				t.Fatal(err)
			}
		}
		_ = c.Close()
		cancel()
	}
}

func TestInsertSendResumesOnAnotherHost(t *testing.T) {
	for _, retries := range []string{"0", "2"} {
		t.Run("insert_retries="+retries, func(t *testing.T) {
			a := newInsertScript(t, &insertScript{cut: 1})
			b := newInsertScript(t, &insertScript{cut: -1})
			h := hostsFor(t, []string{a.srv.Addr(), b.srv.Addr()}, "insert_block_rows=2&insert_retries="+retries)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			c, err := h.Dial(ctx, Dialer{}, "")
			if err != nil {
				t.Fatal(err)
			}
			ins, err := c.StartInsert(ctx, "INSERT INTO t (s)", nil, false)
			c = c.Current()
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range []string{"a", "b", "c"} { // a block of two goes out; "c" waits
				if err := ins.Append(ctx, []any{v}); err != nil {
					t.Fatal(err)
				}
			}
			err = ins.Send(ctx)
			var ue *InsertUnconfirmedError
			switch retries {
			case "0":
				if !errors.As(err, &ue) || ue.Reason != "insert_retries=0" || ins.c != c {
					t.Fatalf("insert_retries=0: %v, want an *InsertUnconfirmedError on the first connection", err)
				}
			default:
				if err != nil || ins.c.Addr() != b.srv.Addr() {
					t.Fatalf("%v; want the insert resumed and confirmed on the second host", err)
				}
				if a.got() != 1 || b.got() != 2 {
					t.Errorf("blocks: first host %d, second %d; want 1, then that one again and the last", a.got(), b.got())
				}
				if !c.closed {
					t.Error("the broken connection was not closed when the insert moved")
				}
			}
			_ = ins.c.Close()
		})
	}
}

// A read run again on another host: the new header's rows, if it came with any, are the result's
// first; a new header whose columns differ from the first run's fails the read (the caller reads
// by the first one's) and closes the connection.
func TestReadRerunNewHeader(t *testing.T) {
	hdr, _ := oneRow(t)
	body, err := faketest.EncodeColumn("n", "UInt64", uint64(1), uint64(2), uint64(3))
	if err != nil {
		t.Fatal(err)
	}
	withRows := faketest.Pong(faketest.EndOfStream(faketest.DataPacket(nil, 3, []faketest.Col{body}, false)))
	other, err := faketest.EncodeColumn("n", "String", "1")
	if err != nil {
		t.Fatal(err)
	}
	otherType := faketest.Pong(faketest.EndOfStream(faketest.DataPacket(nil, 1, []faketest.Col{other}, false)))
	for _, tc := range []struct {
		name   string
		answer []byte
		rows   int
		err    bool
	}{{"header with rows", withRows, 3, false}, {"another type", otherType, 0, true}} {
		t.Run(tc.name, func(t *testing.T) {
			a := scriptHost(t, false, func(int) ([]byte, bool) { return hdr, true }) // dies after the header
			b := scriptHost(t, false, func(int) ([]byte, bool) { return tc.answer, false })
			h := hostsFor(t, []string{a.Addr(), b.Addr()}, "")
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			c, err := h.Dial(ctx, Dialer{}, "")
			if err != nil {
				t.Fatal(err)
			}
			var res Result
			if err := c.Read(ctx, "SELECT n FROM t", nil, &res); err != nil {
				t.Fatal(err)
			}
			n, c, err := readRerun(t, c, &res)
			defer c.Close()
			if c.Addr() != b.Addr() {
				t.Fatalf("the result ended on %s, want the second host", c.Addr())
			}
			var pe *ProtocolError
			var me *BlockMismatchError
			if !tc.err {
				if err != nil || n != tc.rows {
					t.Fatalf("%d rows, %v; want %d", n, err, tc.rows)
				}
				return
			}
			if !errors.As(err, &pe) || !errors.As(err, &me) || me.Column != 0 || me.Type != "String" || me.WantType != "UInt64" || n != 0 {
				t.Fatalf("%d rows, %v; want the header's mismatch", n, err)
			}
			if c.IsValid() {
				t.Errorf("the connection that sent another header is not closed")
			}
		})
	}
}
