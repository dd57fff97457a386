package chconn

import (
	"context"
	"io"

	"fmt"
	"log/slog"
	"net"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/chnative/chnative/dsn"
	"github.com/chnative/chnative/internal/connprobe"
	"github.com/chnative/chnative/nativeproto"
)

// Version of the client reported to the server (in the Hello and the client info).
const (
	ClientMajor = 0
	ClientMinor = 1
	ClientPatch = 0
)

// DrainTimeout bounds how long a cancelled query may take to finish before the connection is
// closed instead of reused.
const DrainTimeout = 700 * time.Millisecond

// Conn is one native protocol connection. It is used by one goroutine at a time (database/sql
// guarantees that for the adapter), except for the helpers doc.go names.
type Conn struct {
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

	bad    bool       // the stream is out of sync or broken: never reuse
	busy   bool       // a result set or insert is open
	insert *Insert    // the open insert, if any
	blocks blockCache // the blocks kept for the next query (blocks.go)
	closed bool
	inTx   bool

	// sockErr: a read from the socket failed (not by a deadline); set by sockReader, read by
	// transport (cancel.go) to tell a transport failure from a lie.
	sockErr atomic.Bool
	// afterException: the last statement ended with the server's exception, which leaves the
	// connection in use only if nothing follows it: the next Begin proves that (inStep).
	afterException bool

	// keptSpare are copy buffers of the last insert (insert_retry.go), empty, for the next
	// one; at most keptRetain bytes.
	keptSpare [][]byte

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

	cur      *Options             // options of the running query (callbacks), nil if none
	progress nativeproto.Progress // the running query's Progress totals, for cur.OnProgress
	log      *slog.Logger         // the debug log (debuglog.go); nil logs nothing
	obs      Observer             // the observer (observe.go), the debug log's included; nil observes nothing
	id       uint64               // the connection's number for the observer (ConnEvent.ID)
	// qctx is the context of the statement being started, for the observer's QueryStart.
	qctx context.Context

	queryID   string      // id of the last query sent
	trace     queryTrace  // the running query, for the debug log
	bytesRead uint64      // bytes read from the socket, counted only when logging
	drain     *drainState // a cancelled query being drained off the caller's path (drain.go)
	created   time.Time   // for conn_max_lifetime
	// settingsChecked: a query with the DSN's settings has run (Ping checks them once).
	settingsChecked bool

	hostname, osUser string

	// hosts and dialer dialed the connection (hosts.go), nil when it was not dialed through a
	// host set: a read retry or an insert resume dials its replacement with them.
	hosts  *Hosts
	dialer Dialer
	// read is the statement Read runs, kept while its result is open for a retry on another
	// connection (read_retry.go), which takes it over.
	read readRetry
	// next is the connection that replaced this one after a retry (replaceBy): see Current.
	next *Conn
}

// Current returns the connection that carries on for c: c, or the one that replaced it after a
// read retry or an insert resume (c then being closed), for the adapter to follow.
func (c *Conn) Current() *Conn {
	for c.next != nil {
		c = c.next
	}
	return c
}

func newConn(cfg *dsn.Config, nc net.Conn, addr string, log *slog.Logger, obs Observer) *Conn {
	c := &Conn{cfg: cfg, nc: nc, addr: addr, loc: time.UTC, sessLoc: time.UTC, log: log, obs: obs, created: time.Now(),
		id: connSeq.Add(1)}
	var src io.Reader = sockReader{r: nc, failed: &c.sockErr}
	if obs != nil {
		src = countingReader{r: src, n: &c.bytesRead}
	}
	c.pr = nativeproto.NewPacketReader(withLowat(nc, src))
	c.pr.SetBlockMemoryLimit(cfg.BlockMemoryLimit) // 0 (a Config built by hand): the default
	c.pw = nativeproto.NewPacketWriter()
	c.hostname, _ = os.Hostname()
	if u := os.Getenv("USER"); u != "" {
		c.osUser = u
	}
	return c
}

// Format prints only the address, for every verb (see Connector.Format): the connection holds
// the configuration, password included.
func (c *Conn) Format(f fmt.State, verb rune) { _, _ = fmt.Fprintf(f, "chnative.conn(%s)", c.addr) }

