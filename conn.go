package chnative

import (
	"context"
	"crypto/rand"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/dsn"
	"github.com/chnative/chnative/internal/connprobe"
	"github.com/chnative/chnative/nativeproto"
)

// Version of the client reported to the server.
const (
	clientMajor = 0
	clientMinor = 1
	clientPatch = 0
)

// drainTimeout bounds how long a cancelled query may take to finish before the connection is
// closed instead of reused.
const drainTimeout = 700 * time.Millisecond

// conn is one native protocol connection. It is used by one goroutine at a time (database/sql
// guarantees that), except for the context watcher, which only sets deadlines.
type conn struct {
	cfg   *dsn.Config
	nc    net.Conn
	addr  string
	pr    *nativeproto.PacketReader
	pw    *nativeproto.PacketWriter
	hello nativeproto.ServerHello
	rev   nativeproto.Revision
	comp  *nativeproto.Compressor

	// Time zones of DateTime values whose type names none (see timezoneUpdate): sessLoc is the
	// session's, from the Hello, SET session_timezone and TimezoneUpdate packets; loc is the
	// running query's, sessLoc unless the query sets session_timezone itself (queryTZ).
	sessLoc *time.Location
	loc     *time.Location
	queryTZ bool

	bad    bool         // the stream is out of sync or broken: never reuse
	busy   bool         // a result set or insert is open
	insert *insertState // the open insert, if any
	// insertReuse is the block of the last insert, whose columns the next insert reuses.
	insertReuse *nativeproto.Block
	// readReuse is the first Data block of the last result read on this connection: recv decodes
	// the next result's first block into it, so a query's columns start at the capacity the last
	// one reached instead of growing from nothing (a 1M-row block otherwise costs ~20 MB of
	// allocation, zeroing and copying per query). Its contents are invalid once the next query
	// starts, as QueryBlocks and Rows document.
	readReuse *nativeproto.Block
	// aheadReuse is the block the last result's read-ahead decoded into (rows_ahead.go), kept
	// for the next result's read-ahead for the same reason; never readReuse or insertReuse.
	aheadReuse *nativeproto.Block
	closed     bool
	inTx       bool

	// pingEndsTables: the server reads the external tables of a query lazily, after parsing it,
	// so a query that fails to parse leaves an empty Data block unread. Such servers get a Ping
	// instead, which ends the external tables just as well and is answered harmlessly when the
	// parse fails; pendingPong tracks its Pong.
	pingEndsTables bool
	pendingPong    bool

	// Context watching (see watch): fired is set by the watcher when the context ends;
	// ctxDeadline bounds socket deadlines while a context is watched.
	fired       atomic.Bool
	ctxDeadline time.Time

	cur *queryOptions // options of the running query (callbacks), nil if none
	log *slog.Logger  // the debug log (debuglog.go); nil logs nothing

	queryID   string      // id of the last query sent
	trace     queryTrace  // the running query, for the debug log
	bytesRead uint64      // bytes read from the socket, counted only when logging
	drain     *drainState // a cancelled query being drained off the caller's path (drain.go)
	created   time.Time   // for conn_max_lifetime
	// settingsChecked: a query with the DSN's settings has run (Ping checks them once).
	settingsChecked bool

	hostname, osUser string
}

func newConn(cfg *dsn.Config, nc net.Conn, addr string, log *slog.Logger) *conn {
	c := &conn{cfg: cfg, nc: nc, addr: addr, loc: time.UTC, sessLoc: time.UTC, log: log, created: time.Now()}
	if log != nil {
		c.pr = nativeproto.NewPacketReader(countingReader{r: nc, n: &c.bytesRead})
	} else {
		c.pr = nativeproto.NewPacketReader(nc)
	}
	c.pw = nativeproto.NewPacketWriter()
	c.hostname, _ = os.Hostname()
	if u := os.Getenv("USER"); u != "" {
		c.osUser = u
	}
	return c
}

// Format prints only the address, for every verb (see Connector.Format): the connection holds
// the configuration, password included.
func (c *conn) Format(f fmt.State, verb rune) { _, _ = fmt.Fprintf(f, "chnative.conn(%s)", c.addr) }

// clientName is the name the server records for the client (system.processes, query_log):
// the DSN's client_info_product entries, then client_name or, by default, the driver's own
// entry, in clickhouse-go's layout:
// "app/1.2 chnative/0.1.0 (database/sql; lv:go/1.26.0; os:linux)".
func (c *conn) clientName() string {
	base := c.cfg.ClientName
	if base == "" {
		base = defaultClientName
	}
	if len(c.cfg.ClientProducts) == 0 {
		return base
	}
	var b strings.Builder
	for _, p := range c.cfg.ClientProducts {
		b.WriteString(p.String())
		b.WriteByte(' ')
	}
	b.WriteString(base)
	return b.String()
}

// defaultClientName is the driver's entry in the client name.
// The comment starts with "database/sql" as clickhouse-go's does when it runs under
// database/sql, which chnative always does.
var defaultClientName = fmt.Sprintf("chnative/%d.%d.%d (database/sql; lv:go/%s; os:%s)", clientMajor, clientMinor, clientPatch,
	strings.TrimPrefix(runtime.Version(), "go"), runtime.GOOS)

