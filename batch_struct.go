package chnative

import (
	"fmt"
	"reflect"

	"github.com/chnative/chnative/internal/chconn"
	"github.com/chnative/chnative/internal/structmap"
	"github.com/chnative/chnative/nativeproto"
)

// The struct tier of inserts: rows appended from Go structs. Fields are matched to the batch's
// columns once per batch and struct type (by the `ch` tag, else the `db` tag, else the field name,
// case-insensitively, as Select does); each column is then filled from its field of every row,
// with no reflection per row for the common types (fixed-width numbers and strings of the
// column's Go kind). The machinery lives in internal/structmap (planning, appending) and in each
// column type (columns.FieldAppender); this file is the public face.

// AppendStructs appends one row per element of rows. Every column of the batch needs a field;
// fields without a column are ignored. A field that does not convert to its column's type fails
// the call with a *ColumnError naming the column, the field and the row: the rows before it stay
// appended, as if appended one by one with Append. A block is sent every insert_block_rows rows
// or insert_block_bytes bytes, whichever comes first.
func AppendStructs[T any](b *Batch, rows []T) error {
	plan, err := b.structPlan(reflect.TypeFor[T]())
	if err != nil {
		return err
	}
	return b.ins.AppendWith(b.ctx, len(rows), func(blk *nativeproto.Block, from, to int) error {
		if err := structmap.AppendRows(plan, blk, rows[from:to]); err != nil {
			return chconn.FieldColumnError(blk, from, err)
		}
		return nil
	})
}

// AppendStruct appends one row from *row (see AppendStructs).
func AppendStruct[T any](b *Batch, row *T) error {
	if row == nil {
		return fmt.Errorf("chnative: AppendStruct of a nil %v", reflect.TypeFor[*T]())
	}
	return AppendStructs(b, structmap.SliceOfOne(row))
}

// structPlan returns the batch's plan for struct type t, compiling it on first use.
func (b *Batch) structPlan(t reflect.Type) (*structAppendPlan, error) {
	if p := b.plan; p != nil && p.Type() == t {
		return p, nil
	}
	p, err := structmap.PlanAppend(t, b.ins.Block())
	if err != nil {
		return nil, err
	}
	b.plan = p
	return p, nil
}

// structAppendPlan fills each column of a batch from one field of a struct type.
type structAppendPlan = structmap.AppendPlan
