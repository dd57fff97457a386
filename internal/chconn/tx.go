package chconn

import "context"

// Transactions: ClickHouse has none, so a database/sql transaction only scopes the prepared
// inserts run in it, which Commit sends and Rollback cancels.

// BeginTx starts a transaction (Begin, then InTx reports true).
func (c *Conn) BeginTx() error {
	if err := c.Begin(); err != nil {
		return err
	}
	c.inTx = true
	return nil
}

// Commit ends the transaction: the insert a prepared statement has open is sent and finished,
// resumed on a new connection as Send allows; a Batch's is left to its own Send (its
// openError). After a resume c.Current() is the connection the transaction ended on.
func (c *Conn) Commit(ctx context.Context) error {
	c.awaitDrain()
	c.inTx = false
	ins := c.insert
	if ins == nil {
		return nil
	}
	if ins.batch {
		return ins.openError()
	}
	return ins.Send(ctx)
}

// Rollback ends the transaction, cancelling the insert a prepared statement has open (its rows
// not yet sent are dropped); ErrBadConn when the connection cannot be reused.
func (c *Conn) Rollback() error {
	c.awaitDrain()
	c.inTx = false
	if ins := c.insert; ins != nil && !ins.batch {
		ins.Abort()
	}
	if c.bad {
		return ErrBadConn
	}
	return nil
}
