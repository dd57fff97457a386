// Package chnative is a database/sql driver for ClickHouse that speaks the native TCP protocol on a
// columnar core.
//
// Open it with database/sql:
//
//	db, err := sql.Open("chnative", "clickhouse://default@127.0.0.1:9000/default?compress=lz4")
//
// or build a Connector from a [dsn.Config] with [NewConnector] and sql.OpenDB, or open a *sql.DB
// with [OpenDB], which also applies the pool limits of the configuration (clickhouse-go's
// max_open_conns, max_idle_conns, conn_max_lifetime).
//
// # Debug log
//
// With debug=true in the DSN (dsn.Config.Debug), or a dsn.Config.Logger, the driver logs what it
// does through log/slog at debug level: connects and failovers, each query's id with its
// blocks, rows, bytes read and timings, cancels and the drains that follow them, and every
// connection it gives up or that database/sql retries on another. debug=true without a Logger
// writes text to standard error (clickhouse-go writes to standard output; a driver writing there
// would mix with a program's own output). Passwords are never logged; query text is, shortened.
// The query lines come through the same hook as Connector.Observer (see Observer), which a
// program sets for spans and metrics (the otelchnative module).
//
// # Deadlines
//
// A context's deadline is kept by the driver: it bounds every socket read and write, and when it
// passes the call returns at once with an error wrapping context.DeadlineExceeded, while a
// goroutine sends the server a Cancel and drains the query (the server stops it; a connection it
// does not release within 700 ms is closed, which stops it too). No setting is sent for it: a
// max_execution_time derived from the deadline would fail every query of a readonly=1 user
// (server error 164, READONLY: such a user may change no setting) and of a profile whose
// constraints bound it. For a bound the server keeps by itself, set max_execution_time in the
// DSN or with WithSettings. For the same reason, with compress=lz4 no network_compression_method
// is sent (LZ4 is every server's default); compress=zstd sends it, which a readonly=1 user is
// refused.
//
// # Retries
//
// A read (read_retries) and an insert (insert_retries) are run again on a new connection only
// after a transport failure: the socket ended, was reset or refused, a read timed out (not the
// caller's context), or a compressed frame failed its checksum (a failed read's error wraps a
// *TransportError). An answer that breaks the protocol (an unknown packet, a count over a limit,
// a malformed block: a *ProtocolError without a *TransportError) would break the same way
// again: it is returned at once, its connection closed, nothing retried; an insert that had
// sent rows then returns an *InsertUnconfirmedError around it. A server exception leaves the
// connection in step and in the pool.
//
// # Batched inserts
//
// Inside a transaction, Prepare("INSERT INTO t [(cols)] [VALUES]") starts the insert and takes the
// table's header from the server; each Exec appends one row straight into typed columns; a block is
// sent every insert_block_rows rows (DSN key; default 1,000,000); Commit sends the rest. Rollback
// cancels the insert and sends nothing that was still buffered. ClickHouse has no transactions:
// blocks already sent are the server's to keep (18.16 keeps them) or drop (26.7 drops a cancelled
// insert into a Memory table whole).
//
// # The Batch extension
//
// Typed columns without boxing are reached through sql.Conn.Raw:
//
//	err := sqlConn.Raw(func(dc any) error {
//		c := dc.(chnative.Conn)
//		b, err := c.PrepareBatch(ctx, "INSERT INTO t (id, name)")
//		...
//		b.Column(0).(*columns.UInt64).Append(1)
//		...
//		return b.Send()
//	})
//
// QueryBlocks reads a result one block of typed columns at a time.
//
// # Where things live
//
// The root is the database/sql adapter and the public face of the Batch extension; the work is
// done by the packages below it. Each package imports only packages drawn below it:
//
//	       database/sql, sqlx, ORMs            sql.Conn.Raw (the Batch extension)
//	                  |                                     |
//	chnative   driver.go conn.go query.go stmt.go rows.go   batch.go structs.go options.go
//	                  |
//	   +--------------+--------------+----------------+-----------------+
//	   |              |              |                |                 |
//	internal/      internal/      internal/        internal/           dsn
//	chconn         bind           boxing           structmap           (parses DSNs; imported
//	   |              |              |                |                 by the root and chconn)
//	   +--------------+-------+------+----------------+
//	                          |
//	        nativeproto (packets, blocks, compression)
//	                          |
//	        columns (typed columns, the codec of every type)
//	                          |
//	internal/wire   internal/sqltext   internal/valuer   internal/fieldslice   qbit
//	(bytes)         (the SQL lexer)    (Valuers)         (struct field writes)  (kernels)
//
// One hop from a question to its file:
//
//	the handshake          internal/chconn/handshake.go (Dial), over nativeproto/hello.go
//	a packet               nativeproto/<packet>.go (query.go, exception.go, progress.go, ...)
//	a column's encoding    columns/<type family>.go (fixed.go, string.go, array.go, ...)
//	what a type knows      columns: sqlvalue.go and sqlwindow.go (values for database/sql),
//	                       scanfast.go, appendfast.go, field_copy.go and field_append.go,
//	                       coltype.go (nullable, precision and scale, length)
//	boxing                 internal/boxing (values boxed a window at a time), rows.go uses it
//	binding                internal/bind (literals, parameters), internal/sqltext (the lexer)
//	the read-ahead         internal/chconn/readahead.go, the block cache in blocks.go
//	the Batch extension    batch.go (Conn, Batch, Blocks) over internal/chconn/insert.go
//	struct mapping         structs.go, batch_struct.go over internal/structmap
//	query options          options.go (With*), applied in internal/chconn/options.go and send.go
//	cancel and drain       internal/chconn/cancel.go and drain.go
//	failover and retries   internal/chconn/hosts.go (host set, back-off), read_retry.go,
//	                       insert_failover.go (when to resume) and insert_retry.go (Resume)
//	Go 1.27 scanning       rows_go127.go
//	the byte reader/writer internal/wire
//
// Design: the root turns database/sql's calls and values into the native connection's
// (internal/chconn, which knows nothing of database/sql) and its errors back (ErrBadConn becomes
// driver.ErrBadConn). What a column type knows (how it boxes a window of values, scans into a
// destination, appends a Go value, copies into a struct field) is asked of the column through
// small optional interfaces in columns, never switched on here. unsafe lives only in files named
// *_unsafe.go (internal/boxing, internal/fieldslice, internal/structmap, columns, qbit), each
// saying why and what it relies on, with a safe twin under the purego build tag:
// go test -tags purego ./... runs the whole module without it.
package chnative
