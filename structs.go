package chnative

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"strings"
	"time"
	"unsafe"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/nativeproto"
)

// The struct tier: results read straight into Go structs. Columns are matched to fields once per
// query (by the `ch` tag, else the `db` tag, else the field name, case-insensitively); each row is
// then copied field by field from the typed columns, with no reflection per row for the common
// types.

// Select runs query on c and returns every row as a T.
func Select[T any](ctx context.Context, c Conn, query string, args ...any) ([]T, error) {
	var out []T
	err := ScanStructs(ctx, c, query, args, func(rows []T) error {
		out = append(out, rows...)
		return nil
	})
	return out, err
}

// ScanStructs runs query on c and calls fn with the rows of each block as a slice of T. The slice
// is reused for the next block: copy what you keep.
func ScanStructs[T any](ctx context.Context, c Conn, query string, args []any, fn func([]T) error) error {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Struct {
		return fmt.Errorf("chnative: ScanStructs needs a struct type, not %v", t)
	}
	blocks, err := c.QueryBlocks(ctx, query, args...)
	if err != nil {
		return err
	}
	defer blocks.Close()
	var plan []fieldCopier
	var buf []T
	for blocks.Next() {
		b := blocks.Block()
		if plan == nil {
			if plan, err = planStruct(t, b); err != nil {
				return err
			}
		}
		n := b.Rows()
		if cap(buf) < n {
			buf = make([]T, n)
		}
		buf = buf[:n]
		clear(buf)
		base := unsafe.Pointer(unsafe.SliceData(buf))
		size := t.Size()
		for _, fc := range plan {
			if err := fc.copy(b.Column(fc.col), base, size, n, fc.offset); err != nil {
				return fmt.Errorf("chnative: column %s into field %s: %w", b.Name(fc.col), fc.field, err)
			}
		}
		if err := fn(buf); err != nil {
			return err
		}
	}
	return blocks.Err()
}

// fieldCopier copies one column of a block into one field of every row.
type fieldCopier struct {
	col    int
	field  string
	offset uintptr
	copy   func(col columns.Column, base unsafe.Pointer, size uintptr, n int, off uintptr) error
}

func fieldKey(f reflect.StructField) string {
	for _, tag := range []string{"ch", "db"} {
		if v, ok := f.Tag.Lookup(tag); ok {
			name, _, _ := strings.Cut(v, ",")
			if name == "-" {
				return "-"
			}
			if name != "" {
				return name
			}
		}
	}
	return f.Name
}

// planStruct matches the block's columns to fields of t.
func planStruct(t reflect.Type, b *nativeproto.Block) ([]fieldCopier, error) {
	fields := map[string]reflect.StructField{}
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous {
			continue
		}
		k := fieldKey(f)
		if k == "-" {
			continue
		}
		fields[strings.ToLower(k)] = f
	}
	plan := make([]fieldCopier, 0, b.NumColumns())
	for i := 0; i < b.NumColumns(); i++ {
		f, ok := fields[strings.ToLower(b.Name(i))]
		if !ok {
			return nil, fmt.Errorf("chnative: no field of %v for column %s", t, b.Name(i))
		}
		plan = append(plan, fieldCopier{col: i, field: f.Name, offset: f.Offset, copy: copierFor(b.Column(i), f.Type)})
	}
	return plan, nil
}

// fixedCopier copies a fixed-width column into fields of the same Go type.
func fixedCopier[T columns.FixedNum]() func(columns.Column, unsafe.Pointer, uintptr, int, uintptr) error {
	return func(col columns.Column, base unsafe.Pointer, size uintptr, n int, off uintptr) error {
		vals := col.(*columns.Fixed[T]).Values()
		for i := 0; i < n; i++ {
			*(*T)(unsafe.Add(base, uintptr(i)*size+off)) = vals[i]
		}
		return nil
	}
}

