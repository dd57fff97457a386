package chnarrow

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/chnative/chnative"
	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/nativeproto"
)

// ErrNotChnative is returned when a connection is not chnative's (another driver's *sql.DB).
var ErrNotChnative = errors.New("chnarrow: the connection is not a chnative connection")

// Reader is an array.RecordReader over a query's result: one record per result block with rows,
// in the order the server sent them. Each record owns its memory (see the package doc): it
// stays valid after the next call to Next, and its values never change.
//
// Next, RecordBatch and Err are for one goroutine; Retain and Release may be called from any.
// Release of the last reference ends the query (it is cancelled if not read to its end) and
// hands the connection back.
type Reader struct {
	refs   atomic.Int64
	schema *arrow.Schema
	cur    arrow.RecordBatch
	err    error
	next   func() (arrow.RecordBatch, error) // io.EOF at the end
	close  func() error
	once   sync.Once
}

var _ array.RecordReader = (*Reader)(nil)

// Query runs query on a connection of db (a chnative *sql.DB) and returns its result as Arrow
// records, one per block. Arguments bind as in database/sql (?, $N, @name, {name:Type}). The
// connection is held until the reader is released: call Release when done, also after an error
// of Next. The schema comes from the first block with rows; a result without rows takes it
// from DESCRIBE TABLE (query), run with the same arguments.
//
// The result is read by a goroutine inside the connection's sql.Conn.Raw, one block ahead of
// the caller (two records at most wait: the one being read, the one handed over).
func Query(ctx context.Context, db *sql.DB, query string, args ...any) (*Reader, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	r, err := QuerySQLConn(ctx, conn, query, args...)
	if err != nil {
		conn.Close()
		return nil, err
	}
	end := r.close
	r.close = func() error { return errors.Join(end(), conn.Close()) }
	return r, nil
}

// QuerySQLConn is Query on conn, which stays the caller's (it is free again once the reader is
// released).
func QuerySQLConn(ctx context.Context, conn *sql.Conn, query string, args ...any) (*Reader, error) {
	type item struct {
		rec arrow.RecordBatch
		err error
	}
	items := make(chan item, 1)
	start := make(chan *Reader, 1)
	done := make(chan struct{})
	finished := make(chan error, 1)
	go func() {
		finished <- conn.Raw(func(dc any) error {
			c, ok := chnative.AsConn(dc)
			if !ok {
				return ErrNotChnative
			}
			r, err := QueryConn(ctx, c, query, args...)
			if err != nil {
				return err
			}
			defer r.Release()
			start <- r
			for r.Next() {
				rec := r.RecordBatch()
				rec.Retain()
				select {
				case items <- item{rec: rec}:
				case <-done:
					rec.Release()
					return nil
				}
			}
			err = r.Err()
			if err == nil {
				err = io.EOF
			}
			select {
			case items <- item{err: err}:
			case <-done:
			}
			return nil
		})
	}()
	var inner *Reader
	select {
	case inner = <-start:
	case err := <-finished:
		// A short result can finish before this select runs, with its reader already sent:
		// take the reader then, and keep the callback's end for close.
		select {
		case inner = <-start:
			finished <- err
		default:
			if err == nil {
				err = errors.New("chnarrow: the query ended before its result")
			}
			return nil, err
		}
	}
	r := &Reader{schema: inner.schema}
	r.refs.Store(1)
	r.next = func() (arrow.RecordBatch, error) {
		it := <-items
		return it.rec, it.err
	}
	r.close = func() error {
		close(done)
		err := <-finished
		for { // records handed over but never read
			select {
			case it := <-items:
				if it.rec != nil {
					it.rec.Release()
				}
			default:
				return err
			}
		}
	}
	return r, nil
}

