package chnative

import (
	"database/sql/driver"
	"encoding"
	"fmt"
	"reflect"
	"strings"
	"unsafe"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/chconn"
)

// The struct tier of inserts: rows appended from Go structs. Fields are matched to the batch's
// columns once per batch and struct type (by the `ch` tag, else the `db` tag, else the field name,
// case-insensitively, as Select does); each column is then filled from its field of every row,
// with no reflection per row for the common types (fixed-width numbers and strings of the
// column's Go kind).

// AppendStructs appends one row per element of rows. Every column of the batch needs a field;
// fields without a column are ignored. A field that does not convert to its column's type fails
// the call with a *ColumnError naming the column, the field and the row: the rows before it stay
// appended, as if appended one by one with Append. Blocks are sent every max_block_size rows.
func AppendStructs[T any](b *Batch, rows []T) error {
	plan, err := b.structPlan(reflect.TypeFor[T]())
	if err != nil {
		return err
	}
	ins := b.ins
	size := unsafe.Sizeof(*new(T))
	done := 0
	for done < len(rows) {
		if ins.Done() {
			return ErrClosed
		}
		n := min(len(rows)-done, max(ins.BlockRows()-ins.Block().Rows(), 1))
		base := unsafe.Pointer(unsafe.SliceData(rows[done:]))
		if err := plan.append(ins, base, size, n, done); err != nil {
			return err
		}
		done += n
		if ins.Block().Rows() >= ins.BlockRows() {
			if err := ins.Flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

// AppendStruct appends one row from *row (see AppendStructs).
func AppendStruct[T any](b *Batch, row *T) error {
	if row == nil {
		return fmt.Errorf("chnative: AppendStruct of a nil %v", reflect.TypeFor[*T]())
	}
	return AppendStructs(b, unsafe.Slice(row, 1))
}

// structPlan returns the batch's plan for struct type t, compiling it on first use.
func (b *Batch) structPlan(t reflect.Type) (*structAppendPlan, error) {
	if p := b.plan; p != nil && p.typ == t {
		return p, nil
	}
	p, err := planStructAppend(t, b.ins)
	if err != nil {
		return nil, err
	}
	b.plan = p
	return p, nil
}

// structAppendPlan fills each column of a batch from one field of a struct type.
type structAppendPlan struct {
	typ    reflect.Type
	fields []fieldAppender // one per column, in column order
}

// fieldAppender appends the field at offset of n rows, stride bytes apart from base, to a column.
// On an error at row k it returns k, having appended rows [0, k).
type fieldAppender struct {
	field  string
	offset uintptr
	fn     func(col columns.Column, base unsafe.Pointer, stride uintptr, n int) (int, error)
}

func planStructAppend(t reflect.Type, ins *chconn.Insert) (*structAppendPlan, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("chnative: AppendStructs needs a struct type, not %v", t)
	}
	fields, err := structFields(t)
	if err != nil {
		return nil, err
	}
	b := ins.Block()
	p := &structAppendPlan{typ: t, fields: make([]fieldAppender, b.NumColumns())}
	for i := range p.fields {
		f, ok := fields[strings.ToLower(b.Name(i))]
		if !ok {
			return nil, fmt.Errorf("chnative: no field of %v for column %s", t, b.Name(i))
		}
		p.fields[i] = fieldAppender{field: f.Name, offset: f.Offset, fn: appenderFor(b.Column(i), f.Type)}
	}
	return p, nil
}

// append appends n rows starting at base to the block, column by column. When a value fails,
// every column is cut back to the rows before the first failing row (of any column), so the result
// is what appending the rows one by one would leave. first is the index of base's row in the call.
func (p *structAppendPlan) append(ins *chconn.Insert, base unsafe.Pointer, stride uintptr, n, first int) error {
	b := ins.Block()
	start := b.Rows()
	failRow, failCol := n, -1
	var failErr error
	for j := range p.fields {
		fa := &p.fields[j]
		if k, err := fa.fn(b.Column(j), unsafe.Add(base, fa.offset), stride, failRow); err != nil {
			failRow, failCol, failErr = k, j, err
		}
	}
	if failCol < 0 {
		return nil
	}
	for j := range p.fields {
		b.Column(j).Truncate(start + failRow)
	}
	return &ColumnError{Column: b.Name(failCol), Type: b.Type(failCol), Row: first + failRow,
		Err: fmt.Errorf("field %s: %w", p.fields[failCol].field, failErr)}
}

// appenderFor returns the appender of a field of type ft into col: a typed loop when the column
// stores ft's kind as it is, else a loop through AppendValue.
func appenderFor(col columns.Column, ft reflect.Type) func(columns.Column, unsafe.Pointer, uintptr, int) (int, error) {
	if implementsConverter(ft) {
		return valueAppender(ft)
	}
	k := ft.Kind()
	switch col.(type) {
	case *columns.UInt8:
		if k == reflect.Uint8 {
			return fixedAppender[uint8]
		}
	case *columns.UInt16:
		if k == reflect.Uint16 {
			return fixedAppender[uint16]
		}
	case *columns.UInt32:
		if k == reflect.Uint32 {
			return fixedAppender[uint32]
		}
	case *columns.UInt64:
		if k == reflect.Uint64 {
			return fixedAppender[uint64]
		}
	case *columns.Int8:
		if k == reflect.Int8 {
			return fixedAppender[int8]
		}
	case *columns.Int16:
		if k == reflect.Int16 {
			return fixedAppender[int16]
		}
	case *columns.Int32:
		if k == reflect.Int32 {
			return fixedAppender[int32]
		}
	case *columns.Int64:
		if k == reflect.Int64 {
			return fixedAppender[int64]
		}
	case *columns.Float32:
		if k == reflect.Float32 {
			return fixedAppender[float32]
		}
	case *columns.Float64:
		if k == reflect.Float64 {
			return fixedAppender[float64]
		}
	case *columns.String:
		if k == reflect.String {
			return stringAppender
		}
		if k == reflect.Slice && ft.Elem().Kind() == reflect.Uint8 {
			return bytesAppender
		}
	}
	return valueAppender(ft)
}

// converterTypes are the interfaces columns take a value by (driver.Valuer everywhere;
// encoding.BinaryMarshaler, fmt.Stringer and encoding.TextMarshaler in some columns), which the
// typed loops would bypass.
var converterTypes = []reflect.Type{
	reflect.TypeFor[driver.Valuer](), reflect.TypeFor[encoding.BinaryMarshaler](),
	reflect.TypeFor[fmt.Stringer](), reflect.TypeFor[encoding.TextMarshaler](),
}

// implementsConverter reports whether ft or *ft implements one of converterTypes.
func implementsConverter(ft reflect.Type) bool {
	pt := reflect.PointerTo(ft)
	for _, it := range converterTypes {
		if ft.Implements(it) || pt.Implements(it) {
			return true
		}
	}
	return false
}

// pointerOnlyConverter reports whether *ft implements one of converterTypes that ft does not
// (a method with a pointer receiver).
func pointerOnlyConverter(ft reflect.Type) bool {
	pt := reflect.PointerTo(ft)
	for _, it := range converterTypes {
		if !ft.Implements(it) && pt.Implements(it) {
			return true
		}
	}
	return false
}

func fixedAppender[T columns.FixedNum](col columns.Column, base unsafe.Pointer, stride uintptr, n int) (int, error) {
	c := col.(*columns.Fixed[T])
	for i := 0; i < n; i++ {
		c.Append(*(*T)(unsafe.Add(base, uintptr(i)*stride)))
	}
	return n, nil
}

func stringAppender(col columns.Column, base unsafe.Pointer, stride uintptr, n int) (int, error) {
	c := col.(*columns.String)
	for i := 0; i < n; i++ {
		c.Append(*(*string)(unsafe.Add(base, uintptr(i)*stride)))
	}
	return n, nil
}

func bytesAppender(col columns.Column, base unsafe.Pointer, stride uintptr, n int) (int, error) {
	c := col.(*columns.String)
	for i := 0; i < n; i++ {
		c.AppendBytes(*(*[]byte)(unsafe.Add(base, uintptr(i)*stride)))
	}
	return n, nil
}

// valueAppender boxes each field value and appends it with AppendValue (Nullable from pointers,
// time.Time, decimals, arrays, driver.Valuer, ...). A field whose type has one of those methods
// only on its pointer (MarshalBinary with a pointer receiver) is given as a pointer to it, so the
// column finds the method; columns copy what they append and keep no pointer.
func valueAppender(ft reflect.Type) func(columns.Column, unsafe.Pointer, uintptr, int) (int, error) {
	if pointerOnlyConverter(ft) {
		return func(col columns.Column, base unsafe.Pointer, stride uintptr, n int) (int, error) {
			for i := 0; i < n; i++ {
				if err := col.AppendValue(reflect.NewAt(ft, unsafe.Add(base, uintptr(i)*stride)).Interface()); err != nil {
					return i, err
				}
			}
			return n, nil
		}
	}
	return func(col columns.Column, base unsafe.Pointer, stride uintptr, n int) (int, error) {
		for i := 0; i < n; i++ {
			v := reflect.NewAt(ft, unsafe.Add(base, uintptr(i)*stride)).Elem().Interface()
			if err := col.AppendValue(v); err != nil {
				return i, err
			}
		}
		return n, nil
	}
}
