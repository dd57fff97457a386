// Package sqlblocks reads the rows of another driver through database/sql for the root's
// helpers (sqlhelpers.go): StreamBlocks' fallback gathers them into blocks of typed columns, so
// that code reading blocks can be unit tested with go-sqlmock, and StreamRows' hands them over.
// It sees the rows only through a scan function: nothing below the root imports database/sql.
package sqlblocks

import (
	"fmt"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/chconn"
	"github.com/chnative/chnative/nativeproto"
)

// Gather reads rows with next, which scans one row into dest (pointers to one value per column,
// as sql.Rows.Scan takes them) and reports false at the end, into a block of columns named names
// of the ClickHouse types types, and calls fn with the block every size rows and with the last
// rows. A type columns.New does not know fails
// before any row is read; a value its column refuses fails with a *chconn.ColumnError.
func Gather(names, types []string, size int, next func(dest []any) (bool, error), fn func(*nativeproto.Block) error) error {
	block := nativeproto.NewBlock()
	for i, typ := range types {
		col, err := columns.New(typ)
		if err != nil {
			return fmt.Errorf("chnative: StreamBlocks: column %s: type %q: %w", names[i], typ, err)
		}
		block.Add(names[i], col)
	}
	vals, ptrs := scanRow(len(types))
	for row := 0; ; row++ {
		ok, err := next(ptrs)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		for i, v := range vals {
			if err := block.Column(i).AppendValue(v); err != nil {
				return &chconn.ColumnError{Column: block.Name(i), Type: block.Type(i), Row: row, Err: err}
			}
		}
		if block.Rows() >= size {
			if err := fn(block); err != nil {
				return err
			}
			block.Reset()
		}
	}
	if block.Rows() > 0 {
		return fn(block)
	}
	return nil
}

// Rows reads rows with next (as Gather's) into row, n values reused from row to row, and calls
// fn with each: StreamRows' fallback.
func Rows(n int, next func(dest []any) (bool, error), fn func(row []any) error) error {
	row, ptrs := scanRow(n)
	for {
		if ok, err := next(ptrs); !ok || err != nil {
			return err
		}
		if err := fn(row); err != nil {
			return err
		}
	}
}

// scanRow returns n values and pointers to them, for sql.Rows.Scan.
func scanRow(n int) (vals, ptrs []any) {
	vals, ptrs = make([]any, n), make([]any, n)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	return vals, ptrs
}