// clientRevision is the revision the connection advertises: the DSN's protocol_revision, else
// nativeproto.ClientRevision.
func (c *conn) clientRevision() nativeproto.Revision {
	if c.cfg.ProtocolRevision != 0 {
		return nativeproto.Revision(c.cfg.ProtocolRevision)
	}
	return nativeproto.ClientRevision
}

// handshake exchanges Hello packets and sets the negotiated revision. Chunked packets are
// declined (see nativeproto.CheckNotChunked): a server that requires them is refused here,
// before the addendum.
func (c *conn) handshake() error {
	clientRev := c.clientRevision()
	c.pw.WriteHello(&nativeproto.ClientHello{
		ClientName: c.clientName(),
		Major:      clientMajor,
		Minor:      clientMinor,
		Revision:   clientRev,
		Database:   c.cfg.Database,
		User:       c.cfg.User,
		Password:   c.cfg.Password,
	})
	if err := c.pw.Flush(c.nc); err != nil {
		return err
	}
	code, err := c.pr.ReadCode()
	var unknown *nativeproto.UnexpectedPacketError
	if errors.As(err, &unknown) {
		return c.notNative(code) // a code beyond the protocol's: an HTTP response, a TLS alert?
	}
	if err != nil {
		return err
	}
	switch code {
	case nativeproto.ServerCodeHello:
		if err := c.pr.ReadHello(&c.hello, clientRev); err != nil {
			return err
		}
	case nativeproto.ServerCodeException:
		ex, err := c.pr.ReadException()
		if err != nil {
			return err
		}
		return fromWire(ex)
	default:
		return c.notNative(code)
	}
	c.rev = nativeproto.Negotiate(clientRev, c.hello.Revision)
	c.pingEndsTables = c.hello.Revision < revEagerExternalTables
	c.pr.SetRevision(c.rev)
	c.pw.SetRevision(c.rev)
	if err := nativeproto.CheckNotChunked(&c.hello, c.rev); err != nil {
		return err
	}
	c.sessLoc = c.helloLocation()
	c.loc = c.sessLoc
	if c.rev.Has(nativeproto.RevAddendum) {
		c.pw.WriteAddendum(c.cfg.QuotaKey)
		if err := c.pw.Flush(c.nc); err != nil {
			return err
		}
	}
	switch c.cfg.Compress {
	case dsn.CompressionLZ4:
		// Plain LZ4 has no levels (as in clickhouse-go, compress_level applies to lz4hc and zstd).
		c.comp, err = nativeproto.NewCompressor(nativeproto.MethodLZ4, 0)
	case dsn.CompressionLZ4HC:
		level := c.cfg.CompressLevel
		if level <= 0 {
			level = 3 // what clickhouse-go's DSN parser gives compress=lz4hc without a level
		}
		c.comp, err = nativeproto.NewCompressor(nativeproto.MethodLZ4, min(level, nativeproto.MaxLZ4Level))
	case dsn.CompressionZSTD:
		c.comp, err = nativeproto.NewCompressor(nativeproto.MethodZSTD, c.cfg.CompressLevel)
	}
	return err
}

// notNative is the error for a first server packet that is neither Hello nor Exception: when the
// bytes are an HTTP response or a TLS alert, the error says which service answered.
func (c *conn) notNative(code nativeproto.ServerCode) error {
	err := &nativeproto.UnexpectedPacketError{Code: code, Want: "Hello"}
	next, _ := c.pr.Reader().Peek(3)
	switch {
	case code == 'H' && string(next) == "TTP":
		return &notNativeError{err: err, hint: "this port speaks HTTP (ClickHouse's HTTP interface, 8123 by default): use the native port (9000, or 9440 with secure=true)"}
	case code == 0x15 && len(next) > 0 && next[0] == 0x03:
		return &notNativeError{err: err, hint: "this port speaks TLS: add secure=true"}
	}
	return err
}

// notNativeError is a handshake answered by something other than the native protocol.
type notNativeError struct {
	err  error
	hint string
}

func (e *notNativeError) Error() string { return e.err.Error() }
func (e *notNativeError) Unwrap() error { return e.err }

// ServerInfo describes the server a connection talks to: what its Hello said, for the revision
// the connection negotiated (fields of newer revisions are zero below them).
type ServerInfo struct {
	Name        string
	Major       uint64
	Minor       uint64
	Patch       uint64
	Revision    uint64 // the server's protocol revision
	Negotiated  uint64 // the revision both sides use: min(advertised, Revision)
	Advertised  uint64 // the revision the driver sent (protocol_revision, else its default)
	Timezone    string
	DisplayName string

	// Settings are the settings of the session that differ from their defaults, as the server
	// announced them (revision 54474 and newer, when the user's apply_settings_from_server is on;
	// nil otherwise). The map is the caller's.
	Settings map[string]string
	// PasswordRules are the server's password complexity rules (revision 54461 and newer).
	PasswordRules []PasswordRule
	// QueryPlanVersion and ClusterFunctionVersion are the server's query plan serialization
	// (54477) and cluster function (54479) protocol versions; 0 below those revisions.
	QueryPlanVersion       uint64
	ClusterFunctionVersion uint64
}

