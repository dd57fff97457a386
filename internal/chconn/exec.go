package chconn

import (
	"context"
	"strings"

	"github.com/chnative/chnative/internal/sqltext"
	"github.com/chnative/chnative/nativeproto"
)

// Query sends body with opts and reads up to the result's header block. The connection is busy
// until the Result ends (read to its end, failed, or closed).
func (c *Conn) Query(ctx context.Context, body string, opts *Options) (*Result, error) {
	r := new(Result)
	if err := c.QueryInto(ctx, body, opts, r); err != nil {
		return nil, err
	}
	return r, nil
}

// QueryInto is Query with the Result in r, a zero Result the caller owns: a cursor that embeds
// its Result saves an allocation per query. r must not be copied afterwards.
func (c *Conn) QueryInto(ctx context.Context, body string, opts *Options, r *Result) error {
	stop, err := c.start(ctx, body, opts)
	if err != nil {
		return err
	}
	c.busy = true
	r.c, r.ctx, r.stop = c, ctx, stop
	if opts != nil {
		r.userLoc = opts.UserLocation
	}
	return r.readHeader()
}

// Exec sends body (query with its arguments bound) with opts and reads to the end, discarding
// result blocks. For an INSERT whose data is in the query text, it ends the (empty) client data
// when the server asks for it. A SET session_timezone that succeeds changes the session's zone.
//
// Servers that ignore data written in the text of an INSERT sent over the native protocol (old
// servers, which read a query's external tables only after parsing it: see
// revEagerExternalTables) get INSERT ... SELECT row UNION ALL SELECT row instead.
func (c *Conn) Exec(ctx context.Context, query, body string, opts *Options) error {
	if c.pingEndsTables {
		if tail, ok := sqltext.InsertValuesData(body); ok && strings.TrimSpace(strings.TrimRight(tail, "; \t\r\n")) != "" {
			sel, ok := sqltext.ValuesAsSelect(body)
			if !ok {
				return &UnsupportedError{Msg: "this server ignores data written in the text of an INSERT sent over the native protocol; pass the values as arguments (INSERT ... VALUES (?, ?)) or use a prepared insert"}
			}
			query, body = sel, sel
		}
	}
	stop, err := c.start(ctx, body, opts)
	if err != nil {
		return err
	}
	insert := sqltext.InsertWantsData(query)
	var scratch *nativeproto.Block
	for {
		ev, err := c.recv(scratch)
		if err != nil {
			return c.fail(ctx, stop(), err)
		}
		switch ev.code {
		case nativeproto.ServerCodeEndOfStream:
			stop()
			c.setSessionTimezone(body)
			return nil
		case nativeproto.ServerCodeData:
			scratch = ev.block
			if insert && ev.block.Rows() == 0 && ev.block.NumColumns() > 0 {
				// The server sent the table header and waits for data: there is none beyond the
				// query text.
				if err := c.pw.WriteEmptyData(); err != nil {
					stop()
					c.markBad()
					return err
				}
				if err := c.flush(); err != nil {
					return c.fail(ctx, stop(), err)
				}
				insert = false
			}
		}
	}
}
