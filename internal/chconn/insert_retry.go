package chconn

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/chnative/chnative/internal/sqltext"
	"github.com/chnative/chnative/nativeproto"
)

// Resuming an insert on another connection.
//
// Design note: an insert's Data packets are kept, as the bytes the socket got (encoded and, with
// compression, compressed), from the moment each is written until the server confirms the insert
// (EndOfStream), within dsn.Config.InsertRetryBuffer bytes. When the connection fails under the
// insert (a transport failure: IsTransport; an answer that breaks the protocol is not one), or
// the server answers an exception that blames the replica rather than the data
// (RetryableInsertCode), the insert is unconfirmed: the server may have committed any prefix of
// its blocks. Resume opens the same INSERT on another connection, checks that its table header
// is the same, and writes the kept packets again, the same bytes in the same order: the server
// sees the same blocks with the same boundaries, so a Replicated*MergeTree table's block
// deduplication (insert_deduplicate, on by default; or the blocks' insert_deduplication_token
// suffixes _0, _1, ...) drops the blocks the failed attempt had committed, and inserts the rest.
// The rows appended and not yet sent stay in the insert's block, untouched. An insert whose
// packets passed the bound drops its copies at once and can no longer be resumed.
// insert_failover.go decides when to resume and what the caller is told.

// retryableInsertCodes are the server exceptions after which an insert is unconfirmed and may be
// resumed on another replica: each says "this replica or its connections failed", never "your
// data is wrong" (a type, a parse, too many parts, a constraint). The codes are ClickHouse's
// (src/Common/ErrorCodes.cpp), the same since 18.16.
var retryableInsertCodes = map[int32]string{
	// A Distributed insert whose connection to a shard's replica died mid-insert ("Attempt to
	// read after eof: while receiving packet from host:port", seen on 18.16 with a replica
	// SIGKILLed). A native insert's own blocks are well-formed; were they not, every retry would
	// fail the same way, bounded by insert_retries.
	32:  "ATTEMPT_TO_READ_AFTER_EOF",
	209: "SOCKET_TIMEOUT",              // a replica's socket (Distributed, interserver) timed out
	210: "NETWORK_ERROR",               // a connection between servers failed
	225: "NO_ZOOKEEPER",                // the replica has no ZooKeeper session: it cannot commit
	242: "TABLE_IS_READ_ONLY",          // a replicated table lost ZooKeeper: read-only on this replica
	279: "ALL_CONNECTION_TRIES_FAILED", // a Distributed insert could not reach a shard's replicas
	319: "UNKNOWN_STATUS_OF_INSERT",    // the replica lost ZooKeeper while committing: it does not know
	999: "KEEPER_EXCEPTION",            // a ZooKeeper/Keeper operation failed
}

// RetryableInsertCode reports whether an insert that failed with the server exception code may be
// resumed on another replica (see retryableInsertCodes).
func RetryableInsertCode(code int32) bool {
	_, ok := retryableInsertCodes[code]
	return ok
}

// retryableInsertCodeName returns the name of a code RetryableInsertCode accepts, "" for others.
func retryableInsertCodeName(code int32) string { return retryableInsertCodes[code] }

// keptRetain bounds the capacity of the copy buffers a connection keeps from one insert for the
// next: beyond it they are dropped when their insert ends, so an idle connection holds little.
const keptRetain = 4 << 20

// insertRetry is what an Insert keeps for a Resume: the copies of its sent packets and why it
// ended unconfirmed.
type insertRetry struct {
	pkts    [][]byte // the kept packets (or their pieces), in the order sent, each in its own buffer
	size    int      // their bytes
	spare   [][]byte // empty buffers for the next packets, from the connection's last insert
	limit   int      // the most bytes pkts may hold (dsn.Config.InsertRetryBuffer)
	dropped bool     // a packet did not fit within limit: nothing is kept any more
	rev     nativeproto.Revision
	method  nativeproto.Method // the compression of the kept packets; MethodNone for none
	token   string             // the insert_deduplication_token the insert carries, if any
	lost    error              // the failure that left the insert unconfirmed; nil when not
	tries   int                // Resume calls made
}