// PasswordRule is a password complexity rule: passwords must match Pattern, or the server
// answers Message.
type PasswordRule struct {
	Pattern string
	Message string
}

// Version returns "major.minor.patch".
func (s ServerInfo) Version() string { return fmt.Sprintf("%d.%d.%d", s.Major, s.Minor, s.Patch) }

// ServerInfo returns what the server said about itself in its Hello.
func (c *conn) ServerInfo() ServerInfo {
	h := &c.hello
	si := ServerInfo{Name: h.Name, Major: h.Major, Minor: h.Minor, Patch: h.Patch,
		Revision: uint64(h.Revision), Negotiated: uint64(c.rev), Advertised: uint64(c.clientRevision()),
		Timezone: h.Timezone, DisplayName: h.DisplayName,
		QueryPlanVersion: h.QueryPlanVersion, ClusterFunctionVersion: h.ClusterFunctionVersion}
	if len(h.Settings) > 0 {
		si.Settings = make(map[string]string, len(h.Settings))
		for _, s := range h.Settings {
			si.Settings[s.Key] = s.Value
		}
	}
	for _, r := range h.PasswordRules {
		si.PasswordRules = append(si.PasswordRules, PasswordRule{Pattern: r.Pattern, Message: r.Message})
	}
	return si
}

// Location returns the session's time zone: the one DateTime values without a time zone in
// their type are read in. It is the server's (from its Hello) until a SET session_timezone or a
// TimezoneUpdate from the server changes it (see timezoneUpdate).
func (c *conn) Location() *time.Location {
	c.awaitDrain() // a TimezoneUpdate read by the drain may change it
	return c.sessLoc
}

// insertBlockSize is the number of rows per block of the insert being opened: WithBlockSize of
// its context, else the DSN's insert_block_rows.
func (c *conn) insertBlockSize() int {
	if c.cur != nil && c.cur.blockSize > 0 {
		return c.cur.blockSize
	}
	return c.cfg.InsertBlockRows
}

// watch arranges for blocked socket calls to fail when ctx is done. The returned function stops
// watching and reports whether ctx fired.
func (c *conn) watch(ctx context.Context) func() bool {
	if ctx.Done() == nil {
		return func() bool { return false }
	}
	c.ctxDeadline, _ = ctx.Deadline()
	c.fired.Store(false)
	done := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		c.fired.Store(true)
		_ = c.nc.SetDeadline(aLongTimeAgo)
		close(done)
	})
	return func() bool {
		fired := !stop()
		if fired {
			<-done // the callback's SetDeadline must not land after the reset below
		}
		c.ctxDeadline = time.Time{}
		c.fired.Store(false)
		_ = c.nc.SetDeadline(time.Time{})
		return fired
	}
}

// aLongTimeAgo is a deadline in the past: it makes blocked socket calls return at once.
var aLongTimeAgo = time.Unix(1, 0)

// deadline returns the deadline for the next socket call: the configured read timeout, bounded
// by the deadline of the watched context.
func (c *conn) deadline() time.Time {
	var d time.Time
	if c.cfg.ReadTimeout > 0 {
		d = time.Now().Add(c.cfg.ReadTimeout)
	}
	if !c.ctxDeadline.IsZero() && (d.IsZero() || c.ctxDeadline.Before(d)) {
		d = c.ctxDeadline
	}
	return d
}

// readDeadline applies the read timeout (and the context's deadline) to the next read. When the
// watched context has already fired, the deadline stays in the past; the check after setting
// closes the race with the watcher's callback.
func (c *conn) readDeadline() {
	if c.fired.Load() {
		return
	}
	_ = c.nc.SetReadDeadline(c.deadline())
	if c.fired.Load() {
		_ = c.nc.SetReadDeadline(aLongTimeAgo)
	}
}

func newQueryID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return columns.FormatUUID(b)
}

