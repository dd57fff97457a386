package structmap

import (
	"encoding"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/fieldslice"
	"github.com/chnative/chnative/internal/valuer"
	"github.com/chnative/chnative/nativeproto"
)

// AppendPlan fills each column of an insert block from one field of a struct type.
type AppendPlan struct {
	typ    reflect.Type
	fields []fieldAppender // one per column, in column order
}

// fieldAppender appends one field of every row to one column.
type fieldAppender struct {
	field reflect.StructField
	size  uintptr // field.Type.Size()
	fn    columns.FieldAppendFunc
	col   columns.Column // the column fn was chosen for
	typ   string         // its type
}

// FieldError is the failure of a row's field in AppendRows: Col is the column's index, Row the
// row's index in the rows given, Field the field's name.
type FieldError struct {
	Col, Row int
	Field    string
	Err      error
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("column %d, row %d: field %s: %v", e.Col, e.Row, e.Field, e.Err)
}

func (e *FieldError) Unwrap() error { return e.Err }

// PlanAppend matches the columns of b to the fields of t: every column needs a field; fields
// without a column are ignored.
func PlanAppend(t reflect.Type, b *nativeproto.Block) (*AppendPlan, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("chnative: AppendStructs needs a struct type, not %v", t)
	}
	fields, err := columnFields(t)
	if err != nil {
		return nil, err
	}
	p := &AppendPlan{typ: t, fields: make([]fieldAppender, b.NumColumns())}
	for i := range p.fields {
		f, ok := fields[strings.ToLower(b.Name(i))]
		if !ok {
			return nil, fmt.Errorf("chnative: no field of %v for column %s", t, b.Name(i))
		}
		c := b.Column(i)
		p.fields[i] = fieldAppender{field: f, size: f.Type.Size(), fn: appenderFor(c, f.Type), col: c, typ: c.Type()}
	}
	return p, nil
}

// Type returns the struct type p was planned for.
func (p *AppendPlan) Type() reflect.Type { return p.typ }

// AppendRows appends rows to b's columns, column by column. When a value fails, every column is
// cut back to the rows before the first failing row (of any column), so the result is what
// appending the rows one by one would leave, and the error is a *FieldError. Columns copy what
// they append: rows stay the caller's.
func AppendRows[T any](p *AppendPlan, b *nativeproto.Block, rows []T) error {
	if err := p.check(b); err != nil {
		return err
	}
	return p.appendRows(b, len(rows), func(f *reflect.StructField) fieldslice.Slice { return fieldslice.Of(rows, *f) })
}

// AppendValues is AppendRows for rows held in a reflect.Value: a slice of p's struct type, or a
// non-nil pointer to one struct (appended in place: no copy, no allocation).
func AppendValues(p *AppendPlan, b *nativeproto.Block, rows reflect.Value) error {
	switch {
	case rows.Kind() == reflect.Pointer && rows.Type().Elem() == p.typ && !rows.IsNil():
		if err := p.check(b); err != nil {
			return err
		}
		return AppendChecked(p, b, rows)
	case rows.Kind() == reflect.Slice && rows.Type().Elem() == p.typ:
		if err := p.check(b); err != nil {
			return err
		}
		return p.appendRows(b, rows.Len(), func(f *reflect.StructField) fieldslice.Slice { return fieldslice.OfValue(rows, *f) })
	}
	return fmt.Errorf("chnative: rows of %v for a plan of %v", rows.Type(), p.typ)
}

// AppendChecked appends the struct row points to (a non-nil pointer to p's type) to b, which
// Check accepted and whose columns are the same since: an appender that checks each of its
// blocks once (the Inserter's lanes) skips a check per row.
//
// It refuses any other row before reading it; past that check no field access can fall outside
// the row (the plan's fields are p's type's), so, unlike the slice appends, it sets up no
// recover (a deferred one was 8% of an append).
func AppendChecked(p *AppendPlan, b *nativeproto.Block, row reflect.Value) error {
	if row.Kind() != reflect.Pointer || row.Type().Elem() != p.typ || row.IsNil() {
		var got any = "no value"
		if row.IsValid() {
			got = row.Type()
		}
		return fmt.Errorf("chnative: a row of %v for a plan of %v: want a non-nil pointer to it", got, p.typ)
	}
	return p.appendRow(b, fieldslice.RowOf(row))
}

// appendRow is appendRows of one row, r, without a callback per field: the Inserter's
// AppendStruct runs it per row. A field that fails leaves every column as it was.
func (p *AppendPlan) appendRow(b *nativeproto.Block, r fieldslice.Row) error {
	start := b.Rows()
	for j := range p.fields {
		fa := &p.fields[j]
		if _, err := fa.fn(b.Column(j), r.FieldSized(&fa.field, fa.size), 1); err != nil {
			for i := range j {
				b.Column(i).Truncate(start)
			}
			return &FieldError{Col: j, Row: 0, Field: fa.field.Name, Err: err}
		}
	}
	return nil
}

// refuseAccess, deferred by the appends, turns a *fieldslice.Error panic (a field access outside
// the caller's struct or slice, which a plan that fits its type never makes) into the append's
// error, with every column of b cut back to start rows: no panic reaches the caller, and no
// column keeps part of a row. Other panics go on.
func (p *AppendPlan) refuseAccess(b *nativeproto.Block, start int, err *error) {
	r := recover()
	if r == nil {
		return
	}
	fe, ok := r.(*fieldslice.Error)
	if !ok {
		panic(r)
	}
	for j := range b.NumColumns() {
		if b.Column(j).Rows() > start {
			b.Column(j).Truncate(start)
		}
	}
	*err = fmt.Errorf("chnative: struct append refused: %w", fe)
}

