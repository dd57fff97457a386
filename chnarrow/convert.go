package chnarrow

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/chnative/chnative/columns"
)

// A block's column becomes Arrow array data here. Fixed-width values and a String's bytes are
// taken from the column (columns' Take: the array owns that memory from then on, and the
// driver's next block allocates its own), everything else is converted into new Go memory. So
// every array owns its memory outright: nothing the driver does later changes it, and nothing is
// drawn from an Arrow allocator (Release frees nothing early; the garbage collector does).
// A LowCardinality dictionary is copied, never taken: the column may keep it for the next block.

// toData converts col's rows to Arrow data of type dt (arrowType(col)). take says whether
// fixed-width memory may be taken from col instead of copied.
func toData(col columns.Column, dt arrow.DataType, take bool) (arrow.ArrayData, error) {
	n := col.Rows()
	switch c := col.(type) {
	case *columns.Int8:
		return fixedData(dt, n, takeOrCopy(c, take)), nil
	case *columns.Enum8:
		return fixedData(dt, n, takeOrCopy(&c.Fixed, take)), nil
	case *columns.Int16:
		return fixedData(dt, n, takeOrCopy(c, take)), nil
	case *columns.Enum16:
		return fixedData(dt, n, takeOrCopy(&c.Fixed, take)), nil
	case *columns.Int32:
		return fixedData(dt, n, takeOrCopy(c, take)), nil
	case *columns.Int64:
		return fixedData(dt, n, takeOrCopy(c, take)), nil
	case *columns.UInt8:
		return fixedData(dt, n, takeOrCopy(c, take)), nil
	case *columns.UInt16:
		return fixedData(dt, n, takeOrCopy(c, take)), nil
	case *columns.UInt32:
		return fixedData(dt, n, takeOrCopy(c, take)), nil
	case *columns.IPv4:
		return fixedData(dt, n, takeOrCopy(&c.Fixed, take)), nil
	case *columns.UInt64:
		return fixedData(dt, n, takeOrCopy(c, take)), nil
	case *columns.Float32:
		return fixedData(dt, n, takeOrCopy(c, take)), nil
	case *columns.Float64:
		return fixedData(dt, n, takeOrCopy(c, take)), nil
	case *columns.Interval:
		return fixedData(dt, n, takeOrCopy(&c.Fixed, take)), nil
	case *columns.Date32:
		return fixedData(dt, n, takeOrCopy(&c.Fixed, take)), nil
	case *columns.Date:
		return fixedData(dt, n, widen[int32](c.Values())), nil
	case *columns.DateTime:
		return fixedData(dt, n, widen[int64](c.Values())), nil
	case *columns.Time:
		return fixedData(dt, n, widen[int64](c.Values())), nil
	case *columns.DateTime64:
		return fixedData(dt, n, scaleTicks(&c.Fixed, c.Precision(), take)), nil
	case *columns.Time64:
		return fixedData(dt, n, scaleTicks(&c.Fixed, c.Precision(), take)), nil
	case *columns.BFloat16:
		out := make([]float32, n)
		for i, b := range c.Values() {
			out[i] = columns.BFloat16Float32(b)
		}
		return fixedData(dt, n, out), nil
	case *columns.Bool:
		bits := make([]byte, bitmapLen(n))
		for i, b := range c.Values() {
			if b != 0 {
				bits[i>>3] |= 1 << (i & 7)
			}
		}
		return array.NewData(dt, n, []*memory.Buffer{nil, memory.NewBufferBytes(bits)}, nil, 0, 0), nil
	case *columns.Decimal32:
		return decimalData(dt, n, c.Values()), nil
	case *columns.Decimal64:
		return decimalData(dt, n, c.Values()), nil
	case *columns.Decimal128:
		return bytesData(dt, n, append([]byte(nil), c.WireBytes()...)), nil
	case *columns.Decimal256:
		return bytesData(dt, n, append([]byte(nil), c.WireBytes()...)), nil
	case *columns.Wide[columns.Int128]:
		return bytesData(dt, n, append([]byte(nil), c.WireBytes()...)), nil
	case *columns.Wide[columns.UInt128]:
		return bytesData(dt, n, append([]byte(nil), c.WireBytes()...)), nil
	case *columns.Wide[columns.Int256]:
		return bytesData(dt, n, append([]byte(nil), c.WireBytes()...)), nil
	case *columns.Wide[columns.UInt256]:
		return bytesData(dt, n, append([]byte(nil), c.WireBytes()...)), nil
	case *columns.FixedString:
		return bytesData(dt, n, append([]byte(nil), c.Data()...)), nil
	case *columns.UUID:
		return bytesData(dt, n, flatten16(c.Values())), nil
	case *columns.IPv6:
		return bytesData(dt, n, flatten16(c.Values())), nil
	case *columns.String:
		var buf []byte
		var ends []int
		if take {
			buf, ends = c.Take()
		} else {
			buf, ends = c.Data()
			buf = append([]byte(nil), buf...)
		}
		return stringData(dt, c.Type(), buf, ends)
	case *columns.JSON:
		var buf []byte
		ends := make([]int, n)
		for i := range n {
			buf = append(buf, c.Text(i)...)
			ends[i] = len(buf)
		}
		return stringData(dt, c.Type(), buf, ends)
	case *columns.Nothing:
		return array.NewData(arrow.Null, n, []*memory.Buffer{nil}, nil, n, 0), nil
	case *columns.SimpleAggregateFunction:
		return toData(c.Inner(), dt, take)
	case *columns.Geo:
		return toData(c.Inner(), dt, take)
	case *columns.Nested:
		return toData(&c.Array, dt, take)
	case *columns.Nullable:
		inner, err := toData(c.Inner(), dt, take)
		if err != nil {
			return nil, err
		}
		if dt.ID() == arrow.NULL {
			return inner, nil
		}
		defer inner.Release()
		bits, nulls := validity(c.Nulls(), func(b uint8) bool { return b == 0 })
		return withValidity(inner, bits, nulls), nil
	case *columns.Array:
		elem, err := toData(c.Elem(), dt.(*arrow.ListType).Elem(), take)
		if err != nil {
			return nil, err
		}
		defer elem.Release()
		offs, err := offsets32(c.Offsets(), c.Type())
		if err != nil {
			return nil, err
		}
		return array.NewData(dt, n, []*memory.Buffer{nil, offs}, []arrow.ArrayData{elem}, 0, 0), nil
	case *columns.Map:
		mt := dt.(*arrow.MapType)
		keys, err := toData(c.Keys(), mt.KeyType(), take)
		if err != nil {
			return nil, err
		}
		defer keys.Release()
		vals, err := toData(c.Values(), mt.ItemType(), take)
		if err != nil {
			return nil, err
		}
		defer vals.Release()
		offs, err := offsets32(c.Offsets(), c.Type())
		if err != nil {
			return nil, err
		}
		entries := array.NewData(mt.Elem(), keys.Len(), []*memory.Buffer{nil}, []arrow.ArrayData{keys, vals}, 0, 0)
		defer entries.Release()
		return array.NewData(dt, n, []*memory.Buffer{nil, offs}, []arrow.ArrayData{entries}, 0, 0), nil
	case *columns.Tuple:
		st := dt.(*arrow.StructType)
		children := make([]arrow.ArrayData, c.Len())
		for i := range children {
			d, err := toData(c.Elem(i), st.Field(i).Type, take)
			if err != nil {
				releaseAll(children)
				return nil, err
			}
			children[i] = d
		}
		defer releaseAll(children)
		return array.NewData(dt, n, []*memory.Buffer{nil}, children, 0, 0), nil
	case *columns.Variant:
		return variantData(c, dt.(*arrow.DenseUnionType), take)
	case *columns.QBit:
		// The vectors detransposed from their bit planes, row after row.
		var child arrow.ArrayData
		elem := dt.(*arrow.FixedSizeListType).Elem()
		switch c.Elem() {
		case "Float32":
			child = fixedData(elem, n*c.Dim(), c.Float32s(nil))
		case "Float64":
			child = fixedData(elem, n*c.Dim(), c.Float64s(nil))
		case "Int8":
			child = fixedData(elem, n*c.Dim(), c.Int8s(nil))
		case "BFloat16":
			bits := c.BFloat16s(nil)
			out := make([]float32, len(bits))
			for i, b := range bits {
				out[i] = columns.BFloat16Float32(b)
			}
			child = fixedData(elem, n*c.Dim(), out)
		default:
			return nil, &UnsupportedTypeError{Type: c.Type(), Reason: "QBit of " + c.Elem()}
		}
		defer child.Release()
		return array.NewData(dt, n, []*memory.Buffer{nil}, []arrow.ArrayData{child}, 0, 0), nil
	case *columns.LowCardinality:
		dict, err := toData(c.Dictionary(), dt.(*arrow.DictionaryType).ValueType, false)
		if err != nil {
			return nil, err
		}
		defer dict.Release()
		idx := append([]uint32(nil), c.Indexes()...)
		var bits []byte
		nulls := 0
		if c.Nullable() {
			bits, nulls = validity(idx, func(x uint32) bool { return x != 0 })
		}
		d := array.NewData(dt, n, []*memory.Buffer{bufferOrNil(bits), memory.NewBufferBytes(arrow.GetBytes(idx))}, nil, nulls, 0)
		d.SetDictionary(dict)
		return d, nil
	}
	return nil, &UnsupportedTypeError{Type: col.Type(), Reason: unsupportedReason(col)}
}