// sendQuery writes a Query packet and the empty Data block that ends the external tables.
func (c *conn) sendQuery(body string, opts *queryOptions) (string, error) {
	id := ""
	if opts != nil {
		id = opts.id
	}
	if id == "" {
		id = newQueryID()
	}
	q := nativeproto.Query{
		ID: id,
		ClientInfo: nativeproto.ClientInfo{
			Kind:            nativeproto.QueryKindInitial,
			InitialQueryID:  id,
			InitialAddress:  "0.0.0.0:0",
			Interface:       nativeproto.InterfaceTCP,
			OSUser:          c.osUser,
			ClientHostname:  c.hostname,
			ClientName:      c.clientName(),
			Major:           clientMajor,
			Minor:           clientMinor,
			ProtocolVersion: c.clientRevision(),
			QuotaKey:        c.cfg.QuotaKey,
			Patch:           clientPatch,
		},
		Compression: c.comp != nil,
		Body:        body,
	}
	settings := map[string]string{}
	for k, v := range c.cfg.Settings {
		settings[k] = v
	}
	if opts != nil {
		for k, v := range opts.settings {
			settings[k] = v
		}
		if opts.hasQuotaKey {
			q.ClientInfo.QuotaKey = opts.quotaKey
		}
		q.ClientInfo.Trace = opts.trace // the caller's span (trace.go); sent from revision 54442
		opts.applyOptions(settings, body)
		if err := opts.renderParameters(body, c.rev); err != nil {
			return id, err
		}
	}
	c.cur = opts
	c.queryID = id
	c.startQueryLocation(settings)
	if c.comp != nil {
		if c.comp.Method() == nativeproto.MethodZSTD {
			settings["network_compression_method"] = "zstd"
		} else {
			settings["network_compression_method"] = "lz4"
		}
	}
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// Every setting is marked important, as clickhouse-go marks them: a server that does not
	// know one refuses the query (UNKNOWN_SETTING) instead of ignoring it with a warning, so a
	// misspelt setting in a DSN or WithSettings is an error, not a silent no-op.
	for _, k := range keys {
		q.Settings = append(q.Settings, nativeproto.Setting{Key: k, Value: settings[k], Important: true})
	}
	if opts != nil && len(opts.parameters) > 0 {
		keys = keys[:0]
		for k := range opts.parameters {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			q.Parameters = append(q.Parameters, nativeproto.Setting{Key: k, Value: opts.parameters[k], Custom: true})
		}
	}
	if err := c.pw.WriteQuery(&q); err != nil {
		c.pw.Reset()
		return id, err
	}
	c.traceStart(id, body, len(q.Settings))
	c.pr.SetCompression(c.comp != nil)
	if c.comp != nil {
		c.pw.SetCompressor(c.comp)
	} else {
		c.pw.SetCompressor(nil)
	}
	if opts != nil {
		for _, t := range opts.external {
			if err := c.pw.WriteData(t.name, t.block); err != nil {
				c.pw.Reset()
				return id, fmt.Errorf("chnative: external table %s: %w", t.name, err)
			}
		}
	}
	if c.pingEndsTables {
		c.pw.WritePing()
		c.pendingPong = true
		return id, nil
	}
	if err := c.pw.WriteEmptyData(); err != nil {
		c.pw.Reset()
		return id, err
	}
	return id, nil
}

// flush sends pending packets, bounded like reads.
func (c *conn) flush() error {
	if !c.fired.Load() {
		_ = c.nc.SetWriteDeadline(c.deadline())
		if c.fired.Load() {
			_ = c.nc.SetWriteDeadline(aLongTimeAgo)
		}
	}
	return c.pw.Flush(c.nc)
}

// event is what recv returns: a block, the end of the stream, or an error.
type event struct {
	code  nativeproto.ServerCode
	block *nativeproto.Block
}

// recv reads packets until one the caller must see: Data, Totals, Extremes (with their block),
// EndOfStream, or an Exception (returned as *Exception). Progress, logs, profile packets and
// table descriptions are consumed here.
func (c *conn) recv(reuse *nativeproto.Block) (event, error) {
	var scratch *nativeproto.Block
	for {
		c.readDeadline()
		code, err := c.pr.ReadCode()
		if err != nil {
			return event{}, err
		}
		switch code {
		case nativeproto.ServerCodeData:
			spare := reuse == nil
			if spare && c.readReuse != c.insertReuse {
				// Never the insert's block: the two caches must not alias.
				reuse = c.readReuse
			}
			_, b, err := c.pr.ReadBlock(reuse)
			if err != nil {
				if spare {
					c.readReuse = nil
				}
				return event{}, err
			}
			if spare && b != c.insertReuse {
				c.readReuse = b
			}
			c.traceBlock(b.Rows())
			return event{code: code, block: b}, nil
		case nativeproto.ServerCodeTotals, nativeproto.ServerCodeExtremes:
			_, b, err := c.pr.ReadBlock(scratch)
			if err != nil {
				return event{}, err
			}
			return event{code: code, block: b}, nil
		case nativeproto.ServerCodeEndOfStream:
			if err := c.awaitPong(); err != nil {
				return event{}, err
			}
			c.traceEnd("query done", nil)
			return event{code: code}, nil
		case nativeproto.ServerCodeException:
			ex, err := c.pr.ReadException()
			if err != nil {
				return event{}, err
			}
			c.traceEnd("query failed", fromWire(ex))
			if c.pendingPong {
				// An old server that failed while reading the query may have lost the Ping with
				// the rest of the packet: give the Pong a bounded time, else drop the connection.
				_ = c.nc.SetReadDeadline(time.Now().Add(drainTimeout))
				if err := c.awaitPong(); err != nil {
					c.markBad()
				}
				c.readDeadline()
			}
			return event{code: code}, fromWire(ex)
		case nativeproto.ServerCodePong:
			if !c.pendingPong {
				return event{}, &nativeproto.UnexpectedPacketError{Code: code, Want: "a query result"}
			}
			c.pendingPong = false
		case nativeproto.ServerCodeHello, nativeproto.ServerCodeSSHChallenge,
			nativeproto.ServerCodeReadTaskRequest:
			return event{}, &nativeproto.UnexpectedPacketError{Code: code, Want: "a query result"}
		default:
			if err := c.info(code); err != nil {
				return event{}, err
			}
		}
	}
}

