package chnative

import (
	"context"
	"database/sql/driver"

	"github.com/chnative/chnative/internal/bind"
	"github.com/chnative/chnative/internal/chconn"
	"github.com/chnative/chnative/internal/sqltext"
)

// stmt is a prepared statement. SELECT and DDL statements keep their text and run on Query/Exec.
// An INSERT prepared inside a transaction is a batched insert: Prepare sends it and takes the
// header, each Exec appends one row, and the transaction's Commit sends the rest.
type stmt struct {
	c      *conn
	query  string
	insert bool
	ins    *chconn.Insert
	closed bool

	// For a batched insert: valuesTail is the text after VALUES when its placeholders map
	// arguments to columns and rows other than one row in order ("($2, $1)", "(?, ?), (?, ?)");
	// "" otherwise.
	valuesTail string
}

// PrepareContext prepares query. Inside a transaction an INSERT that takes its data from the
// client (VALUES, FORMAT, or a bare column list; not INSERT ... SELECT, which runs as a
// statement) starts a batched insert at once. Its VALUES list, when it has one, must map the
// arguments to columns: only placeholders, all ?, all $N or all named (@name, {name:Type}); a
// literal among them or mixed styles fail here, naming the value, rather than take the
// arguments in order.
func (c *conn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	if _, err := c.native().Begin(false); err != nil {
		return nil, err
	}
	s := &stmt{c: c, query: query, valuesTail: bind.MappedValues(query)}
	if sqltext.InsertWantsData(query) && (!sqltext.HasPlaceholders(query) || c.inTx) {
		s.insert = true
		if c.inTx {
			if s.valuesTail != "" {
				if err := bind.ValuesMappingError(s.valuesTail); err != nil {
					return nil, err
				}
			}
			ins, err := c.openInsert(ctx, query, false)
			if err != nil {
				return nil, err
			}
			s.ins = ins
		}
	}
	return s, nil
}

// NumInput returns -1: the number of arguments is checked by the query.
func (s *stmt) NumInput() int { return -1 }

// Close releases the statement. A batched insert stays open until Commit or Rollback.
func (s *stmt) Close() error {
	s.closed = true
	return nil
}

// Exec runs the statement (see ExecContext).
func (s *stmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.ExecContext(context.Background(), valuesToNamed(args))
}

// Query runs the statement (see QueryContext).
func (s *stmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.QueryContext(context.Background(), valuesToNamed(args))
}

func valuesToNamed(args []driver.Value) []driver.NamedValue {
	out := make([]driver.NamedValue, len(args))
	for i, a := range args {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
	}
	return out
}

// ExecContext appends one row to a batched insert, or runs the statement.
func (s *stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	if s.closed {
		return nil, ErrClosed
	}
	if !s.insert {
		return s.c.ExecContext(ctx, s.query, args)
	}
	if !s.c.inTx {
		if len(args) == 0 {
			return s.c.ExecContext(ctx, s.query, nil)
		}
		return s.c.insertRows(ctx, s.query, [][]driver.NamedValue{args})
	}
	// One row, arguments in column order: the common case, without allocation. Otherwise VALUES
	// (?, ?), (?, ?), ($2, $1), (@b, @a) or ({b:String}, {a:String}) decide which argument goes
	// to which column and row.
	rowsArgs := [][]driver.NamedValue{args}
	if s.valuesTail != "" {
		var err error
		if rowsArgs, err = bind.MapInsertArgs(s.valuesTail, args, namedValueKey); err != nil {
			return nil, err
		}
	}
	err := ErrClosed
	if s.ins != nil {
		err = s.appendRows(ctx, rowsArgs)
	}
	if err == ErrClosed {
		// No insert yet, or another statement ran on the connection and finished this one:
		// start a new one.
		if s.ins, err = s.c.openInsert(ctx, s.query, false); err != nil {
			return nil, err
		}
		err = s.appendRows(ctx, rowsArgs)
	}
	if err != nil {
		return nil, err
	}
	if len(rowsArgs) == 1 {
		return driver.RowsAffected(1), nil // a constant: no conversion per row
	}
	return driver.RowsAffected(len(rowsArgs)), nil
}

// appendRows appends an Exec's rows to the statement's insert; the Exec fails whole.
func (s *stmt) appendRows(ctx context.Context, rows [][]driver.NamedValue) error {
	if len(rows) == 1 {
		return s.ins.AppendArgs(ctx, rows[0]) // a refused row drops its own values
	}
	return s.ins.AppendRows(ctx, rows)
}

// QueryContext runs the statement's query.
func (s *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	if s.closed {
		return nil, ErrClosed
	}
	return s.c.QueryContext(ctx, s.query, args)
}