// start readies the retry state of an insert opened on c with opts, taking the copy buffers c
// kept from its last insert.
func (r *insertRetry) start(c *Conn, opts *Options) {
	r.limit = c.cfg.InsertRetryBuffer
	if c.cfg.InsertRetries == 0 {
		r.limit = 0 // no retry: nothing to keep, no copy
	}
	r.spare, c.keptSpare = c.keptSpare, nil
	r.rev = c.rev
	r.method = nativeproto.MethodNone
	if c.comp != nil {
		r.method = c.comp.Method()
	}
	r.token = insertToken(c, opts)
}

// insertToken returns the insert_deduplication_token an insert with opts sends on c: the
// WithDeduplicationToken option's, else a setting's.
func insertToken(c *Conn, opts *Options) string {
	if opts != nil {
		if opts.DedupToken != "" {
			return opts.DedupToken
		}
		if t, ok := opts.Settings[dedupTokenSetting]; ok {
			return t
		}
	}
	return c.cfg.Settings[dedupTokenSetting]
}

// keep copies the bytes pending in pw (a Data packet or, for a block sent in pieces, the next
// piece of one; the buffer holds nothing else) into a buffer of its own (a spare one when one is
// large enough), or drops every copy when they do not fit within the limit. Each piece is copied
// once and never again: no buffer grows.
func (r *insertRetry) keep(pw *nativeproto.PacketWriter) {
	n := pw.PendingLen()
	if r.dropped || n == 0 {
		return
	}
	if r.size+n > r.limit {
		r.pkts, r.spare, r.size, r.dropped = nil, nil, 0, true
		return
	}
	var buf []byte
	for i, b := range r.spare {
		if cap(b) >= n {
			buf = b[:0]
			last := len(r.spare) - 1
			r.spare[i], r.spare[last] = r.spare[last], nil
			r.spare = r.spare[:last]
			break
		}
	}
	if buf == nil {
		buf = make([]byte, 0, n)
	}
	r.pkts = append(r.pkts, pw.AppendPending(buf))
	r.size += n
}

// release drops the insert's copies (it has ended: confirmed, cancelled, refused or given up),
// offering up to keptRetain bytes of their buffers to c for its next insert.
func (r *insertRetry) release(c *Conn) {
	if c != nil {
		kept, total := c.keptSpare[:0], 0
		for _, list := range [2][][]byte{r.spare, r.pkts} {
			for _, b := range list {
				if total+cap(b) <= keptRetain {
					kept = append(kept, b[:0])
					total += cap(b)
				}
			}
		}
		c.keptSpare = kept
	}
	r.pkts, r.spare, r.size, r.lost = nil, nil, 0, nil
}

// lose records that the insert ended unconfirmed with err (its connection broke), and returns
// err.
func (ins *Insert) lose(err error) error {
	ins.retry.lost = err
	return err
}

// failed classifies err, the result of c.fail for a Finish: the insert is unconfirmed when the
// connection failed (a transport failure, IsTransport) or the server answered a
// RetryableInsertCode; after any other exception, an answer that broke the protocol (which a
// retry would only get again) or the context's end it is over and its copies are dropped. It
// returns err.
func (ins *Insert) failed(err error) error {
	var ex *Exception
	switch {
	case errors.As(err, &ex):
		if RetryableInsertCode(ex.Code) {
			return ins.lose(err)
		}
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		// Cancelled, and drained off the caller's path: c is not to be read here.
	case IsTransport(err):
		return ins.lose(err)
	}
	ins.retry.release(ins.c)
	return err
}