// takeOrCopy returns c's values: taken from it, or a copy.
func takeOrCopy[T columns.FixedNum](c *columns.Fixed[T], take bool) []T {
	if take {
		return c.Take()
	}
	return append([]T(nil), c.Values()...)
}

// fixedData is Arrow data of n fixed-width values (no NULLs) over vals' memory.
func fixedData[T arrow.FixedWidthType](dt arrow.DataType, n int, vals []T) arrow.ArrayData {
	return array.NewData(dt, n, []*memory.Buffer{nil, memory.NewBufferBytes(arrow.GetBytes(vals))}, nil, 0, 0)
}

// bytesData is Arrow data of n fixed-size values whose bytes are b.
func bytesData(dt arrow.DataType, n int, b []byte) arrow.ArrayData {
	if ext, ok := dt.(arrow.ExtensionType); ok {
		storage := array.NewData(ext.StorageType(), n, []*memory.Buffer{nil, memory.NewBufferBytes(b)}, nil, 0, 0)
		defer storage.Release()
		return array.NewData(dt, n, storage.Buffers(), nil, 0, 0)
	}
	return array.NewData(dt, n, []*memory.Buffer{nil, memory.NewBufferBytes(b)}, nil, 0, 0)
}

// widen converts fixed-width values to a wider type.
func widen[W, N int32 | int64 | uint16 | uint32](vals []N) []W {
	out := make([]W, len(vals))
	for i, v := range vals {
		out[i] = W(v)
	}
	return out
}

