package chnative

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"

	"github.com/chnative/chnative/internal/sqlblocks"
	"github.com/chnative/chnative/internal/sqltext"
	"github.com/chnative/chnative/nativeproto"
)

// SQLConn is what the helpers InsertRows, StreamBlocks and StreamRows take: a *sql.DB (they
// borrow one connection from its pool) or a *sql.Conn.
//
// With chnative underneath (also wrapped, see AsConn) they use the Batch extension; with any
// other driver (go-sqlmock in unit tests, or another ClickHouse driver) they fall back to plain
// database/sql, so code built on them can be unit tested without a server.
type SQLConn interface {
	*sql.DB | *sql.Conn
}

// errNotChnative tells the helpers to take the database/sql path.
var errNotChnative = errors.New("chnative: not a chnative connection")

// withRaw runs fn on the driver connection of db when it is chnative, and reports
// errNotChnative otherwise.
func withRaw[D SQLConn](ctx context.Context, db D, fn func(Conn) error) error {
	var c *sql.Conn
	switch x := any(db).(type) {
	case *sql.DB:
		var err error
		if c, err = x.Conn(ctx); err != nil {
			return err
		}
		defer c.Close()
	case *sql.Conn:
		c = x
	}
	return c.Raw(func(dc any) error {
		cc, ok := AsConn(dc)
		if !ok {
			return errNotChnative
		}
		return fn(cc)
	})
}

// AsConn returns the Batch extension of the driver connection sql.Conn.Raw hands its callback:
// chnative's own, or the one under a wrapping driver that gives its connection back through a
// Raw() driver.Conn method (github.com/XSAM/otelsql) or an Unwrap() driver.Conn method. ok is
// false when no chnative connection is found.
func AsConn(dc any) (Conn, bool) {
	for range 8 { // wrappers of wrappers, within reason
		switch x := dc.(type) {
		case Conn:
			return x, true
		case interface{ Raw() driver.Conn }:
			dc = x.Raw()
		case interface{ Unwrap() driver.Conn }:
			dc = x.Unwrap()
		default:
			return nil, false
		}
	}
	return nil, false
}

// InsertRows inserts rows as one batch. query is "INSERT INTO t [(a, b)]" (a VALUES clause with ?
// placeholders is accepted too); each row holds one value per column.
//
// With chnative the rows go out through PrepareBatch as native blocks (WithBlockSize rows each)
// and the insert either completes or, on the first error, sends nothing still buffered. With
// another driver it runs in a transaction: one prepared "INSERT ... VALUES (?, ...)" and one Exec
// per row, then Commit (the pattern go-sqlmock expects: ExpectBegin, ExpectPrepare, ExpectExec per
// row, ExpectCommit).
func InsertRows[D SQLConn](ctx context.Context, db D, query string, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	err := withRaw(ctx, db, func(c Conn) error {
		b, err := c.PrepareBatch(ctx, query)
		if err != nil {
			return err
		}
		for i, r := range rows {
			if err := b.Append(r...); err != nil {
				b.Abort()
				return fmt.Errorf("chnative: InsertRows: row %d: %w", i, err)
			}
		}
		return b.SendContext(ctx)
	})
	if !errors.Is(err, errNotChnative) {
		return err
	}
	return insertRowsSQL(ctx, db, query, rows)
}

