package columns

// Appending without conversion: the driver's insert path appends each value a caller passes, and
// most are of the column's own Go type (uint64 into UInt64, string into String). Append appends
// those without AppendValue's conversions.
//
// It switches on the exact column types rather than asking an interface, and is one call: it runs
// once a value, and an interface call (with the check that the column is not a type embedding a
// Fixed, see exact) or a second call each cost some 2-4 ns a value more
// (BenchmarkInsertAppendBoxedRow, 3 values a row). The type switch matches only the plain types:
// *Fixed[uint8] is not *Bool.

// Append appends v to c: without conversion when v has the exact Go type c stores (uint64 to
// UInt64, string and []byte to String, ...: the plain numeric columns and String), else by
// c.AppendValue(v), which converts. What it appends, and its errors, are AppendValue's.
func Append(c Column, v any) error {
	switch c := c.(type) {
	case *UInt64:
		if x, ok := v.(uint64); ok {
			c.Append(x)
			return nil
		}
	case *Int64:
		if x, ok := v.(int64); ok {
			c.Append(x)
			return nil
		}
	case *Float64:
		if x, ok := v.(float64); ok {
			c.Append(x)
			return nil
		}
	case *String:
		switch x := v.(type) {
		case string:
			c.Append(x)
			return nil
		case []byte:
			c.AppendBytes(x)
			return nil
		}
	case *UInt32:
		if x, ok := v.(uint32); ok {
			c.Append(x)
			return nil
		}
	case *Int32:
		if x, ok := v.(int32); ok {
			c.Append(x)
			return nil
		}
	case *UInt8:
		if x, ok := v.(uint8); ok {
			c.Append(x)
			return nil
		}
	case *UInt16:
		if x, ok := v.(uint16); ok {
			c.Append(x)
			return nil
		}
	case *Int8:
		if x, ok := v.(int8); ok {
			c.Append(x)
			return nil
		}
	case *Int16:
		if x, ok := v.(int16); ok {
			c.Append(x)
			return nil
		}
	case *Float32:
		if x, ok := v.(float32); ok {
			c.Append(x)
			return nil
		}
	}
	return c.AppendValue(v)
}
