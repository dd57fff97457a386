package chnative

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
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

// Scripted servers at revision 54488: the fields of the handshake and the query as the driver
// sends them, and every server packet of the revisions 54461-54488 in the places a query, an
// insert and a cancel can meet them.

// fakeHello is the Hello of the scripted 54488 server; tests change copies of it.
var fakeHello = nativeproto.ServerHello{Name: "ClickHouse", Major: 26, Minor: 7, Revision: nativeproto.LatestRevision,
	ParallelReplicasVersion: 8, Timezone: "Europe/Berlin", DisplayName: "fake", Patch: 2,
	ChunkedSend: nativeproto.ChunkedOff, ChunkedRecv: nativeproto.ChunkedOff,
	PasswordRules:    []nativeproto.PasswordRule{{Pattern: ".{12}", Message: "at least 12"}},
	Nonce:            42,
	Settings:         []nativeproto.Setting{{Key: "max_threads", Value: "3"}, {Key: "readonly", Value: "1", Important: true}},
	QueryPlanVersion: 3, ClusterFunctionVersion: nativeproto.ClusterFunctionProtocolVersion}

// fakeConn is one connection to a scripted modern server, after the handshake.
type fakeConn struct {
	*faketest.Session
	rev      nativeproto.Revision // negotiated
	addendum nativeproto.Addendum
	comp     bool // the current query's compression flag
}

