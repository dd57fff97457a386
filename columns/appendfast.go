package columns

import "time"

// Appending without conversion: the driver's insert path appends each value a caller passes, and
// most are of the column's own Go type (uint64 into UInt64, string into String). Append appends
// those without AppendValue's conversions.
//
// It tests the exact column types rather than asking an interface, and is one call: it runs once a
// value, and an interface call (with the check that the column is not a type embedding a Fixed, see
// exact) or a second call each cost measurably more a value (BenchmarkInsertAppendBoxedRow). The
// commonest column types (UInt64, Int64, String, Float64) are tested first, each by a comparison
// of the interface's type word, and the others by a type switch, which Go compiles to a jump
// table indexed by the type's hash (a load and an indirect jump): the row-wise Batch.Append arms
// of the bench suite gain, the types behind the first four pay a little (BenchmarkAppend/other),
// and a chain of comparisons for every type made the last ones much slower. BENCHMARKS.md has the
// figures. It matches only the plain types: *Fixed[uint8] is not *Bool. DateTime64 from a
// time.Time and LowCardinality from a string (the Inserter's event) go straight to AppendTime and
// AppendString, which AppendValue would call after its own type test.

// Append appends v to c: without conversion when v has the exact Go type c stores (uint64 to
// UInt64, string and []byte to String, ...: the plain numeric columns and String), else by
// c.AppendValue(v), which converts. What it appends, and its errors, are AppendValue's.
func Append(c Column, v any) error {
	if x, ok := c.(*UInt64); ok {
		if v, ok := v.(uint64); ok {
			x.Append(v)
			return nil
		}
		return x.AppendValue(v)
	}
	if x, ok := c.(*Int64); ok {
		if v, ok := v.(int64); ok {
			x.Append(v)
			return nil
		}
		return x.AppendValue(v)
	}
	if x, ok := c.(*String); ok {
		switch v := v.(type) {
		case string:
			x.Append(v)
			return nil
		case []byte:
			x.AppendBytes(v)
			return nil
		}
		return x.AppendValue(v)
	}
	if x, ok := c.(*Float64); ok {
		if v, ok := v.(float64); ok {
			x.Append(v)
			return nil
		}
		return x.AppendValue(v)
	}
	switch x := c.(type) {
	case *UInt32:
		if v, ok := v.(uint32); ok {
			x.Append(v)
			return nil
		}
	case *Int32:
		if v, ok := v.(int32); ok {
			x.Append(v)
			return nil
		}
	case *UInt8:
		if v, ok := v.(uint8); ok {
			x.Append(v)
			return nil
		}
	case *UInt16:
		if v, ok := v.(uint16); ok {
			x.Append(v)
			return nil
		}
	case *Int8:
		if v, ok := v.(int8); ok {
			x.Append(v)
			return nil
		}
	case *Int16:
		if v, ok := v.(int16); ok {
			x.Append(v)
			return nil
		}
	case *Float32:
		if v, ok := v.(float32); ok {
			x.Append(v)
			return nil
		}
	case *DateTime64:
		if v, ok := v.(time.Time); ok {
			return x.AppendTime(v)
		}
	case *LowCardinality:
		if v, ok := v.(string); ok {
			if _, ok := x.dict.(*String); ok { // else AppendValue converts (FixedString, ...)
				return x.AppendString(v)
			}
		}
	}
	return c.AppendValue(v)
}
