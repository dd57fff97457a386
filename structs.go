package chnative

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"math/big"
	"math/bits"
	"reflect"
	"runtime"
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

// Select runs query on c and returns every row as a T. Each block is copied straight into the
// returned slice. Strings, []byte, slices and pointers in the rows point into memory allocated
// for each block and never reused: they belong to the caller (a kept string keeps its block's
// text alive).
func Select[T any](ctx context.Context, c Conn, query string, args ...any) ([]T, error) {
	// Blocks are read into chunks of their own size, joined once at the end: growing one slice
	// block by block would copy and zero the rows read so far again and again.
	var chunks [][]T
	total := 0
	err := scanStructs(ctx, c, query, args, func(n int) []T {
		chunk := make([]T, n)
		chunks = append(chunks, chunk)
		total += n
		return chunk
	}, nil)
	if err != nil || len(chunks) == 0 {
		return nil, err
	}
	if len(chunks) == 1 {
		return chunks[0], nil
	}
	out := make([]T, 0, total)
	for i, ch := range chunks {
		out = append(out, ch...)
		chunks[i] = nil // let the chunk go as soon as it is copied
	}
	return out, nil
}

// ScanStructs runs query on c and calls fn with the rows of each block as a slice of T. The slice
// is reused for the next block: copy the structs you keep. What the fields point to (strings,
// []byte, slices, pointers) is allocated for each block and never reused, so copied structs stay
// valid.
func ScanStructs[T any](ctx context.Context, c Conn, query string, args []any, fn func([]T) error) error {
	var buf []T
	return scanStructs(ctx, c, query, args, func(n int) []T {
		if cap(buf) < n {
			buf = make([]T, n)
		}
		buf = buf[:n]
		clear(buf)
		return buf
	}, fn)
}

// scanStructs reads each block into the zeroed n rows that rows returns, then calls fn (if any).
func scanStructs[T any](ctx context.Context, c Conn, query string, args []any, rows func(n int) []T, fn func([]T) error) error {
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
	for blocks.Next() {
		b := blocks.Block()
		if plan == nil {
			if plan, err = planStruct(t, b); err != nil {
				return err
			}
		}
		n := b.Rows()
		if n == 0 {
			continue
		}
		dst := rows(n)
		base := unsafe.Pointer(unsafe.SliceData(dst))
		size := t.Size()
		for _, fc := range plan {
			if err := fc.copy(b.Column(fc.col), base, size, n, fc.offset); err != nil {
				return fmt.Errorf("chnative: column %s into field %s: %w", b.Name(fc.col), fc.field, err)
			}
		}
		if fn != nil {
			if err := fn(dst); err != nil {
				return err
			}
		}
	}
	return blocks.Err()
}

