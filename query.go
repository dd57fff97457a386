package chnative

import (
	"context"
	"database/sql/driver"

	"github.com/chnative/chnative/internal/bind"
	"github.com/chnative/chnative/internal/chconn"
	"github.com/chnative/chnative/internal/sqltext"
)

// QueryContext runs a query and returns its rows, one block decoded at a time.
func (c *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	rev, err := c.native().Begin(false)
	if err != nil {
		return nil, err
	}
	body, params, err := bind.Query(query, args, rev)
	if err != nil {
		return nil, err
	}
	if sqltext.IsInsert(query) || sqltext.IsSetSessionTimezone(body) {
		// A SET session_timezone goes through exec too, which follows the session's zone.
		if _, err := c.exec(ctx, query, body, params); err != nil {
			return nil, err
		}
		return new(rows), nil // a zero Blocks has ended
	}
	return c.query(ctx, body, params)
}

// query sends body and reads up to the header block, on a new connection when the first one
// breaks before it (see chconn.Conn.Read and dsn.Config.ReadRetries).
func (c *conn) query(ctx context.Context, body string, params map[string]string) (*rows, error) {
	opts := queryOptions(ctx, params)
	r := &rows{c: c}
	if err := c.native().ReadBlocks(ctx, body, opts, &r.res, r); err != nil {
		return nil, err
	}
	r.block = r.res.Block() // the header, for the column types
	return r, nil
}

// ExecContext runs a statement. An INSERT with arguments and no placeholders inserts one row of
// them through the native insert path.
func (c *conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	rev, err := c.native().Begin(false)
	if err != nil {
		return nil, err
	}
	if sqltext.IsInsert(query) {
		tail, hasValues := sqltext.InsertValuesData(query)
		switch {
		case len(args) > 0 && !sqltext.HasPlaceholders(query):
			return c.insertRows(ctx, query, [][]driver.NamedValue{args})
		case hasValues && len(args) > 0:
			rowsArgs, ok, err := bind.SplitInsertArgs(tail, args, namedValueKey)
			if err != nil {
				return nil, err
			}
			if ok {
				// INSERT ... VALUES (?, ?), (?, ?) or ($1, $2): the arguments go through the
				// native insert.
				return c.insertRows(ctx, query, rowsArgs)
			}
		}
	}
	body, params, err := bind.Query(query, args, rev)
	if err != nil {
		return nil, err
	}
	return c.exec(ctx, query, body, params)
}

// exec runs body (query with its arguments bound) to its end.
func (c *conn) exec(ctx context.Context, query, body string, params map[string]string) (driver.Result, error) {
	opts := queryOptions(ctx, params)
	if err := c.native().Exec(ctx, query, body, opts); err != nil {
		return nil, err
	}
	return driver.RowsAffected(0), nil
}

// openInsert starts a native insert with the options of ctx, on a new connection to another
// host when the connection or replica fails before the insert is open (chconn.Conn.StartInsert).
func (c *conn) openInsert(ctx context.Context, query string, batch bool) (*chconn.Insert, error) {
	return c.native().StartInsert(ctx, query, queryOptions(ctx, nil), batch)
}

// insertRows inserts the given rows as one native insert.
func (c *conn) insertRows(ctx context.Context, query string, rowsArgs [][]driver.NamedValue) (driver.Result, error) {
	ins, err := c.openInsert(ctx, query, false)
	if err != nil {
		return nil, err
	}
	if err := ins.AppendRows(ctx, rowsArgs); err != nil {
		ins.Abort()
		return nil, err
	}
	if err := ins.Send(ctx); err != nil {
		return nil, err
	}
	return driver.RowsAffected(len(rowsArgs)), nil
}
