package columns

import (
	"errors"
	"reflect"
	"slices"
)

// Gathering rebuilds a column from rows of another column of the same type: the last step of
// decoding sparse data (the non-default rows, spread over the block) and replicated data (the
// distinct rows, repeated). The types the server sends that way copy their storage directly; the
// others fall back to boxing each value through Value and AppendValue.

// rowGatherer is implemented by columns that gather without boxing values.
type rowGatherer interface {
	// gatherRows replaces the contents with row idx[i] of src for each i, or the type's default
	// value where idx[i] is noRow. src has the column's type and is not the column itself; every
	// index is below src.Rows(). errNoGather asks for the boxing fallback. Memory beyond the
	// rows' own size (rowBytes) is charged to r's budget before it is allocated.
	gatherRows(src Column, idx []uint32, r *Reader) error
}

// errNoGather is returned by a gatherRows that cannot handle src's storage.
var errNoGather = errors.New("columns: no direct gather")

// gather replaces dst's contents with the rows idx selects from src (noRow: the default). On error
// dst is left empty. What the rows take is charged to r's budget before it is allocated: the
// rows' own size here (rowBytes), their strings and array elements where those are gathered.
func gather(dst, src Column, idx []uint32, r *Reader) error {
	if err := r.Charge("expanded rows", uint64(len(idx))*rowBytes(dst)); err != nil {
		return decodeErr(dst, "expanding rows: %v", err)
	}
	if g, ok := dst.(rowGatherer); ok {
		err := g.gatherRows(src, idx, r)
		if err == nil {
			return nil
		}
		dst.Reset()
		if err != errNoGather {
			if _, ok := err.(*DecodeError); ok {
				return err
			}
			return decodeErr(dst, "expanding rows: %v", err)
		}
	}
	return gatherValues(dst, src, idx, r)
}

// gatherValues gathers through Value and AppendValue, one boxed value per row. What each value
// holds beyond its row (valueBytes: a Dynamic's string, an array's elements) is charged to r's
// budget before it is appended: a replicated Dynamic column repeats its values as any other.
func gatherValues(dst, src Column, idx []uint32, r *Reader) error {
	dst.Reset()
	for i, k := range idx {
		if k == noRow {
			dst.AppendDefault()
			continue
		}
		v := src.Value(int(k))
		if err := r.Charge("expanded values", valueBytes(v, 0)); err != nil {
			dst.Reset()
			return decodeErr(dst, "expanding row %d: %v", i, err)
		}
		if err := dst.AppendValue(v); err != nil {
			dst.Reset()
			return decodeErr(dst, "expanding row %d: %v", i, err)
		}
	}
	return nil
}

// gatherSlice returns dst (reused) holding src[k] for each k of idx, the zero value for noRow.
func gatherSlice[T any](dst, src []T, idx []uint32) []T {
	dst = growLen(dst, len(idx))
	var z T
	for i, k := range idx {
		if k == noRow {
			dst[i] = z
		} else {
			dst[i] = src[k]
		}
	}
	return dst
}

func (c *Fixed[T]) gatherRows(src Column, idx []uint32, r *Reader) error {
	s, ok := src.(interface{ Values() []T })
	if !ok {
		return errNoGather
	}
	c.data = gatherSlice(c.data, s.Values(), idx)
	return nil
}

func (c *Wide[T]) gatherRows(src Column, idx []uint32, r *Reader) error {
	s, ok := src.(interface{ Values() []T })
	if !ok {
		return errNoGather
	}
	c.data = gatherSlice(c.data, s.Values(), idx)
	return nil
}

func (c *UUID) gatherRows(src Column, idx []uint32, r *Reader) error {
	s, ok := src.(*UUID)
	if !ok {
		return errNoGather
	}
	c.data = gatherSlice(c.data, s.data, idx)
	return nil
}

func (c *IPv6) gatherRows(src Column, idx []uint32, r *Reader) error {
	s, ok := src.(*IPv6)
	if !ok {
		return errNoGather
	}
	c.data = gatherSlice(c.data, s.data, idx)
	return nil
}