// info reads a packet that is not part of the result: Progress, ProfileInfo, Log and
// ProfileEvents go to the query's callbacks, when it has them; a TimezoneUpdate changes the
// time zone of zone-less DateTime values; the rest is skipped. Every packet a query, an insert
// or a cancelled query may bring besides its blocks and its end comes here, whichever path
// reads it (recv, awaitPong, drainAfterCancel).
func (c *conn) info(code nativeproto.ServerCode) error {
	if code == nativeproto.ServerCodeTimezoneUpdate {
		tz, err := c.pr.ReadTimezoneUpdate()
		if err == nil {
			c.timezoneUpdate(tz)
		}
		return err
	}
	o := c.cur
	switch {
	case o == nil:
	case code == nativeproto.ServerCodeProgress && o.progress != nil:
		p, err := c.pr.ReadProgress()
		if err == nil {
			o.onProgress(p)
		}
		return err
	case code == nativeproto.ServerCodeProfileInfo && o.profileInfo != nil:
		p, err := c.pr.ReadProfileInfo()
		if err == nil {
			o.profileInfo(ProfileInfo{Rows: p.Rows, Blocks: p.Blocks, Bytes: p.Bytes, AppliedLimit: p.AppliedLimit,
				RowsBeforeLimit: p.RowsBeforeLimit, CalculatedRowsBeforeLimit: p.CalculatedRowsBeforeLimit,
				AppliedAggregation: p.AppliedAggregation, RowsBeforeAggregation: p.RowsBeforeAggregation})
		}
		return err
	case code == nativeproto.ServerCodeLog && o.logs != nil:
		_, b, err := c.pr.ReadLogBlock(nil)
		if err == nil {
			decodeLogs(b, o.logs)
		}
		return err
	case code == nativeproto.ServerCodeProfileEvents && o.profileEvents != nil:
		_, b, err := c.pr.ReadLogBlock(nil)
		if err == nil && b.Rows() > 0 {
			o.profileEvents(decodeProfileEvents(b))
		}
		return err
	}
	return c.pr.SkipPacket(code)
}

// revEagerExternalTables is the server revision from which chnative ends a query's external
// tables with an empty Data block; older servers (such as 18.16, revision 54412) read them
// only after parsing the query, and get a Ping instead.
const revEagerExternalTables = nativeproto.RevSettingsAsStrings

// awaitPong reads the Pong that answers the Ping sent after a query to an old server, when the
// query ended before the server read it. Anything but Progress or profile packets before it means
// the stream is out of sync.
func (c *conn) awaitPong() error {
	for c.pendingPong {
		code, err := c.pr.ReadCode()
		if err != nil {
			return err
		}
		switch code {
		case nativeproto.ServerCodePong:
			c.pendingPong = false
			return nil
		case nativeproto.ServerCodeProgress, nativeproto.ServerCodeProfileInfo, nativeproto.ServerCodeLog,
			nativeproto.ServerCodeProfileEvents, nativeproto.ServerCodeTimezoneUpdate:
			if err := c.info(code); err != nil {
				return err
			}
		default:
			return &nativeproto.UnexpectedPacketError{Code: code, Want: "Pong"}
		}
	}
	return nil
}

// fail classifies an error that happened while talking to the server: a server Exception leaves
// the connection usable; a context error triggers cancel-and-drain; anything else breaks it.
func (c *conn) fail(ctx context.Context, fired bool, err error) error {
	var ex *Exception
	if errors.As(err, &ex) {
		return err
	}
	// The socket deadline may expire a moment before the context's own timer: a timeout at or
	// after the context's deadline is the context's.
	dl, hasDL := ctx.Deadline()
	var ne net.Error
	pastDeadline := hasDL && !time.Now().Before(dl) && errors.As(err, &ne) && ne.Timeout()
	if fired || ctx.Err() != nil || pastDeadline {
		cause := ctx.Err()
		switch {
		case cause != nil:
		case pastDeadline:
			cause = context.DeadlineExceeded
		default:
			cause = context.Canceled
		}
		c.traceEnd("query cancelled (context ended); the Cancel and the drain run off the caller's path", nil,
			slog.String("cause", cause.Error()))
		c.cancelOffPath(cause, false) // drain.go: the caller returns now
		return c.contextError(cause)
	}
	c.traceEnd("query broken", err)
	c.markBad()
	if errors.As(err, &ne) && ne.Timeout() {
		return &ProtocolError{Op: "read", Err: err}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &ProtocolError{Op: "read", Err: fmt.Errorf("server closed the connection: %w", err)}
	}
	return &ProtocolError{Op: "conversation", Err: err}
}

// cancelAndDrain sends Cancel and reads until the query ends, within drainTimeout; otherwise the
// connection is marked bad.
func (c *conn) cancelAndDrain() {
	if c.bad {
		return
	}
	if !c.sendCancel() {
		return
	}
	c.drainAfterCancel()
}

