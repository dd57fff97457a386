package chconn

import (
	"context"
	"strings"
	"sync/atomic"
	"time"

	"github.com/chnative/chnative/nativeproto"
)

// Observation: the hook through which a program sees what the driver does (spans, metrics),
// and through which the debug log (debuglog.go) writes.
//
// Design note: a connection without an observer pays a nil check per query and per packet:
// no event is built, no byte counted, nothing allocated (TestObserverOffAllocs). With one,
// the connection fills one QueryEvent it owns per query and hands the observer a pointer to
// it: the event is valid during the call only (copy what outlives it). Callbacks run on the
// goroutine of the connection's owner, or of the drain of a cancelled query, one at a time
// per connection; different connections call concurrently.

// Observer receives the events of the connections of one Connector. Its methods must be safe
// for concurrent use, quick, and must not use the connection.
type Observer interface {
	// QueryStart is called when a query or an insert has been written to the server's
	// buffer; the context it returns (the caller's, or one with a span) goes to QueryEnd.
	QueryStart(ctx context.Context, q *QueryEvent) context.Context
	// QueryEnd is called once per QueryStart, when the statement ends: its last packet, an
	// exception, a cancel, a broken connection.
	QueryEnd(ctx context.Context, q *QueryEvent)
	// ConnOpen is called after each dial of a host, connected or not (Err).
	ConnOpen(ctx context.Context, c *ConnEvent)
	// ConnIdle is called when a connection goes back to the pool, with the memory it keeps.
	ConnIdle(c *ConnEvent)
	// ConnClose is called when a connection that ConnOpen reported connected is closed.
	ConnClose(c *ConnEvent)
	// Retry is called before a retry: a dial round within wake_up_timeout ("dial"), a read
	// ("read") or an insert ("insert") on a new connection.
	Retry(ctx context.Context, r *RetryEvent)
}

// Query outcomes (QueryEvent.Outcome).
const (
	OutcomeDone      = "done"      // the server's EndOfStream
	OutcomeFailed    = "failed"    // the server's exception (Err)
	OutcomeCancelled = "cancelled" // the caller's context ended (Err is its error), or a Cancel
	OutcomeBroken    = "broken"    // the connection failed under it (Err)
	OutcomeNotSent   = "not sent"  // it could not be written (Err)
)

// QueryEvent is one query or insert.
type QueryEvent struct {
	ConnID uint64 // the connection's number (ConnEvent.ID)
	Addr   string // the server's host:port
	ID     string // the query id
	Query  string // the statement's text as sent (for an insert, up to its VALUES/FORMAT)
	Kind   string // the statement's first keyword in upper case: SELECT, INSERT, CREATE, ...

	Start, End time.Time
	FirstBlock time.Duration // from the send to the first Data packet
	Blocks     int           // Data packets received (the header block included)
	Rows       int           // rows in them
	SentBlocks int           // insert blocks sent
	SentRows   int           // rows in them
	BytesRead  uint64        // bytes read from the socket for it (compressed, as received)
	// ServerElapsed, ServerReadRows and ServerReadBytes are the totals of the server's
	// Progress packets: its time running the query (revision 54460+, else 0) and what it read.
	ServerElapsed   time.Duration
	ServerReadRows  uint64
	ServerReadBytes uint64

	Outcome string // OutcomeDone, OutcomeFailed, ...
	Err     error
}

// ConnEvent is a connection opened, idle or closed.
type ConnEvent struct {
	ID       uint64 // a number unique in the process, 0 for a dial that failed
	Addr     string
	Elapsed  time.Duration        // ConnOpen: the dial and handshake
	Err      error                // ConnOpen: why it failed
	Server   string               // ConnOpen: the server's version, "26.7.1"
	Revision nativeproto.Revision // ConnOpen: the negotiated protocol revision
	Broken   bool                 // ConnClose: closed because it failed
	// KeptBytes (ConnIdle) is the memory the connection keeps for its next statements: its
	// blocks, after block_keep_bytes has trimmed them.
	KeptBytes int64
}

// RetryEvent is a statement or a dial tried again.
type RetryEvent struct {
	Op   string // "dial", "read" or "insert"
	Try  int    // 1 for the first retry
	Addr string // the host the failure happened on ("" for a dial round)
	Err  error  // what failed
}

var connSeq atomic.Uint64

// statementKind returns the first keyword of a statement in upper case ("" if none), past
// blanks, parentheses and comments.
func statementKind(body string) string {
	s := body
	for {
		s = strings.TrimLeft(s, " \t\r\n(")
		switch {
		case strings.HasPrefix(s, "--"):
			if i := strings.IndexByte(s, '\n'); i >= 0 {
				s = s[i+1:]
				continue
			}
			return ""
		case strings.HasPrefix(s, "/*"):
			if i := strings.Index(s, "*/"); i >= 0 {
				s = s[i+2:]
				continue
			}
			return ""
		}
		break
	}
	n := 0
	for n < len(s) && (s[n] >= 'a' && s[n] <= 'z' || s[n] >= 'A' && s[n] <= 'Z') {
		n++
	}
	return strings.ToUpper(s[:n])
}

// Tee returns an Observer that passes every event to each of obs in turn (nil ones left out);
// nil when none is left.
func Tee(obs ...Observer) Observer {
	var t tee
	for _, o := range obs {
		if o != nil {
			t = append(t, o)
		}
	}
	switch len(t) {
	case 0:
		return nil
	case 1:
		return t[0]
	}
	return t
}

type tee []Observer

func (t tee) QueryStart(ctx context.Context, q *QueryEvent) context.Context {
	for _, o := range t {
		ctx = o.QueryStart(ctx, q)
	}
	return ctx
}

func (t tee) QueryEnd(ctx context.Context, q *QueryEvent) {
	for _, o := range t {
		o.QueryEnd(ctx, q)
	}
}

func (t tee) ConnOpen(ctx context.Context, c *ConnEvent) {
	for _, o := range t {
		o.ConnOpen(ctx, c)
	}
}

func (t tee) ConnIdle(c *ConnEvent) {
	for _, o := range t {
		o.ConnIdle(c)
	}
}

func (t tee) ConnClose(c *ConnEvent) {
	for _, o := range t {
		o.ConnClose(c)
	}
}

func (t tee) Retry(ctx context.Context, r *RetryEvent) {
	for _, o := range t {
		o.Retry(ctx, r)
	}
}

// observer returns the dialer's observer: its Observer and its debug log together.
func (d *Dialer) observer() Observer {
	if d.Log == nil {
		return d.Observer
	}
	return Tee(logObserver{d.Log}, d.Observer)
}

// observeRetry reports a retry to the dialer's observer, if any.
func (d *Dialer) observeRetry(ctx context.Context, r RetryEvent) {
	if d.Observer != nil {
		d.Observer.Retry(ctx, &r)
	}
}
