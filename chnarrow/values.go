package chnarrow

import (
	"fmt"
	"math"
	"reflect"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/chnative/chnative/columns"
)

// checkConvertible refuses, before any row, an Arrow type goValue has no Go value for.
func checkConvertible(dt arrow.DataType) error {
	switch t := dt.(type) {
	case arrow.ExtensionType:
		return checkConvertible(t.StorageType())
	case *arrow.DictionaryType:
		return checkConvertible(t.ValueType)
	case arrow.ListLikeType:
		return checkConvertible(t.Elem())
	case arrow.UnionType:
		for _, f := range t.Fields() {
			if err := checkConvertible(f.Type); err != nil {
				return err
			}
		}
		return nil
	case *arrow.StructType:
		for _, f := range t.Fields() {
			if err := checkConvertible(f.Type); err != nil {
				return err
			}
		}
		return nil
	}
	switch dt.ID() {
	case arrow.NULL, arrow.BOOL, arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8,
		arrow.UINT16, arrow.UINT32, arrow.UINT64, arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64,
		arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW, arrow.BINARY, arrow.LARGE_BINARY,
		arrow.BINARY_VIEW, arrow.FIXED_SIZE_BINARY, arrow.DATE32, arrow.DATE64, arrow.TIMESTAMP,
		arrow.TIME32, arrow.TIME64, arrow.DURATION, arrow.DECIMAL128, arrow.DECIMAL256,
		arrow.DECIMAL32, arrow.DECIMAL64:
		return nil
	}
	return &UnsupportedTypeError{Type: dt.String(), Reason: "no ClickHouse column takes it here; cast it in Arrow first"}
}

var anyType = reflect.TypeFor[any]()

// goValue returns row i of arr as the Go value a ClickHouse column's AppendValue takes: nil for
// NULL, Go numbers, string, []byte, time.Time (timestamps in their zone, dates at UTC midnight),
// time.Duration (time and duration), columns.Decimal, []any for lists and structs, a Go map for
// maps.
func goValue(arr arrow.Array, i int) (any, error) {
	if arr.IsNull(i) {
		return nil, nil
	}
	switch a := arr.(type) {
	case *array.Null: // every row NULL (it has no validity bitmap to say so)
		return nil, nil
	case *array.Boolean:
		return a.Value(i), nil
	case *array.Int8:
		return a.Value(i), nil
	case *array.Int16:
		return a.Value(i), nil
	case *array.Int32:
		return a.Value(i), nil
	case *array.Int64:
		return a.Value(i), nil
	case *array.Uint8:
		return a.Value(i), nil
	case *array.Uint16:
		return a.Value(i), nil
	case *array.Uint32:
		return a.Value(i), nil
	case *array.Uint64:
		return a.Value(i), nil
	case *array.Float16:
		return a.Value(i).Float32(), nil
	case *array.Float32:
		return a.Value(i), nil
	case *array.Float64:
		return a.Value(i), nil
	case *array.String:
		return a.Value(i), nil
	case *array.LargeString:
		return a.Value(i), nil
	case *array.StringView:
		return a.Value(i), nil
	case *array.Binary:
		return a.Value(i), nil
	case *array.LargeBinary:
		return a.Value(i), nil
	case *array.BinaryView:
		return a.Value(i), nil
	case *array.FixedSizeBinary:
		return a.Value(i), nil
	case *array.Date32:
		return a.Value(i).ToTime(), nil
	case *array.Date64:
		return a.Value(i).ToTime(), nil
	case *array.Timestamp:
		ts := a.DataType().(*arrow.TimestampType)
		loc, err := ts.GetZone()
		if err != nil {
			return nil, err
		}
		if loc == nil {
			loc = time.UTC
		}
		return a.Value(i).ToTime(ts.Unit).In(loc), nil
	case *array.Time32:
		return durationOf(int64(a.Value(i)), a.DataType().(*arrow.Time32Type).Unit)
	case *array.Time64:
		return durationOf(int64(a.Value(i)), a.DataType().(*arrow.Time64Type).Unit)
	case *array.Duration:
		return durationOf(int64(a.Value(i)), a.DataType().(*arrow.DurationType).Unit)
	case *array.Decimal128:
		return columns.Decimal{Unscaled: a.Value(i).BigInt(), Scale: int(a.DataType().(*arrow.Decimal128Type).Scale)}, nil
	case *array.Decimal256:
		return columns.Decimal{Unscaled: a.Value(i).BigInt(), Scale: int(a.DataType().(*arrow.Decimal256Type).Scale)}, nil
	case *array.Dictionary:
		return goValue(a.Dictionary(), a.GetValueIndex(i))
	case array.ExtensionArray:
		return goValue(a.Storage(), i)
	case *array.Map:
		lo, hi := a.ValueOffsets(i)
		if lo == hi {
			return nil, nil // an empty map
		}
		var m reflect.Value
		for j := int(lo); j < int(hi); j++ {
			k, err := goValue(a.Keys(), j)
			if err != nil {
				return nil, err
			}
			v, err := goValue(a.Items(), j)
			if err != nil {
				return nil, err
			}
			if b, ok := k.([]byte); ok {
				k = string(b) // a map key must be comparable
			}
			kt := reflect.TypeOf(k)
			if kt == nil || !kt.Comparable() {
				return nil, fmt.Errorf("map key %v cannot be a Go map key", k)
			}
			if !m.IsValid() {
				m = reflect.MakeMapWithSize(reflect.MapOf(kt, anyType), int(hi-lo))
			} else if kt != m.Type().Key() {
				return nil, fmt.Errorf("map keys of types %s and %s", m.Type().Key(), kt)
			}
			val := reflect.New(anyType).Elem()
			if v != nil {
				val.Set(reflect.ValueOf(v))
			}
			m.SetMapIndex(reflect.ValueOf(k), val)
		}
		return m.Interface(), nil
	case array.ListLike:
		lo, hi := a.ValueOffsets(i)
		out := make([]any, 0, hi-lo)
		for j := lo; j < hi; j++ {
			v, err := goValue(a.ListValues(), int(j))
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case array.Union:
		// A member of a dense union (Query's Variant) or a sparse one: the value with the
		// member's name as its Variant type; the NULL member's rows are NULL.
		k := a.ChildID(i)
		name := a.DataType().(arrow.UnionType).Fields()[k].Name
		j := i
		if du, ok := a.(*array.DenseUnion); ok {
			j = int(du.ValueOffset(i))
		}
		v, err := goValue(a.Field(k), j)
		if err != nil || v == nil || name == variantNull {
			return nil, err
		}
		return columns.VariantValue{Type: name, Value: v}, nil
	case *array.Struct:
		out := make([]any, a.NumField())
		for f := range out {
			v, err := goValue(a.Field(f), i)
			if err != nil {
				return nil, err
			}
			out[f] = v
		}
		return out, nil
	}
	return nil, &UnsupportedTypeError{Type: arr.DataType().String(), Reason: "no ClickHouse column takes it here; cast it in Arrow first"}
}

// durationOf is v units as a time.Duration, or an error past its ±292 years.
func durationOf(v int64, u arrow.TimeUnit) (any, error) {
	mul := int64(u.Multiplier())
	if mul > 1 && (v > math.MaxInt64/mul || v < math.MinInt64/mul) {
		return nil, fmt.Errorf("%d%s does not fit a time.Duration", v, u)
	}
	return time.Duration(v * mul), nil
}