// Unconfirmed returns the failure that ended the insert with its outcome unknown, or nil: its
// connection broke after the insert was open (not by the context's end), or the server answered
// an exception RetryableInsertCode accepts. The server may have committed any of the Sent rows. It is
// nil again after a successful Resume, or after forget.
func (ins *Insert) Unconfirmed() error { return ins.retry.lost }

// Resumable reports whether the insert is unconfirmed and kept every packet it sent, so that
// Resume can send them again.
func (ins *Insert) Resumable() bool { return ins.retry.lost != nil && !ins.retry.dropped }

// Dropped reports whether the insert sent more than its retry buffer holds
// (dsn.Config.InsertRetryBuffer) and so dropped its copies.
func (ins *Insert) Dropped() bool { return ins.retry.dropped }

// KeptBytes returns the bytes of the packets kept for a Resume.
func (ins *Insert) KeptBytes() int { return ins.retry.size }

// Tries returns how many times Resume was called on the insert.
func (ins *Insert) Tries() int { return ins.retry.tries }

// Token returns the insert_deduplication_token the insert carries, "" for none.
func (ins *Insert) Token() string { return ins.retry.token }

// Options returns the options the insert was opened with (Resume sends them again).
func (ins *Insert) Options() *Options { return ins.opts }

// forget gives up on resuming an unconfirmed insert: its copies are dropped, Unconfirmed returns
// nil, and the insert stays ended.
func (ins *Insert) forget() {
	ins.retry.release(nil)
}

// unconfirmedError returns the error that tells the caller an insert ended unconfirmed with err
// and is not resumed: reason says why, retries how many Resumes were made.
func (ins *Insert) unconfirmedError(err error, reason string) *InsertUnconfirmedError {
	return &InsertUnconfirmedError{Sent: ins.sent, Buffered: ins.block.Rows(), Token: ins.retry.token,
		Retries: ins.retry.tries, Reason: reason, Err: err}
}

// finishedByNext returns the error of an insert that the connection's next statement finished
// (Begin) and that failed with err: it is not resumed there, so an unconfirmed one gives up at
// once.
func (ins *Insert) finishedByNext(err error) error {
	if ins.retry.lost == nil {
		return err
	}
	ins.forget()
	return ins.unconfirmedError(err, "the insert was finished by the next statement, which does not retry it")
}

// HeaderMismatchError reports that the table an insert is resumed into answered a different
// header on the new connection than on the first: nothing was sent.
type HeaderMismatchError struct {
	Addr string // the new connection's
	Diff string // the first difference, naming the column
}

func (e *HeaderMismatchError) Error() string {
	return "chnative: the insert was not resumed on " + e.Addr + ": the table's columns differ there: " + e.Diff
}

// Resume reopens an unconfirmed, resumable insert on c2 (a new connection to the same cluster):
// it sends the same INSERT with opts (nil: the insert's own options), checks that the table
// header has the same column names and types, and writes every kept packet again, in order. The
// insert then belongs to c2 (open, c2 busy) and goes on from its current block, whose rows were
// never sent. On an error the insert stays unconfirmed on its old connection (a later Resume may
// try another), and c2 is ready for another query unless it broke; a *HeaderMismatchError says
// the table differs and nothing was sent.
func (ins *Insert) Resume(ctx context.Context, c2 *Conn, opts *Options) error {
	r := &ins.retry
	if r.lost == nil || r.dropped {
		return errors.New("chnative: Resume of an insert that is not unconfirmed with its packets kept")
	}
	if opts == nil {
		opts = ins.opts
	}
	r.tries++
	method := nativeproto.MethodNone
	if c2.comp != nil {
		method = c2.comp.Method()
	}
	if c2.rev != r.rev || method != r.method {
		return &UnsupportedError{Msg: fmt.Sprintf("the insert was not resumed on %s: its blocks were encoded for protocol revision %d, compression %v; the new connection uses %d, %v",
			c2.addr, r.rev, r.method, c2.rev, method)}
	}
	if err := c2.begin(); err != nil {
		return err
	}
	stop, err := c2.start(ctx, sqltext.InsertBody(ins.query), opts)
	if err != nil {
		return err
	}
	header, err := c2.insertHeader(ctx, stop, nativeproto.NewBlock(), ins.query)
	if err != nil {
		return err
	}
	if diff := headerDiff(ins.block, header); diff != "" {
		c2.cancelAndDrain()
		c2.busy = false
		return &HeaderMismatchError{Addr: c2.addr, Diff: diff}
	}
	if err := c2.writeKept(r.pkts); err != nil {
		c2.busy = false
		c2.markBad()
		return &ProtocolError{Op: "insert", Err: &TransportError{Err: err}}
	}
	if c2.log != nil {
		c2.log.Debug("chnative: insert resumed", slog.String("addr", c2.addr), slog.Int("packets", len(r.pkts)),
			slog.Int("bytes", r.size), slog.Int("rows_sent", ins.sent), slog.Int("rows_buffered", ins.block.Rows()))
	}
	ins.c, ins.opts, ins.done, r.lost = c2, opts, false, nil
	c2.insert = ins
	c2.blocks.keep(roleInsert, ins.block)
	return nil
}

