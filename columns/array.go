package columns

import (
	"math"
	"reflect"
)

// MaxElements caps the number of elements an Array, Map or similar column declares in one block.
const MaxElements = 1 << 36

// Array is a column of Array(T): cumulative end offsets and one column holding every element.
type Array struct {
	elem Column
	offs []uint64
	gidx []uint32 // element indexes of a gather (gather.go), reused
}

// NewArray returns an empty Array column of elem, which must be empty.
func NewArray(elem Column) *Array { return &Array{elem: elem} }

// Type returns "Array(T)".
func (c *Array) Type() string { return "Array(" + c.elem.Type() + ")" }

// Elem returns the column holding all elements of all rows.
func (c *Array) Elem() Column { return c.elem }

// Offsets returns the cumulative end offsets (borrowed): row i holds elements
// [Offsets()[i-1], Offsets()[i]).
func (c *Array) Offsets() []uint64 { return c.offs }

// Bounds returns the element range of row i.
func (c *Array) Bounds(i int) (lo, hi int) {
	if i > 0 {
		lo = int(c.offs[i-1])
	}
	return lo, int(c.offs[i])
}

// Rows returns the number of arrays.
func (c *Array) Rows() int { return len(c.offs) }

// EndRow closes the current row: elements appended to Elem since the previous row form row i.
func (c *Array) EndRow() { c.offs = append(c.offs, uint64(c.elem.Rows())) }

type sliceValuer interface{ sliceValue(lo, hi int) any }

// Value returns row i as a Go slice of the element's scan type (for example []uint32, []string,
// []*string for Array(Nullable(String))).
func (c *Array) Value(i int) any {
	lo, hi := c.Bounds(i)
	return sliceOf(c.elem, lo, hi)
}

func sliceOf(elem Column, lo, hi int) any {
	if sv, ok := elem.(sliceValuer); ok {
		return sv.sliceValue(lo, hi)
	}
	return genericSlice(elem, lo, hi)
}

// genericSlice builds a slice of elem's Go type from values [lo, hi) by reflection.
func genericSlice(elem Column, lo, hi int) any {
	et := elemGoType(elem)
	s := reflect.MakeSlice(reflect.SliceOf(et), hi-lo, hi-lo)
	for j := lo; j < hi; j++ {
		v := elem.Value(j)
		if v == nil {
			continue // nil pointer / nil any
		}
		rv := reflect.ValueOf(v)
		if et.Kind() == reflect.Pointer && rv.Type() != et {
			p := reflect.New(et.Elem())
			p.Elem().Set(rv)
			rv = p
		}
		s.Index(j - lo).Set(rv)
	}
	return s.Interface()
}

// elemGoType is the Go element type of a slice holding values of elem: *T for Nullable(T), and
// T itself when it is already a pointer (Nullable(Int128): []*big.Int, as from clickhouse-go).
func elemGoType(elem Column) reflect.Type {
	t := elem.ScanType()
	if isNullable(elem) && t.Kind() != reflect.Interface && t.Kind() != reflect.Pointer {
		return reflect.PointerTo(t)
	}
	return t
}

func isNullable(c Column) bool {
	switch x := c.(type) {
	case *Nullable:
		return true
	case *LowCardinality:
		return x.nullable
	case *SimpleAggregateFunction:
		return isNullable(x.inner)
	}
	return false
}

// ScanType returns the slice type Value returns.
func (c *Array) ScanType() reflect.Type { return reflect.SliceOf(elemGoType(c.elem)) }

// sqlType: database/sql gets a slice of the elements' element form (see SQLValue), or Value's
// when that is the same.
func (c *Array) sqlType(bool) reflect.Type {
	if !sqlDiffers(c.elem) {
		return nil
	}
	return reflect.SliceOf(sqlSlotType(c.elem))
}

func (c *Array) sqlValue(i int, _ bool) any {
	lo, hi := c.Bounds(i)
	return sqlSlice(c.elem, lo, hi)
}

