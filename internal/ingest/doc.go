// Package ingest is the engine of chnative.Inserter: rows appended from many goroutines into
// typed blocks, blocks sealed at a row count, a byte size or an age, and sent by a few sender
// goroutines, each block under its own deduplication token (the inserter's id and the block's
// sequence number) so that a block sent again after a transport failure is dropped by a server
// that had it.
//
// It knows nothing of database/sql: the root hands it the table's header and a Send function
// (a block and its token onto a pooled connection) and says which errors are transport failures.
//
// Memory: at most Config.Lanes+Config.InFlight blocks ever exist (those being filled, one a
// lane, and those sealed and not yet confirmed); a block is sealed once it holds
// Config.MaxBytes bytes of values (one row more at most), so values buffered stay under
// (Lanes+InFlight) x (MaxBytes + one row). Columns grow by doubling, so the memory holding them
// can reach twice that. Append waits for a block to be confirmed when all exist (or fails with
// ErrFull under Config.NoWait).
package ingest
