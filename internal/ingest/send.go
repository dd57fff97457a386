package ingest

import (
	"database/sql/driver"
	"errors"
	"strconv"
	"time"

	"github.com/chnative/chnative/internal/chconn"
	"github.com/chnative/chnative/nativeproto"
)

// sender sends sealed blocks until the queue is closed.
func (e *Engine) sender(n int) {
	defer e.wg.Done()
	for cur := range e.queue {
		err := e.sendBlock(n, cur)
		e.done(cur, err)
	}
}

// sendBlock sends cur under its token, again (same token, same rows) after each transport
// failure up to Retries times. Any other failure (a server exception, a protocol violation) is
// returned at once: the server said no, or sending it again might not be safe.
func (e *Engine) sendBlock(n int, cur *block) error {
	token, sent := e.Token(cur.seq), e.Token(cur.seq)
	if e.cfg.NoTokens {
		sent = ""
	}
	wait := e.cfg.Backoff
	for try := 0; ; try++ {
		err := e.ctx.Err()
		if err == nil {
			err = e.send(e.ctx, n, cur.b, sent)
		}
		if err == nil {
			e.log("inserter block sent", "token", token, "rows", cur.b.Rows(), "bytes", cur.bytes, "tries", try+1)
			return nil
		}
		if e.ctx.Err() != nil || !e.transport(err) || try >= e.cfg.Retries {
			return err
		}
		e.mu.Lock()
		e.stats.Retried++
		e.mu.Unlock()
		e.log("inserter block resent after a transport failure", "token", token, "try", try+2, "err", err)
		select {
		case <-time.After(wait):
		case <-e.ctx.Done():
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// done records cur's outcome, reports a failure and frees cur.
func (e *Engine) done(cur *block, err error) {
	rows := int64(cur.b.Rows())
	if err != nil {
		e.log("inserter block failed", "token", e.Token(cur.seq), "rows", rows, "err", err)
		if e.cfg.OnError != nil {
			e.cfg.OnError(cur.b, err)
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if err != nil {
		e.stats.FailedRows += rows
		e.stats.FailedBlocks++
		e.errs = append(e.errs, &BlockError{Token: e.Token(cur.seq), Rows: int(rows), Err: err})
	} else {
		e.stats.SentRows += rows
		e.stats.SentBytes += cur.bytes
		e.stats.SentBlocks++
	}
	e.stats.BufferedRows -= rows
	e.stats.BufferedBytes -= cur.bytes
	delete(e.pending, cur.seq)
	cur.b.Reset()
	cur.bytes = 0
	e.free = append(e.free, cur)
	e.broadcast()
}

func (e *Engine) log(msg string, args ...any) {
	if l := e.cfg.Logger; l != nil {
		l.Debug(msg, append(args, "inserter", e.cfg.ID)...)
	}
}

// BlockError is a block that could not be inserted: its token, its rows, and why. Its rows went
// to Config.OnError.
type BlockError struct {
	Token string
	Rows  int
	Err   error
}

func (e *BlockError) Error() string {
	return "chnative: inserter block " + e.Token + " (" + strconv.Itoa(e.Rows) + " rows) not inserted: " + e.Err.Error()
}

func (e *BlockError) Unwrap() error { return e.Err }

// joinErrs is errors.Join of the non-nil errors, or nil.
func joinErrs(errs []error) error {
	return errors.Join(errs...)
}

// Resendable is the engine's default test of a failure after which a block is sent again under
// its token: a transport failure (chconn.IsTransport), a connect that failed (a
// *chconn.DialError) or a pooled connection found broken before use (driver.ErrBadConn, after
// database/sql's own retries): nothing was sent; or a server exception that blames the replica or its
// connections (chconn.RetryableInsertCode: ZooKeeper lost, a shard unreachable), never one
// about the data. The token (or, without one, the block's hash on a Replicated table) makes
// the server drop the block if it had committed it.
func Resendable(err error) bool {
	var ex *nativeproto.Exception
	var de *chconn.DialError
	return chconn.IsTransport(err) || errors.As(err, &de) || errors.Is(err, driver.ErrBadConn) ||
		errors.As(err, &ex) && chconn.RetryableInsertCode(ex.Code)
}