// insertRowsSQL is InsertRows over plain database/sql.
func insertRowsSQL[D SQLConn](ctx context.Context, db D, query string, rows [][]any) error {
	var tx *sql.Tx
	var err error
	switch x := any(db).(type) {
	case *sql.DB:
		tx, err = x.BeginTx(ctx, nil)
	case *sql.Conn:
		tx, err = x.BeginTx(ctx, nil)
	}
	if err != nil {
		return err
	}
	q := query
	if _, ok := sqltext.InsertValuesData(q); !ok {
		q = strings.TrimRight(strings.TrimSpace(q), ";") + " VALUES (" +
			strings.TrimSuffix(strings.Repeat("?, ", len(rows[0])), ", ") + ")"
	}
	st, err := tx.PrepareContext(ctx, q)
	if err != nil {
		_ = tx.Rollback()
		return err
	}
	for i, r := range rows {
		if _, err := st.ExecContext(ctx, r...); err != nil {
			_ = st.Close()
			_ = tx.Rollback()
			return fmt.Errorf("chnative: InsertRows: row %d: %w", i, err)
		}
	}
	if err := st.Close(); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// StreamBlocks runs query and calls fn with each block of the result. The block and its columns
// are valid only during the call. An error from fn stops the query (it is cancelled) and is
// returned.
//
// With chnative the blocks are the ones the server sent (see QueryBlocks). With another driver
// the rows are read through database/sql and gathered into blocks of up to WithBlockSize (default
// 65536) rows, whose column types are the drivers' ColumnType.DatabaseTypeName: with go-sqlmock,
// declare them with sqlmock.NewRowsWithColumnDefinition(sqlmock.NewColumn("n").OfType("UInt64", 0)).
func StreamBlocks[D SQLConn](ctx context.Context, db D, query string, args []any, fn func(*nativeproto.Block) error) error {
	err := withRaw(ctx, db, func(c Conn) error { return eachBlock(ctx, c, query, args, fn) })
	if !errors.Is(err, errNotChnative) {
		return err
	}
	return streamSQL(ctx, db, query, args, func(r *sql.Rows) error {
		cts, err := r.ColumnTypes()
		if err != nil {
			return err
		}
		names, types := make([]string, len(cts)), make([]string, len(cts))
		for i, ct := range cts {
			names[i], types[i] = ct.Name(), ct.DatabaseTypeName()
		}
		size := 65536
		if o := optionsOf(ctx); o != nil && o.BlockSize > 0 {
			size = o.BlockSize
		}
		return sqlblocks.Gather(names, types, size, scanner(r), fn)
	})
}

// scanner reads r a row at a time for internal/sqlblocks.
func scanner(r *sql.Rows) func(dest []any) (bool, error) {
	return func(dest []any) (bool, error) {
		if !r.Next() {
			return false, r.Err()
		}
		return true, r.Scan(dest...)
	}
}

// StreamRows runs query and calls fn with each row, as the values the driver returns (with
// chnative: the Go types of the columns package, read straight from the blocks). row is reused
// between calls. An error from fn stops the query and is returned.
func StreamRows[D SQLConn](ctx context.Context, db D, query string, args []any, fn func(row []any) error) error {
	var row []any
	err := withRaw(ctx, db, func(c Conn) error {
		return eachBlock(ctx, c, query, args, func(b *nativeproto.Block) error {
			if len(row) != b.NumColumns() {
				row = make([]any, b.NumColumns())
			}
			for i := range b.Rows() {
				for j := range row {
					row[j] = b.Column(j).Value(i)
				}
				if err := fn(row); err != nil {
					return err
				}
			}
			return nil
		})
	})
	if !errors.Is(err, errNotChnative) {
		return err
	}
	return streamSQL(ctx, db, query, args, func(r *sql.Rows) error {
		cols, err := r.Columns()
		if err != nil {
			return err
		}
		return sqlblocks.Rows(len(cols), scanner(r), fn)
	})
}

// eachBlock runs query on c (QueryBlocks) and calls fn with each block with rows; an error from
// fn closes the result (cancelling the query) and is returned.
func eachBlock(ctx context.Context, c Conn, query string, args []any, fn func(*nativeproto.Block) error) error {
	bs, err := c.QueryBlocks(ctx, query, args...)
	if err != nil {
		return err
	}
	for bs.Next() {
		if err := fn(bs.Block()); err != nil {
			_ = bs.Close()
			return err
		}
	}
	if err := bs.Err(); err != nil {
		_ = bs.Close()
		return err
	}
	return bs.Close()
}

func streamSQL[D SQLConn](ctx context.Context, db D, query string, args []any, fn func(*sql.Rows) error) error {
	var r *sql.Rows
	var err error
	switch x := any(db).(type) {
	case *sql.DB:
		r, err = x.QueryContext(ctx, query, args...)
	case *sql.Conn:
		r, err = x.QueryContext(ctx, query, args...)
	}
	if err != nil {
		return err
	}
	if err := fn(r); err != nil {
		_ = r.Close()
		return err
	}
	return r.Close()
}