// sendCancel writes a Cancel packet (bounded by drainTimeout); false, with the connection marked
// bad, when that fails. It only writes, so a read-ahead may be reading meanwhile.
func (c *conn) sendCancel() bool {
	c.traceEnd("query cancelled", nil)
	_ = c.nc.SetWriteDeadline(time.Now().Add(drainTimeout))
	defer func() { _ = c.nc.SetWriteDeadline(time.Time{}) }()
	c.pw.Reset()
	c.pw.WriteCancel()
	if err := c.pw.Flush(c.nc); err != nil {
		c.markBad()
		return false
	}
	return true
}

// drainAfterCancel reads the rest of a cancelled query, up to its EndOfStream or Exception,
// within drainTimeout; the connection is marked bad when that fails.
func (c *conn) drainAfterCancel() {
	_ = c.nc.SetReadDeadline(time.Now().Add(drainTimeout))
	defer func() { _ = c.nc.SetReadDeadline(time.Time{}) }()
	var scratch *nativeproto.Block
	for {
		code, err := c.pr.ReadCode()
		if err != nil {
			c.markBad()
			return
		}
		switch code {
		case nativeproto.ServerCodeEndOfStream:
			if c.awaitPong() != nil {
				c.markBad()
			}
			return
		case nativeproto.ServerCodeException:
			if _, err := c.pr.ReadException(); err != nil || c.awaitPong() != nil {
				c.markBad()
			}
			return
		case nativeproto.ServerCodePong:
			c.pendingPong = false
		case nativeproto.ServerCodeData, nativeproto.ServerCodeTotals, nativeproto.ServerCodeExtremes:
			if _, scratch, err = c.pr.ReadBlock(scratch); err != nil {
				c.markBad()
				return
			}
		default:
			if err := c.info(code); err != nil { // progress, logs: still to the callbacks
				c.markBad()
				return
			}
		}
	}
}

// packetWithin reports whether a packet starts arriving within d, consuming nothing: a timeout
// while waiting for the first byte leaves the stream in step.
func (c *conn) packetWithin(d time.Duration) bool {
	if c.bad {
		return false
	}
	if c.pr.Buffered() > 0 {
		return true
	}
	_ = c.nc.SetReadDeadline(time.Now().Add(d))
	_, err := c.pr.Reader().Peek(1)
	_ = c.nc.SetReadDeadline(time.Time{})
	return err == nil
}

func (c *conn) markBad() {
	if c.log != nil && !c.bad {
		c.log.Debug("chnative: connection broken, closing it", slog.String("addr", c.addr))
	}
	c.bad = true
	_ = c.nc.Close()
}

// begin checks that the connection can start a new query, after waiting for the drain of a
// query cancelled before (drain.go).
func (c *conn) begin() error {
	c.awaitDrain()
	if c.closed {
		return driver.ErrBadConn
	}
	if c.bad {
		c.logRetry("broken")
		return driver.ErrBadConn
	}
	if c.insert != nil {
		if c.insert.batch {
			return c.insert.openError() // never sent but by its Send
		}
		if err := c.insert.finish(context.Background()); err != nil {
			return err
		}
	}
	if c.busy {
		return ErrConnBusy
	}
	return nil
}

// Ping sends Ping and waits for Pong. The first Ping of a connection whose DSN has settings runs
// SELECT 1 with them instead: a setting the server refuses (unknown, out of range, not allowed
// for the user, or, on a server below revision 54429, one the driver cannot encode) fails every
// query, so it fails Ping too.
func (c *conn) Ping(ctx context.Context) error {
	if err := c.begin(); err != nil {
		return err
	}
	if !c.settingsChecked && len(c.cfg.Settings) > 0 {
		return c.checkSettings(ctx)
	}
	fired := c.watch(ctx)
	c.pw.WritePing()
	if err := c.flush(); err != nil {
		f := fired()
		c.markBad()
		if f {
			return ctx.Err()
		}
		return driver.ErrBadConn
	}
	for {
		c.readDeadline()
		code, err := c.pr.ReadCode()
		if err == nil && code == nativeproto.ServerCodePong {
			fired()
			return nil
		}
		if err == nil && code == nativeproto.ServerCodeProgress {
			if err = c.pr.SkipPacket(code); err == nil {
				continue
			}
		}
		f := fired()
		c.markBad()
		if f {
			return ctx.Err()
		}
		if err == nil {
			err = &nativeproto.UnexpectedPacketError{Code: code, Want: "Pong"}
		}
		return &ProtocolError{Op: "ping", Err: err}
	}
}

