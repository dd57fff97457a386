//go:build go1.27

package noopdriver

import (
	"database/sql"
	"database/sql/driver"
	"io"
)

// On Go 1.27 database/sql calls NextRow and ScanColumn instead of Next when a driver has them, as
// chnative's rows do: the no-op driver has them too, so its floor is that of the same path. The
// common destinations are assigned directly, as a driver with typed columns does; the rest go
// through sql.ConvertAssign.

var _ driver.RowsColumnScanner = (*rows)(nil)

func (r *rows) NextRow() error {
	if r.i >= r.n {
		return io.EOF
	}
	r.cur = r.d.rows[r.i%len(r.d.rows)]
	r.i++
	return nil
}

func (r *rows) ScanColumn(ctx driver.ScanContext, i int, dest any) error {
	v := r.cur[i]
	switch d := dest.(type) {
	case *uint64:
		if x, ok := v.(uint64); ok {
			*d = x
			return nil
		}
	case *string:
		if x, ok := v.(string); ok {
			*d = x
			return nil
		}
	case *float64:
		if x, ok := v.(float64); ok {
			*d = x
			return nil
		}
	case *any:
		*d = v
		return nil
	}
	return sql.ConvertAssign(ctx, dest, v)
}