// scaleTicks returns ticks of 10^-p seconds in unitOf(p): the same values for p = 0, 3, 6, 9
// (taken when take), else multiplied by 10 or 100 (a DateTime64's range, 1900 .. 2299, keeps
// even nanoseconds within an int64 up to 2262; a value past it saturates).
func scaleTicks(c *columns.Fixed[int64], p int, take bool) []int64 {
	mul := int64(1)
	for d := p; d < unitDigits(unitOf(p)); d++ {
		mul *= 10
	}
	if mul == 1 {
		return takeOrCopy(c, take)
	}
	vals := c.Values()
	out := make([]int64, len(vals))
	for i, v := range vals {
		switch {
		case v > math.MaxInt64/mul:
			out[i] = math.MaxInt64
		case v < math.MinInt64/mul:
			out[i] = math.MinInt64
		default:
			out[i] = v * mul
		}
	}
	return out
}

// decimalData widens Decimal32/64 unscaled values to Arrow's 128-bit decimals (low word first).
func decimalData[T int32 | int64](dt arrow.DataType, n int, vals []T) arrow.ArrayData {
	out := make([]uint64, 2*len(vals))
	for i, v := range vals {
		out[2*i] = uint64(int64(v))
		if v < 0 {
			out[2*i+1] = math.MaxUint64
		}
	}
	return bytesData(dt, n, arrow.GetBytes(out))
}

// flatten16 copies 16-byte values back to back.
func flatten16(vals [][16]byte) []byte {
	out := make([]byte, 0, 16*len(vals))
	for _, v := range vals {
		out = append(out, v[:]...)
	}
	return out
}