func copierFor(col columns.Column, ft reflect.Type) func(columns.Column, unsafe.Pointer, uintptr, int, uintptr) error {
	switch col.(type) {
	case *columns.UInt8:
		if ft == reflect.TypeFor[uint8]() {
			return fixedCopier[uint8]()
		}
	case *columns.UInt16:
		if ft == reflect.TypeFor[uint16]() {
			return fixedCopier[uint16]()
		}
	case *columns.UInt32:
		if ft == reflect.TypeFor[uint32]() {
			return fixedCopier[uint32]()
		}
	case *columns.UInt64:
		if ft == reflect.TypeFor[uint64]() {
			return fixedCopier[uint64]()
		}
	case *columns.Int8:
		if ft == reflect.TypeFor[int8]() {
			return fixedCopier[int8]()
		}
	case *columns.Int16:
		if ft == reflect.TypeFor[int16]() {
			return fixedCopier[int16]()
		}
	case *columns.Int32:
		if ft == reflect.TypeFor[int32]() {
			return fixedCopier[int32]()
		}
	case *columns.Int64:
		if ft == reflect.TypeFor[int64]() {
			return fixedCopier[int64]()
		}
	case *columns.Float32:
		if ft == reflect.TypeFor[float32]() {
			return fixedCopier[float32]()
		}
	case *columns.Float64:
		if ft == reflect.TypeFor[float64]() {
			return fixedCopier[float64]()
		}
	case *columns.String:
		switch ft {
		case reflect.TypeFor[string]():
			return func(col columns.Column, base unsafe.Pointer, size uintptr, n int, off uintptr) error {
				s := col.(*columns.String)
				for i := 0; i < n; i++ {
					*(*string)(unsafe.Add(base, uintptr(i)*size+off)) = s.String(i)
				}
				return nil
			}
		case reflect.TypeFor[[]byte]():
			return func(col columns.Column, base unsafe.Pointer, size uintptr, n int, off uintptr) error {
				s := col.(*columns.String)
				for i := 0; i < n; i++ {
					*(*[]byte)(unsafe.Add(base, uintptr(i)*size+off)) = append([]byte(nil), s.Bytes(i)...)
				}
				return nil
			}
		}
	case *columns.LowCardinality:
		if ft == reflect.TypeFor[string]() {
			if _, ok := col.(*columns.LowCardinality).Dictionary().(*columns.String); ok {
				return func(col columns.Column, base unsafe.Pointer, size uintptr, n int, off uintptr) error {
					lc := col.(*columns.LowCardinality)
					dict := lc.Dictionary().(*columns.String)
					// One string per dictionary entry, shared by the rows that use it.
					strs := make([]string, dict.Rows())
					for i := range strs {
						strs[i] = dict.String(i)
					}
					idx := lc.Indexes()
					for i := 0; i < n; i++ {
						*(*string)(unsafe.Add(base, uintptr(i)*size+off)) = strs[idx[i]]
					}
					return nil
				}
			}
		}
	case *columns.DateTime:
		if ft == reflect.TypeFor[time.Time]() {
			return func(col columns.Column, base unsafe.Pointer, size uintptr, n int, off uintptr) error {
				c := col.(*columns.DateTime)
				loc := c.Location()
				vals := c.Values()
				for i := 0; i < n; i++ {
					*(*time.Time)(unsafe.Add(base, uintptr(i)*size+off)) = time.Unix(int64(vals[i]), 0).In(loc)
				}
				return nil
			}
		}
	}
	return reflectCopier(ft)
}

// reflectCopier sets the field from the column's boxed value: conversions as database/sql does
// them (sql.Scanner, pointers for NULL, assignable and convertible types).
func reflectCopier(ft reflect.Type) func(columns.Column, unsafe.Pointer, uintptr, int, uintptr) error {
	scanner := reflect.PointerTo(ft).Implements(reflect.TypeFor[sql.Scanner]())
	return func(col columns.Column, base unsafe.Pointer, size uintptr, n int, off uintptr) error {
		for i := 0; i < n; i++ {
			dst := reflect.NewAt(ft, unsafe.Add(base, uintptr(i)*size+off))
			if err := assignValue(dst, driverValue(col.Value(i)), scanner); err != nil {
				return fmt.Errorf("row %d: %w", i, err)
			}
		}
		return nil
	}
}

func assignValue(dst reflect.Value, v any, scanner bool) error {
	if scanner {
		return dst.Interface().(sql.Scanner).Scan(v)
	}
	el := dst.Elem()
	if v == nil {
		el.SetZero()
		return nil
	}
	rv := reflect.ValueOf(v)
	if el.Kind() == reflect.Pointer {
		p := reflect.New(el.Type().Elem())
		if err := assignValue(p, v, reflect.PointerTo(el.Type().Elem()).Implements(reflect.TypeFor[sql.Scanner]())); err != nil {
			return err
		}
		el.Set(p)
		return nil
	}
	if el.Kind() == reflect.Interface {
		el.Set(rv)
		return nil
	}
	if rv.Type().AssignableTo(el.Type()) {
		el.Set(rv)
		return nil
	}
	if rv.Type().ConvertibleTo(el.Type()) && convertibleKinds(rv.Kind(), el.Kind()) {
		c := rv.Convert(el.Type())
		if c.Convert(rv.Type()).Interface() != rv.Interface() {
			return fmt.Errorf("value %v does not fit %v", v, el.Type())
		}
		el.Set(c)
		return nil
	}
	return fmt.Errorf("cannot store %T in %v", v, el.Type())
}

// convertibleKinds allows numeric to numeric and string-like conversions, not number to string.
func convertibleKinds(from, to reflect.Kind) bool {
	num := func(k reflect.Kind) bool { return k >= reflect.Int && k <= reflect.Float64 }
	if num(from) && num(to) {
		return true
	}
	return from == to
}
