package chnative

import "github.com/chnative/chnative/internal/chconn"

// InsertUnconfirmedError reports a native insert whose end the server never confirmed, and that
// the driver did not (or could no longer) retry: fields Sent, Buffered, Token, Retries, Reason
// and Err. The server may or may not have committed the Sent rows: insert the same rows again in
// the same blocks with the same WithDeduplicationToken and a deduplicating table drops what it
// already has. With insert_retries > 0 an insert whose connection or replica fails is resumed
// on another host before this error is returned; docs/exactly-once.md states which inserts,
// which failures, the memory the retry keeps and the tables on which the result is exactly once.
type InsertUnconfirmedError = chconn.InsertUnconfirmedError