// stringData is Arrow utf8 data over buf with the end offsets ends.
func stringData(dt arrow.DataType, typ string, buf []byte, ends []int) (arrow.ArrayData, error) {
	if len(buf) > math.MaxInt32 {
		return nil, &LimitError{Column: typ, What: "string bytes", N: len(buf)}
	}
	offs := make([]int32, len(ends)+1)
	for i, e := range ends {
		offs[i+1] = int32(e)
	}
	return array.NewData(dt, len(ends), []*memory.Buffer{nil, memory.NewBufferBytes(arrow.GetBytes(offs)), memory.NewBufferBytes(buf)}, nil, 0, 0), nil
}

// offsets32 turns ClickHouse's cumulative end offsets into Arrow's n+1 start offsets.
func offsets32(ends []uint64, typ string) (*memory.Buffer, error) {
	if len(ends) > 0 && ends[len(ends)-1] > math.MaxInt32 {
		return nil, &LimitError{Column: typ, What: "list elements", N: int(min(ends[len(ends)-1], math.MaxInt))}
	}
	offs := make([]int32, len(ends)+1)
	for i, e := range ends {
		offs[i+1] = int32(e)
	}
	return memory.NewBufferBytes(arrow.GetBytes(offs)), nil
}

// validity builds a validity bitmap (1 = valid) of vals and counts the NULLs.
func validity[T uint8 | uint32](vals []T, valid func(T) bool) ([]byte, int) {
	bits := make([]byte, bitmapLen(len(vals)))
	nulls := 0
	for i, v := range vals {
		if valid(v) {
			bits[i>>3] |= 1 << (i & 7)
		} else {
			nulls++
		}
	}
	if nulls == 0 {
		return nil, 0
	}
	return bits, nulls
}

// withValidity returns d with the validity bitmap bits (nil: no NULLs).
func withValidity(d arrow.ArrayData, bits []byte, nulls int) arrow.ArrayData {
	bufs := append([]*memory.Buffer{bufferOrNil(bits)}, d.Buffers()[1:]...)
	out := array.NewData(d.DataType(), d.Len(), bufs, d.Children(), nulls, 0)
	if dict := d.Dictionary(); dict != nil {
		out.SetDictionary(dict)
	}
	return out
}

func bufferOrNil(b []byte) *memory.Buffer {
	if b == nil {
		return nil
	}
	return memory.NewBufferBytes(b)
}

func bitmapLen(n int) int { return (n + 7) / 8 }

func releaseAll(ds []arrow.ArrayData) {
	for _, d := range ds {
		if d != nil {
			d.Release()
		}
	}
}

// variantData is a Variant as Arrow's dense union: each row's member (its variant, or the NULL
// member for NULL) and its offset in that member's array, which holds the variant's rows.
func variantData(c *columns.Variant, dt *arrow.DenseUnionType, take bool) (arrow.ArrayData, error) {
	vars := c.Variants()
	disc := c.Discriminators()
	ids := make([]int8, len(disc))
	offs := make([]int32, len(disc))
	counts := make([]int32, len(vars)+1)
	for i, d := range disc {
		k := int(d)
		if k >= len(vars) { // 255: NULL (the columns package checked every other value)
			k = len(vars)
		}
		ids[i] = int8(k)
		offs[i] = counts[k]
		counts[k]++
	}
	children := make([]arrow.ArrayData, len(vars)+1)
	for k, v := range vars {
		if int(counts[k]) != v.Rows() {
			releaseAll(children)
			return nil, fmt.Errorf("variant %s holds %d rows where the discriminators name %d", v.Type(), v.Rows(), counts[k])
		}
		d, err := toData(v, dt.Fields()[k].Type, take)
		if err != nil {
			releaseAll(children)
			return nil, err
		}
		children[k] = d
	}
	nulls := int(counts[len(vars)])
	children[len(vars)] = array.NewData(arrow.Null, nulls, []*memory.Buffer{nil}, nil, nulls, 0)
	defer releaseAll(children)
	return array.NewData(dt, len(disc), []*memory.Buffer{nil, memory.NewBufferBytes(arrow.GetBytes(ids)),
		memory.NewBufferBytes(arrow.GetBytes(offs))}, children, 0, 0), nil
}
