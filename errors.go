package chnative

import (
	"github.com/chnative/chnative/internal/chconn"
	"github.com/chnative/chnative/nativeproto"
)

// The driver's errors are defined with the native connection (internal/chconn), which produces
// them, and the two the protocol's decoders return too (Exception, ProtocolError) in
// nativeproto; these names are the same types and values, for errors.As and errors.Is.

// Exception is an error the server sent, with its nested causes (fields Code, Name, Message,
// StackTrace, Nested). Use errors.As to get it; errors.Is(err, &chnative.Exception{Code: 60})
// matches by code (and by message when the target has one).
type Exception = nativeproto.Exception

// ProtocolError reports a broken conversation with the server (fields Op, Err); the connection
// is closed.
type ProtocolError = nativeproto.ProtocolError

// UnsupportedError reports a request the server or the driver cannot carry out as asked (field
// Msg).
type UnsupportedError = chconn.UnsupportedError

// DialError reports a failure to open a connection to one address: the TCP dial, TLS or the
// handshake (fields Addr, Err, Hint). Hint, when set, names the likely mistake in the DSN (the
// HTTP port, a TLS port without secure=true, secure=true on a plain port).
type DialError = chconn.DialError

// InsertAbortedError reports an insert (a Batch, or a prepared insert in a transaction) that
// ended because a block could not be sent (fields Buffered, Sent, Err): Buffered rows were
// dropped, Sent rows had gone out in earlier blocks and stay inserted. The connection is ready
// for the next query.
type InsertAbortedError = chconn.InsertAbortedError

// ColumnError reports a value that one column of an insert could not take (fields Column, Type,
// Row: the row's number in the insert, from 0, and Err).
type ColumnError = chconn.ColumnError

// ErrConnBusy is returned when a connection is used while a result or an insert is still open on
// it.
var ErrConnBusy = chconn.ErrConnBusy

// ErrClosed is returned by operations on a closed connection, batch or result.
var ErrClosed = chconn.ErrClosed

// ErrBatchOpen is returned by a query (and by Ping, Begin, Prepare, PrepareBatch and Commit) on
// a connection where a Batch is still open: a Batch is inserted only by its Send, never by the
// next statement. Send or Abort it first.
var ErrBatchOpen = chconn.ErrBatchOpen

// TransportError marks a failure of the connection itself (field Err, the cause): the socket
// ended, was reset or refused, timed out (not by the caller's context), or a compressed frame
// failed its checksum. It is found with errors.As inside the *ProtocolError the call returns.
// Only such a failure is retried (read_retries, insert_retries); an answer that breaks the
// protocol (a *ProtocolError without it) is returned at once and its connection closed.
type TransportError = chconn.TransportError
