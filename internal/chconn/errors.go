package chconn

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/chnative/chnative/internal/structmap"
	"github.com/chnative/chnative/nativeproto"
)

// Exception is an error the server sent, with its nested causes (defined in nativeproto, which
// decodes it).
type Exception = nativeproto.Exception

// ErrConnBusy is returned when a connection is used while a result or an insert is still open on it.
var ErrConnBusy = errors.New("chnative: connection busy: a result set or an insert is still open")

// ErrClosed is returned by operations on a closed connection, batch or result.
var ErrClosed = errors.New("chnative: closed")

// ProtocolError reports a broken conversation with the server; the connection is closed
// (defined in nativeproto, whose decoders return it too).
type ProtocolError = nativeproto.ProtocolError

// UnsupportedError reports a request the server or the driver cannot carry out as asked.
type UnsupportedError struct {
	Msg string
}

func (e *UnsupportedError) Error() string { return "chnative: " + e.Msg }

// InsertAbortedError reports an insert (a Batch, or a prepared insert in a transaction) that
// ended because a block could not be sent: Buffered rows were dropped, Sent rows had gone out
// in earlier blocks and stay inserted. The connection is ready for the next query.
type InsertAbortedError struct {
	Buffered int
	Sent     int
	Err      error
}

func (e *InsertAbortedError) Error() string {
	return fmt.Sprintf("chnative: insert aborted, %d buffered rows dropped (%d sent before stay): %v", e.Buffered, e.Sent, e.Err)
}

func (e *InsertAbortedError) Unwrap() error { return e.Err }

// InsertUnconfirmedError reports an insert whose end the server never confirmed: its connection
// broke, or the server answered an exception that blames the replica rather than the data, after
// Sent rows had gone out in blocks, and the driver did not resume it on another connection
// (Reason says why; Retries is how many resumes it tried). The server may or may not have
// committed the Sent rows, all of them or the first blocks: to stay exactly-once, insert the same
// rows again in the same blocks (the same order, the same insert_block_rows or WithBlockSize)
// with the same deduplication token (Token, "" when the insert had none): a Replicated table
// then drops the blocks it already has. Buffered rows were appended but never sent. The
// connection is closed.
type InsertUnconfirmedError struct {
	Sent     int
	Buffered int
	Token    string
	Retries  int
	Reason   string
	Err      error
}

func (e *InsertUnconfirmedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "chnative: insert unconfirmed: the server may or may not have committed the %d rows sent", e.Sent)
	if e.Buffered > 0 {
		fmt.Fprintf(&b, " (%d buffered rows were not sent)", e.Buffered)
	}
	b.WriteString("; to stay exactly-once, insert the same rows again in the same blocks (same insert_block_rows)")
	if e.Token != "" {
		fmt.Fprintf(&b, " with the same deduplication token %q", e.Token)
	} else {
		b.WriteString(", which a Replicated table deduplicates")
	}
	if e.Reason != "" {
		fmt.Fprintf(&b, " (not retried: %s", e.Reason)
		if e.Retries > 0 {
			fmt.Fprintf(&b, ", after %d retries", e.Retries)
		}
		b.WriteString(")")
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *InsertUnconfirmedError) Unwrap() error { return e.Err }

// ColumnError reports a value that one column of an insert could not take.
type ColumnError struct {
	Column string
	Type   string
	Row    int // the row's number in the insert (or the call), from 0
	Err    error
}

func (e *ColumnError) Error() string {
	return fmt.Sprintf("chnative: column %s (%s), row %d: %v", e.Column, e.Type, e.Row, e.Err)
}

func (e *ColumnError) Unwrap() error { return e.Err }

// FieldColumnError turns a struct append's *structmap.FieldError into the *ColumnError naming its
// column, field and row, first being the row number of the first row given to the append (the
// block's end for one row, an element's index for a slice); other errors are returned as they
// are.
func FieldColumnError(b *nativeproto.Block, first int, err error) error {
	var fe *structmap.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	return &ColumnError{Column: b.Name(fe.Col), Type: b.Type(fe.Col), Row: first + fe.Row,
		Err: fmt.Errorf("field %s: %w", fe.Field, fe.Err)}
}

// ErrBatchOpen is returned by a query (and by Ping, Begin, Prepare, PrepareBatch and Commit) on
// a connection where a Batch is still open: a Batch is inserted only by its Send, never by the
// next statement. Send or Abort it first.
var ErrBatchOpen = errors.New("chnative: a Batch is still open on this connection: Send or Abort it before the next query")

// DialError reports a failure to open a connection to one address: the TCP dial, TLS or the
// handshake. Hint, when set, names the likely mistake in the DSN (the HTTP port, a TLS port
// without secure=true, secure=true on a plain port).
type DialError struct {
	Addr string
	Err  error
	Hint string
}

func (e *DialError) Error() string {
	s := "chnative: connecting to " + e.Addr + ": " + e.Err.Error()
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

func (e *DialError) Unwrap() error { return e.Err }

// ErrBadConn is returned when the connection cannot be used and nothing was sent on it: it is
// closed or broken, or the query could not be written whole (so the server runs nothing). It is
// database/sql's driver.ErrBadConn, on which database/sql retries on another connection, and is
// returned as it is, never wrapped.
var ErrBadConn = driver.ErrBadConn

// TransportError marks a failure of the connection itself rather than of what the server said:
// the socket ended (EOF, also inside a packet), was reset or refused, a read or write timed out
// (not by the caller's context), or a compressed frame failed its checksum. It is the only
// failure after which a read (read_retries) or an insert (insert_retries) is run again on a new
// connection: there the same statement may well succeed. An answer that breaks the protocol (a
// *ProtocolError without a TransportError: an unknown packet, a count over a limit, a
// malformed block) would break the same way again; it is returned at once. It wraps the cause:
// errors.Is(err, io.ErrUnexpectedEOF) and errors.As(err, **net.OpError) see through it.
type TransportError struct {
	Err error
}

func (e *TransportError) Error() string { return e.Err.Error() }

func (e *TransportError) Unwrap() error { return e.Err }

// IsTransport reports whether err is a transport failure: a *TransportError in its chain (the
// connection's read path marks its own), a socket call's error (a net.Error: a write that
// failed, a timeout), a frame checksum mismatch, or ErrBadConn (the connection was found broken
// before anything was sent). It is the one test every retry makes: the root's read and insert
// retries, and Insert's unconfirmed state.
func IsTransport(err error) bool {
	if err == nil {
		return false
	}
	var te *TransportError
	var ne net.Error
	var ce *nativeproto.ChecksumError
	return errors.As(err, &te) || errors.Is(err, ErrBadConn) || errors.As(err, &ne) || errors.As(err, &ce)
}