// fieldCopier copies one column of a block into one field of every row.
type fieldCopier struct {
	col    int
	field  string
	offset uintptr
	copy   copyFn
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
	fields, err := structFields(t)
	if err != nil {
		return nil, err
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

// structFields maps the lower-cased column name of each exported field of t (its "ch" tag, else
// its "db" tag, else its name; "-" skips it) to the field. Two fields naming one column are an
// error: one of them would silently stay empty.
func structFields(t reflect.Type) (map[string]reflect.StructField, error) {
	fields := map[string]reflect.StructField{}
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous {
			continue
		}
		k := fieldKey(f)
		if k == "-" {
			continue
		}
		lk := strings.ToLower(k)
		if g, dup := fields[lk]; dup {
			return nil, fmt.Errorf("chnative: fields %s and %s of %v both name column %s", g.Name, f.Name, t, k)
		}
		fields[lk] = f
	}
	return fields, nil
}

// copyFn copies rows [0, n) of col into the field at offset off of n structs of size bytes at base.
type copyFn = func(col columns.Column, base unsafe.Pointer, size uintptr, n int, off uintptr) error

// fixedCopier copies a fixed-width column into fields of the same Go kind.
func fixedCopier[T columns.FixedNum](vals func(columns.Column) []T) copyFn {
	return func(col columns.Column, base unsafe.Pointer, size uintptr, n int, off uintptr) error {
		v := vals(col)[:n]
		for i := range v {
			*(*T)(unsafe.Add(base, uintptr(i)*size+off)) = v[i]
		}
		return nil
	}
}

func valuesOf[T columns.FixedNum](col columns.Column) []T { return col.(*columns.Fixed[T]).Values() }

// stringCopier sets string fields to substrings of one copy of the block's text (one allocation
// per block; a kept string keeps that copy alive).
func stringCopier(col columns.Column, base unsafe.Pointer, size uintptr, n int, off uintptr) error {
	arena, ends := col.(*columns.String).Data()
	text := string(arena[:ends[n-1]])
	prev := 0
	for i, e := range ends[:n] {
		*(*string)(unsafe.Add(base, uintptr(i)*size+off)) = text[prev:e]
		prev = e
	}
	return nil
}

// bytesCopier sets []byte fields to disjoint, capacity-limited parts of one copy of the block's
// text: each belongs to its row's caller.
func bytesCopier(col columns.Column, base unsafe.Pointer, size uintptr, n int, off uintptr) error {
	arena, ends := col.(*columns.String).Data()
	text := bytes.Clone(arena[:ends[n-1]])
	prev := 0
	for i, e := range ends[:n] {
		*(*[]byte)(unsafe.Add(base, uintptr(i)*size+off)) = text[prev:e:e]
		prev = e
	}
	return nil
}

func fixedStringCopier(col columns.Column, base unsafe.Pointer, size uintptr, n int, off uintptr) error {
	c := col.(*columns.FixedString)
	w := c.Size()
	text := string(c.Data()[:n*w])
	for i := 0; i < n; i++ {
		*(*string)(unsafe.Add(base, uintptr(i)*size+off)) = text[i*w : (i+1)*w]
	}
	return nil
}

// enum8Copier sets string fields to the names of Enum8 values.
func enum8Copier(col columns.Column, base unsafe.Pointer, size uintptr, n int, off uintptr) error {
	c := col.(*columns.Enum8)
	var names [256]string
	var seen [256]bool
	for i, v := range c.Values()[:n] {
		k := uint8(v)
		if !seen[k] {
			names[k], seen[k] = c.Name(i), true
		}
		*(*string)(unsafe.Add(base, uintptr(i)*size+off)) = names[k]
	}
	return nil
}

func enum16Copier(col columns.Column, base unsafe.Pointer, size uintptr, n int, off uintptr) error {
	c := col.(*columns.Enum16)
	names := map[int16]string{}
	for i, v := range c.Values()[:n] {
		name, ok := names[v]
		if !ok {
			name = c.Name(i)
			names[v] = name
		}
		*(*string)(unsafe.Add(base, uintptr(i)*size+off)) = name
	}
	return nil
}

// lowCardinalityStringCopier shares one string per dictionary entry (one copy of the dictionary's
// text per block) among the rows that use it.
func lowCardinalityStringCopier(col columns.Column, base unsafe.Pointer, size uintptr, n int, off uintptr) error {
	lc := col.(*columns.LowCardinality)
	dict, ok := lc.Dictionary().(*columns.String)
	if !ok {
		return fmt.Errorf("dictionary %s is not String", lc.Dictionary().Type())
	}
	arena, ends := dict.Data()
	strs := make([]string, len(ends))
	if len(ends) > 0 {
		text := string(arena[:ends[len(ends)-1]])
		prev := 0
		for i, e := range ends {
			strs[i] = text[prev:e]
			prev = e
		}
	}
	for i, k := range lc.Indexes()[:n] {
		*(*string)(unsafe.Add(base, uintptr(i)*size+off)) = strs[k]
	}
	return nil
}

func dateCopier(col columns.Column, base unsafe.Pointer, size uintptr, n int, off uintptr) error {
	c := col.(*columns.Date)
	for i := range n {
		*(*time.Time)(unsafe.Add(base, uintptr(i)*size+off)) = c.Time(i) // in its SetDateLocation zone
	}
	return nil
}

func dateTimeCopier(col columns.Column, base unsafe.Pointer, size uintptr, n int, off uintptr) error {
	c := col.(*columns.DateTime)
	loc := c.Location()
	for i, v := range c.Values()[:n] {
		*(*time.Time)(unsafe.Add(base, uintptr(i)*size+off)) = time.Unix(int64(v), 0).In(loc)
	}
	return nil
}

func uuidCopier(col columns.Column, base unsafe.Pointer, size uintptr, n int, off uintptr) error {
	for i, u := range col.(*columns.UUID).Values()[:n] {
		*(*[16]byte)(unsafe.Add(base, uintptr(i)*size+off)) = u
	}
	return nil
}

// decimalCopier sets columns.Decimal fields from Decimal32 and Decimal64 columns. The big.Ints
// and their words are allocated once per block (never reused), not once per value.
func decimalCopier[T int32 | int64](vals func(columns.Column) ([]T, int)) copyFn {
	return func(col columns.Column, base unsafe.Pointer, size uintptr, n int, off uintptr) error {
		v, scale := vals(col)
		v = v[:n]
		ints := make([]big.Int, n)
		var words []big.Word
		if bits.UintSize == 64 {
			words = make([]big.Word, n)
		}
		for i, x := range v {
			u := &ints[i]
			switch {
			case x == 0:
			case words != nil:
				m := uint64(x)
				if x < 0 {
					m = -m
				}
				words[i] = big.Word(m)
				u.SetBits(words[i : i+1 : i+1])
				if x < 0 {
					u.Neg(u)
				}
			default:
				u.SetInt64(int64(x))
			}
			*(*columns.Decimal)(unsafe.Add(base, uintptr(i)*size+off)) = columns.Decimal{Unscaled: u, Scale: scale}
		}
		return nil
	}
}

// sliceHeader is the layout of a slice.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

// nullableCopier sets *T fields: nil for NULL, else a pointer into one []T per block that the
// inner column's copier fills (a kept pointer keeps that block's values alive).
func nullableCopier(inner copyFn, et reflect.Type) copyFn {
	st := reflect.SliceOf(et)
	esz := et.Size()
	return func(col columns.Column, base unsafe.Pointer, size uintptr, n int, off uintptr) error {
		c := col.(*columns.Nullable)
		vals := reflect.MakeSlice(st, n, n)
		vp := vals.UnsafePointer()
		if err := inner(c.Inner(), vp, esz, n, 0); err != nil {
			return err
		}
		for i, null := range c.Nulls()[:n] {
			p := (*unsafe.Pointer)(unsafe.Add(base, uintptr(i)*size+off))
			if null != 0 {
				*p = nil
			} else {
				*p = unsafe.Add(vp, uintptr(i)*esz)
			}
		}
		runtime.KeepAlive(vals)
		return nil
	}
}

// arrayCopier sets []T fields to capacity-limited parts of one []T per block that the element
// column's copier fills.
func arrayCopier(inner copyFn, et reflect.Type) copyFn {
	st := reflect.SliceOf(et)
	esz := et.Size()
	return func(col columns.Column, base unsafe.Pointer, size uintptr, n int, off uintptr) error {
		c := col.(*columns.Array)
		offs := c.Offsets()[:n]
		total := int(offs[n-1])
		vals := reflect.MakeSlice(st, total, total)
		vp := vals.UnsafePointer()
		if total > 0 {
			if err := inner(c.Elem(), vp, esz, total, 0); err != nil {
				return err
			}
		}
		lo := 0
		for i, o := range offs {
			hi := int(o)
			p := vp
			if hi > lo {
				p = unsafe.Add(vp, uintptr(lo)*esz)
			}
			*(*sliceHeader)(unsafe.Add(base, uintptr(i)*size+off)) = sliceHeader{p, hi - lo, hi - lo}
			lo = hi
		}
		runtime.KeepAlive(vals)
		return nil
	}
}

var (
	timeType    = reflect.TypeFor[time.Time]()
	decimalType = reflect.TypeFor[columns.Decimal]()
	bytesType   = reflect.TypeFor[[]byte]()
)

// copierFor returns the copier of col into fields of type ft: a fast path without reflection per
// row when there is one, else reflectCopier (conversions as database/sql makes them).
func copierFor(col columns.Column, ft reflect.Type) copyFn {
	if fn := fastCopier(col, ft); fn != nil {
		return fn
	}
	return reflectCopier(ft)
}

// fastCopier returns a copier that uses no reflection per row, or nil. Numbers go into fields of
// the same kind (named types included); strings into string or []byte; Nullable(X) into *T and
// Array(X) into []T when X has a fast path into T.
func fastCopier(col columns.Column, ft reflect.Type) copyFn {
	k := ft.Kind()
	if _, ok := col.(*columns.UUID); ok && k == reflect.Array && ft.Len() == 16 && ft.Elem().Kind() == reflect.Uint8 {
		// RFC byte order, as a [16]byte-like type's Scan (uuid.UUID's) would produce it.
		return uuidCopier
	}
	if reflect.PointerTo(ft).Implements(reflect.TypeFor[sql.Scanner]()) {
		return nil
	}
	switch c := col.(type) {
	case *columns.UInt8:
		if k == reflect.Uint8 {
			return fixedCopier(valuesOf[uint8])
		}
	case *columns.UInt16:
		if k == reflect.Uint16 {
			return fixedCopier(valuesOf[uint16])
		}
	case *columns.UInt32:
		if k == reflect.Uint32 {
			return fixedCopier(valuesOf[uint32])
		}
	case *columns.UInt64:
		if k == reflect.Uint64 {
			return fixedCopier(valuesOf[uint64])
		}
	case *columns.Int8:
		if k == reflect.Int8 {
			return fixedCopier(valuesOf[int8])
		}
	case *columns.Int16:
		if k == reflect.Int16 {
			return fixedCopier(valuesOf[int16])
		}
	case *columns.Int32:
		if k == reflect.Int32 {
			return fixedCopier(valuesOf[int32])
		}
	case *columns.Int64:
		if k == reflect.Int64 {
			return fixedCopier(valuesOf[int64])
		}
	case *columns.Float32:
		if k == reflect.Float32 {
			return fixedCopier(valuesOf[float32])
		}
	case *columns.Float64:
		if k == reflect.Float64 {
			return fixedCopier(valuesOf[float64])
		}
	case *columns.String:
		switch {
		case k == reflect.String:
			return stringCopier
		case ft == bytesType:
			return bytesCopier
		}
	case *columns.FixedString:
		if k == reflect.String {
			return fixedStringCopier
		}
	case *columns.Enum8:
		if k == reflect.String {
			return enum8Copier
		}
	case *columns.Enum16:
		if k == reflect.String {
			return enum16Copier
		}
	case *columns.LowCardinality:
		if _, ok := c.Dictionary().(*columns.String); ok && k == reflect.String && !c.Nullable() {
			return lowCardinalityStringCopier
		}
	case *columns.Date:
		if ft == timeType {
			return dateCopier
		}
	case *columns.DateTime:
		if ft == timeType {
			return dateTimeCopier
		}
	case *columns.Decimal32:
		if ft == decimalType {
			return decimalCopier(func(col columns.Column) ([]int32, int) {
				d := col.(*columns.Decimal32)
				return d.Values(), d.Scale()
			})
		}
	case *columns.Decimal64:
		if ft == decimalType {
			return decimalCopier(func(col columns.Column) ([]int64, int) {
				d := col.(*columns.Decimal64)
				return d.Values(), d.Scale()
			})
		}
	case *columns.Nullable:
		if k == reflect.Pointer {
			if inner := fastCopier(c.Inner(), ft.Elem()); inner != nil {
				return nullableCopier(inner, ft.Elem())
			}
		}
	case *columns.Array:
		if k == reflect.Slice && ft != bytesType {
			if inner := fastCopier(c.Elem(), ft.Elem()); inner != nil {
				return arrayCopier(inner, ft.Elem())
			}
		}
	}
	return nil
}

// reflectCopier sets the field from the column's boxed value: conversions as database/sql does
// them (sql.Scanner, pointers for NULL, assignable and convertible types).
func reflectCopier(ft reflect.Type) copyFn {
	scanner := reflect.PointerTo(ft).Implements(reflect.TypeFor[sql.Scanner]())
	return func(col columns.Column, base unsafe.Pointer, size uintptr, n int, off uintptr) error {
		for i := 0; i < n; i++ {
			dst := reflect.NewAt(ft, unsafe.Add(base, uintptr(i)*size+off))
			if ok, err := columns.ScanValue(col, i, dst.Interface()); ok {
				if err != nil {
					return fmt.Errorf("row %d: %w", i, err)
				}
				continue
			}
			if err := assignValue(dst, columns.SQLValue(col, i), scanner); err != nil {
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
	if rv.Kind() == reflect.Pointer && !rv.Type().AssignableTo(el.Type()) {
		// A Nullable element (*T) into a field of another type: its value, or the zero value.
		if rv.IsNil() {
			el.SetZero()
			return nil
		}
		rv = rv.Elem()
		v = rv.Interface()
	}
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
	if el.Kind() == reflect.Slice && rv.Kind() == reflect.Slice {
		// Array(T) into a slice of another element type: element by element, each checked
		// as a single value would be (Array(UInt8) into []uint64, Array(Nullable(T)) into []*U).
		et := el.Type().Elem()
		scan := reflect.PointerTo(et).Implements(reflect.TypeFor[sql.Scanner]())
		out := reflect.MakeSlice(el.Type(), rv.Len(), rv.Len())
		for i := range rv.Len() {
			if err := assignValue(out.Index(i).Addr(), rv.Index(i).Interface(), scan); err != nil {
				return fmt.Errorf("element %d: %w", i, err)
			}
		}
		el.Set(out)
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
