package chnative

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"

	"github.com/chnative/chnative/internal/structmap"
	"github.com/chnative/chnative/nativeproto"
)

// The struct tier: results read straight into Go structs. Columns are matched to fields once per
// query (by the `ch` tag, else the `db` tag, else the field name, case-insensitively); each row is
// then copied field by field from the typed columns, with no reflection per row for the common
// types. The machinery lives in internal/structmap (planning, copying) and in each column type
// (columns.FieldCopier); this file is the public face.

// Select runs query on c, a Conn or a chnative *sql.DB (one connection taken for the call) or
// *sql.Conn, and returns every row as a T. Each block is copied straight into the returned
// slice. Strings, []byte, slices and pointers in the rows point into memory allocated
// for each block and never reused: they belong to the caller (a kept string keeps its block's
// text alive).
func Select[T any](ctx context.Context, c any, query string, args ...any) ([]T, error) {
	// Blocks are read into chunks of their own size, joined once at the end: growing one slice
	// block by block would copy and zero the rows read so far again and again.
	var chunks [][]T
	total := 0
	err := scanStructs(ctx, c, query, args, func(n int) []T {
		chunk := make([]T, n)
		chunks = append(chunks, chunk)
		total += n
		return chunk
	}, nil)
	if err != nil || len(chunks) == 0 {
		return nil, err
	}
	if len(chunks) == 1 {
		return chunks[0], nil
	}
	out := make([]T, 0, total)
	for i, ch := range chunks {
		out = append(out, ch...)
		chunks[i] = nil // let the chunk go as soon as it is copied
	}
	return out, nil
}

// ScanStructs runs query on c (as Select's) and calls fn with the rows of each block as a slice of T. The slice
// is reused for the next block: copy the structs you keep. What the fields point to (strings,
// []byte, slices, pointers) is allocated for each block and never reused, so copied structs stay
// valid.
func ScanStructs[T any](ctx context.Context, c any, query string, args []any, fn func([]T) error) error {
	var buf []T
	return scanStructs(ctx, c, query, args, func(n int) []T {
		if cap(buf) < n {
			buf = make([]T, n)
		}
		buf = buf[:n]
		clear(buf)
		return buf
	}, fn)
}

// scanStructs reads each block into the zeroed n rows that rows returns, then calls fn (if any).
func scanStructs[T any](ctx context.Context, c any, query string, args []any, rows func(n int) []T, fn func([]T) error) error {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Struct {
		return fmt.Errorf("chnative: ScanStructs needs a struct type, not %v", t)
	}
	return withConn(ctx, c, func(c Conn) error { return scanBlocks(ctx, c, t, query, args, rows, fn) })
}

// withConn runs fn on c: a Conn itself, or one connection of a *sql.DB (taken for the call)
// or a *sql.Conn, which must be chnative's (also under a wrapping driver, see AsConn).
func withConn(ctx context.Context, c any, fn func(Conn) error) error {
	switch x := c.(type) {
	case Conn:
		return fn(x)
	case *sql.DB:
		return withRaw(ctx, x, fn) // errNotChnative with another driver
	case *sql.Conn:
		return withRaw(ctx, x, fn)
	}
	return fmt.Errorf("chnative: a Conn, *sql.DB or *sql.Conn is needed, not %T", c)
}

// InsertStructs inserts rows into "INSERT INTO t [(cols)]" as one Batch (see AppendStructs) on c
// (as Select's): sent whole, or on the first error aborted with nothing still buffered sent.
func InsertStructs[T any](ctx context.Context, c any, query string, rows []T) error {
	return withConn(ctx, c, func(c Conn) error {
		b, err := c.PrepareBatch(ctx, query)
		if err != nil {
			return err
		}
		if err := AppendStructs(b, rows); err != nil {
			b.Abort()
			return err
		}
		return b.SendContext(ctx)
	})
}

// scanBlocks copies each block of query's result into the rows that rows returns for it (see
// scanStructs), planning the struct mapping of t at the first block.
func scanBlocks[T any](ctx context.Context, c Conn, t reflect.Type, query string, args []any, rows func(n int) []T, fn func([]T) error) error {
	var plan structmap.ReadPlan
	return eachBlock(ctx, c, query, args, func(b *nativeproto.Block) (err error) {
		if !plan.Planned() {
			if plan, err = structmap.PlanRead(t, b); err != nil {
				return err
			}
		}
		dst := rows(b.Rows())
		if err := structmap.CopyBlock(plan, b, dst); err != nil || fn == nil {
			return err
		}
		return fn(dst)
	})
}