// fakeModern starts a scripted server answering with hello; script runs per connection after
// the handshake and the addendum.
func fakeModern(t testing.TB, hello nativeproto.ServerHello, script func(c *fakeConn) error) *faketest.Server {
	t.Helper()
	srv, err := faketest.NewServer(func(s *faketest.Session) {
		code, err := s.R.UVarInt()
		if err != nil || nativeproto.ClientCode(code) != nativeproto.ClientCodeHello {
			return
		}
		if err := s.Hello.Decode(s.R); err != nil {
			return
		}
		var w columns.Writer
		if err := hello.Encode(&w, s.Hello.Revision); err != nil {
			return
		}
		if s.Write(w.Buf) != nil {
			return
		}
		c := &fakeConn{Session: s, rev: nativeproto.Negotiate(s.Hello.Revision, hello.Revision)}
		if err := c.addendum.Decode(s.R, c.rev); err != nil {
			return
		}
		if err := script(c); err != nil {
			t.Logf("fake server: %v", err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// readQuery reads a Query and the empty Data block after it.
func (c *fakeConn) readQuery() (*nativeproto.Query, error) {
	code, err := c.R.UVarInt()
	if err != nil {
		return nil, err
	}
	if nativeproto.ClientCode(code) != nativeproto.ClientCodeQuery {
		return nil, fmt.Errorf("client packet %d, want Query", code)
	}
	q := new(nativeproto.Query)
	if err := q.Decode(c.R, c.rev); err != nil {
		return nil, err
	}
	c.comp = q.Compression
	rows, err := c.readData()
	if err != nil {
		return nil, err
	}
	if rows != 0 {
		return nil, fmt.Errorf("a block of %d rows after the query", rows)
	}
	return q, nil
}

// readData reads a client Data packet (one compressed frame when the query is compressed: the
// driver's blocks here are small) and returns its rows; 0 is the empty block that ends the data.
func (c *fakeConn) readData() (int, error) {
	code, err := c.R.UVarInt()
	if err != nil {
		return 0, err
	}
	if nativeproto.ClientCode(code) != nativeproto.ClientCodeData {
		return 0, fmt.Errorf("client packet %d, want Data", code)
	}
	if _, err := c.R.String("table", 1<<10); err != nil {
		return 0, err
	}
	src := c.R
	if c.comp {
		var hdr [25]byte
		if err := c.R.ReadFull(hdr[:]); err != nil {
			return 0, err
		}
		frame := make([]byte, binary.LittleEndian.Uint32(hdr[17:21])-9)
		if err := c.R.ReadFull(frame); err != nil {
			return 0, err
		}
		src = columns.NewReader(nativeproto.NewFrameReader(bytes.NewReader(append(hdr[:], frame...))))
	}
	b, err := nativeproto.ReadBlock(src, c.rev, true, nil)
	if err != nil {
		return 0, err
	}
	return b.Rows(), nil
}

// block encodes a Data (or Totals, Log, ...) packet of b at the connection's revision,
// compressed when the query asked for it and compressed is true.
func (c *fakeConn) block(code nativeproto.ServerCode, b *nativeproto.Block, compressed bool) []byte {
	var w, body columns.Writer
	w.UVarInt(uint64(code))
	w.String("")
	if err := nativeproto.WriteBlock(&body, c.rev, true, b); err != nil {
		panic(err)
	}
	if !compressed || !c.comp {
		return append(w.Buf, body.Buf...)
	}
	out, err := nativeproto.AppendCompressed(w.Buf, body.Buf, nativeproto.MethodLZ4, 0)
	if err != nil {
		panic(err)
	}
	return out
}

func (c *fakeConn) data(b *nativeproto.Block) []byte {
	return c.block(nativeproto.ServerCodeData, b, true)
}

func timezoneUpdate(tz string) []byte {
	var w columns.Writer
	w.UVarInt(uint64(nativeproto.ServerCodeTimezoneUpdate))
	w.String(tz)
	return w.Buf
}

func (c *fakeConn) progress(p nativeproto.Progress) []byte {
	var w columns.Writer
	p.Encode(&w, c.rev)
	return w.Buf
}

// dtBlock is a block with a zone-less DateTime column t of the given unix times.
func dtBlock(t testing.TB, secs ...int64) *nativeproto.Block {
	b := nativeproto.NewBlock()
	col, err := columns.New("DateTime")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range secs {
		if err := col.AppendValue(time.Unix(s, 0)); err != nil {
			t.Fatal(err)
		}
	}
	b.Add("t", col)
	return b
}

// endOfData is the empty block that ends a result.
func (c *fakeConn) endOfData() []byte { return c.data(nativeproto.NewBlock()) }

func eos() []byte { return []byte{byte(nativeproto.ServerCodeEndOfStream)} }

func join(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// recorder keeps what the fake server saw.
type recorder[T any] struct {
	mu  sync.Mutex
	got []T
}

func (r *recorder[T]) add(v T) {
	r.mu.Lock()
	r.got = append(r.got, v)
	r.mu.Unlock()
}

func (r *recorder[T]) all() []T {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]T(nil), r.got...)
}

// serveQueries answers every query with answer(q), until the client hangs up.
func serveQueries(answer func(c *fakeConn, q *nativeproto.Query) []byte) func(c *fakeConn) error {
	return func(c *fakeConn) error {
		for {
			q, err := c.readQuery()
			if err != nil {
				return nil
			}
			if err := c.Write(answer(c, q)); err != nil {
				return err
			}
		}
	}
}

func TestFakeModernHandshakeAndQuery(t *testing.T) {
	var queries recorder[*nativeproto.Query]
	var addenda recorder[nativeproto.Addendum]
	srv := fakeModern(t, fakeHello, func(c *fakeConn) error {
		addenda.add(c.addendum)
		return serveQueries(func(c *fakeConn, q *nativeproto.Query) []byte {
			queries.add(q)
			return join(c.data(dtBlock(t)), c.data(dtBlock(t, 0)), c.endOfData(), eos())
		})(c)
	})
	for _, tt := range []struct {
		param    string
		adv, neg uint64
	}{
		{"protocol_revision=54488", 54488, 54488},
		{"protocol_revision=54475", 54475, 54475},
		{"", uint64(nativeproto.ClientRevision), uint64(nativeproto.ClientRevision)},
		{"protocol_revision=54412", 54412, 54412},
	} {
		t.Run(tt.param, func(t *testing.T) {
			db := openAt(t, []string{srv.Addr()}, tt.param)
			var tm time.Time
			if err := db.QueryRow("SELECT t").Scan(&tm); err != nil {
				t.Fatal(err)
			}
			if tm.Location().String() != "Europe/Berlin" {
				t.Fatalf("DateTime in %v, want the Hello's Europe/Berlin", tm.Location())
			}
			si := serverInfo(t, db)
			rev := nativeproto.Revision(tt.neg)
			if si.Advertised != tt.adv || si.Negotiated != tt.neg || si.Revision != 54488 {
				t.Fatalf("advertised %d negotiated %d revision %d", si.Advertised, si.Negotiated, si.Revision)
			}
			wantSettings := map[string]string(nil)
			if rev.Has(nativeproto.RevServerSettings) {
				wantSettings = map[string]string{"max_threads": "3", "readonly": "1"}
			}
			if fmt.Sprint(si.Settings) != fmt.Sprint(wantSettings) {
				t.Fatalf("settings %v, want %v", si.Settings, wantSettings)
			}
			if rev.Has(nativeproto.RevPasswordComplexityRules) != (len(si.PasswordRules) == 1) ||
				len(si.PasswordRules) == 1 && si.PasswordRules[0] != (PasswordRule{Pattern: ".{12}", Message: "at least 12"}) {
				t.Fatalf("password rules %v", si.PasswordRules)
			}
			if rev.Has(nativeproto.RevVersionedClusterFunction) != (si.ClusterFunctionVersion == 8) ||
				rev.Has(nativeproto.RevQueryPlanSerialization) != (si.QueryPlanVersion == 3) {
				t.Fatalf("versions %d %d", si.QueryPlanVersion, si.ClusterFunctionVersion)
			}
			// The map is the caller's.
			if si.Settings != nil {
				si.Settings["max_threads"] = "x"
				if serverInfo(t, db).Settings["max_threads"] != "3" {
					t.Fatal("ServerInfo.Settings aliases the connection's")
				}
			}
			qs := queries.all()
			q := qs[len(qs)-1]
			ci := q.ClientInfo
			if ci.ProtocolVersion != nativeproto.Revision(tt.adv) || ci.ClientAgent != "" || ci.IsInternal || ci.CurrentRoles != nil ||
				ci.JWT != "" || ci.ScriptQueryNumber != 0 || q.ExtraRoles != "" || q.Body != "SELECT t" {
				t.Fatalf("query %+v\nclient info %+v", q, ci)
			}
			as := addenda.all()
			a := as[len(as)-1]
			if rev.Has(nativeproto.RevChunkedPackets) && (a.ChunkedSend != "notchunked" || a.ChunkedRecv != "notchunked") ||
				rev.Has(nativeproto.RevVersionedParallelReplicas) && a.ParallelReplicasVersion != 8 {
				t.Fatalf("addendum %+v", a)
			}
		})
	}
}

func serverInfo(t testing.TB, db *sql.DB) ServerInfo {
	t.Helper()
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var si ServerInfo
	if err := c.Raw(func(dc any) error { si = dc.(Conn).ServerInfo(); return nil }); err != nil {
		t.Fatal(err)
	}
	return si
}

func TestFakeModernChunkedDeclined(t *testing.T) {
	for _, tt := range []struct {
		send, recv string
		errWith    string
	}{
		{"chunked", "notchunked", "proto_caps.send"},
		{"notchunked", "chunked", "proto_caps.recv"},
		{"chunked_optional", "chunked_optional", ""},
		{"notchunked_optional", "notchunked", ""},
	} {
		t.Run(tt.send+"_"+tt.recv, func(t *testing.T) {
			h := fakeHello
			h.ChunkedSend, h.ChunkedRecv = tt.send, tt.recv
			var addenda recorder[nativeproto.Addendum]
			srv := fakeModern(t, h, func(c *fakeConn) error {
				addenda.add(c.addendum)
				return serveQueries(func(c *fakeConn, q *nativeproto.Query) []byte { return eos() })(c)
			})
			db := openAt(t, []string{srv.Addr()}, "protocol_revision=54488")
			_, err := db.Exec("SELECT 1")
			if tt.errWith == "" {
				if err != nil {
					t.Fatal(err)
				}
				a := addenda.all()
				if len(a) == 0 || a[0].ChunkedSend != "notchunked" || a[0].ChunkedRecv != "notchunked" {
					t.Fatalf("addendum %+v", a)
				}
				return
			}
			var de *DialError
			var pe *nativeproto.ProtocolError
			if !errors.As(err, &de) || !errors.As(err, &pe) || !strings.Contains(err.Error(), tt.errWith) || !strings.Contains(err.Error(), "chunked") {
				t.Fatalf("want a DialError naming %s, got %v", tt.errWith, err)
			}
			if len(addenda.all()) != 0 {
				t.Fatal("the addendum was sent to a server that requires chunked packets")
			}
		})
	}
}

// connAt returns a *sql.Conn on a one-connection pool at addr.
func connAt(t testing.TB, addr string, params ...string) (*sql.DB, *sql.Conn) {
	t.Helper()
	db := openAt(t, []string{addr}, params...)
	db.SetMaxOpenConns(1)
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return db, c
}

func location(t testing.TB, c *sql.Conn) string {
	t.Helper()
	var loc string
	if err := c.Raw(func(dc any) error { loc = dc.(Conn).Location().String(); return nil }); err != nil {
		t.Fatal(err)
	}
	return loc
}

func scanTime(t testing.TB, ctx context.Context, c *sql.Conn, query string) time.Time {
	t.Helper()
	var tm time.Time
	if err := c.QueryRowContext(ctx, query).Scan(&tm); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return tm
}

func TestFakeModernTimezoneUpdate(t *testing.T) {
	// The server answers "tz:<zone> ..." with a TimezoneUpdate of that zone before the block
	// with rows (after the header), as 26.7 does for input(); other queries get none.
	srv := fakeModern(t, fakeHello, serveQueries(func(c *fakeConn, q *nativeproto.Query) []byte {
		var upd []byte
		if tz, ok := strings.CutPrefix(q.Body, "tz:"); ok {
			tz, _, _ = strings.Cut(tz, " ")
			upd = timezoneUpdate(tz)
		}
		return join(c.data(dtBlock(t)), upd, c.data(dtBlock(t, 0)), c.endOfData(), eos())
	}))
	ctx := context.Background()
	_, c := connAt(t, srv.Addr(), "protocol_revision=54488")
	if tm := scanTime(t, ctx, c, "plain"); tm.Location().String() != "Europe/Berlin" {
		t.Fatalf("before any update: %v", tm.Location())
	}
	// The update applies to the rows after it and to the session.
	if tm := scanTime(t, ctx, c, "tz:Asia/Tokyo"); tm.Location().String() != "Asia/Tokyo" || tm.Unix() != 0 {
		t.Fatalf("after TimezoneUpdate: %v", tm)
	}
	if loc := location(t, c); loc != "Asia/Tokyo" {
		t.Fatalf("session location %s", loc)
	}
	if tm := scanTime(t, ctx, c, "plain"); tm.Location().String() != "Asia/Tokyo" {
		t.Fatalf("next query: %v", tm.Location())
	}
	// A zone this machine does not know changes nothing; "" goes back to the server's.
	if tm := scanTime(t, ctx, c, "tz:No/Such_Zone"); tm.Location().String() != "Asia/Tokyo" {
		t.Fatalf("unknown zone: %v", tm.Location())
	}
	if tm := scanTime(t, ctx, c, "tz:"); tm.Location().String() != "Europe/Berlin" {
		t.Fatalf("empty zone: %v", tm.Location())
	}
	// A query that sets session_timezone itself: its rows are in that zone, an update during it
	// is the query's, and the session keeps its zone.
	qctx := WithSettings(ctx, Settings{"session_timezone": "America/New_York"})
	if tm := scanTime(t, qctx, c, "plain"); tm.Location().String() != "America/New_York" {
		t.Fatalf("per-query session_timezone: %v", tm.Location())
	}
	if tm := scanTime(t, qctx, c, "tz:Asia/Kolkata"); tm.Location().String() != "Asia/Kolkata" {
		t.Fatalf("update in a query with its own zone: %v", tm.Location())
	}
	if loc := location(t, c); loc != "Europe/Berlin" {
		t.Fatalf("session location %s after per-query zones", loc)
	}
}

func TestFakeModernTimezoneUpdateInsertAndCancel(t *testing.T) {
	rowsPerBlock := 100_000
	srv := fakeModern(t, fakeHello, func(c *fakeConn) error {
		for {
			q, err := c.readQuery()
			if err != nil {
				return nil
			}
			switch {
			case strings.HasPrefix(q.Body, "INSERT"):
				// The header, then a TimezoneUpdate (input() on 26.7 sends it there); the end of
				// the data brings another before EndOfStream.
				if err := c.Write(join(c.data(dtBlock(t)), timezoneUpdate("Asia/Tokyo"))); err != nil {
					return err
				}
				for {
					n, err := c.readData()
					if err != nil {
						return err
					}
					if n == 0 {
						break
					}
				}
				// Progress of the insert, as servers send while an insert runs (from 54484 also for
				// asynchronous inserts).
				if err := c.Write(join(c.progress(nativeproto.Progress{WrittenRows: 1, WrittenBytes: 4}),
					timezoneUpdate("Australia/Sydney"), eos())); err != nil {
					return err
				}
			case q.Body == "big":
				// Rows the client stops reading: it cancels, and the drain meets a TimezoneUpdate.
				big := make([]int64, rowsPerBlock)
				out := join(c.data(dtBlock(t)), c.data(dtBlock(t, big...)), c.data(dtBlock(t, big...)))
				if err := c.Write(out); err != nil {
					return err
				}
				code, err := c.R.UVarInt()
				if err != nil || nativeproto.ClientCode(code) != nativeproto.ClientCodeCancel {
					return fmt.Errorf("after the rows: client packet %d, %v; want Cancel", code, err)
				}
				if err := c.Write(join(timezoneUpdate("America/Chicago"), c.progress(nativeproto.Progress{ReadRows: 1}), eos())); err != nil {
					return err
				}
			default:
				if err := c.Write(join(c.data(dtBlock(t)), c.data(dtBlock(t, 0)), c.endOfData(), eos())); err != nil {
					return err
				}
			}
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, c := connAt(t, srv.Addr(), "protocol_revision=54488")
	var written Progress
	pctx := WithProgress(ctx, func(p Progress) { written = p })
	if _, err := c.ExecContext(pctx, "INSERT INTO t VALUES", time.Unix(5, 0)); err != nil {
		t.Fatal(err)
	}
	if written.WrittenRows != 1 || written.WrittenBytes != 4 {
		t.Fatalf("insert progress %+v", written)
	}
	if loc := location(t, c); loc != "Australia/Sydney" {
		t.Fatalf("after the insert: %s", loc)
	}
	rows, err := c.QueryContext(ctx, "big")
	if err != nil {
		t.Fatal(err)
	}
	if !rows.Next() {
		t.Fatal(rows.Err())
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	if loc := location(t, c); loc != "America/Chicago" {
		t.Fatalf("after the drained cancel: %s", loc)
	}
	if tm := scanTime(t, ctx, c, "plain"); tm.Location().String() != "America/Chicago" {
		t.Fatalf("the connection after the cancel: %v", tm.Location())
	}
}

func TestFakeModernSetSessionTimezone(t *testing.T) {
	srv := fakeModern(t, fakeHello, serveQueries(func(c *fakeConn, q *nativeproto.Query) []byte {
		if strings.HasPrefix(q.Body, "SET") || strings.HasPrefix(q.Body, "/*") {
			if strings.Contains(q.Body, "Bad/Zone") {
				var w columns.Writer
				(&nativeproto.Exception{Code: 36, Name: "DB::Exception", Message: "Invalid time zone"}).Encode(&w)
				return w.Buf
			}
			return eos()
		}
		return join(c.data(dtBlock(t)), c.data(dtBlock(t, 0)), c.endOfData(), eos())
	}))
	ctx := context.Background()
	_, c := connAt(t, srv.Addr(), "protocol_revision=54488")
	for _, tt := range []struct {
		stmt, want string
	}{
		{"SET session_timezone = 'Asia/Tokyo'", "Asia/Tokyo"},
		{"SET max_threads = 2", "Asia/Tokyo"},
		{"SET max_threads = 2, session_timezone='America/Denver', readonly = 0", "America/Denver"},
		{"/* c */ set session_timezone = 'Pacific/Auckland';", "Pacific/Auckland"},
		{"SET session_timezone = 'Bad/Zone'", "Pacific/Auckland"}, // the server refused it
		{"SET session_timezone = DEFAULT", "Europe/Berlin"},
		{"SET session_timezone = 'Asia/Tokyo'", "Asia/Tokyo"},
		{"SET session_timezone = ''", "Europe/Berlin"},
		{"query:SET session_timezone = 'Asia/Seoul'", "Asia/Seoul"}, // through QueryContext
	} {
		if stmt, ok := strings.CutPrefix(tt.stmt, "query:"); ok {
			rows, err := c.QueryContext(ctx, stmt)
			if err != nil {
				t.Fatal(err)
			}
			if rows.Next() {
				t.Fatal("a SET returned rows")
			}
			rows.Close()
		} else {
			_, _ = c.ExecContext(ctx, tt.stmt)
		}
		if loc := location(t, c); loc != tt.want {
			t.Fatalf("%s: session location %s, want %s", tt.stmt, loc, tt.want)
		}
		if tm := scanTime(t, ctx, c, "SELECT t"); tm.Location().String() != tt.want {
			t.Fatalf("%s: DateTime in %v", tt.stmt, tm.Location())
		}
	}
}

func TestFakeModernUnknownPackets(t *testing.T) {
	// Codes the driver cannot parse, or that a server never sends to a client, end the query
	// with a *ProtocolError and close the connection, in a query, an insert and a ping.
	for _, code := range []uint64{99, uint64(nativeproto.ServerCodeMergeTreeAllRangesAnnouncement),
		uint64(nativeproto.ServerCodeMergeTreeReadTaskRequest), uint64(nativeproto.ServerCodeReadTaskRequest),
		uint64(nativeproto.ServerCodeSSHChallenge), uint64(nativeproto.ServerCodeHello)} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			srv := fakeModern(t, fakeHello, func(c *fakeConn) error {
				q, err := c.readQuery()
				if err != nil {
					return nil
				}
				bad := faketest.UVarInt(nil, code)
				switch {
				case q.Body == "ok":
					_ = c.Write(join(c.data(dtBlock(t)), c.data(dtBlock(t, 0)), c.endOfData(), eos()))
				case strings.HasPrefix(q.Body, "INSERT"):
					_ = c.Write(join(c.data(dtBlock(t)), bad))
				default:
					_ = c.Write(join(c.data(dtBlock(t)), c.progress(nativeproto.Progress{ReadRows: 1}), bad))
				}
				c.Drain(5 * time.Second)
				return nil
			})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			db := openAt(t, []string{srv.Addr()}, "protocol_revision=54488")
			_, err := readAll(ctx, db, "SELECT t")
			var pe *ProtocolError
			if !errors.As(err, &pe) || ctx.Err() != nil {
				t.Fatalf("query: want a *ProtocolError before the deadline, got %v", err)
			}
			var npe *nativeproto.UnexpectedPacketError
			if !errors.As(err, &npe) || uint64(npe.Code) != code {
				t.Fatalf("query: the error should name packet %d: %v", code, err)
			}
			_, err = db.ExecContext(ctx, "INSERT INTO t VALUES", time.Unix(1, 0))
			if !errors.As(err, &pe) || ctx.Err() != nil {
				t.Fatalf("insert: want a *ProtocolError before the deadline, got %v", err)
			}
			// The broken connections were closed: the next query works on a new one.
			if n, err := readAll(ctx, db, "ok"); err != nil || n != 1 {
				t.Fatalf("after the error: %d rows, %v", n, err)
			}
		})
	}
}

func TestFakeModernProgressAndProfileInfo(t *testing.T) {
	srv := fakeModern(t, fakeHello, serveQueries(func(c *fakeConn, q *nativeproto.Query) []byte {
		b := dtBlock(t, 1, 2)
		b.Info.OutOfOrderBuckets = []int32{4, 7} // BlockInfo field 3, from 54480
		var w columns.Writer
		(&nativeproto.ProfileInfo{Rows: 2, Blocks: 1, Bytes: 8, CalculatedRowsBeforeLimit: true,
			AppliedAggregation: true, RowsBeforeAggregation: 1000}).Encode(&w, c.rev)
		return join(c.data(dtBlock(t)),
			c.progress(nativeproto.Progress{ReadRows: 1, ReadBytes: 10, TotalRows: 100, TotalBytes: 4000}),
			c.data(b),
			c.progress(nativeproto.Progress{ReadRows: 1, ReadBytes: 10, TotalBytes: 96, ElapsedNS: 5}),
			w.Buf, c.endOfData(), eos())
	}))
	for _, rev := range []nativeproto.Revision{54488, 54468, 54462} {
		t.Run(fmt.Sprint(rev), func(t *testing.T) {
			db := openAt(t, []string{srv.Addr()}, fmt.Sprint("protocol_revision=", rev))
			var last Progress
			var pi ProfileInfo
			ctx := WithProgress(context.Background(), func(p Progress) { last = p })
			ctx = WithProfileInfo(ctx, func(p ProfileInfo) { pi = p })
			if n, err := readAll(ctx, db, "SELECT t"); err != nil || n != 2 {
				t.Fatalf("%d rows, %v", n, err)
			}
			wantBytes := uint64(0)
			if rev.Has(nativeproto.RevTotalBytesInProgress) {
				wantBytes = 4096
			}
			if last.ReadRows != 2 || last.TotalRows != 100 || last.TotalBytes != wantBytes {
				t.Fatalf("progress %+v, want total bytes %d", last, wantBytes)
			}
			wantAgg := rev.Has(nativeproto.RevRowsBeforeAggregation)
			if pi.Rows != 2 || pi.AppliedAggregation != wantAgg || (pi.RowsBeforeAggregation == 1000) != wantAgg {
				t.Fatalf("profile info %+v", pi)
			}
		})
	}
}

func TestFakeModernCompressedServerPackets(t *testing.T) {
	// With compression on at 54481 and above, TableColumns (table name included) and the blocks of
	// ProfileEvents come compressed; below, raw.
	profileEvents := func(c *fakeConn) []byte {
		b := nativeproto.NewBlock()
		add := func(name, typ string, v any) {
			col, err := columns.New(typ)
			if err != nil {
				t.Fatal(err)
			}
			if err := col.AppendValue(v); err != nil {
				t.Fatal(err)
			}
			b.Add(name, col)
		}
		add("host_name", "String", "h")
		add("current_time", "DateTime", time.Unix(9, 0))
		add("thread_id", "UInt64", uint64(1))
		add("type", "Enum8('increment' = 1, 'gauge' = 2)", "increment")
		add("name", "String", "SelectedRows")
		add("value", "Int64", int64(7))
		return c.block(nativeproto.ServerCodeProfileEvents, b, c.rev.Has(nativeproto.RevCompressedLogsProfileEvents))
	}
	tableColumns := func(c *fakeConn) []byte {
		var body columns.Writer
		body.String("")
		body.String("columns format version: 1\n1 columns:\n`t` DateTime\n")
		var w columns.Writer
		w.UVarInt(uint64(nativeproto.ServerCodeTableColumns))
		if !c.comp || !c.rev.Has(nativeproto.RevCompressedLogsProfileEvents) {
			return append(w.Buf, body.Buf...)
		}
		out, err := nativeproto.AppendCompressed(w.Buf, body.Buf, nativeproto.MethodLZ4, 0)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	srv := fakeModern(t, fakeHello, func(c *fakeConn) error {
		for {
			q, err := c.readQuery()
			if err != nil {
				return nil
			}
			if strings.HasPrefix(q.Body, "INSERT") {
				if err := c.Write(join(tableColumns(c), c.data(dtBlock(t)))); err != nil {
					return err
				}
				for {
					n, err := c.readData()
					if err != nil {
						return err
					}
					if err := c.Write(profileEvents(c)); err != nil {
						return err
					}
					if n == 0 {
						break
					}
				}
				if err := c.Write(eos()); err != nil {
					return err
				}
				continue
			}
			if err := c.Write(join(c.data(dtBlock(t)), c.data(dtBlock(t, 3)), profileEvents(c), c.endOfData(), eos())); err != nil {
				return err
			}
		}
	})
	for _, rev := range []nativeproto.Revision{54488, 54481, 54480} {
		for _, comp := range []string{"lz4", "none"} {
			t.Run(fmt.Sprint(rev, comp), func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				db := openAt(t, []string{srv.Addr()}, fmt.Sprint("protocol_revision=", rev), "compress="+comp)
				var events []ProfileEvent
				ctx = WithProfileEvents(ctx, func(e []ProfileEvent) { events = append(events, e...) })
				if n, err := readAll(ctx, db, "SELECT t"); err != nil || n != 1 {
					t.Fatalf("select: %d rows, %v", n, err)
				}
				if len(events) != 1 || events[0].Name != "SelectedRows" || events[0].Value != 7 || events[0].Type != "increment" {
					t.Fatalf("profile events %+v", events)
				}
				if _, err := db.ExecContext(ctx, "INSERT INTO t VALUES", time.Unix(1, 0)); err != nil {
					t.Fatalf("insert: %v", err)
				}
			})
		}
	}
}
