package chnative

import (
	"context"
	"database/sql/driver"
	"strconv"
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
	if isInsert(query) || isSetSessionTimezone(body) {
		// A SET session_timezone goes through exec too, which follows the session's zone.
		if _, err := c.exec(ctx, query, body, opts, args); err != nil {
			return nil, err
		}
		return &rows{c: c, done: true}, nil
	}
	return c.query(ctx, body, opts)
}

// query sends body and reads up to the header block.
func (c *conn) query(ctx context.Context, body string, opts *queryOptions) (*rows, error) {
	stop, err := c.start(ctx, body, opts)
	if err != nil {
		return nil, err
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
			rowsArgs, ok, err := splitInsertArgs(tail, args)
			if err != nil {
				return nil, err
			}
			if ok {
				// INSERT ... VALUES (?, ?), (?, ?) or ($1, $2): the arguments go through the
				// native insert.
				return c.insertRows(ctx, query, rowsArgs)
			}
		}
		if hasValues && strings.TrimSpace(strings.TrimRight(tail, "; \t\r\n")) != "" && c.pingEndsTables {
			// This server ignores data written in the text of an INSERT sent over the native
			// protocol: send INSERT ... SELECT row UNION ALL SELECT row instead.
			body, opts, err := bindQuery(query, args, c.rev)
			if err != nil {
				return nil, err
			}
			sel, ok := valuesAsSelect(body)
			if !ok {
				return nil, &UnsupportedError{Msg: "this server ignores data written in the text of an INSERT sent over the native protocol; pass the values as arguments (INSERT ... VALUES (?, ?)) or use a prepared insert"}
			}
			return c.exec(ctx, sel, sel, opts, args)
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
	stop, err := c.start(ctx, body, opts)
	if err != nil {
		return nil, err
	}
	insert := insertWantsData(query)
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
			c.setSessionTimezone(body)
			return driver.RowsAffected(written), nil
		case nativeproto.ServerCodeData:
			scratch = ev.block
			if insert && ev.block.Rows() == 0 && ev.block.NumColumns() > 0 {
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

// dollarRows parses a VALUES tail made only of tuples of $N placeholders, "($1, $2), ($3, $4)",
// and returns each tuple's argument numbers. Every argument (1..nargs) must be used.
func dollarRows(tail string, nargs int) ([][]int, bool) {
	ts, ok := valuesTuples(tail)
	if !ok {
		return nil, false
	}
	out := make([][]int, len(ts))
	used := make([]bool, nargs+1)
	for k, t := range ts {
		out[k] = make([]int, len(t))
		for i, p := range t {
			n, err := strconv.Atoi(strings.TrimPrefix(p, "$"))
			if !strings.HasPrefix(p, "$") || err != nil || n < 1 || n > nargs {
				return nil, false
			}
			out[k][i] = n
			used[n] = true
		}
	}
	for n := 1; n <= nargs; n++ {
		if !used[n] {
			return nil, false
		}
	}
	return out, true
}

// valuesAsSelect rewrites "INSERT INTO t [(cols)] VALUES (a, b), (c, d)" as
// "INSERT INTO t [(cols)] SELECT a, b UNION ALL SELECT c, d" (for servers that ignore the data
// in the text of a native INSERT; the server casts each column to the table's type).
func valuesAsSelect(query string) (string, bool) {
	tail, ok := insertValuesData(query)
	if !ok {
		return "", false
	}
	head := strings.TrimRight(query[:len(query)-len(tail)-len("VALUES")], " \t\r\n")
	var b strings.Builder
	b.WriteString(head)
	s := strings.TrimRight(tail, "; \t\r\n")
	i, n := 0, 0
	for {
		for i < len(s) && strings.IndexByte(" \t\r\n", s[i]) >= 0 {
			i++
		}
		if i == len(s) {
			break
		}
		if n > 0 {
			if s[i] != ',' {
				return "", false
			}
			i++
			for i < len(s) && strings.IndexByte(" \t\r\n", s[i]) >= 0 {
				i++
			}
		}
		if i == len(s) || s[i] != '(' {
			return "", false
		}
		start, depth := i+1, 0
		for ; i < len(s); i++ {
			switch ch := s[i]; ch {
			case '\'', '"', '`':
				i = skipQuoted(s, i) - 1
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				depth--
			case '-', '/', '#':
				if strings.HasPrefix(s[i:], "--") || strings.HasPrefix(s[i:], "/*") || ch == '#' {
					return "", false // comments inside the data: leave it to the server
				}
			}
			if depth == 0 {
				break
			}
		}
		if i == len(s) {
			return "", false
		}
		if n > 0 {
			b.WriteString(" UNION ALL")
		}
		b.WriteString(" SELECT ")
		b.WriteString(s[start:i])
		i++
		n++
	}
	return b.String(), n > 0
}

// start sends a query with the options of ctx and watches ctx until the returned stop is called.
// When the packets cannot be written the connection is closed and the error is
// driver.ErrBadConn, so database/sql retries on another connection: a query that did not reach
// the server whole is not run (the server waits for the packet that ends it).
func (c *conn) start(ctx context.Context, body string, opts *queryOptions) (stop func() bool, err error) {
	stop = c.watch(ctx)
	if _, err := c.sendQuery(body, optionsFrom(ctx, opts)); err != nil {
		stop()
		return nil, err
	}
	if err := c.flush(); err != nil {
		fired := stop()
		c.traceEnd("query not sent", err)
		c.markBad()
		if fired {
			return nil, c.contextError(ctx.Err())
		}
		c.logRetry("the query could not be written: " + err.Error())
		return nil, driver.ErrBadConn
	}
	return stop, nil
}