// AppendValue appends a Go slice or array (of any element type the element column accepts), or nil
// as an empty array. On error nothing is appended.
func (c *Array) AppendValue(v any) error {
	v, isNil, err := deref(v)
	if err != nil {
		return err
	}
	if isNil {
		c.EndRow()
		return nil
	}
	n := c.elem.Rows()
	if err := appendElems(c.elem, v); err != nil {
		c.elem.Truncate(n)
		if _, ok := err.(*TypeMismatchError); ok && err.(*TypeMismatchError).Column != c.Type() {
			return &TypeMismatchError{Column: c.Type(), GoType: goTypeName(v), Reason: err.Error()}
		}
		return err
	}
	c.EndRow()
	return nil
}

// appendElems appends every element of the slice or array v to elem, using typed fast paths for
// common slices.
func appendElems(elem Column, v any) error {
	switch x := v.(type) {
	case []string:
		if s, ok := elem.(*String); ok {
			for _, e := range x {
				s.Append(e)
			}
			return nil
		}
	case []uint8:
		if f, ok := elem.(*UInt8); ok {
			f.AppendSlice(x)
			return nil
		}
	case []uint32:
		if f, ok := elem.(*UInt32); ok {
			f.AppendSlice(x)
			return nil
		}
	case []uint64:
		if f, ok := elem.(*UInt64); ok {
			f.AppendSlice(x)
			return nil
		}
	case []int64:
		if f, ok := elem.(*Int64); ok {
			f.AppendSlice(x)
			return nil
		}
	case []float64:
		if f, ok := elem.(*Float64); ok {
			f.AppendSlice(x)
			return nil
		}
	case []any:
		for _, e := range x {
			if err := elem.AppendValue(e); err != nil {
				return err
			}
		}
		return nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return &TypeMismatchError{Column: "Array(" + elem.Type() + ")", GoType: goTypeName(v), Reason: "not a slice or array"}
	}
	for j := 0; j < rv.Len(); j++ {
		if err := elem.AppendValue(rv.Index(j).Interface()); err != nil {
			return err
		}
	}
	return nil
}

// AppendDefault appends an empty array.
func (c *Array) AppendDefault() { c.EndRow() }

// Truncate keeps the first n rows.
func (c *Array) Truncate(n int) {
	c.offs = c.offs[:n]
	if n == 0 {
		c.elem.Truncate(0)
		return
	}
	c.elem.Truncate(int(c.offs[n-1]))
}

// Reset removes all values.
func (c *Array) Reset() {
	c.offs = c.offs[:0]
	c.elem.Reset()
}

// ReadPrefix reads the element type's prefix.
func (c *Array) ReadPrefix(r *Reader) error { return c.elem.ReadPrefix(r) }

// WritePrefix writes the element type's prefix.
func (c *Array) WritePrefix(w *Writer) { c.elem.WritePrefix(w) }

// Read replaces the values with rows arrays from r.
func (c *Array) Read(r *Reader, rows int) error {
	total, err := readOffsets(r, c, &c.offs, rows)
	if err == nil {
		err = c.elem.Read(r, total)
	}
	if err != nil {
		c.Reset()
		return err
	}
	return nil
}

// readOffsets reads rows cumulative offsets into *offs and checks they never go backwards.
func readOffsets(r *Reader, col Column, offs *[]uint64, rows int) (int, error) {
	var err error
	*offs, err = readFixed(r, (*offs)[:0], rows)
	if err != nil {
		*offs = (*offs)[:0]
		return 0, decodeErr(col, "offsets: %v", err)
	}
	var prev uint64
	for i, o := range *offs {
		if o < prev {
			*offs = (*offs)[:0]
			return 0, decodeErr(col, "offset %d of row %d goes backwards from %d", o, i, prev)
		}
		prev = o
	}
	if prev > MaxElements {
		*offs = (*offs)[:0]
		return 0, decodeErr(col, "%d elements exceed the limit %d", prev, uint64(MaxElements))
	}
	return int(prev), nil
}

// Write appends the offsets and the elements.
func (c *Array) Write(w *Writer) { c.writePieces(w, math.MaxInt, func() {}) }

// writePieces is Write in pieces of about n bytes, flush called after each (WritePieces).
func (c *Array) writePieces(w *Writer, n int, flush func()) {
	writeFixedPieces(w, c.offs, n, flush)
	WritePieces(c.elem, w, n, flush)
}