// checkSettings runs SELECT 1 with the DSN's settings (see Ping).
func (c *conn) checkSettings(ctx context.Context) error {
	const probe = "SELECT 1"
	if _, err := c.exec(ctx, probe, probe, nil, nil); err != nil {
		if errors.Is(err, driver.ErrBadConn) || ctx.Err() != nil {
			return err
		}
		keys := make([]string, 0, len(c.cfg.Settings))
		for k := range c.cfg.Settings {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return fmt.Errorf("chnative: ping: a query with the DSN's settings (%s) fails, so every query would: %w",
			strings.Join(keys, ", "), err)
	}
	c.settingsChecked = true
	return nil
}

// Close closes the connection. A background drain (drain.go) ends with it.
func (c *conn) Close() error {
	if c.closed {
		return nil
	}
	if c.drain != nil {
		_ = c.nc.Close() // ends the drain's reads at once
		c.awaitDrain()
		c.closed = true
		return nil
	}
	c.closed = true
	if c.log != nil {
		c.log.Debug("chnative: closing connection", slog.String("addr", c.addr), slog.Bool("broken", c.bad))
	}
	return c.nc.Close()
}

// ResetSession keeps only connections that are idle and in sync, and younger than the DSN's
// conn_max_lifetime. It waits for the drain of a query cancelled before (drain.go), bounded by
// ctx and drainTimeout.
func (c *conn) ResetSession(ctx context.Context) error {
	c.awaitDrainCtx(ctx)
	if c.bad || c.closed {
		c.logRetry("broken")
		return driver.ErrBadConn
	}
	if c.expired() {
		c.logRetry("older than conn_max_lifetime")
		c.markBad()
		return driver.ErrBadConn
	}
	if c.insert != nil {
		c.insert.abort()
	}
	if c.busy || c.bad {
		return driver.ErrBadConn
	}
	if !c.idleAndInSync() {
		c.logRetry("closed by the server while idle, or data left unread")
		c.markBad()
		return driver.ErrBadConn // nothing was sent on it: database/sql retries on another
	}
	return nil
}

// expired reports whether the connection is older than the DSN's conn_max_lifetime.
func (c *conn) expired() bool {
	return c.cfg.ConnMaxLifetime > 0 && time.Since(c.created) > c.cfg.ConnMaxLifetime
}

// idleAndInSync reports whether a pooled connection is still open and has nothing unread: a
// server restart or idle timeout closes it while it sits in the pool, and the next query would
// otherwise be written into a dead socket and fail instead of being retried.
func (c *conn) idleAndInSync() bool {
	if c.pr.Buffered() > 0 {
		return false
	}
	switch connprobe.Probe(c.nc) {
	case connprobe.Closed, connprobe.Unexpected:
		return false
	}
	return true
}

// IsValid reports whether the connection may go back to the pool. It does not wait for a
// background drain (database/sql calls it on the caller's path): a draining connection is
// valid, and ResetSession waits for the drain before the pool hands it out again.
func (c *conn) IsValid() bool {
	if c.draining() {
		return !c.closed
	}
	if c.expired() {
		c.logRetry("older than conn_max_lifetime")
		return false
	}
	return !c.bad && !c.closed && !c.busy
}

// CheckNamedValue accepts every argument as it is: the binder and the columns convert them.
func (c *conn) CheckNamedValue(nv *driver.NamedValue) error { return nil }

// Prepare prepares a statement.
func (c *conn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

// Begin starts a transaction (see BeginTx).
func (c *conn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

// BeginTx starts a "transaction": ClickHouse has none, so it only scopes batched prepared inserts,
// which Commit sends and Rollback cancels.
func (c *conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if err := c.begin(); err != nil {
		return nil, err
	}
	c.inTx = true
	return &tx{c: c}, nil
}

type tx struct {
	c    *conn
	done bool
}

// Commit sends the rows of the open insert and finishes it.
func (t *tx) Commit() error {
	t.c.awaitDrain()
	if t.done {
		return ErrClosed
	}
	t.done = true
	t.c.inTx = false
	if t.c.insert != nil {
		if t.c.insert.batch {
			return t.c.insert.openError() // a Batch is sent by its Send only
		}
		return t.c.insert.finish(context.Background())
	}
	return nil
}

// Rollback cancels the open insert: rows not yet sent are dropped.
func (t *tx) Rollback() error {
	t.c.awaitDrain()
	if t.done {
		return ErrClosed
	}
	t.done = true
	t.c.inTx = false
	if t.c.insert != nil && !t.c.insert.batch {
		t.c.insert.abort()
	}
	if t.c.bad {
		return driver.ErrBadConn
	}
	return nil
}

// isInsert reports whether query is an INSERT statement (after comments and white space).
func isInsert(query string) bool {
	q := skipSpaceAndComments(query)
	return len(q) >= 6 && strings.EqualFold(q[:6], "INSERT")
}

func skipSpaceAndComments(q string) string {
	for {
		q = strings.TrimLeft(q, " \t\r\n")
		switch {
		case strings.HasPrefix(q, "--"), strings.HasPrefix(q, "#"):
			i := strings.IndexByte(q, '\n')
			if i < 0 {
				return ""
			}
			q = q[i+1:]
		case strings.HasPrefix(q, "/*"):
			i := strings.Index(q, "*/")
			if i < 0 {
				return ""
			}
			q = q[i+2:]
		default:
			return q
		}
	}
}

// Time zones.
//
// A DateTime column whose type names no time zone holds times the server renders in its session
// time zone: the server's own (from the Hello) unless the setting session_timezone says
// otherwise, for the session (SET session_timezone = '...') or for one query (its settings).
// The server sends a TimezoneUpdate packet (revision 54464 and newer) only where it hands the
// client data to fill in that zone: ClickHouse 26.7 sends one after the header block of an INSERT
// ... SELECT ... FROM input(...), with the query's session_timezone ("" when unset), and none
// after SET session_timezone or for a SELECT. So the connection follows all three sources:
// the setting of the query it sends, a successful SET session_timezone statement, and
// TimezoneUpdate packets, which apply to the session unless the query set its own zone.

// helloLocation returns the server's time zone from its Hello; UTC when the Hello names none or
// one this machine's time zone database does not know.
func (c *conn) helloLocation() *time.Location {
	if c.hello.Timezone != "" {
		if loc, err := time.LoadLocation(c.hello.Timezone); err == nil {
			return loc
		}
	}
	return time.UTC
}

// zone returns the location of a session_timezone value: the server's for "" (the setting's
// default), and ok false for a name this machine's time zone database does not know.
func (c *conn) zone(tz string) (loc *time.Location, ok bool) {
	if tz == "" {
		return c.helloLocation(), true
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return nil, false
	}
	return loc, true
}

// startQueryLocation sets the time zone of the query about to be sent, whose settings are
// settings: its own session_timezone when it sets one, else the session's.
func (c *conn) startQueryLocation(settings map[string]string) {
	c.queryTZ = false
	c.loc = c.sessLoc
	if tz, ok := settings["session_timezone"]; ok {
		c.queryTZ = true
		if loc, ok := c.zone(tz); ok {
			c.loc = loc
		}
	}
}

// timezoneUpdate applies a TimezoneUpdate packet: the running query's zone, and the session's
// unless the query set session_timezone itself. A zone this machine does not know changes
// nothing.
func (c *conn) timezoneUpdate(tz string) {
	loc, ok := c.zone(tz)
	if !ok {
		if c.log != nil {
			c.log.Debug("chnative: unknown time zone in TimezoneUpdate, keeping the current one", slog.String("tz", tz))
		}
		return
	}
	c.loc = loc
	if !c.queryTZ {
		c.sessLoc = loc
	}
}

// setSessionTimezone applies a SET statement that the server executed: when it assigns
// session_timezone, the session's time zone becomes that zone.
func (c *conn) setSessionTimezone(stmt string) {
	tz, ok := sessionTimezoneOfSet(stmt)
	if !ok {
		return
	}
	if loc, ok := c.zone(tz); ok {
		c.sessLoc, c.loc = loc, loc
	}
}

// sessionTimezoneOfSet returns the value a "SET a = 1, session_timezone = 'Zone'" statement
// gives session_timezone: the string literal, or "" for DEFAULT. ok is false when the statement
// is not a SET or does not assign session_timezone a literal this parser reads.
func sessionTimezoneOfSet(stmt string) (tz string, ok bool) {
	q := skipSpaceAndComments(stmt)
	if len(q) < 4 || !strings.EqualFold(q[:3], "SET") || !isSpace(q[3]) {
		return "", false
	}
	q = q[4:]
	for {
		q = skipSpaceAndComments(q)
		name := q
		if i := strings.IndexFunc(q, func(r rune) bool { return r == '=' || r == ' ' || r == '\t' || r == '\r' || r == '\n' }); i >= 0 {
			name = q[:i]
		}
		q = skipSpaceAndComments(q[len(name):])
		if !strings.HasPrefix(q, "=") {
			return "", false
		}
		q = skipSpaceAndComments(q[1:])
		var val string
		isLiteral := false
		switch {
		case strings.HasPrefix(q, "'"):
			v, n, ok := unquoteSQLString(q)
			if !ok {
				return "", false
			}
			val, isLiteral, q = v, true, q[n:]
		default:
			end := strings.IndexAny(q, ", \t\r\n;")
			if end < 0 {
				end = len(q)
			}
			val, q = q[:end], q[end:]
			if strings.EqualFold(val, "DEFAULT") {
				val, isLiteral = "", true
			}
		}
		if name == "session_timezone" {
			if !isLiteral {
				return "", false
			}
			tz, ok = val, true
		}
		q = skipSpaceAndComments(q)
		if !strings.HasPrefix(q, ",") {
			return tz, ok
		}
		q = q[1:]
	}
}

// isSetSessionTimezone reports whether stmt is a SET statement that gives session_timezone a
// value the connection can follow.
func isSetSessionTimezone(stmt string) bool {
	_, ok := sessionTimezoneOfSet(stmt)
	return ok
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\r' || b == '\n' }

// unquoteSQLString reads the single-quoted literal at the start of s (doubled quotes and
// backslash escapes) and returns its value and its length in s.
func unquoteSQLString(s string) (string, int, bool) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch ch := s[i]; ch {
		case '\\':
			if i+1 >= len(s) {
				return "", 0, false
			}
			i++
			b.WriteByte(s[i])
		case '\'':
			if i+1 < len(s) && s[i+1] == '\'' {
				b.WriteByte('\'')
				i++
				continue
			}
			return b.String(), i + 1, true
		default:
			b.WriteByte(ch)
		}
	}
	return "", 0, false
}