// ClientName is the name the server records for the client (system.processes, query_log):
// the DSN's client_info_product entries, then client_name or, by default, the driver's own
// entry, in clickhouse-go's layout:
// "app/1.2 chnative/0.1.0 (database/sql; lv:go/1.26.0; os:linux)".
func (c *Conn) ClientName() string {
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
var defaultClientName = fmt.Sprintf("chnative/%d.%d.%d (database/sql; lv:go/%s; os:%s)", ClientMajor, ClientMinor, ClientPatch,
	strings.TrimPrefix(runtime.Version(), "go"), runtime.GOOS)

// ClientRevision is the revision the connection advertises: the DSN's protocol_revision, else
// nativeproto.ClientRevision.
func (c *Conn) ClientRevision() nativeproto.Revision {
	if c.cfg.ProtocolRevision != 0 {
		return nativeproto.Revision(c.cfg.ProtocolRevision)
	}
	return nativeproto.ClientRevision
}

// insertBlockSize is the number of rows per block of the insert being opened: WithBlockSize of
// its context, else the DSN's insert_block_rows.
func (c *Conn) insertBlockSize() int {
	if c.cur != nil && c.cur.BlockSize > 0 {
		return c.cur.BlockSize
	}
	return c.cfg.InsertBlockRows
}

func (c *Conn) markBad() {
	if c.log != nil && !c.bad {
		c.log.Debug("chnative: connection broken, closing it", slog.String("addr", c.addr))
	}
	c.bad = true
	_ = c.nc.Close()
}

// Begin checks that the connection can start a new statement, after waiting for the drain of a
// query cancelled before (drain.go), and returns the revision the statement is written for (the
// binder's CAST literals or server-side parameters depend on it). tx also starts a transaction
// (tx.go).
func (c *Conn) Begin(tx bool) (nativeproto.Revision, error) {
	if err := c.begin(); err != nil {
		return 0, err
	}
	c.inTx = c.inTx || tx
	return c.rev, nil
}

func (c *Conn) begin() error {
	c.awaitDrain()
	if c.closed {
		return ErrBadConn
	}
	if c.bad {
		c.logRetry("broken")
		return ErrBadConn
	}
	if c.insert != nil {
		if c.insert.batch {
			return c.insert.openError() // never sent but by its Send
		}
		ins := c.insert
		if err := ins.finish(context.Background()); err != nil {
			return ins.finishedByNext(err)
		}
	}
	if c.busy {
		return ErrConnBusy
	}
	if !c.inStep() {
		c.logRetry("data left unread after the last statement")
		c.markBad()
		return ErrBadConn // nothing was sent on it
	}
	return nil
}

// inStep reports whether the idle connection has nothing unread, as it must between
// statements; bytes there mean the server sent what no statement asked for, and the next
// statement's answer would be read from them. Bytes already read into the buffer are checked
// always (free); the socket is probed only after an exception ended the last statement (a
// system call, so not on every statement: a pooled connection's ResetSession probes it anyway).
func (c *Conn) inStep() bool {
	if c.pr.Buffered() > 0 {
		return false
	}
	if !c.afterException {
		return true
	}
	c.afterException = false
	return c.idleAndInSync()
}

// Close closes the connection. A background drain (drain.go) ends with it.
func (c *Conn) Close() error {
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
	if c.obs != nil {
		c.obs.ConnClose(&ConnEvent{ID: c.id, Addr: c.addr, Broken: c.bad})
	}
	return c.nc.Close()
}

// ResetSession keeps only connections that are idle and in sync, and younger than the DSN's
// conn_max_lifetime. It waits for the drain of a query cancelled before (drain.go), bounded by
// ctx and DrainTimeout.
func (c *Conn) ResetSession(ctx context.Context) error {
	c.awaitDrainCtx(ctx)
	if c.bad || c.closed {
		c.logRetry("broken")
		return ErrBadConn
	}
	if c.expired() {
		c.logRetry("older than conn_max_lifetime")
		c.markBad()
		return ErrBadConn
	}
	if c.insert != nil {
		c.insert.Abort()
	}
	if c.busy || c.bad {
		return ErrBadConn
	}
	if !c.idleAndInSync() {
		c.logRetry("closed by the server while idle, or data left unread")
		c.markBad()
		return ErrBadConn // nothing was sent on it: database/sql retries on another
	}
	return nil
}

// expired reports whether the connection is older than the DSN's conn_max_lifetime.
func (c *Conn) expired() bool {
	return c.cfg.ConnMaxLifetime > 0 && time.Since(c.created) > c.cfg.ConnMaxLifetime
}

// idleAndInSync reports whether a pooled connection is still open and has nothing unread: a
// server restart or idle timeout closes it while it sits in the pool, and the next query would
// otherwise be written into a dead socket and fail instead of being retried.
func (c *Conn) idleAndInSync() bool {
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
func (c *Conn) IsValid() bool {
	if c.draining() {
		return !c.closed
	}
	if c.expired() {
		c.logRetry("older than conn_max_lifetime")
		return false
	}
	if c.bad || c.closed || c.busy {
		return false
	}
	c.trimKept() // whatever path its last query ended by, an idle connection keeps little
	if c.obs != nil {
		c.obs.ConnIdle(&ConnEvent{ID: c.id, Addr: c.addr, KeptBytes: c.blocks.keptBytes()})
	}
	return true
}

// Hello returns what the server said about itself in its Hello. It is the connection's: the
// caller must not change it.
func (c *Conn) Hello() *nativeproto.ServerHello { return &c.hello }

// Revision returns the negotiated protocol revision.
func (c *Conn) Revision() nativeproto.Revision { return c.rev }

// Addr returns the address the connection was dialed to.
func (c *Conn) Addr() string { return c.addr }

// Config returns the connection's configuration (shared: the caller must not change it).
func (c *Conn) Config() *dsn.Config { return c.cfg }

// openInsertState returns the insert open on the connection, or nil.
func (c *Conn) openInsertState() *Insert { return c.insert }

// QueryID returns the id of the last query sent.
func (c *Conn) QueryID() string { return c.queryID }