// Check refuses a block whose columns are not those p was made for, and binds p to b's.
func (p *AppendPlan) Check(b *nativeproto.Block) error { return p.check(b) }

// appendRows appends n rows, each column from field's Slice of its field (given by pointer: a
// StructField is about 100 bytes, a copy per column was a fifth of a one-row append).
func (p *AppendPlan) appendRows(b *nativeproto.Block, n int, field func(*reflect.StructField) fieldslice.Slice) (err error) {
	start := b.Rows()
	defer p.refuseAccess(b, start, &err)
	failRow, failCol := n, -1
	var failErr error
	for j := range p.fields {
		fa := &p.fields[j]
		if k, err := fa.fn(b.Column(j), field(&fa.field), failRow); err != nil {
			failRow, failCol, failErr = k, j, err
		}
	}
	if failCol < 0 {
		return nil
	}
	for j := range p.fields {
		b.Column(j).Truncate(start + failRow)
	}
	return &FieldError{Col: failCol, Row: failRow, Field: p.fields[failCol].field.Name, Err: failErr}
}

// PlanMismatchError reports a block whose columns are not those an AppendPlan was made for (an
// insert resumed on a replica whose table differs, say): appending by the plan would hand a
// column values of another type.
type PlanMismatchError struct {
	Col            int
	Type, WantType string // "" Type: the block has another number of columns
}

func (e *PlanMismatchError) Error() string {
	if e.Type == "" {
		return fmt.Sprintf("chnative: the insert block's columns changed since the struct plan was made (column %d)", e.Col)
	}
	return fmt.Sprintf("chnative: insert column %d is %s, the struct plan was made for %s", e.Col, e.Type, e.WantType)
}

// check refuses a block whose columns are not the plan's: the same column objects (no
// allocation), or columns of the same types.
func (p *AppendPlan) check(b *nativeproto.Block) error {
	if b.NumColumns() != len(p.fields) {
		return &PlanMismatchError{Col: min(b.NumColumns(), len(p.fields))}
	}
	for j := range p.fields {
		fa := &p.fields[j]
		c := b.Column(j)
		if c == fa.col {
			continue
		}
		if t := c.Type(); t != fa.typ {
			return &PlanMismatchError{Col: j, Type: t, WantType: fa.typ}
		}
		fa.col = c
	}
	return nil
}

// appenderFor returns the appender of a field of type ft into col: the column's typed loop when
// it has one for ft, else a loop through AppendValue.
func appenderFor(col columns.Column, ft reflect.Type) columns.FieldAppendFunc {
	if c, ok := col.(*columns.DateTime64); ok && ft == timeType {
		// time.Time has String and the marshalers, but a DateTime64 takes a time.Time as itself.
		if fn := c.FieldAppendFunc(ft); fn != nil {
			return fn
		}
	}
	if implementsConverter(ft) {
		return valueAppender(ft)
	}
	if fa, ok := col.(columns.FieldAppender); ok {
		if fn := fa.FieldAppendFunc(ft); fn != nil {
			return fn
		}
	}
	return valueAppender(ft)
}

var timeType = reflect.TypeFor[time.Time]()

// converterTypes are the interfaces columns take a value by (a database/sql Valuer everywhere,
// recognised by internal/valuer; encoding.BinaryMarshaler, fmt.Stringer and
// encoding.TextMarshaler in some columns), which the typed loops would bypass.
var converterTypes = []reflect.Type{
	reflect.TypeFor[encoding.BinaryMarshaler](), reflect.TypeFor[fmt.Stringer](), reflect.TypeFor[encoding.TextMarshaler](),
}

// implementsConverter reports whether ft or *ft is a Valuer or implements one of converterTypes.
func implementsConverter(ft reflect.Type) bool {
	pt := reflect.PointerTo(ft)
	if valuer.IsType(ft) || valuer.IsType(pt) {
		return true
	}
	for _, it := range converterTypes {
		if ft.Implements(it) || pt.Implements(it) {
			return true
		}
	}
	return false
}

// pointerOnlyConverter reports whether *ft is a Valuer or implements one of converterTypes that
// ft does not (a method with a pointer receiver).
func pointerOnlyConverter(ft reflect.Type) bool {
	pt := reflect.PointerTo(ft)
	if !valuer.IsType(ft) && valuer.IsType(pt) {
		return true
	}
	for _, it := range converterTypes {
		if !ft.Implements(it) && pt.Implements(it) {
			return true
		}
	}
	return false
}

// valueAppender boxes each field value and appends it with AppendValue (Nullable from pointers,
// time.Time, decimals, arrays, Valuers, ...). A field whose type has one of those methods
// only on its pointer (MarshalBinary with a pointer receiver) is given as a pointer to it, so the
// column finds the method; columns copy what they append and keep no pointer.
func valueAppender(ft reflect.Type) columns.FieldAppendFunc {
	if pointerOnlyConverter(ft) {
		return func(col columns.Column, src fieldslice.Slice, n int) (int, error) {
			for i := 0; i < n; i++ {
				if err := col.AppendValue(src.Addr(i, ft).Interface()); err != nil {
					return i, err
				}
			}
			return n, nil
		}
	}
	return func(col columns.Column, src fieldslice.Slice, n int) (int, error) {
		for i := 0; i < n; i++ {
			if err := col.AppendValue(src.Addr(i, ft).Elem().Interface()); err != nil {
				return i, err
			}
		}
		return n, nil
	}
}
