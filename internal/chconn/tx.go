package chconn

import "context"

// Transactions: ClickHouse has none, so a database/sql transaction (Begin(true)) only scopes the
// prepared inserts run in it, which EndTx sends or cancels.

// EndTx ends the transaction. commit sends and finishes the insert a prepared statement has
// open, resumed on a new connection as Send allows (after a resume c.Current() is the connection
// the transaction ended on); a Batch's is left to its own Send (its openError). !commit cancels
// that insert: its rows not yet sent are dropped, and the error is ErrBadConn when the
// connection cannot be reused.
func (c *Conn) EndTx(ctx context.Context, commit bool) error {
	c.awaitDrain()
	c.inTx = false
	ins := c.insert
	switch {
	case commit && ins != nil && ins.batch:
		return ins.openError()
	case commit && ins != nil:
		return ins.Send(ctx)
	case !commit && ins != nil && !ins.batch:
		ins.Abort()
	}
	if !commit && c.bad {
		return ErrBadConn
	}
	return nil
}