// QueryConn runs query on c, a chnative connection reached through sql.Conn.Raw (or
// chnative.AsConn), and reads its result block by block as the caller calls Next. Release the
// reader inside the Raw callback, as with chnative.Blocks.
func QueryConn(ctx context.Context, c chnative.Conn, query string, args ...any) (*Reader, error) {
	blocks, err := c.QueryBlocks(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	r := &Reader{close: blocks.Close}
	r.refs.Store(1)
	var conv *converter
	if blocks.Next() {
		conv, err = newConverter(blocks.Block())
	} else if err = blocks.Err(); err == nil {
		// No block with rows: the schema comes from the server's description of the result.
		conv, err = describe(ctx, c, blocks.Columns(), query, args)
	}
	if err != nil {
		blocks.Close()
		return nil, err
	}
	r.schema = conv.schema
	first := true
	r.next = func() (arrow.RecordBatch, error) {
		if !first && !blocks.Next() {
			if err := blocks.Err(); err != nil {
				return nil, err
			}
			return nil, io.EOF
		}
		if first {
			first = false
			if blocks.Block() == nil {
				return nil, io.EOF
			}
		}
		return conv.record(blocks.Block())
	}
	return r, nil
}

// describe builds the converter of an empty result from DESCRIBE of the query.
func describe(ctx context.Context, c chnative.Conn, names []string, query string, args []any) (*converter, error) {
	blocks, err := c.QueryBlocks(ctx, "DESCRIBE TABLE ("+query+")", args...)
	if err != nil {
		return nil, fmt.Errorf("chnarrow: the result had no rows and DESCRIBE of the query failed: %w", err)
	}
	defer blocks.Close()
	blk := &nativeproto.Block{}
	i := 0
	for blocks.Next() {
		b := blocks.Block()
		nameCol, ok1 := b.Column(0).(*columns.String)
		typeCol, ok2 := b.Column(1).(*columns.String)
		if !ok1 || !ok2 {
			return nil, errors.New("chnarrow: DESCRIBE answered columns that are not (name String, type String, ...)")
		}
		for r := range b.Rows() {
			col, err := columns.New(typeCol.String(r))
			if err != nil {
				return nil, err
			}
			columns.SetLocation(col, c.Location())
			name := nameCol.String(r)
			if i < len(names) {
				name = names[i]
			}
			blk.Add(name, col)
			i++
		}
	}
	if err := blocks.Err(); err != nil {
		return nil, err
	}
	return newConverter(blk)
}

// Schema returns the records' schema: one field per result column, named as the result's,
// with the ClickHouse type in the field's metadata (TypeMetadataKey).
func (r *Reader) Schema() *arrow.Schema { return r.schema }

// Next moves to the next record, reporting false at the end or on an error (see Err). The
// reader's reference to the previous record is released; a record the caller retained stays
// valid and unchanged.
func (r *Reader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil || r.next == nil {
		return false
	}
	rec, err := r.next()
	if err != nil {
		if err != io.EOF {
			r.err = err
		}
		r.next = nil
		return false
	}
	r.cur = rec
	return true
}

// RecordBatch returns the current record (nil before Next and after the end). It is the
// reader's until the next call to Next: Retain it to keep it longer.
func (r *Reader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record is RecordBatch.
//
// Deprecated: Use RecordBatch, as arrow-go's RecordReader says.
func (r *Reader) Record() arrow.RecordBatch { return r.cur }

// Err returns the error that ended Next, if any.
func (r *Reader) Err() error { return r.err }

// Retain adds a reference to the reader.
func (r *Reader) Retain() { r.refs.Add(1) }

// Release drops a reference; the last one ends the query (see Reader).
func (r *Reader) Release() {
	if r.refs.Add(-1) > 0 {
		return
	}
	r.once.Do(func() {
		if r.cur != nil {
			r.cur.Release()
			r.cur = nil
		}
		if err := r.close(); err != nil && r.err == nil {
			r.err = err
		}
	})
}

// Close releases the reader (the last reference) and returns the error that ended the query,
// if any: Err, or a failure to end the query.
func (r *Reader) Close() error {
	r.Release()
	return r.err
}

// converter turns the blocks of one result into records of one schema.
type converter struct {
	schema *arrow.Schema
	types  []string // each column's ClickHouse type: every block must have the same
}

func newConverter(b *nativeproto.Block) (*converter, error) {
	names := make([]string, b.NumColumns())
	cols := make([]columns.Column, b.NumColumns())
	types := make([]string, b.NumColumns())
	for i := range cols {
		names[i], cols[i], types[i] = b.Name(i), b.Column(i), b.Type(i)
	}
	s, err := schemaOf(names, cols)
	if err != nil {
		return nil, err
	}
	return &converter{schema: s, types: types}, nil
}

// record converts a block into a record, taking its fixed-width columns' memory.
func (cv *converter) record(b *nativeproto.Block) (arrow.RecordBatch, error) {
	if b.NumColumns() != len(cv.types) {
		return nil, fmt.Errorf("chnarrow: a block of %d columns in a result of %d", b.NumColumns(), len(cv.types))
	}
	n := b.Rows()
	arrs := make([]arrow.Array, len(cv.types))
	defer func() {
		for _, a := range arrs {
			if a != nil {
				a.Release()
			}
		}
	}()
	for i := range arrs {
		col := b.Column(i)
		if col.Type() != cv.types[i] {
			return nil, fmt.Errorf("chnarrow: column %s changed type from %s to %s between blocks", b.Name(i), cv.types[i], col.Type())
		}
		d, err := toData(col, cv.schema.Field(i).Type, true)
		if err != nil {
			return nil, fmt.Errorf("chnarrow: column %s: %w", b.Name(i), err)
		}
		arrs[i] = array.MakeFromData(d)
		d.Release()
	}
	return array.NewRecordBatch(cv.schema, arrs, int64(n)), nil
}
