package ingest

import (
	"context"
	"fmt"
	"reflect"

	"github.com/chnative/chnative/internal/chconn"
	"github.com/chnative/chnative/internal/structmap"
	"github.com/chnative/chnative/nativeproto"
)

// maxPlans bounds the struct plans a lane keeps: a caller appending more struct types than this
// through one Inserter replans the oldest.
const maxPlans = 8

// AppendStruct appends the struct row points to as one row, its fields mapped to the columns as
// structmap maps them, read in place (no copy). Each lane keeps the plans of the struct types
// appended through it: the lookup compares types (no hashing), and a plan follows its lane's
// blocks (its check rebinds it to a new block of the same column types), so a caller reusing
// its struct appends without allocating.
func (e *Engine) AppendStruct(ctx context.Context, row any) error {
	v := reflect.ValueOf(row)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Type().Elem().Kind() != reflect.Struct {
		return fmt.Errorf("chnative: Inserter.AppendStruct of %T: want a non-nil pointer to a struct", row)
	}
	l := e.lane()
	defer e.release(l)
	cur, err := e.current(ctx, l)
	if err != nil {
		return err
	}
	b := cur.b
	p, err := l.plan(v.Type().Elem(), b)
	if err != nil {
		return err
	}
	if err := structmap.AppendChecked(p.plan, b, v); err != nil {
		return chconn.FieldColumnError(b, b.Rows(), err)
	}
	e.added(l, cur, 1)
	return nil
}

// AppendStructs appends a row per element of rows, a slice of structs, under one lane's lock:
// block by block, each part measured and sealed as appends one by one would be. A field that
// does not convert fails the call with a *chconn.ColumnError whose Row is the element's index;
// the elements before it stay appended.
func (e *Engine) AppendStructs(ctx context.Context, rows any) error {
	v := reflect.ValueOf(rows)
	if v.Kind() != reflect.Slice || v.Type().Elem().Kind() != reflect.Struct {
		return fmt.Errorf("chnative: Inserter.AppendStructs of %T: want a slice of structs", rows)
	}
	l := e.lane()
	defer e.release(l)
	for done := 0; done < v.Len(); {
		cur, err := e.current(ctx, l)
		if err != nil {
			return err
		}
		b := cur.b
		p, err := l.plan(v.Type().Elem(), b)
		if err != nil {
			return err
		}
		start := b.Rows()
		// Up to the block's next measure (added seals it when due), at least one row.
		n := min(v.Len()-done, max(min(cur.checkAt, e.cfg.MaxRows)-start, 1))
		err = structmap.AppendValues(p.plan, b, v.Slice(done, done+n))
		if added := b.Rows() - start; added > 0 {
			e.added(l, cur, added)
		}
		if err != nil {
			return chconn.FieldColumnError(b, done, err)
		}
		done += n
	}
	return nil
}

// lanePlan is a struct plan of a lane and the block it was last checked against: an engine's
// blocks keep their columns, so a plan is checked once per block, not per row.
type lanePlan struct {
	plan    *structmap.AppendPlan
	checked *nativeproto.Block
}

// plan returns l's plan of struct type t, planning it for b on first use, checked against b
// (l.mu held).
func (l *lane) plan(t reflect.Type, b *nativeproto.Block) (*lanePlan, error) {
	var p *lanePlan
	for _, lp := range l.plans {
		if lp.plan.Type() == t {
			p = lp
			break
		}
	}
	if p == nil {
		plan, err := structmap.PlanAppend(t, b)
		if err != nil {
			return nil, err
		}
		if len(l.plans) == maxPlans {
			l.plans = append(l.plans[:0], l.plans[1:]...)
		}
		p = &lanePlan{plan: plan}
		l.plans = append(l.plans, p)
	}
	if p.checked != b {
		if err := p.plan.Check(b); err != nil {
			return nil, err
		}
		p.checked = b
	}
	return p, nil
}
