// Package chconn is the native connection: one ClickHouse native-protocol conversation and its
// state machine, with nothing of database/sql. The root package chnative adapts it to
// database/sql (and to its Batch extension); this package is what that adapter drives.
//
// # Where things are
//
//	handshake.go  Dial (TCP, TLS, Hello, addendum, compression), DialError hints
//	send.go       the Query packet: client info, settings, parameters, external tables
//	recv.go       reading a query's packets: blocks for the caller, the rest to callbacks
//	exec.go       Query (to the header block) and Exec (to the end)
//	result.go     Result: the stream of a result's blocks, Close's short read or cancel
//	readahead.go  the read-ahead of the next block while the caller works on the current one
//	lowat_linux.go  the socket's receive low-water mark for a block's large column reads
//	blocks.go     the blocks kept from query to query, one owner and one rule, and their bound
//	insert.go     Insert: a native INSERT, rows appended into typed columns, sent in blocks
//	insert_retry.go  the sent blocks kept until confirmed, Resume on another connection
//	insert_failover.go  when an insert is reopened or resumed on another host (StartInsert, Send)
//	hosts.go      Hosts: the host set, its health, the open strategy, back-off and fail-over
//	read_retry.go  Read and Rerun: a read run again on another host before its first row
//	cancel.go     classifying failures, Cancel and the drain that keeps the stream in step
//	drain.go      the drain of a cancelled query off the caller's path
//	deadline.go   context watching and socket deadlines
//	ping.go       Ping, and the one-time check of the configuration's settings
//	location.go   the session's and the query's time zone (Hello, SET, TimezoneUpdate)
//	options.go    Options: a query's settings, parameters and callbacks
//	debuglog.go   the debug log (dsn.Config.Logger / debug=true)
//	conn.go       Conn: its state, its life in a pool (Begin, ResetSession, IsValid, Close)
//	errors.go     the errors the root re-exports (Exception, ProtocolError, ...)
//
// # Design
//
// A Conn is used by one goroutine at a time (database/sql guarantees it for the adapter), with
// two helpers that never race it: the context watcher (deadline.go), which only sets socket
// deadlines, and at most one of two background readers, the read-ahead of a Result
// (readahead.go) or the drain of a cancelled query (drain.go). Every way into the connection
// first waits for (or takes the result of) the one that runs, so the packet reader and the
// connection's fields have one owner at a time.
//
// State is kept so that a connection is never handed back in an unknown state: a query is busy
// until its Result ends; a failure is an Exception (the stream is in step and the connection is
// kept), a context's end (the query is cancelled and drained, on or off the caller's path), or
// anything else (the connection is marked bad and closed). ErrBadConn is returned only when
// nothing was sent, so the adapter can let database/sql retry on another connection.
//
// Memory is bounded by the block size: a Result holds its current block and, while a read-ahead
// runs, one spare; blocks.go keeps the last query's blocks for the next one, each in one role,
// so that columns start at the capacity they reached instead of growing from nothing, but only
// blocks of at most block_keep_bytes: when a statement ends (trimKept) larger blocks and grown
// buffers go to the process-wide spare caches of package spare (a stated budget and idle time).
package chconn
