package structmap

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/fieldslice"
	"github.com/chnative/chnative/nativeproto"
)

// ReadPlan copies the columns of result blocks into the fields of one struct type. It is made
// from a query's first block and used for each of its blocks; the zero ReadPlan is not planned.
// It is a value (no allocation of its own per query).
type ReadPlan struct {
	fields []fieldCopier // one per column, in column order
}

// fieldCopier copies one column of a block into one field of every row.
type fieldCopier struct {
	col   int
	typ   string // the column's type in the block planned from: copy is for it alone
	field reflect.StructField
	copy  columns.FieldCopyFunc
}

// PlanRead matches the columns of b to the fields of the struct type t: every column needs a
// field; fields without a column stay zero.
func PlanRead(t reflect.Type, b *nativeproto.Block) (ReadPlan, error) {
	fields, err := columnFields(t)
	if err != nil {
		return ReadPlan{}, err
	}
	p := ReadPlan{fields: make([]fieldCopier, 0, b.NumColumns())}
	for i := 0; i < b.NumColumns(); i++ {
		f, ok := fields[strings.ToLower(b.Name(i))]
		if !ok {
			return ReadPlan{}, fmt.Errorf("chnative: no field of %v for column %s", t, b.Name(i))
		}
		p.fields = append(p.fields, fieldCopier{col: i, typ: b.Type(i), field: f, copy: copierFor(b.Column(i), f.Type)})
	}
	return p, nil
}

// Planned reports whether p was made by PlanRead.
func (p ReadPlan) Planned() bool { return p.fields != nil }

// CopyBlock copies rows [0, len(dst)) of b into dst, whose elements are zero, of the struct type
// p was planned for. What the fields point to is allocated here and never reused: it belongs
// to the caller.
//
// A copier is chosen for the column type of the block p was planned from, and stores values of
// that type's size: b must have the same columns, of the same types, with the rows asked for.
// That is checked first (the result's header check makes it so for every block of a query);
// should a copier still store a value its field cannot take, fieldslice's own check panics
// before the store, and that is returned as an error here.
func CopyBlock[T any](p ReadPlan, b *nativeproto.Block, dst []T) (err error) {
	n := len(dst)
	if b.NumColumns() != len(p.fields) {
		return fmt.Errorf("chnative: a block of %d columns for a struct plan of %d", b.NumColumns(), len(p.fields))
	}
	for _, fc := range p.fields {
		col := b.Column(fc.col)
		if t := col.Type(); t != fc.typ {
			return fmt.Errorf("chnative: column %s is %s in this block, %s in the block its struct plan was made from", b.Name(fc.col), t, fc.typ)
		}
		if col.Rows() < n {
			return fmt.Errorf("chnative: column %s has %d rows, %d asked for", b.Name(fc.col), col.Rows(), n)
		}
	}
	defer func() {
		if r := recover(); r != nil {
			fe, ok := r.(*fieldslice.Error)
			if !ok {
				panic(r)
			}
			err = fmt.Errorf("chnative: struct copy refused: %w", fe)
		}
	}()
	for _, fc := range p.fields {
		if err := fc.copy(b.Column(fc.col), fieldslice.Of(dst, fc.field), n); err != nil {
			return fmt.Errorf("chnative: column %s into field %s: %w", b.Name(fc.col), fc.field.Name, err)
		}
	}
	return nil
}

var decimalType = reflect.TypeFor[columns.Decimal]()

// copierFor returns the copier of col into fields of type ft: the column's fast path when it
// has one, else reflectCopier (conversions as database/sql makes them).
func copierFor(col columns.Column, ft reflect.Type) columns.FieldCopyFunc {
	if fn := fastCopier(col, ft); fn != nil {
		return fn
	}
	return reflectCopier(ft)
}

// fastCopier returns the column's copier that uses no reflection per row, or nil. A field whose
// pointer is a Scan-er is left to Scan, except that a UUID goes into a [16]byte-like type (its
// RFC byte order is what a uuid.UUID's Scan would produce) and a Decimal column into
// columns.Decimal (whose Scan stores what the column's copier stores, one allocation per value
// where the copier makes one per block).
func fastCopier(col columns.Column, ft reflect.Type) columns.FieldCopyFunc {
	if isScanner(ft) && !(ft.Kind() == reflect.Array && ft.Len() == 16 && ft.Elem().Kind() == reflect.Uint8) && ft != decimalType {
		return nil
	}
	switch c := col.(type) {
	case columns.NestedFieldCopier:
		inner, et, ok := c.NestedField(ft)
		if !ok {
			return nil
		}
		if ic := fastCopier(inner, et); ic != nil {
			return c.NestedFieldCopyFunc(ft, ic)
		}
	case columns.FieldCopier:
		return c.FieldCopyFunc(ft)
	}
	return nil
}

// reflectCopier sets the field from the column's boxed value: conversions as database/sql does
// them (Scan-ers, pointers for NULL, assignable and convertible types).
func reflectCopier(ft reflect.Type) columns.FieldCopyFunc {
	scan := isScanner(ft)
	return func(col columns.Column, dst fieldslice.Slice, n int) error {
		for i := 0; i < n; i++ {
			p := dst.Addr(i, ft)
			if ok, err := columns.ScanValue(col, i, p.Interface()); ok {
				if err != nil {
					return fmt.Errorf("row %d: %w", i, err)
				}
				continue
			}
			if err := assignValue(p, columns.SQLValue(col, i), scan); err != nil {
				return fmt.Errorf("row %d: %w", i, err)
			}
		}
		return nil
	}
}
