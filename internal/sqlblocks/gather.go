// Package sqlblocks gathers rows read through database/sql by another driver into blocks of
// typed columns: StreamBlocks' fallback (the root's sqlhelpers.go), so that code reading blocks
// can be unit tested with go-sqlmock. It sees the rows only through a scan function: nothing
// below the root imports database/sql.
package sqlblocks

import (
	"fmt"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/chconn"
	"github.com/chnative/chnative/nativeproto"
)

// Gather reads rows with next, which scans one row into dest (pointers to one value per column,
// as sql.Rows.Scan takes them) and reports false at the end, into a block of columns named names of the ClickHouse types types, and calls fn with
// the block every size rows and with the last rows. A type columns.New does not know fails
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
	vals, ptrs := make([]any, len(types)), make([]any, len(types))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
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