func (c *String) gatherRows(src Column, idx []uint32, r *Reader) error {
	s, ok := src.(*String)
	if !ok {
		return errNoGather
	}
	total := 0
	for _, k := range idx {
		if k != noRow {
			total += s.ends[k] - s.start(int(k))
			if total > MaxExpandedBytes {
				return &LimitError{What: "expanded String bytes", Value: uint64(total), Max: MaxExpandedBytes}
			}
		}
	}
	if err := r.Charge("expanded String bytes", uint64(total)); err != nil {
		return err
	}
	c.buf = slices.Grow(c.buf[:0], total)
	c.ends = growLen(c.ends, len(idx))
	for i, k := range idx {
		if k != noRow {
			c.buf = append(c.buf, s.buf[s.start(int(k)):s.ends[k]]...)
		}
		c.ends[i] = len(c.buf)
	}
	return nil
}

func (c *FixedString) gatherRows(src Column, idx []uint32, r *Reader) error {
	s, ok := src.(*FixedString)
	if !ok || s.n != c.n {
		return errNoGather
	}
	if total := uint64(len(idx)) * uint64(c.n); total > MaxExpandedBytes {
		return &LimitError{What: "expanded FixedString bytes", Value: total, Max: MaxExpandedBytes}
	}
	n := c.n
	c.data = growLen(c.data, len(idx)*n)
	for i, k := range idx {
		d := c.data[i*n : (i+1)*n]
		if k == noRow {
			clear(d)
		} else {
			copy(d, s.data[int(k)*n:(int(k)+1)*n])
		}
	}
	return nil
}

func (c *Nothing) gatherRows(_ Column, idx []uint32, _ *Reader) error {
	c.rows = len(idx)
	return nil
}

func (c *Nullable) gatherRows(src Column, idx []uint32, r *Reader) error {
	s, ok := src.(*Nullable)
	if !ok {
		return errNoGather
	}
	if err := gather(c.inner, s.inner, idx, r); err != nil {
		return err
	}
	c.nulls = growLen(c.nulls, len(idx))
	for i, k := range idx {
		if k == noRow {
			c.nulls[i] = 1
		} else {
			c.nulls[i] = s.nulls[k]
		}
	}
	return nil
}

func (c *SimpleAggregateFunction) gatherRows(src Column, idx []uint32, r *Reader) error {
	s, ok := src.(*SimpleAggregateFunction)
	if !ok {
		return errNoGather
	}
	return gather(c.inner, s.inner, idx, r)
}

func (c *Geo) gatherRows(src Column, idx []uint32, r *Reader) error {
	s, ok := src.(*Geo)
	if !ok || s.kind != c.kind {
		return errNoGather
	}
	return gather(c.inner, s.inner, idx, r)
}

func (c *Tuple) gatherRows(src Column, idx []uint32, r *Reader) error {
	s, ok := src.(*Tuple)
	if !ok || len(s.elems) != len(c.elems) {
		return errNoGather
	}
	c.rows = 0
	for j, e := range c.elems {
		if err := gather(e, s.elems[j], idx, r); err != nil {
			c.Reset()
			return err
		}
	}
	c.rows = len(idx)
	return nil
}

// gatherOffsets sets offs (reused) to the offsets of the rows idx selects from src's offsets
// (an empty row for noRow) and returns in elems (reused) the element indexes those rows hold, in
// order.
func gatherOffsets(offs, src []uint64, idx, elems []uint32, r *Reader) ([]uint64, []uint32, error) {
	bounds := func(k uint32) (uint64, uint64) {
		if k == 0 {
			return 0, src[0]
		}
		return src[k-1], src[k]
	}
	total := uint64(0)
	for _, k := range idx {
		if k != noRow {
			lo, hi := bounds(k)
			total += hi - lo
			if total > MaxExpandedRows {
				return offs, elems, &LimitError{What: "expanded array elements", Value: total, Max: MaxExpandedRows}
			}
		}
	}
	if err := r.Charge("expanded array elements", total*4); err != nil {
		return offs, elems, err
	}
	elems = slices.Grow(elems[:0], int(total))
	offs = growLen(offs, len(idx))
	for i, k := range idx {
		if k != noRow {
			lo, hi := bounds(k)
			for e := lo; e < hi; e++ {
				elems = append(elems, uint32(e))
			}
		}
		offs[i] = uint64(len(elems))
	}
	return offs, elems, nil
}

// arrayOf returns the Array of an Array or Nested column.
func arrayOf(col Column) *Array {
	switch c := col.(type) {
	case *Array:
		return c
	case *Nested:
		return &c.Array
	}
	return nil
}

