package chnative

import (
	"context"
	"database/sql/driver"
	"strings"

	"github.com/chnative/chnative/nativeproto"
)

// QueryContext runs a query and returns its rows, one block decoded at a time.
func (c *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if err := c.begin(); err != nil {
		return nil, err
	}
	body, opts, err := bindQuery(query, args, c.rev)
	if err != nil {
		return nil, err
	}
	if isInsert(query) {
		if _, err := c.exec(ctx, query, body, opts, args); err != nil {
			return nil, err
		}
		return &rows{c: c, done: true}, nil
	}
	return c.query(ctx, body, opts)
}

// query sends body and reads up to the header block.
func (c *conn) query(ctx context.Context, body string, opts *queryOptions) (*rows, error) {
	stop := c.watch(ctx)
	if _, err := c.sendQuery(body, optionsFrom(ctx, opts)); err != nil {
		stop()
		return nil, err
	}
	if err := c.flush(); err != nil {
		fired := stop()
		c.markBad()
		if fired {
			return nil, ctx.Err()
		}
		return nil, driver.ErrBadConn // nothing reached the server: safe to retry
	}
	c.busy = true
	r := &rows{c: c, ctx: ctx, stop: stop}
	if err := r.readHeader(); err != nil {
		return nil, err
	}
	return r, nil
}

// ExecContext runs a statement. An INSERT with arguments and no placeholders inserts one row of
// them through the native insert path.
func (c *conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if err := c.begin(); err != nil {
		return nil, err
	}
	if isInsert(query) {
		tail, hasValues := insertValuesData(query)
		switch {
		case len(args) > 0 && !hasPlaceholders(query):
			return c.insertRows(ctx, query, [][]driver.NamedValue{args})
		case hasValues && len(args) > 0:
			if tuples, width, ok := placeholderRows(tail); ok && tuples*width == len(args) {
				// INSERT ... VALUES (?, ?), (?, ?): the arguments go through the native insert.
				rowsArgs := make([][]driver.NamedValue, tuples)
				for i := range rowsArgs {
					rowsArgs[i] = args[i*width : (i+1)*width]
				}
				return c.insertRows(ctx, query, rowsArgs)
			}
		}
		if hasValues && strings.TrimSpace(strings.TrimRight(tail, "; \t\r\n")) != "" && c.pingEndsTables {
			return nil, &UnsupportedError{Msg: "this server ignores data written in the text of an INSERT sent over the native protocol; pass the values as arguments (INSERT ... VALUES (?, ?)) or use a prepared insert"}
		}
	}
	body, opts, err := bindQuery(query, args, c.rev)
	if err != nil {
		return nil, err
	}
	return c.exec(ctx, query, body, opts, args)
}

// insertRows inserts the given rows as one native insert.
func (c *conn) insertRows(ctx context.Context, query string, rowsArgs [][]driver.NamedValue) (driver.Result, error) {
	ins, err := c.openInsert(ctx, query)
	if err != nil {
		return nil, err
	}
	vals := make([]any, 0, 16)
	for _, args := range rowsArgs {
		vals = vals[:0]
		for _, a := range args {
			vals = append(vals, a.Value)
		}
		if err := ins.append(vals); err != nil {
			ins.abort()
			return nil, err
		}
	}
	n := int64(len(rowsArgs))
	if err := ins.finish(ctx); err != nil {
		return nil, err
	}
	return driver.RowsAffected(n), nil
}

// exec sends body and reads to the end, discarding result blocks. For an INSERT whose data is in
// the query text, it ends the (empty) client data when the server asks for it.
func (c *conn) exec(ctx context.Context, query, body string, opts *queryOptions, args []driver.NamedValue) (driver.Result, error) {
	stop := c.watch(ctx)
	if _, err := c.sendQuery(body, optionsFrom(ctx, opts)); err != nil {
		stop()
		return nil, err
	}
	if err := c.flush(); err != nil {
		fired := stop()
		c.markBad()
		if fired {
			return nil, ctx.Err()
		}
		return nil, driver.ErrBadConn
	}
	insert := isInsert(query)
	var written int64
	var scratch *nativeproto.Block
	for {
		ev, err := c.recv(scratch)
		if err != nil {
			return nil, c.fail(ctx, stop(), err)
		}
		switch ev.code {
		case nativeproto.ServerCodeEndOfStream:
			stop()
			return driver.RowsAffected(written), nil
		case nativeproto.ServerCodeData:
			scratch = ev.block
			if insert && ev.block.Rows() == 0 {
				// The server sent the table header and waits for data: there is none beyond the
				// query text.
				if err := c.pw.WriteEmptyData(); err != nil {
					stop()
					c.markBad()
					return nil, err
				}
				if err := c.flush(); err != nil {
					return nil, c.fail(ctx, stop(), err)
				}
				insert = false
			}
		}
	}
}