// headerDiff names the first difference between the header an insert was opened with and the one
// a new connection answered, or returns "".
func headerDiff(was, now *nativeproto.Block) string {
	for i := 0; i < max(was.NumColumns(), now.NumColumns()); i++ {
		switch {
		case i >= now.NumColumns():
			return fmt.Sprintf("column %d %s %s is missing (%d columns, were %d)", i, was.Name(i), was.Type(i), now.NumColumns(), was.NumColumns())
		case i >= was.NumColumns():
			return fmt.Sprintf("column %d %s %s is new (%d columns, were %d)", i, now.Name(i), now.Type(i), now.NumColumns(), was.NumColumns())
		case was.Name(i) != now.Name(i) || was.Type(i) != now.Type(i):
			return fmt.Sprintf("column %d is %s %s, was %s %s", i, now.Name(i), now.Type(i), was.Name(i), was.Type(i))
		}
	}
	return ""
}

// writeKept writes kept packets to the socket as they are (from their buffers, not copied, in
// one writev where the socket has it), bounded like every flush.
func (c *Conn) writeKept(pkts [][]byte) error {
	for _, p := range pkts {
		c.pw.WriteRawBorrowed(p)
	}
	return c.flush()
}

// dedupTokenSetting is the setting WithDeduplicationToken sends.
const dedupTokenSetting = "insert_deduplication_token"

// The first ClickHouse version with insert_deduplication_token: 22.2 (pull request 32304, in the
// v22.2.1.2139 changelog), which also suffixes it per block (_0, _1, ...).
const (
	dedupTokenMajor = 22
	dedupTokenMinor = 2
)

// checkDedupToken refuses, before anything is sent, a deduplication token for an INSERT on a
// server older than 22.2, which has no insert_deduplication_token.
func (c *Conn) checkDedupToken(body string, opts *Options) error {
	if opts == nil || opts.DedupToken == "" || !sqltext.IsInsert(body) {
		return nil
	}
	h := &c.hello
	if h.Major > dedupTokenMajor || h.Major == dedupTokenMajor && h.Minor >= dedupTokenMinor {
		return nil
	}
	name := strings.TrimSpace(h.Name)
	if name == "" {
		name = "ClickHouse"
	}
	return &UnsupportedError{Msg: fmt.Sprintf("WithDeduplicationToken: the setting %s needs ClickHouse %d.%d or newer, and the server at %s is %s %d.%d.%d; there, a Replicated table deduplicates an insert's blocks by their contents: insert the same rows in the same blocks again instead",
		dedupTokenSetting, dedupTokenMajor, dedupTokenMinor, c.addr, name, h.Major, h.Minor, h.Patch)}
}
