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
// OpenError). It returns the connection the transaction ended on (another one after a resume,
// c then being closed), also on an error.
func (c *Conn) Commit(ctx context.Context) (*Conn, error) {
	c.AwaitDrain()
	c.inTx = false
	ins := c.insert
	if ins == nil {
		return c, nil
	}
	if ins.batch {
		return c, ins.OpenError()
	}
	err := ins.Send(ctx)
	return ins.c, err
}

// Rollback ends the transaction, cancelling the insert a prepared statement has open (its rows
// not yet sent are dropped); ErrBadConn when the connection cannot be reused.
func (c *Conn) Rollback() error {
	c.AwaitDrain()
	c.inTx = false
	if ins := c.insert; ins != nil && !ins.batch {
		ins.Abort()
	}
	if c.bad {
		return ErrBadConn
	}
	return nil
}
