package chnative

import (
	"context"
	"database/sql"
	"log/slog"
	"time"

	"github.com/chnative/chnative/internal/chconn"
	"github.com/chnative/chnative/internal/ingest"
	"github.com/chnative/chnative/nativeproto"
)

// InserterConfig says when an Inserter sends a block and how. Zero fields take the defaults.
type InserterConfig struct {
	MaxRows  int           // a block is sent at this many rows (default 100,000),
	MaxBytes int64         // or at this many bytes of values (default 64 MiB),
	MaxDelay time.Duration // or this long after its first row (default 1s), whichever comes first
	Senders  int           // goroutines sending blocks, each on a connection from the pool (default 2)
	InFlight int           // blocks sent or waiting to be, besides those being filled (default Senders)
	Lanes    int           // blocks filled at once, each under its own lock (default GOMAXPROCS, at most 4)
	NoWait   bool          // Append fails with ErrInserterFull instead of waiting for room
	Retries  int           // resends of a block after a transport failure (default 5; -1: none)
	ID       string        // prefix of the blocks' tokens, unique per Inserter (default random)
	// Async sets async_insert=1 and wait_for_async_insert=1 (the server buffers, and confirms
	// once written); AsyncNoWait sets wait_for_async_insert=0: a block is confirmed on receipt,
	// so a failed write on the server goes unreported and exactly-once does not hold.
	Async, AsyncNoWait bool
	Settings           Settings // more settings for every insert
	// OnError gets each block not inserted (valid during the call only) and why.
	OnError func(rows *nativeproto.Block, err error)
	Logger  *slog.Logger // debug log of every block sent, resent and failed; nil: the DSN's debug log
}

// Inserter takes rows from any number of goroutines and inserts them in big blocks, exactly once
// (see NewInserter). Its methods are safe for concurrent use.
type Inserter struct{ e *ingest.Engine }

// InserterStats counts what an Inserter did: rows, bytes and blocks appended, sent, resent and
// failed, and what is buffered now. InserterBlockError is a block it could not insert.
type (
	InserterStats      = ingest.Stats
	InserterBlockError = ingest.BlockError
)

// ErrInserterFull is Append's error under NoWait when every block is full or in flight;
// ErrInserterClosed is Append's after Close.
var ErrInserterFull, ErrInserterClosed = ingest.ErrFull, ingest.ErrClosed

// NewInserter starts an Inserter of "INSERT INTO t [(cols)]" on db's connections; it asks the
// server for the table's columns first. Rows are appended into typed columns under a lock held
// for the append only (one of Lanes blocks, each its own lock); a full block is sent by a sender
// goroutine while appends fill the next, so memory stays under (Lanes + InFlight) x MaxBytes of
// values (a block's columns are sized from its first rows' width; wider rows later may grow them
// up to twice that), plus about 256 KiB a sender (a block leaves in pieces as it is encoded; a
// QBit column is encoded whole), and Append waits for room beyond it.
//
// Exactly once: each block has its own deduplication token, sent as insert_deduplication_token
// (ClickHouse 22.2+), and is sent again with it, with the same rows, only after a transport
// failure, so the server drops a block it already had: on Replicated tables and on MergeTree
// tables with non_replicated_deduplication_window. Older servers have no token; there a
// Replicated table drops a resent block by the hash of its rows. A server's exception is not
// retried; a block not inserted goes to OnError and Stats and fails the next Flush or Close.
func NewInserter(db *sql.DB, query string, cfg InserterConfig) (*Inserter, error) {
	e, err := ingest.Open(func(ctx context.Context, opts func(*chconn.Options), use func(*chconn.Insert, ServerInfo) error) error {
		return withRaw(ctx, db, func(c Conn) error { // a connection a failure broke is discarded by the pool
			b, err := c.PrepareBatch(withOptions(ctx, opts), query)
			if err != nil {
				return err
			}
			return use(b.ins, c.ServerInfo())
		})
	}, ingest.Config{MaxRows: cfg.MaxRows, MaxBytes: cfg.MaxBytes, MaxDelay: cfg.MaxDelay, Senders: cfg.Senders,
		InFlight: cfg.InFlight, Lanes: cfg.Lanes, NoWait: cfg.NoWait, Retries: cfg.Retries, ID: cfg.ID, Settings: cfg.Settings,
		Async: cfg.Async, AsyncNoWait: cfg.AsyncNoWait, OnError: cfg.OnError, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	return &Inserter{e}, nil
}

// Append appends one row, a value per column, converted as Batch.Append converts. It waits
// while every block is full or in flight (or fails with ErrInserterFull under NoWait) and
// fails with ErrInserterClosed after Close; a value that does not convert fails this row only.
func (in *Inserter) Append(ctx context.Context, values ...any) error {
	return in.e.AppendRow(ctx, values)
}

// AppendStruct appends *row, a pointer to a struct, mapped to the columns as AppendStruct maps it
// for a Batch (the mapping is compiled once per struct type). It reads *row in place: a caller
// reusing its struct appends without allocating.
func (in *Inserter) AppendStruct(ctx context.Context, row any) error {
	return in.e.AppendStruct(ctx, row)
}

// AppendStructs appends a row per element of rows, a slice of structs, as AppendStruct would, under
// one lock per block; a field that does not convert fails the call there (the rows before stay).
func (in *Inserter) AppendStructs(ctx context.Context, rows any) error {
	return in.e.AppendStructs(ctx, rows)
}

// Flush sends what is buffered and waits for the server; it returns the failures since the
// last Flush (each an *InserterBlockError, joined).
func (in *Inserter) Flush(ctx context.Context) error { return in.e.Flush(ctx) }

// Close flushes and stops the senders; Append fails afterwards. When ctx ends first, the
// blocks not yet sent fail (OnError, Stats, the error returned).
func (in *Inserter) Close(ctx context.Context) error { return in.e.Close(ctx) }

// Stats returns the counters so far.
func (in *Inserter) Stats() InserterStats { return in.e.Stats() }
