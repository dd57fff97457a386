//go:build linux

package hostile_test

import (
	"context"
	"database/sql"
	"errors"

	"github.com/chnative/chnative"
	"github.com/chnative/chnative/nativeproto"
)

// hostileSQL is the query every case's answer answers.
const hostileSQL = "SELECT hostile"

// tier is the public API a case reads its answer through.
type tier int

const (
	tierRows   tier = iota // database/sql Rows + Scan, then NextResultSet (totals, extremes)
	tierBlocks             // QueryBlocks through sql.Conn.Raw, every value of every block touched
	tierSelect             // Select[T] through sql.Conn.Raw
	tierBatch              // PrepareBatch: the answer is the INSERT's header
)

var readTiers = []tier{tierRows, tierBlocks, tierSelect}

func (t tier) String() string {
	return [...]string{"rows", "blocks", "select", "batch"}[t]
}

// Struct types of the select tier: every column of a case needs a field (by lower-cased name).
type (
	rowAny struct {
		C, C1, C2, C3, C4, C5 any
		N                     any
		S                     any
	}
	// rowInt8 has a pointer after a narrow field: a wider value copied into C would reach P.
	rowInt8 struct {
		C int8
		P *int
	}
)

// run reads the hostile answer through the tier and returns the rows read and the error.
func (t tier) run(ctx context.Context, db *sql.DB, c *hcase) (int, error) {
	if t == tierRows {
		return readRows(ctx, db)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	n := 0
	err = conn.Raw(func(dc any) error {
		cc, ok := chnative.AsConn(dc)
		if !ok {
			return errors.New("not a chnative connection")
		}
		switch t {
		case tierBlocks:
			n, err = readBlocks(ctx, cc)
		case tierSelect:
			if c.selectAs == "int8" {
				var rs []rowInt8
				rs, err = chnative.Select[rowInt8](ctx, cc, hostileSQL)
				n = len(rs)
				for _, r := range rs {
					if r.P != nil {
						return errors.New("the pointer field after C was written")
					}
				}
			} else {
				var rs []rowAny
				rs, err = chnative.Select[rowAny](ctx, cc, hostileSQL)
				n = len(rs)
			}
		case tierBatch:
			var b *chnative.Batch
			b, err = cc.PrepareBatch(ctx, "INSERT INTO hostile_t")
			if err == nil {
				b.Abort() // the lying header was accepted: the case fails
			}
		}
		return err
	})
	return n, err
}

// readRows scans every row of every result set (data, totals, extremes) into *any.
func readRows(ctx context.Context, db *sql.DB) (int, error) {
	rows, err := db.QueryContext(ctx, hostileSQL)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for set := 0; ; set++ {
		cols, err := rows.Columns()
		if err != nil {
			return n, err
		}
		dest := make([]any, len(cols))
		for i := range dest {
			dest[i] = new(any)
		}
		for rows.Next() {
			if err := rows.Scan(dest...); err != nil {
				return n, err
			}
			if set == 0 {
				n++
			}
		}
		if err := rows.Err(); err != nil {
			return n, err
		}
		if !rows.NextResultSet() {
			break
		}
	}
	return n, rows.Err()
}

// readBlocks reads every block and touches its values, then the totals and extremes.
func readBlocks(ctx context.Context, cc chnative.Conn) (int, error) {
	bl, err := cc.QueryBlocks(ctx, hostileSQL)
	if err != nil {
		return 0, err
	}
	defer bl.Close()
	n := 0
	for bl.Next() {
		b := bl.Block()
		n += b.Rows()
		touch(b)
	}
	if err := bl.Err(); err != nil {
		return n, err
	}
	touch(bl.Totals())
	touch(bl.Extremes())
	return n, bl.Close()
}

// touch reads the values of (up to 1000 rows of) every column of b.
func touch(b *nativeproto.Block) {
	if b == nil {
		return
	}
	for i := 0; i < b.NumColumns(); i++ {
		col := b.Column(i)
		for r := 0; r < min(b.Rows(), col.Rows(), 1000); r++ {
			_ = col.Value(r)
		}
	}
}