func (c *Array) gatherRows(src Column, idx []uint32, r *Reader) error {
	s := arrayOf(src)
	if s == nil {
		return errNoGather
	}
	offs, elems, err := gatherOffsets(c.offs, s.offs, idx, c.gidx, r)
	c.gidx = elems
	if err != nil {
		return err
	}
	if err := gather(c.elem, s.elem, elems, r); err != nil {
		c.Reset()
		return err
	}
	c.offs = offs
	return nil
}

func (c *Map) gatherRows(src Column, idx []uint32, r *Reader) error {
	s, ok := src.(*Map)
	if !ok {
		return errNoGather
	}
	offs, elems, err := gatherOffsets(c.offs, s.offs, idx, c.gidx, r)
	c.gidx = elems
	if err != nil {
		return err
	}
	if err := gather(c.keys, s.keys, elems, r); err != nil {
		c.Reset()
		return err
	}
	if err := gather(c.vals, s.vals, elems, r); err != nil {
		c.Reset()
		return err
	}
	c.offs = offs
	return nil
}

// gatherRows copies src's dictionary and gathers the indexes. A default row gets a dictionary
// entry holding the default value (NULL, entry 0, for the nullable form).
func (c *LowCardinality) gatherRows(src Column, idx []uint32, r *Reader) error {
	s, ok := src.(*LowCardinality)
	if !ok || s.nullable != c.nullable || s.dict.Type() != c.dict.Type() {
		return errNoGather
	}
	c.all = growLen(c.all, s.dict.Rows())
	for i := range c.all {
		c.all[i] = uint32(i)
	}
	if err := gather(c.dict, s.dict, c.all, r); err != nil {
		return err
	}
	c.idx = growLen(c.idx, len(idx))
	def := noRow
	for i, k := range idx {
		if k != noRow {
			c.idx[i] = s.idx[k]
			continue
		}
		if def == noRow {
			if c.nullable {
				if c.dict.Rows() == 0 {
					c.dict.AppendDefault() // the NULL slot
				}
				def = 0
			} else {
				def = uint32(c.dict.Rows())
				c.dict.AppendDefault()
			}
		}
		c.idx[i] = def
	}
	c.lookupOK = false
	return nil
}

// rowBytes is the memory one row of col takes in its own storage, without what it refers to
// (string bytes, array elements, a Nullable's or a Tuple's nested columns, which are charged
// where they are gathered): what sparse and replicated data charge per row they expand to.
func rowBytes(col Column) uint64 {
	switch c := col.(type) {
	case *String:
		return 8 // an end offset
	case *FixedString:
		return uint64(c.n)
	case *Nullable:
		return 1
	case *Array, *Map, *Nested:
		return 8 // an offset
	case *LowCardinality:
		return 4 // an index
	case *Tuple, *Nothing, *Geo, *SimpleAggregateFunction:
		return 0
	case *UUID, *IPv6:
		return 16
	case interface{ elemSize() int }:
		return uint64(c.elemSize())
	}
	return 16 // a boxed value, at least
}

// valueBytes estimates the memory a boxed value holds beyond a fixed 16 bytes: the bytes of
// strings and byte slices, and the elements of slices, arrays and maps, recursively (depth is
// bounded by the type's nesting, MaxTypeDepth).
func valueBytes(v any, depth int) uint64 {
	switch x := v.(type) {
	case nil:
		return 0
	case string:
		return 16 + uint64(len(x))
	case []byte:
		return 24 + uint64(len(x))
	case DynamicValue:
		return 16 + uint64(len(x.Type)) + valueBytes(x.Value, depth+1)
	case VariantValue:
		return 16 + uint64(len(x.Type)) + valueBytes(x.Value, depth+1)
	}
	if depth > MaxTypeDepth {
		return 16
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		n := uint64(24)
		switch et := rv.Type().Elem(); et.Kind() {
		case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
			reflect.Float32, reflect.Float64:
			return n + uint64(rv.Len())*uint64(et.Size())
		}
		for i := range rv.Len() {
			n += valueBytes(rv.Index(i).Interface(), depth+1)
		}
		return n
	case reflect.Map:
		n := uint64(48)
		it := rv.MapRange()
		for it.Next() {
			n += valueBytes(it.Key().Interface(), depth+1) + valueBytes(it.Value().Interface(), depth+1)
		}
		return n
	}
	return 16
}
