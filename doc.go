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
// # Behaviour
//
// The README is the user guide: the debug log (debug=true, or dsn.Config.Logger; the same hook as
// Connector.Observer), deadlines (kept by the driver on the socket, never sent as a setting, so
// that readonly=1 users can use them), read and insert retries (only after a transport failure:
// a *TransportError inside the error; a broken answer or a server exception is never retried),
// and batched inserts (a prepared INSERT in a transaction appends each Exec into typed columns
// and Commit sends the rest).
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
